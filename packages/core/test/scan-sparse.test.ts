// The scan's optional channel hooks: `candidates` (which pairs are scored at all) and `risk`
// (evidence deferred to the pairs that are reported), and the pair cache between scans.
import { describe, expect, it } from 'vitest';
import { createPairCache, defineChannel, scanAirspace, type Agent, type AnyChannel } from '../src/index.js';

const agent = (id: string, paths: string[]): Agent => ({
  id,
  label: id,
  startedAt: 1000,
  committedWork: 0,
  files: paths.map((path) => ({
    path,
    status: 'modified' as const,
    weight: 1,
    baseRanges: [[1, 5]] as const,
    newRanges: [[1, 5]] as const,
  })),
});

/** Shares a path → risk; names exactly the pairs that share one. Calls are recorded. */
function sharing(calls: string[], options: { risk?: number; weight?: number; hooks?: boolean } = {}): AnyChannel {
  const shared = (a: Agent, b: Agent) => a.files.find((f) => b.files.some((g) => g.path === f.path))?.path;
  return defineChannel({
    id: 'sharing',
    defaultWeight: options.weight ?? 1,
    meta: { precision: 'line' },
    score(a, b) {
      calls.push(`score ${a.id}-${b.id}`);
      const path = shared(a, b);
      return path ? { risk: options.risk ?? 0.9, evidence: [{ message: `both edit ${path}` }] } : { risk: 0, evidence: [] };
    },
    ...(options.hooks === false
      ? {}
      : {
          candidates(agents: readonly Agent[]) {
            const out: [string, string][] = [];
            for (const a of agents) for (const b of agents) if (a.id < b.id && shared(a, b)) out.push([a.id, b.id]);
            return out;
          },
          risk(a: Agent, b: Agent) {
            calls.push(`risk ${a.id}-${b.id}`);
            return { risk: shared(a, b) ? (options.risk ?? 0.9) : 0 };
          },
        }),
  });
}

/** Dense: any two agents score `risk` (with evidence). */
const everywhere = (risk: number, weight: number): AnyChannel =>
  defineChannel({
    id: 'everywhere',
    defaultWeight: weight,
    meta: { precision: 'file' },
    score: () => ({ risk, evidence: [{ message: 'always' }] }),
  });

const agents = [agent('a', ['x.ts']), agent('b', ['x.ts']), agent('c', ['y.ts']), agent('d', ['z.ts'])];

describe('scanAirspace with candidate pairs', () => {
  it('scores only named pairs when the dense channels stay below τ_TA; the others count as clear', async () => {
    const calls: string[] = [];
    const result = await scanAirspace(agents, { channels: [sharing(calls), everywhere(1, 0.1)] });
    expect(result.links.map((l) => `${l.a}-${l.b}`)).toEqual(['a-b']);
    expect(result.counts).toMatchObject({ pairs: 6, clear: 5, resolution: 1 });
    // The dense channel is scored on the named pair too.
    expect(result.links[0]!.channels.map((c) => [c.channel, c.risk])).toEqual([
      ['sharing', 0.9],
      ['everywhere', 1],
    ]);
    const every = await scanAirspace(agents, { channels: [sharing([]), everywhere(1, 0.1)] }, { exhaustive: true });
    expect(every.links).toHaveLength(6);
    expect(every.counts).toEqual(result.counts);
    for (const l of every.links.filter((x) => x.a !== 'a' || x.b !== 'b')) expect(l.risk).toBeCloseTo(0.1);
  });

  it('scores every pair when the dense channels alone could reach τ_TA', async () => {
    const result = await scanAirspace(agents, { channels: [sharing([]), everywhere(1, 0.6)] });
    expect(result.links).toHaveLength(6);
    expect(result.counts.traffic).toBe(5);
  });

  it('a channel whose candidates throw is a problem, and every pair is scored', async () => {
    const broken = {
      ...sharing([]),
      candidates: () => {
        throw new Error('index lost');
      },
    };
    const result = await scanAirspace(agents, { channels: [broken, everywhere(1, 0.1)] });
    expect(result.links).toHaveLength(6);
    expect(result.problems.map((p) => p.code)).toContain('CHANNEL_THREW');
  });

  it('builds evidence with score only for reported pairs; a risk score cannot report without evidence', async () => {
    const calls: string[] = [];
    const result = await scanAirspace(agents, { channels: [sharing(calls, { risk: 0.2 })] }, { evidenceMinRisk: 0.5 });
    expect(calls).toEqual(['risk a-b']);
    expect(result.links[0]).toMatchObject({ level: 'clear', evidence: [], deferredEvidence: true });
    expect(result.links[0]!.risk).toBeCloseTo(0.2);
    calls.length = 0;
    const reported = await scanAirspace(agents, { channels: [sharing(calls, { risk: 0.9 })] }, { evidenceMinRisk: 0.5 });
    expect(calls).toEqual(['risk a-b', 'score a-b']);
    // Without an evidence floor (the default) every link gets its evidence: score alone.
    calls.length = 0;
    const plain = await scanAirspace(agents, { channels: [sharing(calls, { risk: 0.9 })] });
    expect(calls).toEqual(['score a-b']);
    expect(plain.links).toEqual(reported.links);
    expect(reported.advisories[0]!.evidence[0]!.message).toBe('both edit x.ts');
    // A risk hook that promises what score cannot show: score's answer counts (MISSING_EVIDENCE, 0).
    const liar = { ...sharing([]), score: () => ({ risk: 0.9, evidence: [] }) };
    const lied = await scanAirspace(agents, { channels: [liar] });
    expect(lied.links[0]).toMatchObject({ risk: 0, level: 'clear' });
    expect(lied.problems.map((p) => p.code)).toContain('MISSING_EVIDENCE');
  });

  it('reuses pair scores of unchanged agents; a changed agent, key or weight scores its pairs again', async () => {
    const calls: string[] = [];
    const channels = [sharing(calls, { hooks: false }), everywhere(1, 0.6)];
    const cache = createPairCache();
    const first = await scanAirspace(agents, { channels, now: 0 }, { reuse: cache, reuseKey: 'k1' });
    expect(calls).toHaveLength(6);
    calls.length = 0;
    const same = await scanAirspace(agents, { channels, now: 0 }, { reuse: cache, reuseKey: 'k1' });
    expect(calls).toEqual([]);
    expect(same.links).toEqual(first.links);
    const moved = agents.map((a) => (a.id === 'c' ? agent('c', ['x.ts']) : a));
    const again = await scanAirspace(moved, { channels, now: 0 }, { reuse: cache, reuseKey: 'k1' });
    expect(calls.sort()).toEqual(['score a-c', 'score b-c', 'score c-d']);
    expect(again).toEqual(await scanAirspace(moved, { channels: [sharing([], { hooks: false }), everywhere(1, 0.6)], now: 0 }));
    calls.length = 0;
    await scanAirspace(moved, { channels }, { reuse: cache, reuseKey: 'k2' });
    expect(calls).toHaveLength(6);
    calls.length = 0;
    await scanAirspace(moved, { channels }, { reuse: cache, reuseKey: 'k2', weights: { everywhere: 0.5 } });
    expect(calls).toHaveLength(6);
  });

  it('scores a pair again while a channel says its result is pending, then reuses the final one', async () => {
    let done = false;
    const calls: string[] = [];
    const checking = defineChannel({
      id: 'checking',
      defaultWeight: 1,
      meta: { precision: 'line' },
      score(a, b) {
        calls.push(`${a.id}-${b.id}`);
        if (a.id !== 'a' || b.id !== 'b') return { risk: 0, evidence: [] };
        return done ? { risk: 1, evidence: [{ message: 'found' }] } : { risk: 0, evidence: [], pending: true as const };
      },
    });
    const cache = createPairCache();
    const first = await scanAirspace(agents, { channels: [checking], now: 0 }, { reuse: cache, reuseKey: 'k' });
    expect(first.links.find((l) => l.a === 'a' && l.b === 'b')?.channels[0]).toMatchObject({ risk: 0, pending: true });
    calls.length = 0;
    done = true;
    const second = await scanAirspace(agents, { channels: [checking], now: 0 }, { reuse: cache, reuseKey: 'k' });
    // Only the pending pair's agents are scored again (their pairs), not c-d.
    expect(calls.sort()).toEqual(['a-b', 'a-c', 'a-d', 'b-c', 'b-d']);
    const ab = second.links.find((l) => l.a === 'a' && l.b === 'b')!;
    expect(ab.channels[0]).toMatchObject({ risk: 1 });
    expect(ab.channels[0]!.pending).toBeUndefined();
    calls.length = 0;
    await scanAirspace(agents, { channels: [checking], now: 0 }, { reuse: cache, reuseKey: 'k' });
    expect(calls).toEqual([]);
  });
});
