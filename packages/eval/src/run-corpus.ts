/**
 * `airspace eval` as one pipeline, top to bottom: a replay scorer per repository → `runEval` on
 * each → with several repositories, `evaluateCorpus` (each held out of a fit on the others) → the
 * calibration file. The CLI parses flags into `RunCorpusOptions` and prints what this returns.
 */
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DEFAULT_PROBABILITY_MAP } from '@airspace/core';
import { type CalibrationFile, probabilityCalibration, corpusCalibration } from './calibration.js';
import { createReplayScorer } from './compose.js';
import { isSemanticLabel, type IntentMode, type LabelKind } from './extract/scenario.js';
import type { Regularisation } from './fit/noisy-or.js';
import { type CorpusEvaluation, evaluateCorpus } from './measure/corpus.js';
import type { Weighting } from './measure/evaluate.js';
import type { ReplayProgress } from './replay.js';
import { DEFAULT_CALIBRATE_ON, type EvalRun, foresightLabels, runEval } from './run.js';

type ReplayScorer = Awaited<ReturnType<typeof createReplayScorer>>;

export interface RunCorpusOptions {
  /** Absolute paths inside each repository; one is a single run, several a corpus. */
  readonly repos: readonly string[];
  readonly configPath?: string;
  readonly calibrationPath?: string;
  readonly maxMerges?: number;
  readonly since?: string;
  readonly rev?: string;
  /** The part-way fractions asked for; the fitted ones below 1 are replayed too. */
  readonly early: readonly number[];
  readonly label: LabelKind;
  /** Recency half-life by commit time, in hours; Infinity for none; undefined for the config's. */
  readonly halfLifeHours?: number;
  readonly intent?: IntentMode;
  /** Fit noisy-OR weights and write them to `calibrationOut`. */
  readonly fit?: { readonly folds: number; readonly fixedWeights?: Readonly<Record<string, number>> };
  /** The fractions to fit on, as given (undefined: the defaults for one repository or a corpus). */
  readonly fitOn?: readonly number[];
  readonly priorShare: number;
  readonly minWeight: number;
  readonly fitProbability?: LabelKind;
  readonly fitForecast?: {
    readonly label: LabelKind;
    readonly recall: number;
    readonly signals?: readonly string[];
  };
  readonly calibrationOut: string;
  readonly weightings: readonly Weighting[];
  /** false: score every scenario again; a directory: cache there (a corpus: a folder per repository). */
  readonly cacheDir?: string | false;
  /** A single run's Markdown report with plots. */
  readonly outDir?: string;
  readonly maxFiles?: number;
  /** One semantic check's time limit in ms (default `DEFAULT_SEMANTIC_TIME_LIMIT_MS`), under a semantic label. */
  readonly semanticTimeLimitMs?: number;
  readonly onProgress?: (repo: string, progress: ReplayProgress) => void;
  /** After each repository's replay. */
  readonly onRepoDone?: () => void;
  /** Problems of a repository's channel set, as they are found. */
  readonly onProblem?: (message: string) => void;
}

export type RunCorpusResult =
  | { readonly kind: 'single'; readonly run: EvalRun }
  | {
      readonly kind: 'corpus';
      readonly corpus: CorpusEvaluation;
      readonly runs: readonly EvalRun[];
      readonly calibration: CalibrationFile | undefined;
      readonly written: readonly string[];
    };

/** A repository's name in a corpus: its folder, without `.git`. */
const repoName = (repo: string): string => basename(repo).replace(/\.git$/, '');

/** The fractions a run fits on when none are given: one repository's default, or a corpus's pool. */
export function defaultFitOn(repos: number): number[] {
  return repos === 1 ? [DEFAULT_CALIBRATE_ON] : [1, DEFAULT_CALIBRATE_ON];
}

export async function runCorpus(options: RunCorpusOptions): Promise<RunCorpusResult> {
  const single = options.repos.length === 1;
  const fitOn = options.fitOn ?? defaultFitOn(options.repos.length);
  const early = [...new Set([...options.early, ...(options.fit ? fitOn.filter((f) => f < 1) : [])])];
  const runs: { repo: string; replay: ReplayScorer; run: EvalRun }[] = [];
  try {
    for (const [index, repo] of options.repos.entries()) {
      const replay = await createReplayScorer({
        repo,
        ...(options.configPath ? { configPath: options.configPath } : {}),
        ...(options.calibrationPath ? { calibrationPath: options.calibrationPath } : {}),
      });
      try {
        for (const p of replay.set.problems) options.onProblem?.(p.message);
        const run = await replayOne(options, { repo, index, replay, single, fitOn, early });
        options.onRepoDone?.();
        runs.push({ repo, replay, run });
      } catch (error) {
        replay.dispose();
        throw error;
      }
    }
    if (single) return { kind: 'single', run: runs[0]!.run };
    return { kind: 'corpus', runs: runs.map((r) => r.run), ...evaluateAsCorpus(options, runs, { fitOn, early }) };
  } finally {
    for (const r of runs) r.replay.dispose();
  }
}

/** One repository's replay, with the options that apply to it. */
function replayOne(
  options: RunCorpusOptions,
  at: { repo: string; index: number; replay: ReplayScorer; single: boolean; fitOn: readonly number[]; early: number[] },
): Promise<EvalRun> {
  const { repo, index, replay, single } = at;
  const halfLife = options.halfLifeHours;
  const recency =
    halfLife === undefined
      ? replay.recency
      : halfLife === Infinity
        ? { halfLifeMs: Infinity, floor: 1 }
        : { ...replay.recency, halfLifeMs: halfLife * 3_600_000 };
  const regularisation: Regularisation = {
    prior: Object.fromEntries(replay.scorer.channels.map((c) => [c.id, c.weight])),
    share: options.priorShare,
    minWeight: options.minWeight,
  };
  return runEval({
    repo,
    scorer: replay.scorer,
    thresholds: replay.thresholds,
    ...(replay.probability ? { probability: replay.probability } : {}),
    ...(replay.resolutionPrecisions ? { resolutionPrecisions: replay.resolutionPrecisions } : {}),
    forecast: replay.forecast,
    ...(options.maxMerges !== undefined ? { maxMerges: options.maxMerges } : {}),
    ...(options.since ? { since: options.since } : {}),
    ...(options.rev ? { rev: options.rev } : {}),
    early: at.early,
    label: options.label,
    ...(options.semanticTimeLimitMs !== undefined && isSemanticLabel(options.label)
      ? { semantic: { timeLimitMs: options.semanticTimeLimitMs } }
      : {}),
    recency,
    ...(options.intent ? { intent: options.intent } : {}),
    ...(single && options.fit
      ? {
          fit: true,
          folds: options.fit.folds,
          calibrationOut: options.calibrationOut,
          regularisation,
          ...(options.fit.fixedWeights ? { fixedWeights: options.fit.fixedWeights } : {}),
        }
      : {}),
    ...(single ? { calibrateOn: at.fitOn[0]! } : {}),
    weightings: options.weightings,
    // A corpus shares one cache directory: each repository gets its own folder in it.
    ...(options.cacheDir === false
      ? { cacheDir: false as const }
      : options.cacheDir
        ? { cacheDir: single ? options.cacheDir : join(options.cacheDir, `${index}-${basename(repo)}`) }
        : {}),
    ...(single && options.outDir ? { outDir: options.outDir } : {}),
    ...(options.maxFiles !== undefined ? { maxFiles: options.maxFiles } : {}),
    onProgress: (p) => options.onProgress?.(repo, p),
  });
}

/** Several repositories' runs as a corpus, and the calibration file it fits (written). */
function evaluateAsCorpus(
  options: RunCorpusOptions,
  runs: readonly { repo: string; replay: ReplayScorer; run: EvalRun }[],
  at: { fitOn: readonly number[]; early: readonly number[] },
): { corpus: CorpusEvaluation; calibration: CalibrationFile | undefined; written: string[] } {
  const first = runs[0]!.replay;
  const weights = Object.fromEntries(first.scorer.channels.map((c) => [c.id, c.weight]));
  const corpus = evaluateCorpus(
    runs.map(({ repo, run }) => ({ name: repoName(repo), head: run.context.head, scored: run.scored, declared: run.declared })),
    {
      channels: first.scorer.channels,
      thresholds: first.thresholds,
      label: options.label,
      weightings: [{ name: 'scanner weights', weights, probability: first.probability ?? DEFAULT_PROBABILITY_MAP }, ...options.weightings],
      ...(first.resolutionPrecisions ? { resolutionPrecisions: first.resolutionPrecisions } : {}),
      forecast: first.forecast,
      ...(options.fit
        ? {
            fit: {
              fitOn: at.fitOn,
              regularisation: { prior: weights, share: options.priorShare, minWeight: options.minWeight },
              ...(options.fit.fixedWeights ? { fixedWeights: options.fit.fixedWeights } : {}),
            },
          }
        : {}),
      foresightLabels: foresightLabels(options.label),
      ...(options.intent ? { intent: options.intent } : {}),
      ...(options.fitProbability ? { probabilityFit: { label: options.fitProbability, fitOn: options.fitOn ?? [1, ...at.early] } } : {}),
      ...(options.fitForecast
        ? {
            forecastFit: {
              label: options.fitForecast.label,
              fitOn: (options.fitOn ?? at.early).filter((f) => f < 1),
              recall: options.fitForecast.recall,
              ...(options.fitForecast.signals ? { signals: options.fitForecast.signals } : {}),
            },
          }
        : {}),
    },
  );
  const merges = runs.reduce((n, r) => n + r.run.context.merges, 0);
  // A probability map and/or forecast model go with the weights as they are; with --fit, with the fitted weights.
  const fitted =
    options.fitProbability || (options.fitForecast && !options.fit)
      ? probabilityCalibration(corpus, { merges, channelSetVersion: first.scorer.version, weights, thresholds: first.thresholds })
      : corpusCalibration(corpus, {
          merges,
          channelSetVersion: first.scorer.version,
          regularisation: { priorShare: options.priorShare, minWeight: options.minWeight },
        });
  const calibration = fitted && corpus.forecast && !fitted.forecast ? { ...fitted, forecast: corpus.forecast.model } : fitted;
  const written: string[] = [];
  if (calibration) {
    writeFileSync(options.calibrationOut, JSON.stringify(calibration, null, 2) + '\n');
    written.push(options.calibrationOut);
  }
  return { corpus, calibration, written };
}
