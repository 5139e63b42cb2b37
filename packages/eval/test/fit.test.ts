import { describe, expect, it } from 'vitest';
import { seededRandom } from '@airspace/core/builders';
import { expectedCalibrationError } from '../src/measure/metrics.js';
import { crossValidateNoisyOr, fitNoisyOr, meanNegativeLogLikelihood, noisyOrProbability } from '../src/fit/noisy-or.js';

/** Rows of independent channel risks (often 0, as real channels are) and labels drawn from a known noisy-OR. */
function synthetic(weights: number[], leak: number, n: number, seed: number): { rows: number[][]; labels: boolean[] } {
  const rnd = seededRandom(seed);
  const rows: number[][] = [];
  const labels: boolean[] = [];
  for (let i = 0; i < n; i++) {
    const row = weights.map(() => (rnd() < 0.5 ? 0 : rnd() < 0.3 ? 1 : rnd()));
    rows.push(row);
    labels.push(rnd() < noisyOrProbability({ weights, leak }, row));
  }
  return { rows, labels };
}

describe('noisy-OR with leak', () => {
  it('P = 1 − (1 − leak) Π (1 − ω r), by hand', () => {
    expect(noisyOrProbability({ weights: [0.5, 1], leak: 0.1 }, [0.5, 0.2])).toBeCloseTo(1 - 0.9 * 0.75 * 0.8, 12);
  });

  it('fitting recovers known weights and leak from synthetic data', () => {
    const truth = { weights: [0.9, 0.35, 0], leak: 0.04 };
    const { rows, labels } = synthetic(truth.weights, truth.leak, 8000, 7);
    const fit = fitNoisyOr(rows, labels);
    expect(fit.converged).toBe(true);
    fit.weights.forEach((w, i) => expect(Math.abs(w - truth.weights[i]!)).toBeLessThan(0.06));
    expect(Math.abs(fit.leak - truth.leak)).toBeLessThan(0.02);
    // The fitted model is at least as likely as the truth on the data it was fitted to.
    expect(fit.meanNll).toBeLessThanOrEqual(meanNegativeLogLikelihood(truth, rows, labels) + 1e-9);
  });

  it('is deterministic', () => {
    const { rows, labels } = synthetic([0.6, 0.2], 0.1, 1000, 3);
    expect(fitNoisyOr(rows, labels)).toEqual(fitNoisyOr(rows, labels));
  });

  it('keeps weights in [0, 1] even when a channel predicts the opposite of the label', () => {
    const rows = [[1], [1], [1], [0], [0], [0]];
    const labels = [false, false, false, true, true, false];
    const fit = fitNoisyOr(rows, labels);
    expect(fit.weights[0]).toBe(0);
    expect(fit.leak).toBeGreaterThan(0.3);
  });

  it('a fixed leak stays fixed', () => {
    const { rows, labels } = synthetic([0.7], 0.2, 500, 5);
    expect(fitNoisyOr(rows, labels, { fixedLeak: 0 }).leak).toBe(0);
  });

  it('a fixed weight stays fixed, and the others are fitted around it', () => {
    const truth = { weights: [1, 0.35], leak: 0.02 };
    const { rows, labels } = synthetic(truth.weights, truth.leak, 8000, 13);
    const fit = fitNoisyOr(rows, labels, { fixedWeights: new Map([[0, 1]]) });
    expect(fit.weights[0]).toBe(1);
    expect(Math.abs(fit.weights[1]! - 0.35)).toBeLessThan(0.06);
    // Held at a wrong value, the free weight moves away from the truth to make up for it.
    const off = fitNoisyOr(rows, labels, { fixedWeights: new Map([[0, 0.5]]) });
    expect(off.weights[0]).toBe(0.5);
    expect(off.weights[1]!).toBeGreaterThan(fit.weights[1]! + 0.05);
  });

  it('out-of-fold predictions of a well-specified model are calibrated', () => {
    const { rows, labels } = synthetic([0.8, 0.3], 0.05, 4000, 11);
    const cv = crossValidateNoisyOr(rows, labels, 5);
    expect(cv.folds).toHaveLength(5);
    expect(cv.outOfFold).toHaveLength(4000);
    expect(expectedCalibrationError(cv.outOfFold, labels)!).toBeLessThan(0.03);
  });
});
