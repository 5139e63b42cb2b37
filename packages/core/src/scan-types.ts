/**
 * The result of `scanAirspace`: the stable JSON contract that `airspace scan --json`, the LSP
 * request `airspace/scan` and the view all share. Names follow the original design
 * (`advisories`, `links`, `positions`, `fileCoordinates`, `counts`) plus `agents`.
 */
import type { Evidence, Overrule, Precision, Problem } from './channel.js';
import type { Agent } from './model.js';
import type { ProbabilityLabel } from './probability.js';

export type Level = 'clear' | 'traffic' | 'resolution' | 'unknown';

export interface Thresholds {
  /** τ_TA: risk at or above which a traffic advisory is raised. */
  readonly traffic: number;
  /** τ_RA: risk at or above which a resolution advisory is raised. */
  readonly resolution: number;
}

/**
 * Fitted with the default weights on six public histories (docs/evaluation.md, "Shipped
 * defaults"): τ_TA is the lowest band whose advisories were at least 70% right in every one of
 * them, τ_RA the best F1 above it, each with a margin to the nearest fitted score.
 */
export const DEFAULT_THRESHOLDS: Thresholds = { traffic: 0.526, resolution: 0.797 };

export interface ChannelBreakdown {
  readonly channel: string;
  readonly weight: number;
  /** r_i, the channel's own risk. */
  readonly risk: number;
  /** ω_i · r_i, its contribution inside the noisy-OR. */
  readonly weighted: number;
  /**
   * Present when less than `risk`: the part of r_i resting on evidence at the channel's precision
   * (the rest is whole-file evidence, which counts as file precision for escalation).
   */
  readonly preciseRisk?: number;
  readonly precision: Precision;
  readonly evidence: readonly Evidence[];
  readonly problems?: readonly Problem[];
  /** Findings of other channels this channel overruled for the pair (`ChannelScore.overrules`). */
  readonly overrules?: readonly Overrule[];
  /** The channel's result is not final yet (`ChannelScore.pending`: still being checked). */
  readonly pending?: true;
}

export interface ForecastSignal {
  readonly signal: string;
  /** The signal's value for this pair, in [0, 1]. */
  readonly value: number;
  readonly weight: number;
}

export interface Forecast {
  /** P(the pair collides later), from the forecast model (`forecast.ts`; its label says of what). */
  readonly probability: number;
  /** The forecast model's threshold it passed. */
  readonly threshold: number;
  /** The signals that raised it (value > 0 and weight > 0), strongest contribution (ω·value) first. */
  readonly signals: readonly ForecastSignal[];
  /** The channels' evidence behind those signals and the files both sides change. */
  readonly evidence: readonly Evidence[];
}

/** One pair of agents, ordered so that `a < b` by id. */
export interface Link {
  readonly a: string;
  readonly b: string;
  /** R = 1 − Π(1 − ω_i r_i). */
  readonly risk: number;
  /** D = 1 − R. */
  readonly distance: number;
  /**
   * P(the pair collides), R through the scan's probability map (`probability.ts`; what it is the
   * probability of is `ScanResult.probabilityLabel`). Set by `scanAirspace`, except on an
   * `unknown` pair: what could not be seen has no probability.
   */
  readonly probability?: number;
  readonly level: Level;
  /** Why the level is what it is when it is not simply the band of `risk` (capped, unknown, escalated). */
  readonly levelReason?: string;
  readonly channels: readonly ChannelBreakdown[];
  /** The strongest evidence across channels, strongest first. */
  readonly evidence: readonly Evidence[];
  /**
   * Set when some channel's risk came from its cheap `risk` hook and its evidence was not built:
   * the link is clear and below the scan's `evidenceMinRisk`. Every advisory has its evidence.
   */
  readonly deferredEvidence?: true;
  /**
   * Set on a clear pair that git merges cleanly today when the forecast model (`forecast.ts`)
   * gives it at least its threshold: likely to collide later. Changes nothing else of the link.
   */
  readonly forecast?: Forecast;
}

export interface Advisory {
  readonly a: string;
  readonly b: string;
  readonly level: Exclude<Level, 'clear'>;
  readonly risk: number;
  /** The link's probability (see `Link.probability`). */
  readonly probability?: number;
  /** For a resolution advisory: who steers away and who holds course (right of way). */
  readonly steer?: string;
  readonly hold?: string;
  readonly evidence: readonly Evidence[];
  readonly message: string;
}

export type Vec3 = readonly [number, number, number];

export interface ScanCounts {
  readonly agents: number;
  readonly pairs: number;
  readonly clear: number;
  readonly traffic: number;
  readonly resolution: number;
  readonly unknown: number;
}

export interface ScanResult {
  readonly version: 1;
  readonly generatedAt: string;
  readonly thresholds: Thresholds;
  readonly weights: Readonly<Record<string, number>>;
  /** What each link's `probability` is the probability of (the probability map's label). */
  readonly probabilityLabel?: ProbabilityLabel;
  readonly agents: readonly Agent[];
  readonly advisories: readonly Advisory[];
  readonly links: readonly Link[];
  readonly positions: Readonly<Record<string, Vec3>>;
  readonly fileCoordinates: Readonly<Record<string, Vec3>>;
  readonly counts: ScanCounts;
  readonly problems: readonly Problem[];
}
