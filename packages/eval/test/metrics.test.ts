import { describe, expect, it } from 'vitest';
import {
  averagePrecision,
  baseRate,
  brierScore,
  confusionAt,
  expectedCalibrationError,
  reliabilityBins,
  rocAuc,
  rocCurve,
} from '../src/measure/metrics.js';

// A small fixed set, every figure below computed by hand.
// positives score {0.9, 0.8, 0.2}; negatives {0.8, 0.4, 0.1}; one tie across classes at 0.8.
const scores = [0.9, 0.8, 0.8, 0.4, 0.2, 0.1];
const labels = [true, true, false, false, true, false];

describe('ranking metrics', () => {
  it('ROC-AUC counts a tie as one half: (3 + 2.5 + 1) / 9', () => {
    expect(rocAuc(scores, labels)).toBeCloseTo(6.5 / 9, 12);
  });

  it('ROC curve steps once per distinct score and its trapezoid area equals the AUC', () => {
    const curve = rocCurve(scores, labels);
    expect(curve.map((p) => [p.fpr, p.tpr])).toEqual([
      [0, 0],
      [0, 1 / 3],
      [1 / 3, 2 / 3],
      [2 / 3, 2 / 3],
      [2 / 3, 1],
      [1, 1],
    ]);
    let area = 0;
    for (let i = 1; i < curve.length; i++) area += (curve[i]!.fpr - curve[i - 1]!.fpr) * ((curve[i]!.tpr + curve[i - 1]!.tpr) / 2);
    expect(area).toBeCloseTo(rocAuc(scores, labels)!, 12);
  });

  it('average precision: 1/3·1 + 1/3·2/3 + 1/3·3/5 = 34/45', () => {
    expect(averagePrecision(scores, labels)).toBeCloseTo(34 / 45, 12);
  });

  it('all scores tied: AUC one half, AP the base rate', () => {
    const flat = [0.5, 0.5, 0.5, 0.5];
    const y = [true, false, false, false];
    expect(rocAuc(flat, y)).toBe(0.5);
    expect(averagePrecision(flat, y)).toBe(0.25);
  });

  it('undefined figures are null, not NaN', () => {
    expect(rocAuc([0.1, 0.2], [false, false])).toBeNull();
    expect(averagePrecision([0.1, 0.2], [false, false])).toBeNull();
    expect(baseRate([])).toBeNull();
    expect(brierScore([], [])).toBeNull();
    expect(expectedCalibrationError([], [])).toBeNull();
  });

  it('rejects arrays of different lengths', () => {
    expect(() => rocAuc([0.1], [true, false])).toThrow(RangeError);
  });
});

describe('thresholded metrics', () => {
  it('at τ = 0.5: tp 2, fp 1, fn 1, tn 2', () => {
    const c = confusionAt(scores, labels, 0.5);
    expect(c).toMatchObject({ tp: 2, fp: 1, fn: 1, tn: 2 });
    expect(c.precision).toBeCloseTo(2 / 3, 12);
    expect(c.recall).toBeCloseTo(2 / 3, 12);
    expect(c.f1).toBeCloseTo(2 / 3, 12);
  });

  it('the threshold is inclusive (risk ≥ τ), as the TCAS bands are', () => {
    expect(confusionAt(scores, labels, 0.8)).toMatchObject({ tp: 2, fp: 1 });
    expect(confusionAt(scores, labels, 0.81)).toMatchObject({ tp: 1, fp: 0 });
  });

  it('no predicted positive: precision null, recall 0, F1 0', () => {
    const c = confusionAt(scores, labels, 0.95);
    expect(c.precision).toBeNull();
    expect(c.recall).toBe(0);
    expect(c.f1).toBe(0);
  });

  it('base rate', () => {
    expect(baseRate(labels)).toBe(0.5);
  });
});

describe('calibration metrics', () => {
  it('Brier score: (0.01 + 0.04 + 0.64 + 0.16 + 0.64 + 0.01) / 6', () => {
    expect(brierScore(scores, labels)).toBeCloseTo(1.5 / 6, 12);
  });

  it('ECE with ten equal-width bins: (0.1 + 2·0.3 + 0.4 + 0.8 + 0.1) / 6', () => {
    expect(expectedCalibrationError(scores, labels)).toBeCloseTo(2 / 6, 12);
  });

  it('reliability bins: counts, mean predicted and observed rate per bin; 1.0 falls in the last bin', () => {
    const bins = reliabilityBins([...scores, 1], [...labels, true], 5);
    expect(bins.map((b) => b.count)).toEqual([1, 1, 1, 0, 4]);
    expect(bins[4]!.meanPredicted).toBeCloseTo((0.9 + 0.8 + 0.8 + 1) / 4, 12);
    expect(bins[4]!.observedRate).toBe(0.75);
    expect(bins[3]!.meanPredicted).toBeNull();
  });

  it('a perfectly calibrated set has ECE 0', () => {
    const p = [0.25, 0.25, 0.25, 0.25, 0.75, 0.75, 0.75, 0.75];
    const y = [true, false, false, false, true, true, true, false];
    expect(expectedCalibrationError(p, y)).toBeCloseTo(0, 12);
  });
});
