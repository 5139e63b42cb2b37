/**
 * A risk → probability map fitted on labelled risks: isotonic regression (pool adjacent
 * violators, PAV) of the label on R, whose blocks become the knots of a strictly increasing
 * piecewise-linear map (`ProbabilityMap` in @airspace/core). Isotonic because the map must keep
 * every ranking (so levels, ROC/PR-AUC and F1 stay as they are) and nothing else is assumed about
 * its shape; linear between the blocks' mean risks, and nudged to be strictly increasing, so that
 * no two pairs the scanner tells apart get one probability. Deterministic and pure.
 */
import { cleanPairScore, RECENT_CONFLICT_MERGES, type PairHistory, type ProbabilityLabel, type ProbabilityMap } from '@airspace/core';

/** A block of the isotonic fit: the risks it spans, their mean, the label's rate in it, and its size. */
export interface IsotonicBlock {
  readonly from: number;
  readonly to: number;
  readonly meanRisk: number;
  readonly rate: number;
  readonly n: number;
}

/** The smallest step between knots, in risk and in probability (well below any figure reported). */
export const KNOT_STEP = 1e-4;

/** Isotonic regression of labels on risks (PAV): the non-decreasing step function closest in squared error. */
export function isotonicBlocks(risks: readonly number[], labels: readonly boolean[]): IsotonicBlock[] {
  const order = risks.map((r, i) => [r, labels[i] ? 1 : 0] as const).sort((a, b) => a[0] - b[0]);
  type Acc = { from: number; to: number; sumRisk: number; positives: number; n: number };
  const stack: Acc[] = [];
  for (const [r, y] of order) {
    const top = stack[stack.length - 1];
    // Equal risks are one block: the map cannot tell them apart.
    if (top && top.to === r) {
      top.sumRisk += r;
      top.positives += y;
      top.n++;
    } else stack.push({ from: r, to: r, sumRisk: r, positives: y, n: 1 });
    while (stack.length > 1) {
      const b = stack[stack.length - 1]!;
      const a = stack[stack.length - 2]!;
      if (a.positives / a.n < b.positives / b.n) break;
      stack.splice(-2, 2, { from: a.from, to: b.to, sumRisk: a.sumRisk + b.sumRisk, positives: a.positives + b.positives, n: a.n + b.n });
    }
  }
  return stack.map((b) => ({ from: b.from, to: b.to, meanRisk: b.sumRisk / b.n, rate: b.positives / b.n, n: b.n }));
}

/**
 * The map through the blocks' (mean risk, rate), extended flat-but-rising to risk 0 and risk 1,
 * then made strictly increasing in both coordinates (each knot at least `KNOT_STEP` above the one
 * before it, and below the one after it, within [0, 1]).
 */
export function mapOfBlocks(blocks: readonly IsotonicBlock[], label: ProbabilityLabel): ProbabilityMap {
  const points: [number, number][] = blocks.map((b) => [b.meanRisk, b.rate]);
  if (points.length === 0)
    return {
      label,
      knots: [
        [0, 0],
        [1, 1],
      ],
    };
  if (points[0]![0] > 0) points.unshift([0, points[0]![1]]);
  if (points[points.length - 1]![0] < 1) points.push([1, points[points.length - 1]![1]]);
  // Knots closer than a step in risk are one (the later one's rate is the higher).
  const knots: [number, number][] = [];
  for (const [risk, rate] of points) {
    const last = knots[knots.length - 1];
    if (!last || risk - last[0] >= KNOT_STEP) knots.push([risk, rate]);
    else {
      last[1] = rate;
      if (risk === 1) last[0] = 1;
    }
  }
  knots[0]![0] = 0;
  knots[knots.length - 1]![0] = 1;
  // Strictly increasing probabilities: forward from the top down-shifted, so that a rate of 1 stays 1.
  const n = knots.length;
  for (let i = n - 2; i >= 0; i--) knots[i]![1] = Math.min(knots[i]![1], knots[i + 1]![1] - KNOT_STEP);
  for (let i = 0; i < n; i++) knots[i]![1] = Math.max(knots[i]![1], i === 0 ? 0 : knots[i - 1]![1] + KNOT_STEP);
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  return { label, knots: knots.map(([r, p]) => [round(r), round(Math.min(1, p))] as const) };
}

/**
 * Blocks of fewer than `minStates` states pooled into a neighbour (the later one, the earlier for
 * the last), until every block has as many or one block is left. Pooling neighbours keeps the
 * rates non-decreasing.
 */
export function pooledBlocks(blocks: readonly IsotonicBlock[], minStates: number): IsotonicBlock[] {
  const out = [...blocks];
  for (;;) {
    const i = out.findIndex((b) => b.n < minStates);
    if (i < 0 || out.length < 2) return out;
    const at = i === out.length - 1 ? i - 1 : i;
    const [x, y] = [out[at]!, out[at + 1]!];
    const n = x.n + y.n;
    out.splice(at, 2, {
      from: x.from,
      to: y.to,
      meanRisk: (x.meanRisk * x.n + y.meanRisk * y.n) / n,
      rate: (x.rate * x.n + y.rate * y.n) / n,
      n,
    });
  }
}

/** The isotonic map of `label` on R, for scanner risks and their labels (blocks of at least `minStates` states). */
export function fitProbabilityMap(
  risks: readonly number[],
  labels: readonly boolean[],
  label: ProbabilityLabel,
  minStates = 1,
): ProbabilityMap {
  return mapOfBlocks(pooledBlocks(isotonicBlocks(risks, labels), minStates), label);
}

/**
 * The clean part's blocks hold at least this many states. Its score spreads the clean pairs over
 * two inputs, and a few pairs of one history at a high rate (a branch whose every merge conflicts)
 * otherwise form blocks of their own that the line between knots carries to other histories' pairs:
 * unpooled, the shipped fit put mongoose's full diffs at ECE 0.0502 (docs/evaluation.md).
 */
export const CLEAN_MIN_STATES = 20;

/** A labelled state for the fit: the scanner's risk, what else its probability reads, and the label. */
export interface ProbabilityFitRow {
  readonly risk: number;
  readonly history: PairHistory;
  readonly label: boolean;
}

/**
 * The map a scan reports probabilities with: the isotonic map of the label on R over every state,
 * and for the states git merges cleanly whose recent conflict rate c is known, the isotonic map on
 * 1 − (1 − R)(1 − c) (`ProbabilityMap.clean`). Without such states, the first alone.
 */
export function fitProbabilityModel(rows: readonly ProbabilityFitRow[], label: ProbabilityLabel): ProbabilityMap {
  const map = fitProbabilityMap(
    rows.map((r) => r.risk),
    rows.map((r) => r.label),
    label,
  );
  const clean = rows.filter((r) => r.history.clean && r.history.recentConflicts !== undefined);
  if (clean.length === 0) return map;
  const knots = fitProbabilityMap(
    clean.map((r) => cleanPairScore(r.risk, r.history.recentConflicts!)),
    clean.map((r) => r.label),
    label,
    CLEAN_MIN_STATES,
  ).knots;
  return { ...map, clean: { recentMerges: RECENT_CONFLICT_MERGES, knots } };
}
