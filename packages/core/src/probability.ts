/**
 * From risk to probability. R (the noisy-OR of weighted channel risks) ranks pairs and sets their
 * level, but it is not a probability: correlated channels and hand-held weights see to that. A
 * probability map is a strictly increasing piecewise-linear function of R, fitted on replayed
 * histories (`airspace eval --fit-probability`), so it changes no ranking, level or F1 — only what
 * the number reported beside them means: the share of pairs at that risk that collided.
 */

import { clamp01 } from './combine.js';
import type { Agent } from './model.js';
import { DEFAULT_PAST_CONFLICTS_VIEW, type PastConflictsService } from './services.js';

/** What the probability is the probability of (the eval's labels; see docs/evaluation.md). */
export type ProbabilityLabel = 'textual' | 'manual' | 'any' | 'collided' | 'semantic' | 'textual+semantic' | 'collided+semantic';

/** [x, probability] points, x from 0 to 1, both coordinates strictly increasing; linear in between. */
export type Knots = readonly (readonly [number, number])[];

export interface ProbabilityMap {
  readonly label: ProbabilityLabel;
  /**
   * [risk, probability] points, risks from 0 to 1, both coordinates strictly increasing (so that
   * the map keeps every ranking); linear in between.
   */
  readonly knots: Knots;
  /**
   * For pairs git merges cleanly today, a map of their risk combined with the repository's recent
   * conflict rate c: 1 − (1 − R)(1 − c). Whether such a pair collides later depends on more than
   * R: on histories whose merges often conflict (stable branches merged forward, syncs) two to
   * four times as many of them do, at the same R (docs/evaluation.md, "Calibrated probability").
   * Without it, or without a view of past merges, every pair reads `knots`.
   */
  readonly clean?: CleanPairMap;
}

export interface CleanPairMap {
  /** c is the share of this many newest past merges that conflicted (per agent, as of its view; the pair's mean). */
  readonly recentMerges: number;
  /** [1 − (1 − R)(1 − c), probability] points, as `knots`. */
  readonly knots: Knots;
}

/** How many of the newest past merges the recent conflict rate c is read over (a fitted clean part's `recentMerges`). */
export const RECENT_CONFLICT_MERGES = 50;

/** What a pair's probability reads besides its risk. */
export interface PairHistory {
  /**
   * git merges the two current states cleanly: in a scan, the merge channel scored them clean
   * (`gitMergeOf`; a probe, which leaves the merge channel out, asks git about the pair's real
   * states, `ScanOptions.gitMerge`); in eval, no conflict was found.
   */
  readonly clean: boolean;
  /** The pair's recent conflict rate c (`recentConflictsOf`), when known. */
  readonly recentConflicts?: number;
}

/**
 * The shipped map (`airspace eval --fit-probability collided`, docs/evaluation.md "Calibrated
 * probability"): fitted on six public histories, 2,799 states (full diffs and each side after ¼
 * and ½ of its commits), with the default weights. Label *collided at any point*: for a live
 * agent a conflict that exists now is a collision, so a pair git cannot merge today (R = 1) is
 * one. A pair that merges cleanly reads the clean part: the share of such pairs that collided
 * later, at its risk and the repository's recent conflict rate — 0.3% with neither, 1–6% on most
 * histories, up to 11% where most recent merges conflicted. It is a map of the default weights'
 * risk: other weights want their own fit.
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
    [0.057753, 0.063433],
    [0.105058, 0.07438],
    [0.202204, 0.081761],
    [0.433598, 0.086957],
    [0.997875, 0.9999],
    [1, 1],
  ],
  clean: {
    recentMerges: 50,
    knots: [
      [0, 0.002774],
      [0.000146, 0.002874],
      [0.017096, 0.010909],
      [0.040863, 0.011583],
      [0.046263, 0.016129],
      [0.098552, 0.055988],
      [0.289878, 0.114055],
      [1, 0.114155],
    ],
  },
};

function knotsProblem(k: Knots): string | undefined {
  if (k.length < 2) return 'needs at least two knots';
  for (const [r, p] of k) if (!(r >= 0 && r <= 1 && p >= 0 && p <= 1)) return `knot [${r}, ${p}] is outside [0, 1]²`;
  if (k[0]![0] !== 0 || k[k.length - 1]![0] !== 1) return 'must start at risk 0 and end at risk 1';
  for (let i = 1; i < k.length; i++)
    if (!(k[i]![0] > k[i - 1]![0] && k[i]![1] > k[i - 1]![1]))
      return `knots must be strictly increasing in risk and probability (knot ${i} is not)`;
  return undefined;
}

/** Why a map cannot be used, or undefined when it can. */
export function probabilityMapProblem(map: ProbabilityMap): string | undefined {
  const problem = knotsProblem(map.knots);
  if (problem !== undefined || !map.clean) return problem;
  if (!(Number.isInteger(map.clean.recentMerges) && map.clean.recentMerges >= 1))
    return `clean.recentMerges must be a whole number ≥ 1 (got ${map.clean.recentMerges})`;
  const clean = knotsProblem(map.clean.knots);
  return clean === undefined ? undefined : `clean: ${clean}`;
}

/** Linear between knots; x outside [0, 1] is clamped. */
function interpolate(k: Knots, x: number): number {
  const r = clamp01(x);
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

/** The probability of a risk under a map's `knots` (linear between knots; a risk outside [0, 1] is clamped). */
export function probabilityOf(risk: number, map: ProbabilityMap = DEFAULT_PROBABILITY_MAP): number {
  return interpolate(map.knots, risk);
}

/** What a clean pair's second map reads: R and the recent conflict rate c, combined as a noisy-OR. */
export function cleanPairScore(risk: number, recentConflicts: number): number {
  return 1 - (1 - clamp01(risk)) * (1 - clamp01(recentConflicts));
}

/**
 * A pair's probability: a pair git merges cleanly, with a recent conflict rate, under a map with
 * a `clean` part reads that; every other pair reads the risk's map.
 */
export function pairProbability(risk: number, pair: PairHistory, map: ProbabilityMap = DEFAULT_PROBABILITY_MAP): number {
  if (map.clean && pair.clean && pair.recentConflicts !== undefined)
    return interpolate(map.clean.knots, cleanPairScore(risk, pair.recentConflicts));
  return probabilityOf(risk, map);
}

/**
 * One agent's recent conflict rate: of the newest `merges` past merges of its view (as the
 * past-conflicts channel reads it), the share that conflicted; undefined without a view.
 */
export async function agentRecentConflicts(agent: Agent, service: PastConflictsService, merges: number): Promise<number | undefined> {
  try {
    return (await service.viewFor(agent, DEFAULT_PAST_CONFLICTS_VIEW))?.recentConflictShare?.(merges);
  } catch {
    // The past-conflicts channel reports a history it cannot read; the probability does without.
    return undefined;
  }
}

/** A pair's c from its agents' rates: the mean of those known; undefined when none is. */
export function pairRecentConflicts(rates: readonly (number | undefined)[]): number | undefined {
  const known = rates.filter((r): r is number => r !== undefined);
  return known.length === 0 ? undefined : known.reduce((x, y) => x + y, 0) / known.length;
}

/** The pair's recent conflict rate c (`agentRecentConflicts` of each agent, `pairRecentConflicts`). */
export async function recentConflictsOf(
  agents: readonly Agent[],
  service: PastConflictsService | undefined,
  merges: number,
): Promise<number | undefined> {
  if (!service) return undefined;
  return pairRecentConflicts(await Promise.all(agents.map((agent) => agentRecentConflicts(agent, service, merges))));
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
