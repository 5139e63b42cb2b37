/**
 * Scores a scenario's two agents with every loaded channel through `scanAirspace`, exactly as a
 * live scan would (same error handling, same services), and keeps each channel's own risk r_i.
 * Weights are applied later: re-weighting needs no re-scoring.
 */
import { createHash } from 'node:crypto';
import {
  RECENT_CONFLICT_MERGES,
  recentConflictsOf,
  scanAirspace,
  type AnyChannel,
  type Precision,
  type Problem,
  type ScanOptions,
  type Services,
} from '@airspace/core';
import type { Scenario } from '../extract/scenario.js';

export interface ChannelInfo {
  readonly id: string;
  readonly precision: Precision;
  /** The weight the scanner would use (config, calibration or the channel's default). */
  readonly weight: number;
}

export interface PairScore {
  /** r_i per channel id. */
  readonly risks: Readonly<Record<string, number>>;
  /** Where a channel's risk rests partly on whole-file evidence, the part at its precision. */
  readonly preciseRisks?: Readonly<Record<string, number>>;
  /** Problem codes met while scoring (e.g. a channel threw, a service was missing). */
  readonly problems: readonly string[];
  /** The pair's recent conflict rate, as a scan's probability reads it (null: unknown); absent without a past-conflicts service. */
  readonly recentConflicts?: number | null;
}

export interface ScenarioScorer {
  readonly channels: readonly ChannelInfo[];
  /** Identifies the channel set (ids, precisions, options): part of the cache key. */
  readonly version: string;
  score(scenario: Scenario): Promise<PairScore>;
}

export interface ChannelScorerOptions {
  readonly channels: readonly AnyChannel[];
  /**
   * What a scan passes `scanAirspace` (the scanner's `scanOptionsOf(set)`: weights, options,
   * budgets of plugin channels per scenario); a replay adds only `exhaustive`.
   */
  readonly options?: Pick<ScanOptions, 'weights' | 'thresholds' | 'channelOptions' | 'budgets' | 'escalation'>;
  /** Services channels `require`, for one scenario (facts of its base and sides, `git` …). */
  readonly servicesFor?: (scenario: Scenario) => Promise<Readonly<Record<string, unknown>>> | Readonly<Record<string, unknown>>;
  readonly repository?: { readonly id: string; readonly root?: string };
  /** Extra text for the version (e.g. package versions of the channels, analysis cache version). */
  readonly versionSalt?: string;
}

/** A stable digest of the channel set: what makes cached scores reusable. */
export function channelSetVersion(
  channels: readonly AnyChannel[],
  channelOptions: Readonly<Record<string, unknown>> = {},
  salt = '',
): string {
  const described = channels.map((c) => ({
    id: c.id,
    precision: c.meta?.precision ?? 'file',
    requires: c.requires ?? [],
    defaultOptions: c.defaultOptions ?? null,
    options: channelOptions[c.id] ?? null,
  }));
  return createHash('sha256').update(JSON.stringify({ described, salt })).digest('hex').slice(0, 16);
}

export function createChannelScorer(options: ChannelScorerOptions): ScenarioScorer {
  const channels = options.channels.map((c) => ({
    id: c.id,
    precision: c.meta?.precision ?? 'file',
    weight: options.options?.weights?.[c.id] ?? c.defaultWeight,
  }));
  return {
    channels,
    version: channelSetVersion(options.channels, options.options?.channelOptions, options.versionSalt),
    async score(scenario) {
      const services = options.servicesFor ? await options.servicesFor(scenario) : {};
      const result = await scanAirspace(
        scenario.agents,
        { channels: options.channels, services, now: scenario.now, ...(options.repository ? { repository: options.repository } : {}) },
        {
          ...options.options,
          // Every channel's risk of the pair, even below every band: eval fits weights on them.
          exhaustive: true,
        },
      );
      const link = result.links[0];
      const risks: Record<string, number> = {};
      for (const c of channels) risks[c.id] = 0;
      const precise: Record<string, number> = {};
      for (const c of link?.channels ?? []) {
        risks[c.channel] = c.risk;
        if (c.preciseRisk !== undefined) precise[c.channel] = c.preciseRisk;
      }
      const past = (services as Partial<Services>).pastConflicts;
      const recent = past ? ((await recentConflictsOf(scenario.agents, past, RECENT_CONFLICT_MERGES)) ?? null) : undefined;
      return {
        risks,
        ...(Object.keys(precise).length ? { preciseRisks: precise } : {}),
        problems: problemCodes(result.problems),
        ...(recent !== undefined ? { recentConflicts: recent } : {}),
      };
    },
  };
}

function problemCodes(problems: readonly Problem[]): string[] {
  return [...new Set(problems.map((p) => (p.channel ? `${p.code}:${p.channel}` : p.code)))];
}
