import { writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { DEFAULT_PROBABILITY_MAP } from '@airspace/core';
import {
  corpusCalibration,
  probabilityCalibration,
  createReplayScorer,
  DEFAULT_CALIBRATE_ON,
  DEFAULT_FORECAST_RECALL,
  DEFAULT_PRIOR_SHARE,
  evaluateCorpus,
  foresightLabels,
  formatCorpusTable,
  formatTable,
  LABEL_KINDS,
  readWeighting,
  runEval,
  type EvalRun,
  type IntentMode,
  type LabelKind,
  type Regularisation,
  type Weighting,
} from '@airspace/eval';
import { createProgressBar } from '../report/progress.js';
import type { Io } from '../io.js';

interface EvalFlags {
  readonly repo?: string[];
  readonly config?: string;
  readonly calibration?: string;
  readonly maxMerges?: number;
  readonly since?: string;
  readonly rev?: string;
  readonly early?: number[];
  readonly label: LabelKind;
  readonly fit?: boolean;
  readonly folds: number;
  readonly calibrationOut: string;
  readonly weights?: string[];
  readonly json?: boolean;
  readonly out?: string;
  readonly cache: boolean;
  readonly cacheDir?: string;
  readonly maxFiles?: number;
  readonly halfLife?: string;
  readonly fitOn?: number[];
  readonly fixWeight?: Record<string, number>;
  readonly intent?: IntentMode;
  readonly priorShare: number;
  readonly minWeight: number;
  readonly fitProbability?: LabelKind;
  readonly fitForecast?: LabelKind;
  readonly forecastRecall: number;
  readonly forecastSignal?: string[];
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
const fixedWeight = (value: string, previous: Record<string, number> = {}): Record<string, number> => {
  const m = /^([^=]+)=(.+)$/.exec(value);
  const w = Number(m?.[2]);
  if (!m || !(w >= 0 && w <= 1)) throw new Error(`--fix-weight takes CHANNEL=WEIGHT with a weight in [0, 1], got "${value}"`);
  return { ...previous, [m[1]!]: w };
};
const share =
  (flag: string) =>
  (value: string): number => {
    const v = Number(value);
    if (!(v >= 0 && v <= 1)) throw new Error(`${flag} takes a number in [0, 1], got "${value}"`);
    return v;
  };
const count = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive integer, got "${value}"`);
  return n;
};
const fraction = (value: string, previous: number[] = []): number[] => {
  const f = Number(value);
  if (!(f > 0 && f < 1)) throw new Error(`--early takes a fraction in (0, 1), got "${value}"`);
  return [...previous, f];
};

/** `airspace eval`: replay merge commits as agent pairs and measure how well Airspace foresaw their collisions. */
export function evalCommand(io: Io): Command {
  return new Command('eval')
    .description(
      'replay two-parent merges as pairs of agents and measure how well the channels foresee conflicts (ROC-AUC, PR-AUC, F1, Brier, calibration); fit weights',
    )
    .option(
      '--repo <dir>',
      'any directory inside the repository (default "."); repeat it to evaluate a corpus: each repository alone, and weights fitted on the others',
      collect,
    )
    .option('--config <file>', 'config file (default: airspace.config.json at the repository root)')
    .option('--calibration <file>', 'scanner weights from a calibration file, as scan uses them')
    .option('--max-merges <n>', 'examine at most N merge commits, newest first', count)
    .option('--since <date>', 'only merges committed since this date (as git log --since)')
    .option('--rev <ref>', 'walk merges reachable from this revision (default HEAD)')
    .option('--early <fraction>', 'also observe each side after this fraction of its commits (repeatable)', fraction)
    .addOption(
      new Option('--label <kind>', 'what counts as a collision (every figure is also reported under "collided": collided at any point)')
        .choices([...LABEL_KINDS])
        .default('textual'),
    )
    .addOption(
      new Option(
        '--intent <mode>',
        'also observe each early fraction with each side declaring the files (or directories) it eventually touched',
      ).choices(['files', 'dirs']),
    )
    .option('--fit', 'fit noisy-OR weights (with a leak) by maximum likelihood, cross-validated, and write a calibration file')
    .option('--folds <k>', 'folds of the cross-validation', count, 5)
    .option(
      '--fit-on <fraction>',
      `fit the calibration on the states observed after this fraction (replayed if not an --early one), or 1 for the full diffs (default: ${DEFAULT_CALIBRATE_ON}; a corpus pools 1 and ${DEFAULT_CALIBRATE_ON}); repeatable on a corpus`,
      (v: string, previous: number[] = []) => [...previous, v === '1' ? 1 : fraction(v)[0]!],
    )
    .option(
      '--prior-share <share>',
      'pull fitted weights toward the shipped ones with this many pseudo-scenarios, as a share of the training scenarios (0: none)',
      share('--prior-share'),
      DEFAULT_PRIOR_SHARE,
    )
    .option('--min-weight <w>', 'no fitted weight below this', share('--min-weight'), 0)
    .option(
      '--fix-weight <channel=weight>',
      "hold a channel's weight at a value while fitting the others (e.g. merge=1: the merge channel is exact about the states it sees); repeatable",
      fixedWeight,
    )
    .addOption(
      new Option(
        '--fit-probability <label>',
        "on a corpus: fit the scanner's risk → probability map for this label (each repository held out), pooling the full diffs and every --early fraction (or the --fit-on ones), and write it with the scanner's weights to the calibration file",
      ).choices([...LABEL_KINDS]),
    )
    .addOption(
      new Option(
        '--fit-forecast <label>',
        'on a corpus: fit the forecast (a noisy-OR with a leak over co-change and past-conflicts, or the --forecast-signal ones) on the unseen states of every --early fraction (or the --fit-on ones below 1), each repository held out, and report it (with --calibration-out, write the model fitted on every repository into the calibration file; scans use it)',
      ).choices([...LABEL_KINDS]),
    )
    .option(
      '--forecast-recall <share>',
      'with --fit-forecast: the threshold is the highest probability at which the forecast finds this share of the training collisions',
      share('--forecast-recall'),
      DEFAULT_FORECAST_RECALL,
    )
    .option(
      '--forecast-signal <signal>',
      'with --fit-forecast: a signal of the model (a channel id, or shared-files: some file changed on both sides) instead of the default ones; repeatable',
      collect,
    )
    .option('--calibration-out <file>', 'where --fit writes the calibration file', 'airspace.calibration.json')
    .option('--weights <file>', 'compare another weighting (a calibration file or {"weights": {…}}); repeatable', collect)
    .option('--json', 'print every figure as JSON')
    .option('--out <dir>', 'write a Markdown report with SVG plots (ROC curves, reliability diagram)')
    .option('--no-cache', 'score every scenario again instead of reading cached scores')
    .option('--cache-dir <dir>', 'where scored scenarios are cached (default: inside the git directory)')
    .option('--max-files <n>', 'skip a merge whose side changes more files than this', count)
    .option('--half-life <hours>', 'recency half-life of edits by commit time, or "none" (default: the config\'s)')
    .action(async (flags: EvalFlags) => {
      const repos = flags.repo ?? ['.'];
      if (flags.fitProbability && repos.length === 1)
        throw new Error('--fit-probability fits on a corpus, each repository held out: repeat --repo');
      if (flags.fitForecast && repos.length === 1)
        throw new Error('--fit-forecast fits on a corpus, each repository held out: repeat --repo');
      if (flags.fitProbability && flags.fit)
        throw new Error('--fit-probability maps the risk of the weights in use: fit the weights (--fit) first, in another run');
      if ((flags.fitOn?.length ?? 0) > 1 && repos.length === 1)
        throw new Error('--fit-on takes one fraction for one repository; repeat --repo to fit on a corpus');
      const fitOn = flags.fitOn ?? (repos.length === 1 ? [DEFAULT_CALIBRATE_ON] : [1, DEFAULT_CALIBRATE_ON]);
      // The fitted fractions are replayed too.
      const early = [...new Set([...(flags.early ?? []), ...(flags.fit ? fitOn.filter((f) => f < 1) : [])])];
      const weightings: Weighting[] = [];
      for (const file of flags.weights ?? []) {
        const { weighting, problems } = readWeighting(resolve(file));
        for (const p of problems) io.stderr.write(`airspace: ${p.message}\n`);
        if (weighting) weightings.push(weighting);
      }
      const bar = createProgressBar(io.stderr);
      const runs: { repo: string; replay: Awaited<ReturnType<typeof createReplayScorer>>; run: EvalRun }[] = [];
      try {
        for (const [index, repo] of repos.entries()) {
          const replay = await createReplayScorer({
            repo: resolve(repo),
            ...(flags.config ? { configPath: resolve(flags.config) } : {}),
            ...(flags.calibration ? { calibrationPath: resolve(flags.calibration) } : {}),
          });
          try {
            for (const p of replay.set.problems) io.stderr.write(`airspace: ${p.message}\n`);
            const halfLife = flags.halfLife === undefined ? undefined : flags.halfLife === 'none' ? Infinity : Number(flags.halfLife);
            if (halfLife !== undefined && !(halfLife > 0)) throw new Error(`--half-life takes hours or "none", got "${flags.halfLife}"`);
            const recency =
              halfLife === undefined
                ? replay.recency
                : halfLife === Infinity
                  ? { halfLifeMs: Infinity, floor: 1 }
                  : { ...replay.recency, halfLifeMs: halfLife * 3_600_000 };
            const single = repos.length === 1;
            const regularisation: Regularisation = {
              prior: Object.fromEntries(replay.scorer.channels.map((c) => [c.id, c.weight])),
              share: flags.priorShare,
              minWeight: flags.minWeight,
            };
            const run = await runEval({
              repo: resolve(repo),
              scorer: replay.scorer,
              thresholds: replay.thresholds,
              ...(replay.probability ? { probability: replay.probability } : {}),
              ...(replay.resolutionPrecisions ? { resolutionPrecisions: replay.resolutionPrecisions } : {}),
              forecast: replay.forecast,
              ...(flags.maxMerges !== undefined ? { maxMerges: flags.maxMerges } : {}),
              ...(flags.since ? { since: flags.since } : {}),
              ...(flags.rev ? { rev: flags.rev } : {}),
              early,
              label: flags.label,
              recency,
              ...(flags.intent ? { intent: flags.intent } : {}),
              ...(single && flags.fit
                ? {
                    fit: true,
                    folds: flags.folds,
                    calibrationOut: resolve(flags.calibrationOut),
                    regularisation,
                    ...(flags.fixWeight ? { fixedWeights: flags.fixWeight } : {}),
                  }
                : {}),
              ...(single ? { calibrateOn: fitOn[0]! } : {}),
              weightings,
              // A corpus shares one --cache-dir: each repository gets its own folder in it.
              ...(flags.cache === false
                ? { cacheDir: false as const }
                : flags.cacheDir
                  ? { cacheDir: resolve(flags.cacheDir, single ? '.' : `${index}-${basename(resolve(repo))}`) }
                  : {}),
              ...(single && flags.out ? { outDir: resolve(flags.out) } : {}),
              ...(flags.maxFiles !== undefined ? { maxFiles: flags.maxFiles } : {}),
              onProgress: (p) =>
                bar.update({
                  phase: 'scan',
                  done: p.done,
                  total: p.total,
                  message: `${single ? '' : `${basename(resolve(repo))}: `}merges (${p.fromCache} cached, ${p.skipped} skipped)`,
                }),
            });
            bar.done();
            runs.push({ repo, replay, run });
          } catch (error) {
            replay.dispose();
            throw error;
          }
        }
        if (runs.length === 1) {
          const { run } = runs[0]!;
          if (flags.json) {
            const { evaluation, earlyWarnings, earlyEvaluations, foresight, context, skipped, calibration, cacheFile, written } = run;
            const { foresight: _inContext, ...contextOut } = context;
            io.stdout.write(
              JSON.stringify(
                { evaluation, earlyWarnings, earlyEvaluations, foresight, context: contextOut, skipped, calibration, cacheFile, written },
                null,
                2,
              ) + '\n',
            );
          } else {
            io.stdout.write(formatTable(run.evaluation, run.context) + '\n');
            for (const file of run.written) io.stdout.write(`wrote ${file}\n`);
          }
          return;
        }
        const first = runs[0]!.replay;
        const corpus = evaluateCorpus(
          runs.map(({ repo, run }) => ({
            name: basename(resolve(repo)).replace(/\.git$/, ''),
            head: run.context.head,
            scored: run.scored,
            declared: run.declared,
          })),
          {
            channels: first.scorer.channels,
            thresholds: first.thresholds,
            label: flags.label,
            weightings: [
              {
                name: 'scanner weights',
                weights: Object.fromEntries(first.scorer.channels.map((c) => [c.id, c.weight])),
                probability: first.probability ?? DEFAULT_PROBABILITY_MAP,
              },
              ...weightings,
            ],
            ...(first.resolutionPrecisions ? { resolutionPrecisions: first.resolutionPrecisions } : {}),
            forecast: first.forecast,
            ...(flags.fit
              ? {
                  fit: {
                    fitOn,
                    regularisation: {
                      prior: Object.fromEntries(first.scorer.channels.map((c) => [c.id, c.weight])),
                      share: flags.priorShare,
                      minWeight: flags.minWeight,
                    },
                    ...(flags.fixWeight ? { fixedWeights: flags.fixWeight } : {}),
                  },
                }
              : {}),
            foresightLabels: foresightLabels(flags.label),
            ...(flags.intent ? { intent: flags.intent } : {}),
            ...(flags.fitProbability ? { probabilityFit: { label: flags.fitProbability, fitOn: flags.fitOn ?? [1, ...early] } } : {}),
            ...(flags.fitForecast
              ? {
                  forecastFit: {
                    label: flags.fitForecast,
                    fitOn: (flags.fitOn ?? early).filter((f) => f < 1),
                    recall: flags.forecastRecall,
                    ...(flags.forecastSignal ? { signals: flags.forecastSignal } : {}),
                  },
                }
              : {}),
          },
        );
        const merges = runs.reduce((n, r) => n + r.run.context.merges, 0);
        // A probability map and/or forecast model go with the weights as they are; with --fit, with the fitted weights.
        const fitted =
          flags.fitProbability || (flags.fitForecast && !flags.fit)
            ? probabilityCalibration(corpus, {
                merges,
                channelSetVersion: first.scorer.version,
                weights: Object.fromEntries(first.scorer.channels.map((c) => [c.id, c.weight])),
                thresholds: first.thresholds,
              })
            : corpusCalibration(corpus, {
                merges,
                channelSetVersion: first.scorer.version,
                regularisation: { priorShare: flags.priorShare, minWeight: flags.minWeight },
              });
        const calibration = fitted && corpus.forecast && !fitted.forecast ? { ...fitted, forecast: corpus.forecast.model } : fitted;
        const written: string[] = [];
        if (calibration) {
          writeFileSync(resolve(flags.calibrationOut), JSON.stringify(calibration, null, 2) + '\n');
          written.push(resolve(flags.calibrationOut));
        }
        if (flags.json) {
          const contexts = runs.map((r) => {
            const { foresight: _inCorpus, ...context } = r.run.context;
            return context;
          });
          io.stdout.write(JSON.stringify({ corpus, contexts, calibration, written }, null, 2) + '\n');
        } else {
          io.stdout.write(formatCorpusTable(corpus) + '\n');
          for (const file of written) io.stdout.write(`wrote ${file}\n`);
        }
      } finally {
        bar.done();
        for (const r of runs) r.replay.dispose();
      }
    });
}
