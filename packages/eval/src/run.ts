/**
 * `airspace eval` as a function: replay (cached) → evaluate → outputs (calibration file, Markdown
 * report with SVG plots). The CLI parses flags and prints; everything else is here.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  DEFAULT_FORECAST_MODEL,
  DEFAULT_PROBABILITY_MAP,
  DEFAULT_RECENCY,
  DEFAULT_THRESHOLDS,
  type ForecastModel,
  type Precision,
  type ProbabilityMap,
  type RecencyOptions,
  type Thresholds,
} from '@airspace/core';
import { readCalibration } from '@airspace/config';
import { END_OF_OPTIONS, gitOperand, openRepository, runGit, ScratchStore, type RepositoryInfo } from '@airspace/git';
import { CALIBRATION_KIND, type CalibrationFile } from './calibration.js';
import { isSemanticLabel, type IntentMode, type LabelKind, type Skipped } from './extract/scenario.js';
import type { Regularisation } from './fit/noisy-or.js';
import { earlyWarning, evaluate, type EarlyWarning, type Evaluation, type Weighting } from './measure/evaluate.js';
import { foresightOf, foresightScorers, outOfFoldScorer, type ForesightObservation } from './measure/foresight.js';
import { labelledOnly, semanticFigures, type SemanticFigures } from './measure/semantic.js';
import { replay, type ReplayProgress } from './replay.js';
import { formatMarkdown, type ReportContext } from './report/table.js';
import { reliabilitySvg, rocSvg } from './report/svg.js';
import { ScenarioCache, type ScoredScenario } from './score/cache.js';
import type { ScenarioScorer } from './score/scorer.js';
import { createSemanticLabeller, type SemanticLabeller, type SemanticLabellerOptions } from './score/semantic.js';

export interface RunEvalOptions {
  readonly repo: string;
  readonly scorer: ScenarioScorer;
  readonly maxMerges?: number;
  readonly since?: string;
  readonly rev?: string;
  /** Observed fractions for early warning, each in (0, 1). */
  readonly early?: readonly number[];
  readonly label?: LabelKind;
  /** Fit weights with k-fold cross-validation (k = folds, default 5). */
  readonly fit?: boolean;
  readonly folds?: number;
  /** Channel weights held at a value while fitting the others. */
  readonly fixedWeights?: Readonly<Record<string, number>>;
  /** Pull of every fit toward prior (shipped) weights; none when absent. */
  readonly regularisation?: Regularisation;
  /** Also observe every early fraction with each side declaring its eventual files or directories. */
  readonly intent?: IntentMode;
  /** Weightings to compare beside the scanner's own (from `--weights FILE`). */
  readonly weightings?: readonly Weighting[];
  readonly thresholds?: Thresholds;
  /** The scanner's risk → probability map (the calibration file's; default the shipped one). */
  readonly probability?: ProbabilityMap;
  /** The forecast scored in the foresight section (the config's; default the shipped model; false: none). */
  readonly forecast?: ForecastModel | false;
  readonly resolutionPrecisions?: readonly Precision[];
  /** Directory of the scored-scenario cache; false disables it. Default: `<git common dir>/airspace/eval`. */
  readonly cacheDir?: string | false;
  /**
   * Fit the calibration file on this observed fraction (replayed if not among `early`); default
   * 0.5: live agents are part-way, and on full diffs the fit gives everything to the merge channel.
   */
  readonly calibrateOn?: number;
  /** Where `--fit` writes the calibration file. */
  readonly calibrationOut?: string;
  /** `--out DIR`: Markdown report and SVG plots. */
  readonly outDir?: string;
  readonly maxFiles?: number;
  /** Recency of edits by commit time; `createReplayScorer` gives the config's. Part of the cache key. */
  readonly recency?: RecencyOptions;
  /** Merges replayed at once. */
  readonly concurrency?: number;
  readonly onProgress?: (progress: ReplayProgress) => void;
  readonly tool?: string;
  /**
   * Check each observation's merge with the typecheck channel (the semantic label); default: when
   * the label is a semantic one. Verdicts are cached in the cache directory, by trees.
   */
  readonly semantic?: boolean | SemanticLabellerOptions;
}

export interface EvalRun {
  readonly evaluation: Evaluation;
  readonly earlyWarnings: readonly EarlyWarning[];
  readonly earlyEvaluations: readonly { readonly fraction: number; readonly evaluation: Evaluation }[];
  readonly context: ReportContext;
  readonly skipped: readonly Skipped[];
  readonly calibration?: CalibrationFile;
  readonly cacheFile?: string;
  readonly written: readonly string[];
  /** The scored scenarios by observed fraction (1: full diffs), for corpus figures. */
  readonly scored: ReadonlyMap<number, readonly ScoredScenario[]>;
  /** With `intent`: the early fractions' scenarios with declared intent. */
  readonly declared: ReadonlyMap<number, readonly ScoredScenario[]>;
  /** Foresight figures per observation (fraction, then intent), under the label and `collided`. */
  readonly foresight: readonly ForesightObservation[];
}

/**
 * The labels every foresight figure is reported under: the chosen one, `semantic` under a semantic
 * label, and "collided at any point".
 */
export function foresightLabels(label: LabelKind): LabelKind[] {
  return [...new Set<LabelKind>([label, ...(isSemanticLabel(label) ? (['semantic'] as const) : []), 'collided'])];
}

/** Default fraction the calibration file is fitted on. */
export const DEFAULT_CALIBRATE_ON = 0.5;

/** Recency settings as a short cache-key part: `h24f0.3`, or `none` without decay. */
export function recencyKey(recency: RecencyOptions): string {
  if (!Number.isFinite(recency.halfLifeMs)) return 'none';
  const grace = recency.graceMs ? `g${recency.graceMs / 3_600_000}` : '';
  return `h${recency.halfLifeMs / 3_600_000}f${recency.floor}${grace}`;
}

/** A weighting from a calibration file or any JSON with a `weights` object (named after the file), read by the one codec. */
export function readWeighting(path: string): { weighting?: Weighting; problems: { code: string; message: string }[] } {
  const { calibration, problems } = readCalibration(path);
  if (!calibration) return { problems };
  return {
    weighting: {
      name: basename(path).replace(/\.json$/, ''),
      weights: calibration.weights,
      leak: calibration.leak,
      ...(calibration.probability ? { probability: calibration.probability } : {}),
    },
    problems,
  };
}

/** What the steps of one run share once the repository is open. */
interface RunSetup {
  readonly options: RunEvalOptions;
  readonly root: string;
  readonly repositoryId: string;
  readonly head: string;
  readonly label: LabelKind;
  readonly thresholds: Thresholds;
  readonly calibrateOn: number;
  /** The early fractions replayed (asked, and the calibration's), ascending. */
  readonly early: readonly number[];
  readonly folds: number;
  readonly scannerWeighting: Weighting;
  readonly weightings: readonly Weighting[];
}

type ReplayedRun = Awaited<ReturnType<typeof replay>>;

function setupOf(options: RunEvalOptions, repo: { root: string; id: string }, head: string): RunSetup {
  const calibrateOn = options.calibrateOn ?? DEFAULT_CALIBRATE_ON;
  const early = [...new Set([...(options.early ?? []), ...(options.fit && calibrateOn < 1 ? [calibrateOn] : [])])]
    .filter((f) => f > 0 && f < 1)
    .sort((a, b) => a - b);
  const scannerWeighting: Weighting = {
    name: 'scanner weights',
    weights: Object.fromEntries(options.scorer.channels.map((c) => [c.id, c.weight])),
    probability: options.probability ?? DEFAULT_PROBABILITY_MAP,
  };
  return {
    options,
    root: repo.root,
    repositoryId: repo.id,
    head,
    label: options.label ?? 'textual',
    thresholds: options.thresholds ?? DEFAULT_THRESHOLDS,
    calibrateOn,
    early,
    folds: options.folds ?? 5,
    scannerWeighting,
    weightings: [scannerWeighting, ...(options.weightings ?? [])],
  };
}

/** The replay of the run's merges at every fraction, through the cache. */
function replayOf(
  setup: RunSetup,
  scratch: ScratchStore,
  cache: ScenarioCache | undefined,
  semantic: SemanticLabeller | undefined,
): Promise<ReplayedRun> {
  const { options } = setup;
  return replay({
    repo: setup.root,
    scorer: options.scorer,
    scratch,
    early: setup.early,
    ...(cache ? { cache } : {}),
    ...(options.maxMerges !== undefined ? { maxMerges: options.maxMerges } : {}),
    ...(options.since !== undefined ? { since: options.since } : {}),
    rev: setup.head,
    ...(options.maxFiles !== undefined ? { maxFiles: options.maxFiles } : {}),
    repository: setup.repositoryId,
    ...(options.recency ? { recency: options.recency } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.intent ? { intent: options.intent } : {}),
    ...(semantic ? { semantic } : {}),
  });
}

/** The full diffs' evaluation and each early fraction's (with `fit`, each fitted out of fold). */
function evaluationsOf(setup: RunSetup, result: ReplayedRun): Pick<EvalRun, 'evaluation' | 'earlyEvaluations'> {
  const { options } = setup;
  const evalOptions = {
    channels: options.scorer.channels,
    thresholds: setup.thresholds,
    label: setup.label,
    weightings: setup.weightings,
    ...(options.resolutionPrecisions ? { resolutionPrecisions: options.resolutionPrecisions } : {}),
  };
  const fitOptions = options.fit
    ? {
        fitFolds: setup.folds,
        ...(options.fixedWeights ? { fixedWeights: options.fixedWeights } : {}),
        ...(options.regularisation ? { regularisation: options.regularisation } : {}),
      }
    : {};
  const evaluation = evaluate(result.scored.get(1) ?? [], { ...evalOptions, ...fitOptions });
  const earlyEvaluations = setup.early.map((fraction) => ({
    fraction,
    evaluation: evaluate(result.scored.get(fraction) ?? [], { ...evalOptions, ...fitOptions }),
  }));
  return { evaluation, earlyEvaluations };
}

/** Foresight per observation (full diffs, each early fraction descending, then the declared ones). */
function foresightOfRun(setup: RunSetup, result: ReplayedRun): ForesightObservation[] {
  const { options, thresholds, label } = setup;
  const observations: { fraction: number; intent?: IntentMode | undefined; scenarios: readonly ScoredScenario[] }[] = [
    ...[1, ...[...setup.early].reverse()].map((fraction) => ({ fraction, scenarios: result.scored.get(fraction) ?? [] })),
    ...[...result.declared].map(([fraction, scenarios]) => ({ fraction, intent: options.intent, scenarios })),
  ];
  return observations.map(({ fraction, intent, scenarios }) => {
    const scorers = foresightScorers(
      scenarios,
      options.scorer.channels,
      setup.weightings,
      thresholds,
      options.resolutionPrecisions,
      options.forecast ?? DEFAULT_FORECAST_MODEL,
    );
    const fitted = options.fit
      ? outOfFoldScorer(scenarios, options.scorer.channels, {
          label,
          folds: setup.folds,
          thresholds,
          ...(options.fixedWeights ? { fixedWeights: options.fixedWeights } : {}),
          ...(options.regularisation ? { regularisation: options.regularisation } : {}),
        })
      : undefined;
    return foresightOf(scenarios, fitted ? [...scorers, fitted] : scorers, {
      fraction,
      ...(intent ? { intent } : {}),
      labels: foresightLabels(label),
      thresholds,
    });
  });
}

/** The report's context: where, what was replayed, early warnings and foresight. */
function contextOf(
  setup: RunSetup,
  result: ReplayedRun,
  parts: Pick<ReportContext, 'early' | 'earlyEvaluations' | 'foresight' | 'semantic'>,
): ReportContext {
  const r = setup.options.recency ?? DEFAULT_RECENCY;
  return {
    repository: setup.root,
    head: setup.head,
    merges: result.merges,
    skippedByReason: result.skippedByReason,
    fromCache: result.fromCache,
    problemCounts: result.problemCounts,
    recency: {
      halfLifeHours: Number.isFinite(r.halfLifeMs) ? r.halfLifeMs / 3_600_000 : null,
      floor: r.floor,
      graceHours: (r.graceMs ?? 0) / 3_600_000,
    },
    ...parts,
  };
}

/**
 * With `fit`: the calibration file, fitted on the states `calibrateOn` observes (default
 * half-way: live agents are part-way, so those weights suit scanning better); written to
 * `calibrationOut` when given.
 */
function calibrationOf(
  setup: RunSetup,
  result: ReplayedRun,
  evaluations: Pick<EvalRun, 'evaluation' | 'earlyEvaluations'>,
  written: string[],
): CalibrationFile | undefined {
  const { options, calibrateOn, label } = setup;
  const source =
    calibrateOn === 1
      ? { evaluation: evaluations.evaluation, scenarios: result.scored.get(1) ?? [] }
      : {
          evaluation: evaluations.earlyEvaluations.find((x) => x.fraction === calibrateOn)?.evaluation,
          scenarios: result.scored.get(calibrateOn) ?? [],
        };
  if (!options.fit || !source.evaluation?.fit) return undefined;
  const fitted = source.evaluation.fit;
  const m = fitted.outOfFold;
  const calibration: CalibrationFile = {
    kind: CALIBRATION_KIND,
    version: 1,
    weights: fitted.weights,
    leak: fitted.leak,
    thresholds: fitted.suggestedThresholds,
    label,
    provenance: {
      repository: basename(setup.root),
      head: setup.head,
      merges: result.merges,
      scenarios: source.scenarios.length,
      ...(source.scenarios[0] ? { newestMerge: source.scenarios[0].merge } : {}),
      ...(source.scenarios.length ? { oldestMerge: source.scenarios[source.scenarios.length - 1]!.merge } : {}),
      early: calibrateOn,
      folds: setup.folds,
      channelSetVersion: options.scorer.version,
      createdAt: new Date().toISOString(),
      tool: options.tool ?? 'airspace eval',
      ...(options.regularisation
        ? { regularisation: { priorShare: options.regularisation.share, minWeight: options.regularisation.minWeight ?? 0 } }
        : {}),
      zeroWeights: fitted.zeroWeights,
      metrics: {
        rocAuc: m.rocAuc,
        prAuc: m.prAuc,
        brier: m.brier,
        ece: m.ece,
        f1AtTraffic: m.traffic.f1,
        f1AtResolution: m.resolution.f1,
        baseRate: source.evaluation.baseRate,
      },
    },
  };
  if (options.calibrationOut) {
    writeFileSync(options.calibrationOut, JSON.stringify(calibration, null, 2) + '\n');
    written.push(options.calibrationOut);
  }
  return calibration;
}

/**
 * Under a semantic label, the scenarios without a verdict are left out of every figure (counted in
 * `semantic`); the verdicts per fraction are reported whenever the replay asked for them.
 */
function labelledRun(setup: RunSetup, replayed: ReplayedRun, checked: boolean): { result: ReplayedRun; semantic?: SemanticFigures[] } {
  const fractions = [1, ...[...setup.early].reverse()];
  const semantic = checked ? fractions.map((f) => semanticFigures(f, replayed.scored.get(f) ?? [], setup.label)) : undefined;
  const result = {
    ...replayed,
    scored: labelledOnly(replayed.scored, setup.label),
    declared: labelledOnly(replayed.declared, setup.label),
  };
  return { result, ...(semantic ? { semantic } : {}) };
}

/** Everything a run reports, from its replay. */
function figuresOf(setup: RunSetup, replayed: ReplayedRun, cache: ScenarioCache | undefined, checked: boolean): EvalRun {
  const { options } = setup;
  const { result, semantic } = labelledRun(setup, replayed, checked);
  const evaluations = evaluationsOf(setup, result);
  const foresight = foresightOfRun(setup, result);
  const full = result.scored.get(1) ?? [];
  const earlyWarnings = setup.early.map((fraction) =>
    earlyWarning(result.scored.get(fraction) ?? [], full, {
      channels: options.scorer.channels,
      weighting: setup.scannerWeighting,
      thresholds: setup.thresholds,
      label: setup.label,
    }),
  );
  const context = contextOf(setup, result, {
    early: earlyWarnings,
    earlyEvaluations: evaluations.earlyEvaluations,
    foresight,
    ...(semantic ? { semantic } : {}),
  });
  const written: string[] = [];
  const calibration = calibrationOf(setup, result, evaluations, written);
  if (options.outDir) written.push(...writeReport(options.outDir, evaluations.evaluation, context));
  return {
    ...evaluations,
    earlyWarnings,
    context,
    skipped: result.skipped,
    ...(calibration ? { calibration } : {}),
    ...(cache ? { cacheFile: cache.file } : {}),
    written,
    scored: result.scored,
    declared: result.declared,
    foresight,
  };
}

/** The semantic labeller a run asks, if any (by default: under a semantic label). */
function semanticLabellerOf(
  options: RunEvalOptions,
  label: LabelKind,
  repo: RepositoryInfo,
  cacheDir: string | undefined,
): SemanticLabeller | undefined {
  const wanted = options.semantic ?? isSemanticLabel(label);
  if (wanted === false) return undefined;
  return createSemanticLabeller(repo, { ...(cacheDir ? { cacheDir } : {}), ...(wanted === true ? {} : wanted) });
}

export async function runEval(options: RunEvalOptions): Promise<EvalRun> {
  const repo = await openRepository(options.repo);
  const head = (
    await runGit(['rev-parse', '--verify', END_OF_OPTIONS, gitOperand(options.rev ?? 'HEAD', 'revision')], { cwd: repo.root })
  ).trim();
  const scratch = new ScratchStore(join(repo.commonDir, 'objects'));
  const cache =
    options.cacheDir === false
      ? undefined
      : new ScenarioCache(
          options.cacheDir ?? join(repo.commonDir, 'airspace', 'eval'),
          `${options.scorer.version}-${recencyKey(options.recency ?? DEFAULT_RECENCY)}`,
        );
  const setup = setupOf(options, repo, head);
  const semantic = semanticLabellerOf(options, setup.label, repo, cache ? join(cache.file, '..') : undefined);
  try {
    return figuresOf(setup, await replayOf(setup, scratch, cache, semantic), cache, semantic !== undefined);
  } finally {
    semantic?.dispose();
    scratch.dispose();
  }
}

/** `--out DIR`: report.md, roc.svg, reliability.svg (and the early fractions' ROC). */
export function writeReport(dir: string, evaluation: Evaluation, context: ReportContext): string[] {
  mkdirSync(dir, { recursive: true });
  const plots: { title: string; file: string }[] = [];
  const written: string[] = [];
  const write = (file: string, text: string) => {
    writeFileSync(join(dir, file), text);
    written.push(join(dir, file));
  };
  const auc = (name: string) => {
    if (name.startsWith('channel:')) return evaluation.channels[name.slice(8)]?.rocAuc;
    if (name === 'fitted (out-of-fold)') return evaluation.fit?.outOfFold.rocAuc;
    const w = evaluation.weightings.find((x) => x.name === name || `${x.name} without merge` === name);
    return name.endsWith('without merge') ? w?.withoutMerge?.rocAuc : w?.combined.rocAuc;
  };
  const ece = (name: string) => {
    if (name === 'fitted (out-of-fold)') return evaluation.fit?.outOfFold.ece;
    const w = evaluation.weightings.find((x) => x.name === name || `${x.name} without merge` === name);
    return name.endsWith('without merge') ? w?.withoutMerge?.ece : w?.combined.ece;
  };
  const entries = Object.entries(evaluation.curves);
  write('roc.svg', rocSvg(entries.map(([name, c]) => ({ name: name.replace(/^channel:/, ''), points: c.roc, auc: auc(name) ?? null }))));
  plots.push({ title: 'ROC curves', file: 'roc.svg' });
  const combos = entries.filter(([name]) => !name.startsWith('channel:'));
  write('reliability.svg', reliabilitySvg(combos.map(([name, c]) => ({ name, bins: c.reliability, ece: ece(name) ?? null }))));
  plots.push({ title: 'Reliability diagram', file: 'reliability.svg' });
  write('report.md', formatMarkdown(evaluation, context, plots));
  return written;
}
