/**
 * Noisy-OR combination: `R = 1 − Π (1 − ω_i · r_i)`, `D = 1 − R`, the one place it is computed.
 * Correlated channels and uncalibrated weights mean R is a score, not a probability (a scan
 * reports the probability through a fitted map: probability.ts).
 */

/** Clamps into [0, 1]; NaN becomes 0. */
export function clamp01(v: number): number {
  return Number.isNaN(v) ? 0 : Math.min(1, Math.max(0, v));
}

/** `1 − Π (1 − p_i)` over already-weighted contributions in [0, 1]. */
export function noisyOr(contributions: Iterable<number>): number {
  let keep = 1;
  for (const p of contributions) keep *= 1 - p;
  // Floating error can leave 1 − keep a hair outside [0, 1].
  return Math.min(1, Math.max(0, 1 - keep));
}
