import { describe, expect, it } from 'vitest';
import { earlyWarning, evaluate, suggestThresholds } from '../src/measure/evaluate.js';
import type { ScoredScenario } from '../src/score/cache.js';
import { scenario } from './helpers.js';
import type { ChannelInfo } from '../src/score/scorer.js';

const thresholds = { traffic: 0.35, resolution: 0.7 };
const channels: ChannelInfo[] = [
  { id: 'a', precision: 'line', weight: 0.5 },
  { id: 'merge', precision: 'line', weight: 1 },
];

// Combined with ω = {a: 0.5, merge: 1}: 1, 0.5, 0.2, 0 — labels T, F, F, T.
const set = [
  scenario('s1', { a: 1, merge: 1 }, true),
  scenario('s2', { a: 1, merge: 0 }, false),
  scenario('s3', { a: 0.4, merge: 0 }, false),
  scenario('s4', { a: 0, merge: 0 }, true),
];
const weighting = { name: 'w', weights: { a: 0.5, merge: 1 } };

describe('evaluate on a small fixed set (figures by hand)', () => {
  const e = evaluate(set, { channels, thresholds, label: 'textual', weightings: [weighting] });
  const w = e.weightings[0]!;

  it('base rate and counts', () => {
    expect(e).toMatchObject({ scenarios: 4, positives: 2, baseRate: 0.5 });
  });

  it('combination: AUC 2/4, Brier 1.29/4, traffic P = R = 1/2, resolution P 1, R 1/2', () => {
    expect(w.combined.rocAuc).toBe(0.5);
    expect(w.combined.brier).toBeCloseTo(1.29 / 4, 12);
    expect(w.combined.traffic).toMatchObject({ tp: 1, fp: 1, fn: 1, tn: 1, precision: 0.5, recall: 0.5 });
    expect(w.combined.resolution).toMatchObject({ tp: 1, fp: 0, fn: 1, precision: 1, recall: 0.5 });
    expect(w.combined.resolution.f1).toBeCloseTo(2 / 3, 12);
  });

  it('without the merge channel: 0.5, 0.5, 0.2, 0 → AUC 1.5/4', () => {
    expect(w.withoutMerge!.rocAuc).toBe(0.375);
    expect(w.ablations['merge']).toEqual(w.withoutMerge);
  });

  it('leave-one-out without a: the merge channel alone → AUC 3/4', () => {
    expect(w.ablations['a']!.rocAuc).toBe(0.75);
  });

  it('a channel alone is scored by its own risk: a = 1, 1, 0.4, 0', () => {
    expect(e.channels['a']!.rocAuc).toBe(0.375);
    expect(e.channels['a']!.traffic).toMatchObject({ tp: 1, fp: 2, fn: 1 });
  });

  it('the label can be the manual-resolution label instead', () => {
    const manual = evaluate(
      set.map((s, i) => ({ ...s, labels: { ...s.labels, manual: i === 2 } })),
      { channels, thresholds, label: 'manual', weightings: [weighting] },
    );
    expect(manual.positives).toBe(1);
    expect(manual.labelRates).toEqual({ textual: 0.5, manual: 0.25, any: 0.75, collided: 0.5 });
  });
});

describe('escalation discipline in the resolution call', () => {
  it('a file-precision channel alone reaches τ_RA but is capped at traffic, as the scanner caps it', () => {
    const file: ChannelInfo[] = [{ id: 'dep', precision: 'file', weight: 1 }];
    const e = evaluate([scenario('x', { dep: 1 }, true), scenario('y', { dep: 0 }, false)], {
      channels: file,
      thresholds,
      label: 'textual',
      weightings: [{ name: 'w', weights: { dep: 1 } }],
    });
    expect(e.weightings[0]!.combined.traffic.tp).toBe(1);
    expect(e.weightings[0]!.combined.resolution.tp).toBe(0);
    // With every precision allowed (the seed's behaviour) it escalates.
    const seed = evaluate([scenario('x', { dep: 1 }, true)], {
      channels: file,
      thresholds,
      label: 'textual',
      weightings: [{ name: 'w', weights: { dep: 1 } }],
      resolutionPrecisions: ['line', 'symbol', 'file'],
    });
    expect(seed.weightings[0]!.combined.resolution.tp).toBe(1);
  });

  it("a line channel's whole-file evidence (preciseRisks) is capped at traffic too", () => {
    const line: ChannelInfo[] = [{ id: 'overlap', precision: 'line', weight: 1 }];
    const whole = scenario('x', { overlap: 1 }, false, { preciseRisks: { overlap: 0 } });
    const e = evaluate([whole, scenario('y', { overlap: 1 }, true)], {
      channels: line,
      thresholds,
      label: 'textual',
      weightings: [{ name: 'w', weights: { overlap: 1 } }],
    });
    expect(e.weightings[0]!.combined.resolution).toMatchObject({ tp: 1, fp: 0 });
    expect(e.weightings[0]!.combined.traffic).toMatchObject({ tp: 1, fp: 1 });
  });
});

describe('fitting inside evaluate', () => {
  it('reports out-of-fold figures, fitted weights in [0, 1], and the merge-less fit', () => {
    const many: ScoredScenario[] = [];
    for (let i = 0; i < 200; i++) {
      const conflict = i % 5 === 0;
      many.push(scenario(`m${i}`, { a: conflict ? 1 : i % 3 === 0 ? 1 : 0, merge: conflict ? 1 : 0 }, conflict));
    }
    const e = evaluate(many, { channels, thresholds, label: 'textual', weightings: [weighting], fitFolds: 5 });
    expect(e.fit!.weights['merge']).toBeGreaterThan(0.99);
    expect(e.fit!.outOfFold.rocAuc).toBe(1);
    expect(e.fit!.withoutMerge!.weights['a']).toBeCloseTo(40 / (40 + 53), 2);
    expect(Object.keys(e.fit!.withoutMerge!.weights)).toEqual(['a']);
  });
});

describe('suggested thresholds', () => {
  it('τ_RA maximises F1; τ_TA keeps 90% recall', () => {
    const p = [0.9, 0.8, 0.6, 0.3, 0.2, 0.1];
    const y = [true, true, false, true, false, false];
    // F1 at 0.8: 2/(2+0+1)·… = 0.8; at 0.3: 3 tp, 1 fp → 6/7 ≈ 0.857 (best). 90% recall needs 0.3.
    expect(suggestThresholds(p, y, thresholds)).toEqual({ traffic: 0.3, resolution: 0.3 });
  });
});

describe('early warning', () => {
  it('counts collisions foreseen part-way and the lead time before the merge', () => {
    const full = [
      scenario('s1', { a: 1, merge: 1 }, true),
      scenario('s4', { a: 1, merge: 0 }, true),
      scenario('s5', { a: 0, merge: 0 }, false),
    ];
    const early = [
      scenario('s1', { a: 1, merge: 0 }, true, { early: 0.5, observedAt: 4 * 3_600_000, observed: [1, 1], chainLength: [2, 4] }),
      scenario('s4', { a: 0, merge: 0 }, true, { early: 0.5 }),
      scenario('s5', { a: 0, merge: 0 }, false, { early: 0.5 }),
    ];
    const w = earlyWarning(early, full, { channels, weighting, thresholds, label: 'textual' });
    expect(w).toEqual({
      fraction: 0.5,
      scenarios: 3,
      positives: 2,
      foreseenEarly: 1,
      foreseenFull: 2,
      medianLeadHoursEarly: 6,
      medianLeadHoursFull: 2,
      medianCommitsAhead: 0.75,
    });
  });
});
