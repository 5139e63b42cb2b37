/** Foresight figures on hand-built scored scenarios: every number below is computed by hand. */
import { describe, expect, it } from 'vitest';
import { fitNoisyOr } from '../src/fit/noisy-or.js';
import { evaluateCorpus } from '../src/measure/corpus.js';
import { isVisible } from '../src/measure/evaluate.js';
import { bucketOf, foresightOf, foresightScorers, pooledUnseen, type ForesightScorer } from '../src/measure/foresight.js';
import { belowMerge, corpusForesightText, foresightText } from '../src/report/foresight.js';
import type { SideHistory } from '../src/extract/history.js';
import type { ScoredScenario } from '../src/score/cache.js';
import { scenario } from './helpers.js';

const H = 3_600_000;
const channels = [
  { id: 'merge', precision: 'line' as const, weight: 1 },
  { id: 'look', precision: 'file' as const, weight: 0.6 },
];
const thresholds = { traffic: 0.5, resolution: 0.9 };
const noHistory: [SideHistory, SideHistory] = [
  { merges: [], reverts: [] },
  { merges: [], reverts: [] },
];

/** A half-way scenario observed `lead` hours before its merge. */
function half(
  merge: string,
  risks: Record<string, number>,
  textual: boolean,
  lead: number,
  extra: Partial<ScoredScenario> = {},
): ScoredScenario {
  const base = scenario(merge, risks, textual, {
    early: 0.5,
    committedAt: 1000 * H,
    observedAt: (1000 - lead) * H,
    observed: [1, 1],
    chainLength: [2, 2],
    observedConflict: (risks.merge ?? 0) > 0,
    ...extra,
  });
  return { ...base, labels: { ...base.labels, history: extra.labels?.history ?? noHistory } };
}

/**
 * Two visible (merge 1): v1 collides, v2 dissolved by a sync merge after the observation.
 * Six unseen: u1, u2 collide; u3 collides only later (a conflicted merge on side 2 after the observation); u4–u6 not.
 * The look-ahead channel flags u1 (lead 30 h), u4 and v1; scores u1 0.8, u4 0.7, u2 0.3, others 0.
 */
const scenarios: ScoredScenario[] = [
  half('v1', { merge: 1, look: 0.9 }, true, 2),
  half('v2', { merge: 1, look: 0 }, false, 5, {
    labels: {
      textual: false,
      conflictedPaths: [],
      manual: false,
      manualPaths: [],
      history: [
        { merges: [], reverts: [] },
        { merges: [{ index: 2, commit: 's', conflicted: false }], reverts: [] },
      ],
    },
  }),
  half('u1', { merge: 0, look: 0.8 }, true, 30),
  half('u2', { merge: 0, look: 0.3 }, true, 100),
  half('u3', { merge: 0, look: 0 }, false, 200, {
    labels: {
      textual: false,
      conflictedPaths: [],
      manual: false,
      manualPaths: [],
      history: [
        { merges: [], reverts: [] },
        { merges: [{ index: 2, commit: 'c', conflicted: true }], reverts: [] },
      ],
    },
  }),
  half('u4', { merge: 0, look: 0.7 }, false, 3),
  half('u5', { merge: 0, look: 0 }, false, 3),
  half('u6', { merge: 0, look: 0 }, false, 3),
];

describe('visible and unseen', () => {
  const scorers = foresightScorers(scenarios, channels, [{ name: 'shipped', weights: { merge: 1, look: 0.6 } }], thresholds);
  const o = foresightOf(scenarios, scorers, { fraction: 0.5, labels: ['textual', 'collided'], thresholds });
  const textual = o.byLabel[0]!;
  const collided = o.byLabel[1]!;
  const look = (b: typeof textual) => b.scorers.find((s) => s.name === 'look')!;

  it('splits by the merge channel, and counts the visible conflicts that dissolve, with the reason', () => {
    expect(scenarios.map(isVisible)).toEqual([true, true, false, false, false, false, false, false]);
    expect(textual.visible).toEqual({
      scenarios: 2,
      positives: 1,
      dissolved: 1,
      dissolvedBy: { 'sync-merge': 1, revert: 0, unexplained: 0 },
    });
    expect(textual.unseen).toEqual({ scenarios: 6, positives: 2, baseRate: 2 / 6, gitConflicts: 0 });
  });

  it('recall, precision, lift, PR-AUC and lead time on the unseen', () => {
    const u = look(textual).unseen;
    // Flags (look ≥ 0.5) among the unseen: u1 (collision), u4 (not).
    expect(u).toMatchObject({ flagged: 2, tp: 1, recall: 0.5, precision: 0.5, medianLeadHours: 30, meanLeadHours: 30 });
    expect(u.lift).toBeCloseTo(0.5 / (2 / 6), 12);
    // Ranking u1 0.8 (+), u4 0.7 (−), u2 0.3 (+), rest 0: AP = ½·1 + ½·(2/3).
    expect(u.prAuc).toBeCloseTo(0.5 + 0.5 * (2 / 3), 12);
    expect(u.prAucLift).toBeCloseTo((0.5 + 1 / 3) / (2 / 6), 12);
    // The merge channel flags nothing it cannot see.
    expect(textual.scorers.find((s) => s.name === 'merge')!.unseen).toMatchObject({
      flagged: 0,
      tp: 0,
      recall: 0,
      precision: null,
      lift: null,
      medianLeadHours: null,
    });
  });

  it('collided at any point adds the visible conflict and the later conflicted merge', () => {
    expect(collided.positives).toBe(5); // v1, v2 (observed states conflict), u1, u2, u3
    expect(collided.visible.positives).toBe(2);
    expect(collided.unseen).toEqual({ scenarios: 6, positives: 3, baseRate: 0.5, gitConflicts: 0 });
    expect(look(collided).unseen).toMatchObject({ tp: 1, recall: 1 / 3, precision: 0.5, lift: 1 });
  });

  it('foresight gain is F1 at traffic minus the merge channel alone, over all scenarios', () => {
    // merge alone (textual): flags v1, v2 → tp 1, fp 1, fn 2: F1 = 2/5.
    expect(textual.scorers.find((s) => s.name === 'merge')!.all.traffic.f1).toBeCloseTo(2 / 5, 12);
    // look alone: flags v1, u1, u4 → tp 2, fp 1, fn 1: F1 = 4/6.
    expect(look(textual).foresightGain).toBeCloseTo(4 / 6 - 2 / 5, 12);
    // shipped = 1 − (1 − merge)(1 − 0.6·look): flags v1, v2 (merge) and nothing else (0.6·0.8 < 0.5).
    expect(textual.scorers.find((s) => s.name === 'shipped')!.foresightGain).toBeCloseTo(0, 12);
  });

  it('counts the collisions each warns of, advisories and forecasts adding up', () => {
    // A forecast over "look" from 0.25: u1, u2 and u4 (no advisory, git sees nothing); u1 and u2 collide.
    const model = { label: 'textual' as const, weights: { look: 1 }, leak: 0, threshold: 0.25 };
    const withForecast = foresightScorers(
      scenarios,
      channels,
      [{ name: 'shipped', weights: { merge: 1, look: 0.6 } }],
      thresholds,
      undefined,
      model,
    );
    const text = foresightText([foresightOf(scenarios, withForecast, { fraction: 0.5, labels: ['textual', 'collided'], thresholds })]).join(
      '\n',
    );
    expect(text).toMatch(/observed +label +collisions +channel merge +shipped +shipped \+ forecast/);
    // textual: v1, u1, u2 collide; merge and shipped warn of v1; with the forecast also u1 and u2.
    expect(text).toMatch(/50% +textual conflict +3 +1 +1 +3\n/);
    // collided: also v2 (its observed states conflict) and u3 (a later conflicted merge), which nothing forecasts.
    expect(text).toMatch(/50% +collided at any point +5 +2 +2 +4\n?/);
  });

  it('names where a weighting falls below the merge channel alone', () => {
    expect(belowMerge([o])).toEqual([]);
    const weak = foresightOf(scenarios, foresightScorers(scenarios, channels, [{ name: 'weak', weights: { merge: 0.4 } }], thresholds), {
      fraction: 0.5,
      labels: ['textual'],
      thresholds,
    });
    // weak flags nothing (0.4 < τ_TA): F1 0 against merge alone's 2/5.
    expect(belowMerge([weak])).toEqual(['50% (textual conflict): -0.400']);
    expect(foresightText([weak]).join('\n')).toMatch(
      /weak: F1 at traffic below the merge channel's alone at 50% \(textual conflict\): -0\.400/,
    );
  });

  it('lead-time curve: collisions and flags per bucket of hours before the merge', () => {
    expect([0.5, 1, 5.9, 6, 23, 24, 100, 168, 1e6].map(bucketOf)).toEqual([0, 1, 1, 2, 2, 3, 4, 5, 5]);
    // Collisions (textual): v1 at 2 h, u1 at 30 h, u2 at 100 h.
    expect(textual.leadCurve).toEqual([0, 1, 0, 1, 1, 0]);
    expect(look(textual).leadCurve).toEqual([0, 1, 0, 1, 0, 0]);
  });

  it('the report has one line per fraction', () => {
    const text = foresightText([o]).join('\n');
    expect(text).toMatch(
      /50%: of 2 collisions not yet visible, flagged 0 \(recall 0\.00, precision –, lift –\); 2 visible .* 1 of them merged cleanly in the end \(sync merge 1, revert 0, unexplained 0\)/,
    );
    expect(text).toMatch(/channel look +2 +1 +0\.50 +0\.50 +1\.5×/);
  });

  it('pools the unseen over repositories', () => {
    const look0 = scorers.find((s) => s.name === 'look')!;
    const p = pooledUnseen(
      [
        { scenarios, scorer: look0 },
        {
          scenarios: scenarios.slice(2, 4),
          scorer: { ...look0, scores: look0.scores.slice(2, 4), flagged: look0.flagged.slice(2, 4) } as ForesightScorer,
        },
      ],
      'textual',
    );
    expect(p).toMatchObject({ scenarios: 8, positives: 4, flagged: 3, tp: 2, recall: 0.5 });
  });

  it('a corpus reports every member per fraction and the pooled figures', () => {
    const corpus = evaluateCorpus(
      [
        { name: 'one', head: 'h1', scored: new Map([[0.5, scenarios]]) },
        { name: 'two', head: 'h2', scored: new Map([[0.5, scenarios.slice(0, 4)]]) },
      ],
      { channels, thresholds, label: 'textual', weightings: [{ name: 'shipped', weights: { merge: 1, look: 0.6 } }] },
    );
    expect(corpus.members.map((m) => m.foresight.map((o) => o.byLabel.map((b) => b.unseen.positives)))).toEqual([[[2, 3]], [[2, 2]]]);
    const pooled = corpus.foresight.find((f) => f.label === 'textual')!;
    expect(pooled.scorers.find((s) => s.name === 'look')).toMatchObject({ scenarios: 8, positives: 4, tp: 2 });
    expect(pooled).toMatchObject({ visible: 4, dissolved: 2 });
    // Collisions v1 (2 h), u1 (30 h), u2 (100 h) in each member.
    expect(pooled.leadCurve).toEqual([0, 2, 0, 2, 2, 0]);
    expect(pooled.scorers.find((s) => s.name === 'look')!.leadCurve).toEqual([0, 2, 0, 2, 0, 0]);
    // Pooled: v1, u1, u2 collide in each member; the merge channel and shipped warn of v1 (the shipped forecast of nothing).
    expect(corpusForesightText(corpus).join('\n')).toMatch(/collisions warned of .*, pooled\n.*\n.*\n50% +textual conflict +6 +2 +2 +2\n/);
  });
});

describe('a fit that does not collapse', () => {
  // The second channel never fires with a collision: alone, EM drives it to 0.
  const rows = [
    ...Array.from({ length: 40 }, () => [1, 0]),
    ...Array.from({ length: 40 }, () => [0, 1]),
    ...Array.from({ length: 20 }, () => [0, 0]),
  ];
  const labels = [
    ...Array.from({ length: 40 }, (_, i) => i < 30),
    ...Array.from({ length: 40 }, () => false),
    ...Array.from({ length: 20 }, () => false),
  ];

  it('without a prior the unsupported channel goes to 0; a prior of λ rows holds it at ω⁰·λ/(n + λ), n the rows it fired in; a floor at the floor', () => {
    const plain = fitNoisyOr(rows, labels, { fixedLeak: 0 });
    expect(plain.weights[1]).toBe(0);
    expect(plain.weights[0]).toBeCloseTo(30 / 40, 6);
    const withPrior = fitNoisyOr(rows, labels, { fixedLeak: 0, prior: { weights: [1, 0.5], strength: 10 } });
    expect(withPrior.weights[1]).toBeCloseTo((0.5 * 10) / (40 + 10), 6);
    // The supported channel: (30 collisions + 10 prior rows × 1) / (40 + 10).
    expect(withPrior.weights[0]).toBeCloseTo((30 + 10) / (40 + 10), 6);
    expect(fitNoisyOr(rows, labels, { fixedLeak: 0, minWeight: 0.05 }).weights[1]).toBeCloseTo(0.05, 12);
  });
});
