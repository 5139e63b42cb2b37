import { describe, expect, it } from 'vitest';
import type { Agent } from '../src/model.js';
import { agent as build, edit } from '../src/builders.js';
import { scanAirspace } from '../src/scan.js';
import { DEFAULT_THRESHOLDS } from '../src/scan-types.js';
import { AdvisoryTracker, type PairSample } from '../src/advisory-tracker.js';
import { bandOf, classifyRisk, comparability, pairsSharingKeys, rightOfWay } from '../src/tcas.js';
import { TriggerDispatcher, scanTriggers, triggersFor, type Trigger } from '../src/triggers.js';

/** The bands these tests were written against; the shipped defaults are fitted and move. */
const T = { traffic: 0.35, resolution: 0.7 };

const agent = (id: string, committedWork: number, startedAt: number): Agent => ({ id, label: id, committedWork, startedAt, files: [] });

describe('bands and escalation discipline', () => {
  it('splits risk at τ_TA and τ_RA (inclusive)', () => {
    expect(bandOf(0.34, T)).toBe('clear');
    expect(bandOf(0.35, T)).toBe('traffic');
    expect(bandOf(0.69, T)).toBe('traffic');
    expect(bandOf(0.7, T)).toBe('resolution');
    expect(bandOf(DEFAULT_THRESHOLDS.traffic)).toBe('traffic');
    expect(bandOf(DEFAULT_THRESHOLDS.resolution - 1e-9)).toBe('traffic');
    expect(bandOf(0.5, { traffic: 0.2, resolution: 0.5 })).toBe('resolution');
  });

  it('lets only line/symbol channels reach resolution by default', () => {
    const fileOnly = [{ channel: 'dependency', weighted: 0.9, precision: 'file' as const }];
    expect(classifyRisk(fileOnly, T)).toMatchObject({ level: 'traffic', levelReason: expect.stringContaining('dependency') });
    expect(classifyRisk(fileOnly, T, { resolutionPrecisions: ['line', 'symbol', 'file'] })).toEqual({ level: 'resolution' });
    const mixed = [...fileOnly, { channel: 'overlap', weighted: 0.75, precision: 'line' as const }];
    expect(classifyRisk(mixed, T)).toEqual({ level: 'resolution' });
    const symbol = [{ channel: 'symbols', weighted: 0.8, precision: 'symbol' as const }];
    expect(classifyRisk(symbol, T)).toEqual({ level: 'resolution' });
    expect(classifyRisk([{ channel: 'tree', weighted: 0.1, precision: 'file' as const }], T)).toEqual({ level: 'clear' });
    // A line channel's whole-file evidence escalates no more than a file channel's.
    const whole = [{ channel: 'overlap', weighted: 0.95, weightedPrecise: 0, precision: 'line' as const }];
    expect(classifyRisk(whole, T)).toMatchObject({ level: 'traffic', levelReason: expect.stringContaining('overlap (whole-file)') });
    expect(classifyRisk([{ ...whole[0]!, weightedPrecise: 0.75 }], T)).toEqual({ level: 'resolution' });
  });
});

describe('right of way', () => {
  it('orders by committed work desc, then start asc, then id asc; the other steers', () => {
    expect(rightOfWay(agent('a', 1, 0), agent('b', 5, 9))).toMatchObject({ hold: { id: 'b' }, steer: { id: 'a' } });
    expect(rightOfWay(agent('a', 5, 9), agent('b', 5, 1))).toMatchObject({ hold: { id: 'b' }, steer: { id: 'a' } });
    expect(rightOfWay(agent('b', 5, 1), agent('a', 5, 1))).toMatchObject({ hold: { id: 'a' }, steer: { id: 'b' } });
    // Symmetric: the argument order never changes the outcome.
    for (const [x, y] of [
      [agent('p', 2, 3), agent('q', 2, 3)],
      [agent('p', 0, 3), agent('q', 1, 9)],
    ] as const) {
      expect(rightOfWay(x, y).hold.id).toBe(rightOfWay(y, x).hold.id);
    }
  });
});

describe('comparability', () => {
  it('is unknown for incomplete agents and one-sided bases, incomparable across repositories', () => {
    const a = agent('a', 0, 0);
    expect(comparability(a, agent('b', 0, 0))).toEqual({ comparable: true, reasons: [] });
    expect(comparability({ ...a, incomplete: ['too many files'] }, agent('b', 0, 0)).reasons[0]).toContain('too many files');
    expect(comparability({ ...a, base: 'x' }, agent('b', 0, 0)).reasons[0]).toContain('b has no merge base');
    expect(comparability({ ...a, repository: 'r1' }, { ...agent('b', 0, 0), repository: 'r2' }).comparable).toBe(false);
    expect(comparability({ ...a, repository: 'r1' }, agent('b', 0, 0), 'r2').comparable).toBe(false);
    expect(comparability({ ...a, repository: 'r1' }, agent('b', 0, 0), 'r1').comparable).toBe(true);
  });
});

const sample = (risk: number, level: PairSample['level'], extra: Partial<PairSample> = {}): PairSample => ({
  a: 'a',
  b: 'b',
  risk,
  level,
  evidence: [],
  ...extra,
});

describe('AdvisoryTracker', () => {
  it('raises, changes and clears with events', () => {
    const t = new AdvisoryTracker({ thresholds: T });
    expect(t.update([sample(0.1, 'clear')], 0)).toEqual([]);
    const [raised] = t.update([sample(0.5, 'traffic')], 60_000);
    expect(raised).toMatchObject({ type: 'raised', level: 'traffic', previous: 'clear' });
    expect(raised!.closureRate).toBeCloseTo(0.4 / 60);
    const [changed] = t.update([sample(0.8, 'resolution')], 120_000);
    expect(changed).toMatchObject({ type: 'changed', level: 'resolution', previous: 'traffic' });
    const [cleared] = t.update([sample(0.1, 'clear')], 180_000);
    expect(cleared).toMatchObject({ type: 'cleared', level: 'clear', previous: 'resolution' });
    expect(t.active()).toEqual([]);
  });

  it('takes new thresholds (a config edited while watching): a pair they no longer hold clears', () => {
    const t = new AdvisoryTracker({ thresholds: { traffic: 0.001, resolution: 0.9 } });
    expect(t.update([sample(0.004, 'traffic')], 0)).toMatchObject([{ type: 'raised', level: 'traffic' }]);
    // Held by hysteresis under the old thresholds (0.004 ≥ 0.001 − 0.05), not under the new ones.
    t.setThresholds(T);
    expect(t.update([sample(0.004, 'clear')], 1_000)).toMatchObject([{ type: 'cleared', previous: 'traffic' }]);
  });

  it('escalates early when closing fast near τ_TA, not when slow or far', () => {
    const fast = new AdvisoryTracker({ lookaheadMs: 60_000, thresholds: T });
    fast.update([sample(0.1, 'clear')], 0);
    const [early] = fast.update([sample(0.3, 'clear')], 10_000); // +0.02/s → 0.35 within 2.5 s
    expect(early).toMatchObject({ type: 'raised', level: 'traffic' });
    expect(early!.levelReason).toMatch(/escalated early/);

    const slow = new AdvisoryTracker({ lookaheadMs: 60_000, thresholds: T });
    slow.update([sample(0.29, 'clear')], 0);
    expect(slow.update([sample(0.3, 'clear')], 3_600_000)).toEqual([]); // far too slow
    const far = new AdvisoryTracker({ lookaheadMs: 60_000, thresholds: T });
    far.update([sample(0.0, 'clear')], 0);
    expect(far.update([sample(0.2, 'clear')], 1_000)).toEqual([]); // fast but not near τ_TA
  });

  it('does not flap near a threshold (hysteresis)', () => {
    const t = new AdvisoryTracker({ hysteresis: 0.05, thresholds: T });
    t.update([sample(0.72, 'resolution')], 0);
    expect(t.update([sample(0.68, 'traffic')], 1_000)).toEqual([]);
    expect(t.get('a', 'b')!.level).toBe('resolution');
    expect(t.update([sample(0.71, 'resolution')], 2_000)).toEqual([]);
    const [down] = t.update([sample(0.6, 'traffic')], 3_000);
    expect(down).toMatchObject({ type: 'changed', level: 'traffic' });
    expect(t.update([sample(0.33, 'clear')], 4_000)).toEqual([]);
    expect(t.get('b', 'a')!.level).toBe('traffic');
    expect(t.update([sample(0.2, 'clear')], 5_000)[0]).toMatchObject({ type: 'cleared' });
  });

  it('does not hold a resolution the escalation discipline caps', () => {
    const t = new AdvisoryTracker({ thresholds: T });
    t.update(
      [
        sample(0.8, 'resolution', {
          channels: [{ channel: 'overlap', weight: 1, risk: 0.8, weighted: 0.8, precision: 'line', evidence: [] }],
        }),
      ],
      0,
    );
    const channels = [
      { channel: 'overlap', weight: 1, risk: 0.2, weighted: 0.2, precision: 'line' as const, evidence: [] },
      { channel: 'dependency', weight: 0.9, risk: 0.9, weighted: 0.81, precision: 'file' as const, evidence: [] },
    ];
    const [event] = t.update([sample(0.85, 'traffic', { channels, levelReason: 'capped at traffic: …' })], 1_000);
    expect(event).toMatchObject({ type: 'changed', level: 'traffic' });
  });

  it('clears pairs that vanish from a complete sample set', () => {
    const t = new AdvisoryTracker({ thresholds: T });
    t.update([sample(0.5, 'traffic')], 0);
    expect(t.update([], 1_000)).toEqual([]);
    expect(t.update([], 2_000, { complete: true })[0]).toMatchObject({ type: 'cleared', a: 'a', b: 'b' });
  });
});

describe('triggers and dispatcher', () => {
  const agents = new Map([
    ['alice', agent('alice', 1, 0)],
    ['bob', agent('bob', 9, 0)],
  ]);
  const evidence = [{ message: 'alice and bob both change src/a.ts lines 3–8' }];

  it('traffic: both transmit; resolution: the lower-priority agent steers, the other holds', () => {
    const traffic = triggersFor({ a: 'alice', b: 'bob', level: 'traffic', risk: 0.5, evidence }, agents);
    expect(traffic.map((t) => [t.to, t.from, t.type])).toEqual([
      ['alice', 'bob', 'transmit'],
      ['bob', 'alice', 'transmit'],
    ]);
    expect(traffic[0]!.content).toContain('src/a.ts lines 3–8');
    const resolution = triggersFor({ a: 'alice', b: 'bob', level: 'resolution', risk: 0.9, evidence }, agents);
    expect(resolution.map((t) => [t.to, t.type])).toEqual([
      ['alice', 'steer'],
      ['bob', 'hold'],
    ]);
    expect(resolution[0]!.content).toContain('bob has right of way');
    expect(triggersFor({ a: 'alice', b: 'bob', level: 'unknown', risk: 0, evidence: [] }, agents)).toEqual([]);
  });

  it('sends once per pair per cooldown, at once on a change of level', async () => {
    const got: Trigger[] = [];
    const d = new TriggerDispatcher({ sink: (t) => void got.push(t), cooldownMs: 60_000 });
    const traffic = triggersFor({ a: 'alice', b: 'bob', level: 'traffic', risk: 0.5, evidence }, agents);
    expect((await d.dispatch(traffic, 0)).sent).toHaveLength(2);
    const again = await d.dispatch(traffic, 30_000);
    expect(again.sent).toHaveLength(0);
    expect(again.suppressed).toHaveLength(2);
    const escalated = triggersFor({ a: 'alice', b: 'bob', level: 'resolution', risk: 0.9, evidence }, agents);
    expect((await d.dispatch(escalated, 31_000)).sent.map((t) => t.type)).toEqual(['steer', 'hold']);
    expect((await d.dispatch(escalated, 91_001)).sent).toHaveLength(2);
    expect(got).toHaveLength(6);
    d.reset('bob', 'alice');
    expect((await d.dispatch(escalated, 91_002)).sent).toHaveLength(2);
  });

  it('reports a failing sink as a problem', async () => {
    const d = new TriggerDispatcher({
      sink: async () => {
        throw new Error('pipe closed');
      },
    });
    const out = await d.dispatch(triggersFor({ a: 'alice', b: 'bob', level: 'traffic', risk: 0.5, evidence }, agents), 0);
    expect(out.sent).toEqual([]);
    expect(out.problems[0]!.message).toContain('pipe closed');
  });
});

describe('scanTriggers', () => {
  it('turns a scan result into the triggers of its advisories', async () => {
    const same = {
      id: 'same',
      defaultWeight: 1,
      meta: { precision: 'line' as const },
      score: (a: Agent, b: Agent) =>
        a.files[0]?.path === b.files[0]?.path ? { risk: 0.9, evidence: [{ message: 'same file' }] } : { risk: 0, evidence: [] },
    };
    const result = await scanAirspace(
      [build('x', [edit('f.ts')], { committedWork: 2 }), build('y', [edit('f.ts')]), build('z', [edit('g.ts')])],
      { channels: [same] },
    );
    expect(scanTriggers(result).map((t) => `${t.type}:${t.to}`)).toEqual(['steer:y', 'hold:x']);
  });
});

describe('pairsSharingKeys', () => {
  const agents = [
    { id: 'a', keys: ['x', 'y'] },
    { id: 'b', keys: ['y', 'z'] },
    { id: 'c', keys: ['z'] },
    { id: 'd', keys: ['w'] },
  ];
  const keysOf = (agent: { keys: string[] }): string[] => agent.keys;

  it('names each pair of agents sharing a key once, and no other', () => {
    const pairs = pairsSharingKeys(agents, keysOf).map((p) => [...p].sort().join('-'));
    expect(pairs.sort()).toEqual(['a-b', 'b-c']);
  });

  it('keeps to pairs with one of `only`', () => {
    const pairs = pairsSharingKeys(agents, keysOf, new Set(['c'])).map((p) => [...p].sort().join('-'));
    expect(pairs).toEqual(['b-c']);
  });
});
