/**
 * Plugins in their own threads: every hazard a plugin can bring (a call that never answers, a
 * slow call, process.exit, a stray rejection, stdout writes, mutating its inputs) costs that
 * plugin's score, with a problem naming it; the scan completes and the other channels go on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defineChannel, scanAirspace, type Agent, type ChannelBudget, type ScanResult } from '@airspace/core';
import { agent, edit } from '@airspace/core/builders';
import { loadPlugins, type PluginLoadResult } from '../src/plugins.js';

let dir: string;
let loaded: PluginLoadResult | undefined;
let output: string;
const sink = () =>
  new Writable({
    write(chunk, _enc, done) {
      output += String(chunk);
      done();
    },
  });
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airspace-isolation-'));
  output = '';
});
afterEach(async () => {
  await loaded?.dispose();
  loaded = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Each plugin scores 0.5 with evidence unless its hazard strikes first. */
const plugin = (id: string, body: string) =>
  `export default { id: '${id}', defaultWeight: 1, async score(a, b, ctx) { ${body}; return { risk: 0.5, evidence: [{ message: a.id + ' and ' + b.id }] }; } };`;

/** A built-in stand-in that always runs in-process. */
const same = defineChannel({
  id: 'same',
  defaultWeight: 1,
  meta: { precision: 'line' },
  score: (a, b) => ({ risk: 0.9, evidence: [{ message: `${a.id} and ${b.id}` }] }),
});
const agents = (): Agent[] => ['a', 'b', 'c'].map((id) => agent(id, [edit('src/x.ts')]));

async function scanWith(id: string, body: string, budget: ChannelBudget = { channelMs: 2000, callMs: 300 }): Promise<ScanResult> {
  writeFileSync(join(dir, `${id}.mjs`), plugin(id, body));
  loaded = await loadPlugins([`./${id}.mjs`], dir, { output: sink() });
  expect(loaded.problems).toEqual([]);
  expect(loaded.channels.map((c) => c.isolation)).toEqual(['worker']);
  return scanAirspace(agents(), { channels: [same, ...loaded.channels.map((c) => c.channel)] }, { budgets: { [id]: budget } });
}

const risksOf = (result: ScanResult, id: string) => result.links.map((l) => l.channels.find((c) => c.channel === id)?.risk);
const codes = (result: ScanResult) => result.problems.map((p) => p.code);

describe('a plugin in a worker thread', () => {
  it('scores like an in-process channel when it behaves', async () => {
    const result = await scanWith('fine', '');
    expect(risksOf(result, 'fine')).toEqual([0.5, 0.5, 0.5]);
    expect(result.links[0]!.channels.find((c) => c.channel === 'fine')!.evidence).toEqual([{ message: 'a and b' }]);
    expect(result.problems).toEqual([]);
  });

  it('answers every pair as in-process does, though pairs travel in batches', async () => {
    const body = `export default { id: 'pairwise', defaultWeight: 1, prepare: (agents) => agents.length,
      score(a, b, ctx) { const n = Number(a.id.slice(1)) * 31 + Number(b.id.slice(1)); if (n % 5 === 0) throw new Error('no ' + a.id + b.id);
        return { risk: (n % 7) / 7, evidence: n % 7 ? [{ message: a.id + '×' + b.id + ' of ' + ctx.prepared }] : [] }; } };`;
    writeFileSync(join(dir, 'pairwise.mjs'), body);
    const many = Array.from({ length: 40 }, (_, i) => agent(`a${String(i).padStart(2, '0')}`, [edit('x.ts')]));
    const inProcess = await loadPlugins(['./pairwise.mjs'], dir, { isolation: 'in-process' });
    loaded = await loadPlugins(['./pairwise.mjs'], dir, { output: sink() });
    const scan = (r: PluginLoadResult) =>
      scanAirspace(many, { channels: r.channels.map((c) => c.channel) }, { budgets: { pairwise: { channelMs: 60_000, callMs: 10_000 } } });
    const [expected, actual] = [await scan(inProcess), await scan(loaded)];
    expect(actual.links).toHaveLength(780);
    expect(actual.links.map((l) => [l.a, l.b, l.risk, l.evidence])).toEqual(expected.links.map((l) => [l.a, l.b, l.risk, l.evidence]));
    expect(actual.problems).toEqual(expected.problems);
  });

  it('a score that never resolves is cut per call; the scan completes', async () => {
    const result = await scanWith('never', 'await new Promise(() => {})');
    expect(risksOf(result, 'never')).toEqual([0, 0, 0]);
    expect(risksOf(result, 'same')).toEqual([0.9, 0.9, 0.9]);
    expect(result.problems.filter((p) => p.code === 'CHANNEL_TIMED_OUT')).toMatchObject([{ channel: 'never' }]);
  });

  it('a busy loop is cut too: its thread is terminated, and the next scan starts a new one', async () => {
    const result = await scanWith('spins', "if (a.id === 'a' && b.id === 'b') for (;;);");
    expect(risksOf(result, 'spins')).toEqual([0, 0, 0]);
    expect(codes(result)).toContain('CHANNEL_TIMED_OUT');
    const channel = loaded!.channels[0]!.channel;
    await loaded!.ready(); // the new thread's start is not charged to the next scan
    const again = await scanAirspace(
      [agent('b', [edit('x')]), agent('c', [edit('x')])],
      { channels: [channel] },
      { budgets: { spins: { channelMs: 2000, callMs: 300 } } },
    );
    expect(again.links[0]!.risk).toBe(0.5);
  });

  it('a 30-second score is held to the budget, not thirty seconds per pair', async () => {
    const started = Date.now();
    const result = await scanWith('slow', 'await new Promise((r) => setTimeout(r, 30000))', { channelMs: 500, callMs: 400 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(risksOf(result, 'slow')).toEqual([0, 0, 0]);
    expect(result.problems.find((p) => p.channel === 'slow')?.message).toMatch(/"slow" did not answer within 400 ms/);
  });

  it('process.exit in a plugin ends only its thread: a problem names it, the scan completes', async () => {
    const result = await scanWith('quits', 'process.exit(0)');
    expect(risksOf(result, 'same')).toEqual([0.9, 0.9, 0.9]);
    expect(risksOf(result, 'quits')).toEqual([0, 0, 0]);
    const exited = result.problems.filter((p) => p.code === 'PLUGIN_EXITED');
    expect(exited).toHaveLength(1);
    expect(exited[0]!.message).toMatch(/Plugin \.\/quits\.mjs called process\.exit\(0\) while channel "quits" was scoring a × b/);
    expect(result.counts.resolution).toBe(3);
  });

  it('an unhandled rejection is a problem naming the plugin, and the plugin keeps scoring', async () => {
    const result = await scanWith('rejects', "Promise.reject(new Error('forgot to await'))");
    expect(risksOf(result, 'rejects')).toEqual([0.5, 0.5, 0.5]);
    const stray = result.problems.filter((p) => p.code === 'PLUGIN_UNHANDLED_REJECTION');
    expect(stray.length).toBeGreaterThan(0);
    expect(stray[0]).toMatchObject({ channel: 'rejects' });
    expect(stray[0]!.message).toMatch(/Plugin \.\/rejects\.mjs: .*forgot to await/);
  });

  it("console.log and process.stdout writes go to the host's output, never to stdout", async () => {
    const stdout = vi.spyOn(process.stdout, 'write');
    try {
      const result = await scanWith('chatty', "console.log('hello from', a.id); process.stdout.write('raw write\\n')");
      expect(risksOf(result, 'chatty')).toEqual([0.5, 0.5, 0.5]);
      await vi.waitFor(() => expect(output).toContain('raw write'));
      expect(output).toContain('hello from a');
      expect(stdout.mock.calls.map((c) => String(c[0])).join('')).not.toMatch(/hello from|raw write/);
    } finally {
      stdout.mockRestore();
    }
  });

  it('cannot change the agents it is given', async () => {
    const result = await scanWith('hacks', "a.id = 'hacked'");
    expect(result.agents.map((x) => x.id)).toEqual(['a', 'b', 'c']);
    expect(result.links.map((l) => `${l.a}-${l.b}`)).toEqual(['a-b', 'a-c', 'b-c']);
    expect(result.problems.find((p) => p.channel === 'hacks')?.message).toMatch(/read only|read-only|Cannot assign/);
  });

  it('a plugin that exhausts its heap loses its thread, not the process', async () => {
    writeFileSync(join(dir, 'hog.mjs'), plugin('hog', 'const keep = []; for (;;) keep.push(new Array(1e5).fill(a.id))'));
    loaded = await loadPlugins(['./hog.mjs'], dir, { output: sink(), maxHeapMb: 32 });
    const result = await scanAirspace(
      agents(),
      { channels: [same, loaded.channels[0]!.channel] },
      { budgets: { hog: { channelMs: 20_000, callMs: 20_000 } } },
    );
    expect(risksOf(result, 'same')).toEqual([0.9, 0.9, 0.9]);
    expect(risksOf(result, 'hog')).toEqual([0, 0, 0]);
    expect(result.problems.filter((p) => p.channel === 'hog')).toMatchObject([{ code: 'PLUGIN_EXITED' }]);
    expect(result.problems.find((p) => p.channel === 'hog')!.message).toMatch(/Plugin \.\/hog\.mjs .*memory/i);
  });

  it('a plugin whose huge arrays make V8 abort loses its process, not the host: a named problem, and scans go on', async () => {
    // One 80 MB array at a time: past the thread's heap limit V8 aborts the process the thread
    // is in, which the heap limit alone cannot prevent.
    writeFileSync(join(dir, 'huge.mjs'), plugin('huge', 'const keep = []; for (;;) keep.push(new Array(1e7).fill(a.id))'));
    loaded = await loadPlugins(['./huge.mjs'], dir, { output: sink(), maxHeapMb: 64 });
    const budgets = { huge: { channelMs: 20_000, callMs: 20_000 } };
    const result = await scanAirspace(agents(), { channels: [same, loaded.channels[0]!.channel] }, { budgets });
    expect(risksOf(result, 'same')).toEqual([0.9, 0.9, 0.9]);
    expect(risksOf(result, 'huge')).toEqual([0, 0, 0]);
    expect(result.problems.filter((p) => p.channel === 'huge')).toMatchObject([{ code: 'PLUGIN_EXITED' }]);
    expect(result.problems.find((p) => p.channel === 'huge')!.message).toMatch(/Plugin \.\/huge\.mjs .*aborted.*memory/i);
    // The next scan starts the plugin anew, and it fails the same way: a problem again, not a crash.
    await loaded.ready();
    const again = await scanAirspace(agents(), { channels: [same, loaded.channels[0]!.channel] }, { budgets });
    expect(again.problems.filter((p) => p.channel === 'huge').map((p) => p.code)).toEqual(['PLUGIN_EXITED']);
  }, 60_000);

  it('a module that never finishes loading is a problem, not a hang', async () => {
    writeFileSync(join(dir, 'stuck.mjs'), 'await new Promise(() => {}); export default {};');
    writeFileSync(join(dir, 'ok.mjs'), plugin('ok', ''));
    loaded = await loadPlugins(['./stuck.mjs', './ok.mjs'], dir, { output: sink(), loadTimeoutMs: 3000 });
    expect(loaded.channels.map((c) => c.channel.id)).toEqual(['ok']);
    expect(loaded.problems).toMatchObject([{ code: 'PLUGIN_NOT_LOADED' }]);
    expect(loaded.problems[0]!.message).toContain('./stuck.mjs');
  });

  it('a plugin that requires services reaches them from its thread: methods, handles, agents, promises', async () => {
    writeFileSync(
      join(dir, 'needs.mjs'),
      `export default { id: 'needs', defaultWeight: 1, requires: ['git', 'importGraph'],
        prepare: (agents, ctx) => ctx.services.importGraph.forAgent(agents[0].id).importsOf('src/x.ts'),
        async score(a, b, ctx) {
          const paired = await ctx.services.git.pairEdits(a, b, 'src/x.ts');
          const view = ctx.services.importGraph.forAgent(b.id);
          return { risk: ctx.services.git.risk, evidence: [{ message: [paired.same, paired.base, view.importsOf('src/x.ts').join('+'), ctx.prepared.join('+'), view.name].join(' ') }] };
        } };`,
    );
    loaded = await loadPlugins(['./needs.mjs'], dir, { output: sink() });
    expect(loaded.channels.map((c) => c.isolation)).toEqual(['worker']);
    const scanned = agents();
    class View {
      constructor(readonly name: string) {}
      importsOf(path: string): string[] {
        return [`${this.name}:${path}`];
      }
    }
    // Stand-ins carry any value across, not only the contract's (here a `risk` field, odd pairEdits answers).
    const git = {
      risk: 0.25,
      pairEdits: async (a: Agent, b: Agent, path: string) => ({ same: scanned.includes(a) && scanned.includes(b), base: path }),
      merge: async () => ({ clean: true, conflicts: [] }),
    };
    const importGraph = { base: new View('base'), forAgent: (id: string) => new View(`view-${id}`) };
    const result = await scanAirspace(
      scanned,
      { channels: [loaded.channels[0]!.channel], services: { git, importGraph } as never },
      { budgets: { needs: { channelMs: 5000, callMs: 2000 } } },
    );
    expect(result.problems).toEqual([]);
    expect(result.links[0]!.risk).toBe(0.25);
    expect(result.links[0]!.evidence[0]!.message).toBe('true src/x.ts view-b:src/x.ts view-a:src/x.ts ');
  });
});
