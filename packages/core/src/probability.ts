/**
 * From risk to probability. R (the noisy-OR of weighted channel risks) ranks pairs and sets their
 * level, but it is not a probability: correlated channels and hand-held weights see to that. A
 * probability map is a strictly increasing piecewise-linear function of R, fitted on replayed
 * histories (`airspace eval --fit-probability`), so it changes no ranking, level or F1 — only what
 * the number reported beside them means: the share of pairs at that risk that collided.
 */

/** What the probability is the probability of (the eval's labels; see docs/evaluation.md). */
export type ProbabilityLabel = 'textual' | 'manual' | 'any' | 'collided';

export interface ProbabilityMap {
  readonly label: ProbabilityLabel;
  /**
   * [risk, probability] points, risks from 0 to 1, both coordinates strictly increasing (so that
   * the map keeps every ranking); linear in between.
   */
  readonly knots: readonly (readonly [number, number])[];
}

/**
 * The shipped map (`airspace eval --fit-probability collided`, docs/evaluation.md "Calibrated
 * probability"): fitted on six public histories, 2,799 states (full diffs and each side after ¼
 * and ½ of its commits), with the default weights. Label *collided at any point*: for a live
 * agent a conflict that exists now is a collision, so a pair git cannot merge today (R = 1) is
 * one, and a pair that merges cleanly gets the share of such pairs at its risk that collided
 * later (1–9%). It is a map of the default weights' risk: other weights want their own fit.
 */
export const DEFAULT_PROBABILITY_MAP: ProbabilityMap = {
  label: 'collided',
  knots: [
    [0, 0.009268],
    [0.000106, 0.009368],
    [0.003085, 0.020236],
    [0.008122, 0.02381],
    [0.013718, 0.034965],
    [0.024294, 0.035714],
    [0.030214, 0.042105],
    [0.057996, 0.063433],
    [0.105641, 0.07563],
    [0.201593, 0.080745],
    [0.433598, 0.086957],
    [0.997875, 0.9999],
    [1, 1],
  ],
};

/** Why a map cannot be used, or undefined when it can. */
export function probabilityMapProblem(map: ProbabilityMap): string | undefined {
  const k = map.knots;
  if (k.length < 2) return 'needs at least two knots';
  for (const [r, p] of k) if (!(r >= 0 && r <= 1 && p >= 0 && p <= 1)) return `knot [${r}, ${p}] is outside [0, 1]²`;
  if (k[0]![0] !== 0 || k[k.length - 1]![0] !== 1) return 'must start at risk 0 and end at risk 1';
  for (let i = 1; i < k.length; i++)
    if (!(k[i]![0] > k[i - 1]![0] && k[i]![1] > k[i - 1]![1]))
      return `knots must be strictly increasing in risk and probability (knot ${i} is not)`;
  return undefined;
}

/** The probability of a risk under a map (linear between knots; a risk outside [0, 1] is clamped). */
export function probabilityOf(risk: number, map: ProbabilityMap = DEFAULT_PROBABILITY_MAP): number {
  const k = map.knots;
  const r = Number.isNaN(risk) ? 0 : Math.min(1, Math.max(0, risk));
  if (r <= k[0]![0]) return k[0]![1];
  for (let i = 1; i < k.length; i++) {
    const [x1, y1] = k[i]!;
    if (r <= x1) {
      const [x0, y0] = k[i - 1]!;
      return y0 + ((y1 - y0) * (r - x0)) / (x1 - x0);
    }
  }
  return k[k.length - 1]![1];
}

/**
 * A probability as people read it: a whole percentage, "<1%" and ">99%" at the ends (so that a
 * small chance never reads as none, nor a large one as certain). Used wherever a scan shows it.
 */
export function percentText(p: number): string {
  if (p > 0 && p < 0.005) return '<1%';
  if (p < 1 && p > 0.995) return '>99%';
  return `${Math.round(p * 100)}%`;
}

/** How front ends show a pair's probability beside its risk: "9% chance of colliding". */
export function chanceText(p: number): string {
  return `${percentText(p)} chance of colliding`;
}
