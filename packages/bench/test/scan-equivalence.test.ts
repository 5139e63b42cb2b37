// The optimised scan (candidate pairs, deferred evidence, reused pair scores) against the
// straightforward one (`exhaustive`: every pair, every channel, all evidence) on generated agents
// over a generated import graph: same risks and levels for every pair it reports, evidence for
// every advisory, and pairs left out only when they are clear and below the light channels' bound.
import { describe, expect, it } from 'vitest';
import { createPairCache, scanAirspace, type Agent, type AnyChannel, type ImportGraphService, type ScanResult } from '@airspace/core';
import { dependencyChannel } from '@airspace/channel-dependency';
import { overlapChannel } from '@airspace/channel-overlap';
import { treeChannel } from '@airspace/channel-tree';
import { prng } from '../src/generate.js';
import { generateAgents, graphService, type GraphEdges } from '../src/scan-graph.js';

/** A layered random import graph: 8 packages × 6 directories × 10 files; imports mostly within a package. */
function graph(seed: number): GraphEdges {
  const rand = prng(seed);
  const files: string[] = [];
  for (let p = 0; p < 8; p++) for (let d = 0; d < 6; d++) for (let f = 0; f < 10; f++) files.push(`packages/p${p}/src/d${d}/m${f}.ts`);
  const kinds = ['value', 'value', 'value', 'type-only', 'dynamic', 're-export'];
  const edges: [string, string, string[]][] = [];
  for (const from of files) {
    const pkg = from.split('/')[1]!;
    const local = files.filter((f) => f.split('/')[1] === pkg);
    const fanOut = 1 + Math.floor(rand() * 4);
    const seen = new Set<string>();
    for (let k = 0; k < fanOut; k++) {
      const to = rand() < 0.85 ? local[Math.floor(rand() * local.length)]! : files[Math.floor(rand() * files.length)]!;
      if (to === from || seen.has(to)) continue;
      seen.add(to);
      edges.push([from, to, [kinds[Math.floor(rand() * kinds.length)]!]]);
    }
  }
  return { files, edges };
}

const channels = (): AnyChannel[] => [overlapChannel(), treeChannel(), dependencyChannel()];
/** The generated graph is small: hubs from 4 importers. Options reach channels only through the scan. */
const hubs4 = { dependency: { hubMinDegree: 4 } };
const pairOf = (l: { a: string; b: string }) => `${l.a}|${l.b}`;

/** What a front end reads of a reported pair (evidence only for advisories: clear links may defer it). */
function reported(result: ScanResult) {
  return result.links.map((l) => ({
    pair: pairOf(l),
    risk: l.risk,
    level: l.level,
    channels: l.channels.map((c) => [c.channel, c.risk]),
    ...(l.level !== 'clear' ? { evidence: l.evidence } : {}),
  }));
}

describe('the optimised scan agrees with the straightforward one', () => {
  const g = graph(3);
  const importGraph = graphService(g);
  const agents = generateAgents(g.files, 40, 8, 11);

  it('same risks, levels and advisories; pairs left out only when clear and below the light bound', async () => {
    const every = await scanAirspace(
      agents,
      { channels: channels(), services: { importGraph }, now: 0 },
      { exhaustive: true, channelOptions: hubs4 },
    );
    const fast = await scanAirspace(agents, { channels: channels(), services: { importGraph }, now: 0 }, { channelOptions: hubs4 });
    expect(every.links).toHaveLength((40 * 39) / 2);
    expect(fast.links.length).toBeLessThan(every.links.length);
    expect(fast.counts).toEqual(every.counts);
    expect(fast.advisories).toEqual(every.advisories);
    expect(fast.advisories.length).toBeGreaterThan(0);
    const byPair = new Map(every.links.map((l) => [pairOf(l), l]));
    for (const link of fast.links) {
      const full = byPair.get(pairOf(link))!;
      expect({ pair: pairOf(link), risk: link.risk, level: link.level }).toEqual({
        pair: pairOf(full),
        risk: full.risk,
        level: full.level,
      });
      expect(link.channels.map((c) => c.risk)).toEqual(full.channels.map((c) => c.risk));
      expect(link.evidence).toEqual(full.evidence);
      expect(link.deferredEvidence).toBeUndefined();
    }
    // Evidence deferred below a floor: clear links keep their risk, advisories their evidence.
    const deferred = await scanAirspace(
      agents,
      { channels: channels(), services: { importGraph }, now: 0 },
      { evidenceMinRisk: 0.5, channelOptions: hubs4 },
    );
    expect(deferred.advisories).toEqual(every.advisories);
    expect(deferred.links.map((l) => [l.risk, l.level])).toEqual(fast.links.map((l) => [l.risk, l.level]));
    const later = deferred.links.filter((l) => l.deferredEvidence);
    expect(later.length).toBeGreaterThan(0);
    for (const l of later) expect(l.level).toBe('clear');
    // Tree (0.007) and dependency (0.006) are light: together below τ_TA, so a pair no overlap names is clear.
    const bound = 1 - (1 - 0.007) * (1 - 0.006);
    const kept = new Set(fast.links.map(pairOf));
    const dropped = every.links.filter((l) => !kept.has(pairOf(l)));
    expect(dropped.length).toBeGreaterThan(0);
    for (const l of dropped) {
      expect(l.level).toBe('clear');
      expect(l.risk).toBeLessThanOrEqual(bound);
      expect(l.channels.find((c) => c.channel === 'overlap')!.risk).toBe(0);
    }
  });

  it('with heavier weights the dependency channel names its own candidates (shared reach), and still agrees', async () => {
    const weights = { dependency: 0.6 };
    const every = await scanAirspace(
      agents,
      { channels: channels(), services: { importGraph }, now: 0 },
      { exhaustive: true, weights, channelOptions: hubs4 },
    );
    const fast = await scanAirspace(
      agents,
      { channels: channels(), services: { importGraph }, now: 0 },
      { weights, channelOptions: hubs4 },
    );
    expect(fast.counts).toEqual(every.counts);
    expect(fast.advisories).toEqual(every.advisories);
    const byPair = new Map(every.links.map((l) => [pairOf(l), l]));
    for (const link of fast.links) expect(link.risk).toBe(byPair.get(pairOf(link))!.risk);
    const kept = new Set(fast.links.map(pairOf));
    // Left out: no shared file and no import path within reach either way — every channel but tree is 0.
    for (const l of every.links.filter((x) => !kept.has(pairOf(x)))) {
      expect(l.channels.filter((c) => c.channel !== 'tree').every((c) => c.risk === 0)).toBe(true);
    }
  });

  it("a rescan after one agent changed scores only that agent's pairs and equals a fresh scan", async () => {
    const calls: string[] = [];
    const counted = (): AnyChannel[] =>
      channels().map((c) => ({
        ...c,
        score: (a: Agent, b: Agent, ctx: never) => (calls.push(`${a.id}|${b.id}`), c.score(a, b, ctx)),
        ...(c.risk ? { risk: (a: Agent, b: Agent, ctx: never) => (calls.push(`${a.id}|${b.id}`), c.risk!(a, b, ctx)) } : {}),
      }));
    const set = counted();
    const cache = createPairCache();
    const first = await scanAirspace(
      agents,
      { channels: set, services: { importGraph }, now: 0 },
      { reuse: cache, reuseKey: 'graph-3', channelOptions: hubs4 },
    );
    expect(cache.size).toBe(first.links.length);
    const moved = agents[7]!;
    const changed = agents.map((a) =>
      a === moved
        ? { ...a, files: [...a.files, { ...agents[8]!.files[0]!, baseRanges: [[1, 400]] as const, newRanges: [[1, 400]] as const }] }
        : a,
    );
    calls.length = 0;
    const again = await scanAirspace(
      changed,
      { channels: set, services: { importGraph }, now: 0 },
      { reuse: cache, reuseKey: 'graph-3', channelOptions: hubs4 },
    );
    expect(calls.length).toBeGreaterThan(0);
    for (const pair of calls) expect(pair.split('|')).toContain(moved.id);
    const fresh = await scanAirspace(changed, { channels: channels(), services: { importGraph }, now: 0 }, { channelOptions: hubs4 });
    expect(reported(again)).toEqual(reported(fresh));
    expect(again.advisories).toEqual(fresh.advisories);
    expect(again.counts).toEqual(fresh.counts);
    // A new graph (reuseKey) scores every pair again.
    calls.length = 0;
    await scanAirspace(
      changed,
      { channels: set, services: { importGraph }, now: 0 },
      { reuse: cache, reuseKey: 'graph-4', channelOptions: hubs4 },
    );
    expect(calls.some((p) => !p.split('|').includes(moved.id))).toBe(true);
  });

  it("an agent's overlay read around its changed files equals the overlay read everywhere", async () => {
    // Agent 0 changes one file so that it imports a file of another package; the overlay says
    // which file changed (`changed`), or not (every file is then read from the view).
    const base = importGraph.base;
    const mine = agents[0]!.files[0]!.path;
    const target = agents[5]!.files[0]!.path;
    const overlay = (withChanged: boolean) => {
      const view = {
        importsOf: (p: string) => (p === mine ? [...base.importsOf(p), target] : base.importsOf(p)),
        importersOf: (p: string) => (p === target ? [...base.importersOf(p), mine] : base.importersOf(p)),
        importKinds: (from: string, to: string) => (from === mine && to === target ? ['value'] : base.importKinds!(from, to)),
        filePaths: base.filePaths!,
        ...(withChanged ? { changed: new Set([mine]) } : {}),
      };
      return { base, forAgent: (id: string) => (id === agents[0]!.id ? view : base) };
    };
    const scan = (service: ImportGraphService) =>
      scanAirspace(
        agents.slice(0, 10),
        { channels: channels(), services: { importGraph: service }, now: 0 },
        { exhaustive: true, channelOptions: hubs4 },
      );
    const around = await scan(overlay(true));
    const everywhere = await scan(overlay(false));
    const plain = await scan(importGraph);
    const dep = (r: ScanResult) => r.links.map((l) => l.channels.find((c) => c.channel === 'dependency')!);
    expect(dep(around)).toEqual(dep(everywhere));
    expect(dep(around)).not.toEqual(dep(plain));
  });

  it('a graph without a file list (nothing numbered up front) couples the same files', async () => {
    const { filePaths: _filePaths, ...structural } = importGraph.base;
    const scan = (service: ImportGraphService) =>
      scanAirspace(
        agents.slice(0, 12),
        { channels: channels(), services: { importGraph: service }, now: 0 },
        { exhaustive: true, channelOptions: { dependency: { hubFactor: 1 } } },
      );
    const listed = await scan(importGraph);
    const unlisted = await scan({ base: structural, forAgent: () => structural });
    const dep = (r: ScanResult) => r.links.map((l) => l.channels.find((c) => c.channel === 'dependency')!);
    expect(dep(unlisted)).toEqual(dep(listed));
    expect(dep(listed).some((c) => c.risk > 0)).toBe(true);
  });
});
