/**
 * The scorer `airspace eval` uses: the scanner's setup (`loadScanSetup`: the config a scan here
 * would find, built-ins + config plugins, weights from config or calibration, thresholds,
 * escalation, recency), the scanner's analysis services, and a `git` service with each scenario's
 * sides registered as agent states. Every loaded channel is scored; a channel whose service this
 * replay cannot supply scores 0 and the problem is counted in the report.
 */
import type { AirspaceConfig, ChannelSet, LoadedChannel } from '@airspace/config';
import {
  type AnyChannel,
  type ForecastModel,
  type Precision,
  type ProbabilityMap,
  type RecencyOptions,
  type Thresholds,
} from '@airspace/core';
import { openRepository, type GitService } from '@airspace/git';
import { ANALYSIS_SERVICES, builtinChannels, createAnalysisState, loadScanSetup, scanOptionsOf } from '@airspace/scanner';
import type { Scenario } from './extract/scenario.js';
import { createChannelScorer, type ScenarioScorer } from './score/scorer.js';
import { ReplayGitService, ReplayHistory } from './score/services.js';

export interface ReplayScorerOptions {
  readonly repo: string;
  /**
   * Channels before the config's plugins; default: the scanner's built-ins but `typecheck`, which
   * compiles each pair's merge (seconds per scenario) and is not yet part of the replayed label.
   */
  readonly builtins?: readonly LoadedChannel[];
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
  /** The calibration file's risk → probability map, if it has one (else the scanner's shipped map applies). */
  readonly probability?: ProbabilityMap;
  readonly resolutionPrecisions?: readonly Precision[];
  /** The config's forecast model (false: turned off). */
  readonly forecast: ForecastModel | false;
  /** The config's recency (half-life, floor), as the scanner applies it. */
  readonly recency: RecencyOptions;
  readonly set: ChannelSet;
  dispose(): void;
}

/** The built-ins a replay scores by default: every one but `typecheck`. */
export function replayedBuiltins(): LoadedChannel[] {
  return builtinChannels().filter((c) => c.channel.id !== 'typecheck');
}

export async function createReplayScorer(options: ReplayScorerOptions): Promise<ReplayScorer> {
  const repository = await openRepository(options.repo);
  // The setup a scan here would use: this worktree's config, else the main worktree's (with a note
  // when one hides the other); an explicit config or calibration that cannot be read is an error.
  const { set, recency } = await loadScanSetup(repository, {
    ...(options.config ? { config: options.config } : options.configPath ? { config: options.configPath } : {}),
    ...(options.calibrationPath ? { calibration: options.calibrationPath } : {}),
    builtins: options.builtins ?? replayedBuiltins(),
  });
  const git = new ReplayGitService(repository);
  const needs = new Set(set.channels.flatMap((c) => c.requires ?? []));
  const analysis = ANALYSIS_SERVICES.some((s) => needs.has(s)) ? serializedAnalysis(repository.root) : undefined;
  const history =
    needs.has('coChange') || needs.has('pastConflicts')
      ? new ReplayHistory(repository.root, { coChange: needs.has('coChange'), pastConflicts: needs.has('pastConflicts') })
      : undefined;
  const scorer = createChannelScorer({
    channels: set.channels,
    options: scanOptionsOf(set),
    repository: { id: repository.id, root: repository.root },
    ...(options.versionSalt ? { versionSalt: options.versionSalt } : {}),
    servicesFor: async (scenario) => {
      await set.ready(); // a plugin thread restarting after an exit is not charged to this scenario
      const services: Record<string, unknown> = git.servicesFor(scenario);
      if (analysis) Object.assign(services, await analysis(scenario, services.git as GitService));
      // No history, no look-ahead: the co-change channel reports MISSING_SERVICE, counted in the report.
      if (history) Object.assign(services, await history.servicesFor(scenario).catch(() => ({})));
      return { ...services, ...(options.servicesFor ? await options.servicesFor(scenario) : {}) };
    },
  });
  return {
    scorer,
    channels: set.channels,
    thresholds: set.thresholds,
    ...(set.probability ? { probability: set.probability } : {}),
    ...(set.resolutionPrecisions ? { resolutionPrecisions: set.resolutionPrecisions } : {}),
    forecast: set.forecast,
    recency,
    set,
    dispose: () => {
      git.dispose();
      history?.dispose();
      void set.dispose();
    },
  };
}

/**
 * The scanner's analysis services for a scenario: the index of the merge base's tree (facts from
 * the content-addressed cache, so a blob is parsed once across all scenarios) and one overlay per
 * side from its blobs. The analysis state holds one base at a time, so scenarios take turns.
 */
function serializedAnalysis(root: string): (scenario: Scenario, git: GitService) => Promise<Record<string, unknown>> {
  const state = createAnalysisState();
  let queue: Promise<unknown> = Promise.resolve();
  return (scenario, git) => {
    const run = queue.then(async () => {
      try {
        const provided = await state.update(root, scenario.base, scenario.agents, git);
        return { importGraph: provided.importGraph, symbols: provided.symbols };
      } catch {
        // Channels that need the index then report MISSING_SERVICE and score 0; counted in the report.
        return {};
      }
    });
    queue = run;
    return run;
  };
}
