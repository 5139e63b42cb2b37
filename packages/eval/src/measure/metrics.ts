/**
 * Classification and calibration metrics. Pure functions over parallel arrays of scores and
 * labels; no dependencies, so the figures can be checked by hand (see test/metrics.test.ts).
 *
 * Conventions:
 * - a score "predicts positive at τ" when score ≥ τ (the TCAS bands are `risk ≥ τ`);
 * - an undefined figure (AUC with one class only, precision with no predicted positives) is
 *   `null`, never NaN, so it survives JSON and prints as "–".
 */

export type Labels = readonly boolean[];
export type Scores = readonly number[];

function checkLengths(scores: Scores, labels: Labels): void {
  if (scores.length !== labels.length) throw new RangeError(`scores (${scores.length}) and labels (${labels.length}) differ in length`);
}

function countPositives(labels: Labels): number {
  let n = 0;
  for (const y of labels) if (y) n++;
  return n;
}

/** The share of positive labels; null for an empty set. */
export function baseRate(labels: Labels): number | null {
  return labels.length === 0 ? null : countPositives(labels) / labels.length;
}

/** Distinct-score groups, highest score first, with the positives and negatives in each. */
interface ScoreGroup {
  readonly score: number;
  readonly positives: number;
  readonly negatives: number;
}

function groupByScore(scores: Scores, labels: Labels): ScoreGroup[] {
  checkLengths(scores, labels);
  const order = scores.map((_, i) => i).sort((i, j) => scores[j]! - scores[i]!);
  const groups: ScoreGroup[] = [];
  let k = 0;
  while (k < order.length) {
    const score = scores[order[k]!]!;
    let positives = 0;
    let negatives = 0;
    while (k < order.length && scores[order[k]!] === score) {
      if (labels[order[k]!]) positives++;
      else negatives++;
      k++;
    }
    groups.push({ score, positives, negatives });
  }
  return groups;
}

/**
 * Area under the ROC curve: the probability that a random positive scores above a random
 * negative, ties counting one half (the Mann–Whitney statistic). Null when a class is missing.
 */
export function rocAuc(scores: Scores, labels: Labels): number | null {
  const groups = groupByScore(scores, labels);
  const P = countPositives(labels);
  const N = labels.length - P;
  if (P === 0 || N === 0) return null;
  // Walk from the highest score down: each negative beats nothing above it; each positive in a
  // group beats the negatives below the group and ties with the group's negatives.
  let negativesBelow = N;
  let wins = 0;
  for (const g of groups) {
    negativesBelow -= g.negatives;
    wins += g.positives * (negativesBelow + g.negatives / 2);
  }
  return wins / (P * N);
}

export interface RocPoint {
  /** Predict positive when score ≥ threshold. */
  readonly threshold: number;
  readonly fpr: number;
  readonly tpr: number;
}

/** The ROC curve's corners, from (0, 0) at threshold +∞ to (1, 1); tied scores make one step. */
export function rocCurve(scores: Scores, labels: Labels): RocPoint[] {
  const groups = groupByScore(scores, labels);
  const P = countPositives(labels);
  const N = labels.length - P;
  const points: RocPoint[] = [{ threshold: Infinity, fpr: 0, tpr: 0 }];
  let tp = 0;
  let fp = 0;
  for (const g of groups) {
    tp += g.positives;
    fp += g.negatives;
    points.push({ threshold: g.score, fpr: N === 0 ? 0 : fp / N, tpr: P === 0 ? 0 : tp / P });
  }
  return points;
}

/**
 * Area under the precision–recall curve as average precision: Σ (R_k − R_{k−1}) · P_k over the
 * distinct thresholds, highest first (scikit-learn's definition; no interpolation). Null when
 * there is no positive.
 */
export function averagePrecision(scores: Scores, labels: Labels): number | null {
  const groups = groupByScore(scores, labels);
  const P = countPositives(labels);
  if (P === 0) return null;
  let tp = 0;
  let fp = 0;
  let ap = 0;
  for (const g of groups) {
    tp += g.positives;
    fp += g.negatives;
    if (g.positives > 0) ap += (g.positives / P) * (tp / (tp + fp));
  }
  return ap;
}

export interface Confusion {
  readonly tp: number;
  readonly fp: number;
  readonly tn: number;
  readonly fn: number;
  /** tp / (tp + fp); null with no predicted positive. */
  readonly precision: number | null;
  /** tp / (tp + fn); null with no positive label. */
  readonly recall: number | null;
  /** 2tp / (2tp + fp + fn); null when there is neither a positive label nor a predicted positive. */
  readonly f1: number | null;
}

export function confusion(predicted: readonly boolean[], labels: Labels): Confusion {
  if (predicted.length !== labels.length)
    throw new RangeError(`predictions (${predicted.length}) and labels (${labels.length}) differ in length`);
  let tp = 0;
  let fp = 0;
  let tn = 0;
  let fn = 0;
  for (let i = 0; i < labels.length; i++) {
    if (predicted[i]) labels[i] ? tp++ : fp++;
    else labels[i] ? fn++ : tn++;
  }
  return {
    tp,
    fp,
    tn,
    fn,
    precision: tp + fp === 0 ? null : tp / (tp + fp),
    recall: tp + fn === 0 ? null : tp / (tp + fn),
    f1: 2 * tp + fp + fn === 0 ? null : (2 * tp) / (2 * tp + fp + fn),
  };
}

/** Confusion of "score ≥ threshold". */
export function confusionAt(scores: Scores, labels: Labels, threshold: number): Confusion {
  checkLengths(scores, labels);
  return confusion(
    scores.map((s) => s >= threshold),
    labels,
  );
}

/** Mean squared error of probabilities against 0/1 outcomes; null for an empty set. */
export function brierScore(probabilities: Scores, labels: Labels): number | null {
  checkLengths(probabilities, labels);
  if (labels.length === 0) return null;
  let sum = 0;
  for (let i = 0; i < labels.length; i++) sum += (probabilities[i]! - (labels[i] ? 1 : 0)) ** 2;
  return sum / labels.length;
}

export interface ReliabilityBin {
  /** Bin [lower, upper); the last bin includes 1. */
  readonly lower: number;
  readonly upper: number;
  readonly count: number;
  /** Mean predicted probability in the bin; null when empty. */
  readonly meanPredicted: number | null;
  /** Share of positives in the bin; null when empty. */
  readonly observedRate: number | null;
}

export const DEFAULT_CALIBRATION_BINS = 10;

/** Equal-width bins over [0, 1]: the reliability diagram's data. Probabilities are clamped to [0, 1]. */
export function reliabilityBins(probabilities: Scores, labels: Labels, bins = DEFAULT_CALIBRATION_BINS): ReliabilityBin[] {
  checkLengths(probabilities, labels);
  if (!Number.isInteger(bins) || bins < 1) throw new RangeError(`bins must be a positive integer, got ${bins}`);
  const count = new Array<number>(bins).fill(0);
  const sumP = new Array<number>(bins).fill(0);
  const sumY = new Array<number>(bins).fill(0);
  for (let i = 0; i < labels.length; i++) {
    const p = Math.min(1, Math.max(0, probabilities[i]!));
    const b = Math.min(bins - 1, Math.floor(p * bins));
    count[b]!++;
    sumP[b]! += p;
    if (labels[i]) sumY[b]!++;
  }
  return count.map((n, b) => ({
    lower: b / bins,
    upper: (b + 1) / bins,
    count: n,
    meanPredicted: n === 0 ? null : sumP[b]! / n,
    observedRate: n === 0 ? null : sumY[b]! / n,
  }));
}

/**
 * Expected calibration error with equal-width bins: Σ_b (n_b / N) · |observed rate_b − mean
 * predicted_b|. Null for an empty set.
 */
export function expectedCalibrationError(probabilities: Scores, labels: Labels, bins = DEFAULT_CALIBRATION_BINS): number | null {
  if (labels.length === 0) return null;
  let ece = 0;
  for (const bin of reliabilityBins(probabilities, labels, bins)) {
    if (bin.count === 0) continue;
    ece += (bin.count / labels.length) * Math.abs(bin.observedRate! - bin.meanPredicted!);
  }
  return ece;
}

/** The median; null for an empty set. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}
