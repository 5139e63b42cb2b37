import { describe, expect, it } from 'vitest';
import { forecastProbability } from '@airspace/core';
import { validateCalibration } from '@airspace/config';
import { probabilityCalibration } from '../src/calibration.js';
import { fitForecastModel, forecastTrainingSet, thresholdForRecall } from '../src/fit/forecast.js';
import { forecastValuesOf } from '../src/measure/foresight.js';
import { evaluateCorpus, FORECAST_HELD_OUT, type CorpusMember } from '../src/measure/corpus.js';
import { formatCorpusTable } from '../src/report/table.js';
import type { ScoredScenario } from '../src/score/cache.js';
import { scenario } from './helpers.js';

/**
 * Half-way states of one repository: 40 pairs git merges cleanly; a quarter of them carry a
 * co-change signal and half of those collide later; no other pair collides. Plus 4 visible ones.
 */
function halfWay(name: string): ScoredScenario[] {
  const out: ScoredScenario[] = [];
  for (let i = 0; i < 40; i++) {
    const coupled = i % 4 === 0;
    const collides = coupled && i % 8 === 0;
    out.push(scenario(`${name}${i}`, { merge: 0, 'co-change': coupled ? 0.9 : 0, overlap: 0 }, collides, { early: 0.5, sharedFiles: 0 }));
  }
  for (let i = 0; i < 4; i++) out.push(scenario(`${name}v${i}`, { merge: 1, 'co-change': 0, overlap: 1 }, true, { early: 0.5 }));
  return out;
}

const member = (name: string): CorpusMember => ({ name, head: `${name}000000000000`, scored: new Map([[0.5, halfWay(name)]]) });

describe('fitForecastModel', () => {
  it('fits on the unseen pairs only, and puts the signal that foretells collisions to use', () => {
    const training = forecastTrainingSet([member('a').scored], [0.5]);
    expect(training).toHaveLength(40);
    const model = fitForecastModel(training, { label: 'textual', fitOn: [0.5], signals: ['co-change', 'shared-files'] });
    // Half of the coupled pairs collide, none of the others: P ≈ 0.5 with the signal, ≈ 0 without.
    expect(forecastProbability({ 'co-change': 0.9 }, model)).toBeCloseTo(0.5, 1);
    expect(model.leak).toBeLessThan(0.01);
    expect(model.weights['shared-files']).toBeLessThan(0.01);
    // Recall 0.55 of the 5 collisions needs all of them, which all score the same.
    expect(model.threshold).toBeLessThanOrEqual(forecastProbability({ 'co-change': 0.9 }, model));
    expect(model.threshold).toBeGreaterThan(forecastProbability({}, model));
  });

  it('sets the threshold at the probability of the collision that reaches the recall asked for', () => {
    const s = [0.9, 0.1, 0.5, 0.3].map((cc, i) => scenario(`m${i}`, { 'co-change': cc }, true, { sharedFiles: 0 }));
    const model = { label: 'textual' as const, weights: { 'co-change': 1 }, leak: 0, threshold: 1 };
    const labels = [true, true, true, false];
    // Collisions at 0.9, 0.5, 0.1: a half of them needs 2 (down to 0.5), all of them 0.1.
    expect(thresholdForRecall(s, labels, model, 0.5)).toBe(0.5);
    // 1 − (1 − 0.1) is a hair below 0.1 in binary: the threshold goes down to 4 decimals, never above it.
    expect(thresholdForRecall(s, labels, model, 1)).toBe(0.0999);
    expect(thresholdForRecall(s, [false, false, false, false], model, 0.5)).toBe(1);
    expect(forecastValuesOf(s[0]!)['shared-files']).toBe(0);
  });
});

describe('evaluateCorpus with forecastFit', () => {
  it('scores each repository with the forecast fitted on the others, and reports the model', () => {
    const members = [member('a'), member('b'), member('c')];
    const corpus = evaluateCorpus(members, {
      channels: [
        { id: 'merge', precision: 'line', weight: 1 },
        { id: 'co-change', precision: 'file', weight: 0.03 },
        { id: 'overlap', precision: 'line', weight: 1 },
      ],
      thresholds: { traffic: 0.526, resolution: 0.797 },
      label: 'textual',
      weightings: [{ name: 'scanner weights', weights: { merge: 1, 'co-change': 0.03, overlap: 1 } }],
      forecastFit: { label: 'textual', fitOn: [0.5] },
    });
    expect(corpus.forecast?.scenarios).toBe(120);
    expect(corpus.forecast?.positives).toBe(15);
    for (const m of corpus.members) {
      expect(m.heldOutForecast?.weights['co-change']).toBeGreaterThan(0.5);
      const held = m.foresight.find((o) => o.fraction === 0.5)!.byLabel[0]!.scorers.find((s) => s.name === FORECAST_HELD_OUT)!;
      // Every coupled pair is forecast: 5 collisions among 10 flags, none of the visible ones.
      expect(held.unseen).toMatchObject({ flagged: 10, tp: 5, recall: 1 });
      expect(held.foresightGain).toBeNull();
    }
    const text = formatCorpusTable(corpus);
    expect(text).toMatch(/forecast of "textual" fitted on 120 unseen states \(15 collisions/);
    expect(text).toMatch(/without a: co-change 0\.\d{4} · .* · leak 0\.\d{4} · threshold 0\.\d{4}/);

    // --calibration-out: the model fitted on every repository, with the weights and bands as they are.
    const file = probabilityCalibration(corpus, {
      merges: 60,
      channelSetVersion: 'v',
      weights: { c: 1 },
      thresholds: { traffic: 0.5, resolution: 0.9 },
    })!;
    expect(validateCalibration(file, 'fit', { complete: true })).toEqual([]);
    expect(file.forecast).toEqual(corpus.forecast!.model);
    expect(file.probability).toBeUndefined();
    expect(file.weights).toEqual({ c: 1 });
    expect(file.label).toBe('textual');
    expect(file.provenance.tool).toContain('--fit-forecast');
  });
});
