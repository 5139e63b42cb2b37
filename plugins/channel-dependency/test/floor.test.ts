// Runs cut at a floor (what a pair is first scored on) hold exactly a full run's entries at or
// above it; a pair whose risk or evidence lies below the floor is scored on full runs.
import { describe, expect, test } from 'vitest';
import type { Agent, ChannelContext, FileEdit, ImportGraphService } from '@airspace/core';
import { dependencyChannel, type DependencyOptions } from '../src/dependency.js';
import { buildGraphIndex, chainTo, numbering, reach, slotOf } from '../src/reach.js';

/** A deterministic pseudo-random number generator (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('reach with a floor', () => {
  test('keeps exactly the full run’s files at or above the floor, with the same values and paths', () => {
    const rand = prng(5);
    const files = Array.from({ length: 400 }, (_, i) => `f${i}.ts`);
    const factors = [1, 1, 0.6, 0.25];
    const out = new Map(files.map((f) => [f, [] as { to: string; factor: number }[]]));
    for (const f of files)
      for (let k = 0; k < 3; k++)
        out.get(f)!.push({ to: files[Math.floor(rand() * files.length)]!, factor: factors[Math.floor(rand() * factors.length)]! });
    const { num, baseCount } = numbering(files);
    const hubs = new Set(files.filter(() => rand() < 0.05));
    const g = buildGraphIndex(
      num,
      baseCount,
      (p) => ({ paths: out.get(p)!.map((s) => s.to), factor: out.get(p)!.map((s) => s.factor) }),
      (p) => (hubs.has(p) ? 0.3 : 1),
    );
    for (let trial = 0; trial < 10; trial++) {
      const sources = Array.from({ length: 6 }, () => ({ id: Math.floor(rand() * files.length), weight: 0.5 + rand() / 2 }));
      const full = reach(sources, g, 0.7, 6);
      for (const floor of [0.02, 0.1, 0.3]) {
        const cut = reach(sources, g, 0.7, 6, undefined, floor);
        const expected = [...full.reached].filter((_, i) => full.value[i]! >= floor);
        expect([...cut.reached]).toEqual(expected);
        expect(expected.length).toBeLessThan(full.reached.length);
        for (let i = 0; i < cut.reached.length; i++) {
          const j = slotOf(full, cut.reached[i]!);
          expect(cut.value[i]).toBe(full.value[j]);
          expect(chainTo(cut, i, num.paths)).toEqual(chainTo(full, j, num.paths));
        }
      }
    }
  });
});

const edit = (path: string, weight = 1): FileEdit => ({ path, weight, status: 'modified', baseRanges: [[1, 1]], newRanges: [[1, 1]] });
const agent = (id: string, files: FileEdit[]): Agent => ({ id, label: id, startedAt: 0, committedWork: 0, files });

/** An import graph from `[importer, imported, kind]` edges. */
function service(edges: readonly (readonly [string, string, string])[]) {
  const files = [...new Set(edges.flatMap(([a, b]) => [a, b]))];
  const view = {
    importsOf: (p: string) => edges.filter(([a]) => a === p).map(([, b]) => b),
    importersOf: (p: string) => edges.filter(([, b]) => b === p).map(([a]) => a),
    importKinds: (a: string, b: string) => edges.filter(([x, y]) => x === a && y === b).map(([, , k]) => k),
    filePaths: () => files,
  };
  return { base: view, forAgent: () => view };
}

async function both(a: Agent, b: Agent, importGraph: ImportGraphService) {
  const channel = dependencyChannel();
  const c: ChannelContext<DependencyOptions, 'importGraph'> = {
    options: channel.defaultOptions!,
    now: 0,
    logger: { debug() {}, info() {}, warn() {} },
    services: { importGraph },
  };
  const prepared = await channel.prepare!([a, b], c);
  const risk = channel.risk!(a, b, { ...c, prepared });
  const score = channel.score(a, b, { ...c, prepared });
  return { risk: (await risk).risk, score: await score };
}

describe('a pair below the first floor', () => {
  // a.ts → t1 → t2 → b.ts, every import type-only: 0.7² · 0.25³ ≈ 0.0077, far below the floor.
  const weak = [
    ['a.ts', 't1.ts', 'type-only'],
    ['t1.ts', 't2.ts', 'type-only'],
    ['t2.ts', 'b.ts', 'type-only'],
  ] as const;

  test('gets its exact risk and evidence from full runs', async () => {
    const { risk, score } = await both(agent('a', [edit('a.ts')]), agent('b', [edit('b.ts')]), service(weak));
    const expected = 0.7 ** 2 * 0.25 ** 3;
    expect(risk).toBeCloseTo(expected, 12);
    expect(score.risk).toBe(risk);
    expect(score.evidence.map((e) => e.chain)).toEqual([['a.ts', 't1.ts', 't2.ts', 'b.ts']]);
  });

  test('a third evidence item below the floor is still kept', async () => {
    // Two strong couplings (a direct import; one file between) and the weak chain.
    const edges = [...weak, ['a1.ts', 'b.ts', 'value'], ['a2.ts', 'm.ts', 'value'], ['m.ts', 'b.ts', 'value']] as const;
    const { risk, score } = await both(
      agent('a', [edit('a.ts'), edit('a1.ts'), edit('a2.ts')]),
      agent('b', [edit('b.ts')]),
      service(edges),
    );
    expect(risk).toBe(1);
    expect(score.evidence.map((e) => [e.chain, e.risk])).toEqual([
      [['a1.ts', 'b.ts'], 1],
      [['a2.ts', 'm.ts', 'b.ts'], expect.closeTo(0.7, 12)],
      [['a.ts', 't1.ts', 't2.ts', 'b.ts'], expect.closeTo(0.7 ** 2 * 0.25 ** 3, 12)],
    ]);
  });
});

describe('a walk that fails', () => {
  test('leaves nothing behind for the next agent’s walk', async () => {
    // a.ts → t1 → t2 → b.ts. Agent bad's view throws when its walk reaches t2.ts (after t1.ts).
    const edges = [
      ['a.ts', 't1.ts', 'value'],
      ['t1.ts', 't2.ts', 'value'],
      ['t2.ts', 'b.ts', 'value'],
      ['x.ts', 't1.ts', 'value'],
    ] as const;
    const plain = service(edges);
    const broken = {
      ...plain.base,
      importsOf: (p: string) => {
        if (p === 't2.ts') throw new Error('unreadable t2.ts');
        return plain.base.importsOf(p);
      },
    };
    const importGraph = { base: plain.base, forAgent: (id: string) => (id === 'bad' ? broken : plain.base) };
    const channel = dependencyChannel();
    const c: ChannelContext<DependencyOptions, 'importGraph'> = {
      options: channel.defaultOptions!,
      now: 0,
      logger: { debug() {}, info() {}, warn() {} },
      services: { importGraph },
    };
    const bad = agent('bad', [edit('x.ts')]);
    const a = agent('a', [edit('a.ts')]);
    const b = agent('b', [edit('b.ts')]);
    const prepared = await channel.prepare!([bad, a, b], c);
    const failed = await channel.score(bad, b, { ...c, prepared });
    expect(failed.problems?.map((p) => p.code)).toContain('GRAPH_FAILED');
    const after = await channel.score(a, b, { ...c, prepared });
    expect(after.risk).toBeCloseTo(0.7 ** 2, 12);
    expect(after.evidence[0]!.chain).toEqual(['a.ts', 't1.ts', 't2.ts', 'b.ts']);
  });
});
