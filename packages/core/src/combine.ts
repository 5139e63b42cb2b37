/**
 * Noisy-OR combination (seed eq. 2): `R = 1 − Π (1 − ω_i · r_i)`, `D = 1 − R`.
 * Correlated channels and uncalibrated weights mean R is a score, not a probability (a scan
 * reports the probability through a fitted map: probability.ts).
 */
import type { Problem } from './channel.js';
import { invalidWeight, riskOutOfRange } from './errors.js';

export interface ChannelInput {
  readonly channel: string;
  /** r_i ∈ [0, 1]. */
  readonly risk: number;
  /** ω_i ∈ [0, 1]. */
  readonly weight: number;
}

export interface CombinedPart {
  readonly channel: string;
  readonly weight: number;
  readonly risk: number;
  /** ω_i · r_i. */
  readonly weighted: number;
}

export interface Combined {
  /** R ∈ [0, 1]. */
  readonly risk: number;
  /** D = 1 − R. */
  readonly distance: number;
  readonly parts: readonly CombinedPart[];
  /** NaN or out-of-range risks and weights, clamped (NaN → 0) and reported here. */
  readonly problems: readonly Problem[];
}

/** Clamps to [0, 1]; NaN and non-numbers become 0. Returns whether the value was altered. */
export function clampUnit(value: unknown): { value: number; clamped: boolean } {
  if (typeof value !== 'number' || Number.isNaN(value)) return { value: 0, clamped: true };
  if (value < 0) return { value: 0, clamped: true };
  if (value > 1) return { value: 1, clamped: true };
  return { value, clamped: false };
}

/** `1 − Π (1 − p_i)` over already-weighted contributions in [0, 1]. */
export function noisyOr(contributions: Iterable<number>): number {
  let keep = 1;
  for (const p of contributions) keep *= 1 - p;
  // Floating error can leave 1 − keep a hair outside [0, 1].
  return Math.min(1, Math.max(0, 1 - keep));
}

export function combineRisks(inputs: readonly ChannelInput[]): Combined {
  const problems: Problem[] = [];
  const parts: CombinedPart[] = inputs.map((input) => {
    const risk = clampUnit(input.risk);
    if (risk.clamped) problems.push(riskOutOfRange(input.channel, input.risk));
    const weight = clampUnit(input.weight);
    if (weight.clamped) problems.push(invalidWeight(input.channel, input.weight, weight.value));
    return { channel: input.channel, weight: weight.value, risk: risk.value, weighted: weight.value * risk.value };
  });
  const risk = noisyOr(parts.map((p) => p.weighted));
  return { risk, distance: 1 - risk, parts, problems };
}
