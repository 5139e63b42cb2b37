/**
 * The scorer `airspace eval` uses: the scanner's channel set (built-ins + config plugins, weights
 * from config or calibration, thresholds, escalation) resolved by @airspace/config, and the
 * scanner's `git` service with each scenario's sides registered as agent states. Every loaded
 * channel is scored; a channel whose service this replay cannot supply scores 0 and the problem
 * is counted in the report.
 */
import { loadConfig, resolveChannelSet, type AirspaceConfig, type ChannelSet, type LoadedChannel } from '@airspace/config';
import { DEFAULT_RECENCY, type AnyChannel, type Precision, type RecencyOptions, type Thresholds } from '@airspace/core';
import { openRepository } from '@airspace/git';
import type { Scenario } from './extract/scenario.js';
import { createChannelScorer, type ScenarioScorer } from './score/scorer.js';
import { ReplayGitService } from './score/services.js';

export interface ReplayScorerOptions {
  readonly repo: string;
  /** The scanner's built-in channels (`BUILTIN_CHANNELS` of @airspace/scanner, made). */
  readonly builtins: readonly LoadedChannel[];
  readonly configPath?: string;
  readonly config?: AirspaceConfig;
  readonly calibrationPath?: string;
  /** More services per scenario (e.g. analysis facts of its base and sides). */
  readonly servicesFor?: (scenario: Scenario) => Promise<Readonly<Record<string, unknown>>> | Readonly<Record<string, unknown>>;
  /** Part of the cache key beside the channel set (e.g. the analysis engine's version). */
  readonly versionSalt?: string;
}

export interface ReplayScorer {
  readonly scorer: ScenarioScorer;
  readonly channels: readonly AnyChannel[];
  readonly thresholds: Thresholds;
  readonly resolutionPrecisions?: readonly Precision[];
  /** The config's recency (half-life, floor), as the scanner applies it. */
  readonly recency: RecencyOptions;
  readonly set: ChannelSet;
  dispose(): void;
}

export async function createReplayScorer(options: ReplayScorerOptions): Promise<ReplayScorer> {
  const repository = await openRepository(options.repo);
  const loaded = options.config ? { config: options.config, dir: repository.root, problems: [] } : await loadConfig({ repoRoot: repository.root, ...(options.configPath ? { configPath: options.configPath } : {}) });
  const set = await resolveChannelSet({ builtins: options.builtins, loaded, ...(options.calibrationPath ? { calibrationPath: options.calibrationPath } : {}) });
  const git = new ReplayGitService(repository);
  const scorer = createChannelScorer({
    channels: set.channels,
    weights: set.weights,
    channelOptions: set.channelOptions,
    repository: { id: repository.id, root: repository.root },
    ...(options.versionSalt ? { versionSalt: options.versionSalt } : {}),
    servicesFor: async (scenario) => ({ ...git.servicesFor(scenario), ...(options.servicesFor ? await options.servicesFor(scenario) : {}) }),
  });
  return {
    scorer,
    channels: set.channels,
    thresholds: set.thresholds,
    ...(set.resolutionPrecisions ? { resolutionPrecisions: set.resolutionPrecisions } : {}),
    recency: recencyOf(loaded.config),
    set,
    dispose: () => git.dispose(),
  };
}

/** The config's `recency` (hours) as core's RecencyOptions (ms), defaults where absent. */
export function recencyOf(config: AirspaceConfig): RecencyOptions {
  const r = config.recency;
  return {
    halfLifeMs: r?.halfLifeHours !== undefined ? r.halfLifeHours * 3_600_000 : DEFAULT_RECENCY.halfLifeMs,
    floor: r?.floor ?? DEFAULT_RECENCY.floor,
  };
}
