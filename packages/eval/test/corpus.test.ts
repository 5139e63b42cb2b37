import { describe, expect, it } from 'vitest';
import { validateCalibration } from '@airspace/config';
import { corpusCalibration } from '../src/calibration.js';
import { bandsFor, evaluateCorpus, fitScannerWeighting, type CorpusMember } from '../src/measure/corpus.js';
import { formatCorpusTable } from '../src/report/table.js';
import type { ScoredScenario } from '../src/score/cache.js';
import type { ChannelInfo } from '../src/score/scorer.js';
import { scenario as base } from './helpers.js';

const thresholds = { traffic: 0.35, resolution: 0.7 };
const channels: ChannelInfo[] = [
  { id: 'exact', precision: 'line', weight: 1 },
  { id: 'noisy', precision: 'file', weight: 0.5 },
];

const scenario = (merge: string, risks: Record<string, number>, textual: boolean, early = 1): ScoredScenario =>
  base(merge, risks, textual, { early });

/** A repository where `exact` is the label and `noisy` fires on every second non-collision too. */
function member(name: string, n: number, noisyOnCollisions: number): CorpusMember {
  const full: ScoredScenario[] = [];
  for (let i = 0; i < n; i++) {
    const collided = i % 4 === 0;
    full.push(scenario(`${name}${i}`, { exact: collided ? 1 : 0, noisy: collided ? noisyOnCollisions : i % 2 ? 1 : 0 }, collided));
  }
  return { name, head: `${name}000000000000`, scored: new Map([[1, full]]) };
}

describe('fitScannerWeighting', () => {
  it('fits a plain noisy-OR (no leak) and bands from its training probabilities', () => {
    const m = member('a', 40, 1);
    const w = fitScannerWeighting(m.scored.get(1)!, [m.scored.get(1)!], channels, 'textual', thresholds);
    // `exact` explains every collision; `noisy` fires on as many non-collisions as collisions.
    expect(w.weights.exact).toBeGreaterThan(0.95);
    expect(w.weights.noisy).toBeLessThan(0.05);
    expect(w.thresholds.traffic).toBeLessThanOrEqual(w.thresholds.resolution);
    // Collisions score ≈ 1, the rest ≈ 0.0x: the band sits half-way between, with a margin to both.
    expect(w.thresholds.resolution).toBeGreaterThan(0.4);
    expect(w.thresholds.resolution).toBeLessThan(0.6);
  });
});

describe('bandsFor', () => {
  it('puts τ_TA at the lowest threshold with the precision asked for, τ_RA at the best F1 above it', () => {
    // Scores 0.9 T, 0.8 T, 0.6 F, 0.5 T, 0.4 F, 0.3 F, 0.2 F.
    const p = [0.9, 0.8, 0.6, 0.5, 0.4, 0.3, 0.2];
    const y = [true, true, false, true, false, false, false];
    // Precision at 0.5 is 3/4, at 0.4 3/5: τ_TA 0.5. F1 at 0.8 is 0.8, at 0.5 0.857: τ_RA 0.5.
    // Each is then put half-way down to the next lower score (0.4; 0.6 for 0.8).
    expect(bandsFor([{ probabilities: p, labels: y }], thresholds)).toEqual({ traffic: 0.45, resolution: 0.45 });
    expect(bandsFor([{ probabilities: p, labels: y }], thresholds, 0.8)).toEqual({ traffic: 0.7, resolution: 0.7 });
    // No threshold precise enough: the fallback.
    expect(bandsFor([{ probabilities: [0.5, 0.4], labels: [false, false] }], thresholds)).toEqual(thresholds);
  });

  it('asks the precision of every repository, not of the pool', () => {
    const rich = { probabilities: [0.9, 0.8, 0.7, 0.3, 0.3, 0.3], labels: [true, true, true, true, true, false] };
    // A repository with one collision and false alarms at 0.3 and 0.5: pooled, 0.3 is 6/9 = 0.67
    // precise and 0.5 is 4/5; this repository alone is 1/2 precise at 0.5, 1/1 at 0.6.
    const poor = { probabilities: [0.6, 0.5, 0.3, 0.1], labels: [true, false, false, false] };
    expect(bandsFor([rich, poor], thresholds).traffic).toBe(0.55);
  });
});

describe('evaluateCorpus', () => {
  const members = [member('a', 40, 1), member('b', 40, 1), member('c', 40, 1)];
  const corpus = evaluateCorpus(members, {
    channels,
    thresholds,
    label: 'textual',
    weightings: [{ name: 'scanner weights', weights: { exact: 1, noisy: 0.5 } }],
    fit: { fitOn: [1] },
  });

  it('reports each repository with the given weighting', () => {
    expect(corpus.members.map((m) => m.name)).toEqual(['a', 'b', 'c']);
    const w = corpus.members[0]!.byFraction[0]!.evaluation.weightings[0]!;
    // noisy × 0.5 = 0.5 ≥ τ_TA on the 20 odd (non-colliding) scenarios: precision 10 / (10 + 20).
    expect(w.combined.traffic.precision).toBeCloseTo(10 / 30, 5);
    expect(w.combined.traffic.recall).toBe(1);
  });

  it('scores each repository with weights fitted on the others only', () => {
    for (const m of corpus.members) {
      const held = m.heldOut!;
      expect(held.weighting.weights.noisy).toBeLessThan(0.05);
      const full = held.byFraction.find((x) => x.fraction === 1)!.metrics;
      expect(full.traffic.precision).toBe(1);
      expect(full.resolution.f1).toBe(1);
    }
  });

  it('a repository unlike the others is held out of its own fit', () => {
    // In d, `noisy` is the only channel that fires on its collisions: the weights fitted on a,
    // b and c give it no weight, so d's held-out recall collapses, while the pooled fit learns it.
    const odd: CorpusMember = {
      name: 'd',
      head: 'd00000000000',
      scored: new Map([
        [1, Array.from({ length: 40 }, (_, i) => scenario(`d${i}`, { exact: 0, noisy: i % 4 === 0 ? 1 : 0 }, i % 4 === 0))],
      ]),
    };
    const c = evaluateCorpus([...members, odd], { channels, thresholds, label: 'textual', weightings: [], fit: { fitOn: [1] } });
    const d = c.members[3]!.heldOut!;
    expect(d.weighting.weights.noisy).toBeLessThan(0.05);
    expect(d.byFraction[0]!.metrics.traffic.recall).toBe(0);
    expect(c.fitted!.weights.noisy).toBeGreaterThan(0.1);
  });

  it('names the channels the fit gave no weight, and writes a valid calibration file', () => {
    expect(corpus.fitted!.zeroWeights).toEqual(['noisy']);
    const file = corpusCalibration(corpus, { merges: 120, channelSetVersion: 'v' })!;
    expect(validateCalibration(file, 'corpus calibration', { complete: true })).toEqual([]);
    expect(file.leak).toBe(0);
    expect(file.provenance.corpus?.map((m) => [m.repository, m.scenarios])).toEqual([
      ['a', 40],
      ['b', 40],
      ['c', 40],
    ]);
    expect(file.provenance.metrics.worstTrafficPrecision).toBe(1);
  });

  it('prints one table per weighting and fraction, and the held-out fit', () => {
    const text = formatCorpusTable(corpus);
    expect(text).toContain('scanner weights, full diffs');
    expect(text).toContain('fitted on the other repositories (held out), full diffs');
    expect(text).toMatch(/without a: exact 1\.000, noisy 0\.0\d\d/);
  });

  it('pools the fitted fractions', () => {
    const early = members.map((m) => ({
      ...m,
      scored: new Map([
        ...m.scored,
        [0.5, m.scored.get(1)!.map((s) => ({ ...s, early: 0.5, risks: { exact: 0, noisy: s.risks.noisy! } }))],
      ]),
    }));
    const c = evaluateCorpus(early, { channels, thresholds, label: 'textual', weightings: [], fit: { fitOn: [1, 0.5] } });
    expect(c.fractions).toEqual([1, 0.5]);
    expect(c.fitted!.scenarios).toBe(240);
    expect(c.fitted!.bandsOn).toBe(1);
  });
});
