/**
 * Maximum-likelihood weights of the noisy-OR with a leak term:
 *
 *   P(collision | r) = 1 − (1 − leak) · Π_i (1 − ω_i · r_i),   ω_i ∈ [0, 1], leak ∈ [0, 1)
 *
 * fitted by expectation–maximisation (below). Deterministic: fixed start, no randomness. The likelihood is
 * not convex in general (correlated channels trade weight), so the result is a local optimum
 * from the fixed start; with independent channels it recovers the generating weights.
 */

export interface NoisyOrModel {
  /** ω_i in the order of the feature columns. */
  readonly weights: readonly number[];
  readonly leak: number;
}

export interface FitOptions {
  readonly maxIterations?: number;
  /** Stop when no parameter moves by more than this in one iteration. */
  readonly tolerance?: number;
  /** Fix the leak (e.g. 0 to fit the plain noisy-OR of the scanner). */
  readonly fixedLeak?: number;
  /** Weights held at a value (column index → ω): the others are fitted around them (EM stays monotone). */
  readonly fixedWeights?: ReadonlyMap<number, number>;
  /**
   * A pull toward prior weights (e.g. the shipped ones): `strength` pseudo-rows in which channel i
   * fired and caused the collision with probability ω⁰_i, added to every M-step (a Beta prior's
   * MAP estimate; EM stays monotone in the posterior). A channel that fired in n rows, never with
   * a collision, then settles at ω⁰_i·strength / (n + strength) instead of 0 (rows where it did
   * not fire say nothing about ω_i).
   */
  readonly prior?: { readonly weights: readonly number[]; readonly strength: number };
  /** No fitted weight goes below this (the M-step's maximiser on [min, 1]). */
  readonly minWeight?: number;
}

export interface FitResult extends NoisyOrModel {
  /** Mean negative log-likelihood at the optimum. */
  readonly meanNll: number;
  readonly iterations: number;
  readonly converged: boolean;
}

const MAX_LEAK = 0.999;
const EPS = 1e-12;

/** P(collision) for one row of channel risks. */
export function noisyOrProbability(model: NoisyOrModel, risks: readonly number[]): number {
  let keep = 1 - model.leak;
  for (let i = 0; i < model.weights.length; i++) keep *= 1 - model.weights[i]! * (risks[i] ?? 0);
  return Math.min(1, Math.max(0, 1 - keep));
}

/** Mean negative log-likelihood of labels under the model (probabilities clamped to [ε, 1 − ε]). */
export function meanNegativeLogLikelihood(model: NoisyOrModel, rows: readonly (readonly number[])[], labels: readonly boolean[]): number {
  if (rows.length === 0) return 0;
  let sum = 0;
  for (let n = 0; n < rows.length; n++) {
    const p = Math.min(1 - EPS, Math.max(EPS, noisyOrProbability(model, rows[n]!)));
    sum -= labels[n] ? Math.log(p) : Math.log(1 - p);
  }
  return sum / rows.length;
}

/**
 * Expectation–maximisation on the noisy-OR's causal reading: channel i "fires" with probability
 * r_i and, when it fires, causes the collision with probability ω_i (the leak causes it on its
 * own). Each EM step raises the likelihood, keeps every parameter in [0, 1] without projection,
 * and needs no step size, so the fit is monotone and deterministic.
 *
 *   E[c_i | y = 0] = ω_i (1 − r_i) / (1 − ω_i r_i)
 *   E[c_i | y = 1] = ω_i (1 − (1 − r_i) Q_¬i) / p,   Q_¬i = (1 − leak) Π_{j≠i} (1 − ω_j r_j)
 *   E[leak | y = 1] = leak / p,  E[leak | y = 0] = 0;   M-step: means over the rows.
 */
export function fitNoisyOr(rows: readonly (readonly number[])[], labels: readonly boolean[], options: FitOptions = {}): FitResult {
  if (rows.length !== labels.length) throw new RangeError(`rows (${rows.length}) and labels (${labels.length}) differ in length`);
  const k = rows[0]?.length ?? 0;
  const N = rows.length;
  const maxIterations = options.maxIterations ?? 5000;
  const tolerance = options.tolerance ?? 1e-7;
  const positives = labels.filter(Boolean).length;
  // Start: every weight one half, the leak at half the base rate (never 0: 0 is a fixed point).
  const fixed = options.fixedWeights ?? new Map<number, number>();
  let weights = Array.from({ length: k }, (_, i) => fixed.get(i) ?? 0.5);
  const prior = options.prior?.weights ?? [];
  const priorStrength = options.prior ? Math.max(0, options.prior.strength) : 0;
  const minWeight = Math.min(1, Math.max(0, options.minWeight ?? 0));
  let leak = options.fixedLeak ?? Math.max(1e-3, positives / Math.max(1, N) / 2);
  let iterations = 0;
  let converged = N === 0;
  const terms = new Array<number>(k).fill(0);
  for (; iterations < maxIterations && !converged; iterations++) {
    const sumC = new Array<number>(k).fill(0);
    let sumLeak = 0;
    for (let n = 0; n < N; n++) {
      const r = rows[n]!;
      let q = 1 - leak;
      for (let i = 0; i < k; i++) {
        terms[i] = 1 - weights[i]! * (r[i] ?? 0);
        q *= terms[i]!;
      }
      if (labels[n]) {
        const p = Math.max(EPS, 1 - q);
        for (let i = 0; i < k; i++) {
          const ri = r[i] ?? 0;
          // Q_¬i = q / (1 − ω_i r_i), computed without dividing by zero.
          const qWithout = terms[i]! > EPS ? q / terms[i]! : productWithout(r, weights, leak, i);
          sumC[i]! += (weights[i]! * (1 - (1 - ri) * qWithout)) / p;
        }
        sumLeak += leak / p;
      } else {
        for (let i = 0; i < k; i++) {
          const ri = r[i] ?? 0;
          sumC[i]! += terms[i]! > EPS ? (weights[i]! * (1 - ri)) / terms[i]! : 0;
        }
      }
    }
    const next = sumC.map(
      (s, i) => fixed.get(i) ?? Math.min(1, Math.max(minWeight, (s + priorStrength * (prior[i] ?? 0)) / (N + priorStrength))),
    );
    const nextLeak = options.fixedLeak ?? Math.min(MAX_LEAK, Math.max(0, sumLeak / N));
    const change = Math.max(Math.abs(nextLeak - leak), ...next.map((w, i) => Math.abs(w - weights[i]!)));
    weights = next;
    leak = nextLeak;
    if (change < tolerance) converged = true;
  }
  const model: NoisyOrModel = { weights: weights.map(clean), leak: clean(leak) };
  return { ...model, meanNll: meanNegativeLogLikelihood({ weights, leak }, rows, labels), iterations, converged };
}

function productWithout(r: readonly number[], weights: readonly number[], leak: number, skip: number): number {
  let q = 1 - leak;
  for (let j = 0; j < weights.length; j++) if (j !== skip) q *= 1 - weights[j]! * (r[j] ?? 0);
  return q;
}

/** Weights within 1e-6 of a bound are reported as the bound. */
function clean(v: number): number {
  if (v < 1e-6) return 0;
  if (v > 1 - 1e-5) return 1;
  return v;
}

/** Deterministic k-fold assignment: row n goes to fold n mod k. */
export function foldOf(index: number, folds: number): number {
  return index % folds;
}

export interface CrossValidation {
  /** Out-of-fold probability for every row: predicted by a model that never saw the row. */
  readonly outOfFold: number[];
  readonly folds: readonly FitResult[];
}

/** k-fold cross-validation of `fitNoisyOr`; rows in a fold are predicted by the model fitted on the others. */
export function crossValidateNoisyOr(
  rows: readonly (readonly number[])[],
  labels: readonly boolean[],
  folds: number,
  options: FitOptions = {},
): CrossValidation {
  if (!Number.isInteger(folds) || folds < 2) throw new RangeError(`folds must be an integer ≥ 2, got ${folds}`);
  const outOfFold = new Array<number>(rows.length).fill(0);
  const fits: FitResult[] = [];
  for (let f = 0; f < folds; f++) {
    const trainRows: (readonly number[])[] = [];
    const trainLabels: boolean[] = [];
    for (let n = 0; n < rows.length; n++) {
      if (foldOf(n, folds) === f) continue;
      trainRows.push(rows[n]!);
      trainLabels.push(labels[n]!);
    }
    const fit = fitNoisyOr(trainRows, trainLabels, options);
    fits.push(fit);
    for (let n = 0; n < rows.length; n++) if (foldOf(n, folds) === f) outOfFold[n] = noisyOrProbability(fit, rows[n]!);
  }
  return { outOfFold, folds: fits };
}

/** How the fits of `airspace eval` are regularised (channel ids → prior weights). */
export interface Regularisation {
  /** Prior weights per channel id (the shipped ones); a channel without one is pulled toward 0. */
  readonly prior: Readonly<Record<string, number>>;
  /** Pseudo-rows of the prior, as a share of the training rows (0: none). */
  readonly share: number;
  readonly minWeight?: number;
}

/** Default pull toward the shipped weights: a tenth of the training rows. */
export const DEFAULT_PRIOR_SHARE = 0.1;

/** Weights below this are reported as "went to 0". */
export const ZERO_WEIGHT = 0.01;

/** The fit options of a regularisation, for these channel columns and this many training rows. */
export function regularised(
  channelIds: readonly string[],
  rows: number,
  reg: Regularisation | undefined,
): Pick<FitOptions, 'prior' | 'minWeight'> {
  if (!reg) return {};
  return {
    ...(reg.share > 0 ? { prior: { weights: channelIds.map((id) => reg.prior[id] ?? 0), strength: reg.share * rows } } : {}),
    ...(reg.minWeight ? { minWeight: reg.minWeight } : {}),
  };
}

/** Channels whose fitted weight went to (nearly) 0, held weights aside. */
export function zeroWeightsOf(weights: Readonly<Record<string, number>>, fixed: Readonly<Record<string, number>> = {}): string[] {
  return Object.entries(weights)
    .filter(([id, w]) => w < ZERO_WEIGHT && fixed[id] === undefined)
    .map(([id]) => id);
}
