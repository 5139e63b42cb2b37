import { basename, resolve } from 'node:path';
import { Command, Option } from 'commander';
import {
  DEFAULT_CALIBRATE_ON,
  DEFAULT_FORECAST_RECALL,
  DEFAULT_PRIOR_SHARE,
  formatCorpusTable,
  formatTable,
  LABEL_KINDS,
  readWeighting,
  runCorpus,
  type IntentMode,
  type LabelKind,
  type RunCorpusOptions,
  type RunCorpusResult,
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
  readonly semanticTimeLimit?: number;
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
    .option(
      '--semantic-time-limit <seconds>',
      'under a semantic label, one merge\'s type check is "not checked (time limit)" past this (default 120)',
      count,
    )
    .option('--half-life <hours>', 'recency half-life of edits by commit time, or "none" (default: the config\'s)')
    .action((flags: EvalFlags) => runEvalCommand(flags, io));
}

/** One `airspace eval`: the pipeline run with the flags, its progress on stderr, its figures on stdout. */
async function runEvalCommand(flags: EvalFlags, io: Io): Promise<void> {
  const options = runOptionsOf(flags, io);
  const bar = createProgressBar(io.stderr);
  const single = options.repos.length === 1;
  try {
    const result = await runCorpus({
      ...options,
      onProblem: (message) => io.stderr.write(`airspace: ${message}\n`),
      onProgress: (repo, p) =>
        bar.update({
          phase: 'scan',
          done: p.done,
          total: p.total,
          message: `${single ? '' : `${basename(repo)}: `}merges (${p.fromCache} cached, ${p.skipped} skipped)`,
        }),
      onRepoDone: () => bar.done(),
    });
    bar.done();
    printResult(io, result, flags.json === true);
  } finally {
    bar.done();
  }
}

/** The flags as the pipeline's options: combinations checked, paths resolved, weightings read. */
function runOptionsOf(flags: EvalFlags, io: Io): RunCorpusOptions {
  const repos = (flags.repo ?? ['.']).map((repo) => resolve(repo));
  if (flags.fitProbability && repos.length === 1)
    throw new Error('--fit-probability fits on a corpus, each repository held out: repeat --repo');
  if (flags.fitForecast && repos.length === 1) throw new Error('--fit-forecast fits on a corpus, each repository held out: repeat --repo');
  if (flags.fitProbability && flags.fit)
    throw new Error('--fit-probability maps the risk of the weights in use: fit the weights (--fit) first, in another run');
  if ((flags.fitOn?.length ?? 0) > 1 && repos.length === 1)
    throw new Error('--fit-on takes one fraction for one repository; repeat --repo to fit on a corpus');
  const halfLifeHours = flags.halfLife === undefined ? undefined : flags.halfLife === 'none' ? Infinity : Number(flags.halfLife);
  if (halfLifeHours !== undefined && !(halfLifeHours > 0)) throw new Error(`--half-life takes hours or "none", got "${flags.halfLife}"`);
  const weightings: Weighting[] = [];
  for (const file of flags.weights ?? []) {
    const { weighting, problems } = readWeighting(resolve(file));
    for (const p of problems) io.stderr.write(`airspace: ${p.message}\n`);
    if (weighting) weightings.push(weighting);
  }
  return {
    repos,
    ...(flags.config ? { configPath: resolve(flags.config) } : {}),
    ...(flags.calibration ? { calibrationPath: resolve(flags.calibration) } : {}),
    ...(flags.maxMerges !== undefined ? { maxMerges: flags.maxMerges } : {}),
    ...(flags.since ? { since: flags.since } : {}),
    ...(flags.rev ? { rev: flags.rev } : {}),
    early: flags.early ?? [],
    label: flags.label,
    ...(halfLifeHours !== undefined ? { halfLifeHours } : {}),
    ...(flags.intent ? { intent: flags.intent } : {}),
    ...(flags.fit ? { fit: { folds: flags.folds, ...(flags.fixWeight ? { fixedWeights: flags.fixWeight } : {}) } } : {}),
    ...(flags.fitOn ? { fitOn: flags.fitOn } : {}),
    priorShare: flags.priorShare,
    minWeight: flags.minWeight,
    ...(flags.fitProbability ? { fitProbability: flags.fitProbability } : {}),
    ...(flags.fitForecast
      ? {
          fitForecast: {
            label: flags.fitForecast,
            recall: flags.forecastRecall,
            ...(flags.forecastSignal ? { signals: flags.forecastSignal } : {}),
          },
        }
      : {}),
    calibrationOut: resolve(flags.calibrationOut),
    weightings,
    ...(flags.cache === false ? { cacheDir: false as const } : flags.cacheDir ? { cacheDir: resolve(flags.cacheDir) } : {}),
    ...(repos.length === 1 && flags.out ? { outDir: resolve(flags.out) } : {}),
    ...(flags.maxFiles !== undefined ? { maxFiles: flags.maxFiles } : {}),
    ...(flags.semanticTimeLimit !== undefined ? { semanticTimeLimitMs: flags.semanticTimeLimit * 1000 } : {}),
  };
}

/** A run as a table (or JSON): one repository's figures, or the corpus's. */
function printResult(io: Io, result: RunCorpusResult, json: boolean): void {
  if (result.kind === 'single') {
    const { run } = result;
    if (json) {
      const { evaluation, earlyWarnings, earlyEvaluations, foresight, context, skipped, calibration, cacheFile, written } = run;
      const { foresight: _inContext, ...contextOut } = context;
      const out = { evaluation, earlyWarnings, earlyEvaluations, foresight, context: contextOut, skipped, calibration, cacheFile, written };
      io.stdout.write(JSON.stringify(out, null, 2) + '\n');
    } else {
      io.stdout.write(formatTable(run.evaluation, run.context) + '\n');
      for (const file of run.written) io.stdout.write(`wrote ${file}\n`);
    }
    return;
  }
  const { corpus, calibration, written } = result;
  if (json) {
    const contexts = result.runs.map((run) => {
      const { foresight: _inCorpus, ...context } = run.context;
      return context;
    });
    io.stdout.write(JSON.stringify({ corpus, contexts, calibration, written }, null, 2) + '\n');
  } else {
    io.stdout.write(formatCorpusTable(corpus) + '\n');
    for (const file of written) io.stdout.write(`wrote ${file}\n`);
  }
}
