/**
 * The forecast: "these two are likely to collide later", for a pair git merges cleanly today and
 * that no advisory covers. TCAS shows proximate traffic below a traffic advisory; this is that
 * for code. It never changes a band, level, risk or advisory: it reads the channels' risks a scan
 * already produced (the look-ahead ones: co-change, past conflicts, overlap's near miss) and the
 * files both sides change, and puts a probability on a later collision.
 *
 * Why beside the advisories and not in them: every look-ahead rule that finds half of the
 * collisions git cannot see yet also flags many pairs that finish cleanly, and on finished
 * branches each such flag would be a false traffic advisory (docs/evaluation.md, "Forecast").
 *
 * The model is a noisy-OR with a leak over the signals, fitted by maximum likelihood on the
 * replayed histories' pairs that git merged cleanly part-way (`airspace eval`), so its value is a
 * probability: the share of such pairs that collided later.
 */
import type { Evidence } from './channel.js';
import type { Agent } from './model.js';
import { clamp01 } from './combine.js';
import { percentText, type ProbabilityLabel } from './probability.js';
import type { ChannelBreakdown, Forecast, ForecastSignal, Level } from './scan-types.js';

/** The signal that some file is changed on both sides (1) or none is (0). Other signals are channel ids. */
export const SHARED_FILES_SIGNAL = 'shared-files';

/** The channel whose risk says git's merge of the two current states conflicts: a forecast is for pairs it clears. */
/** The merge channel's id: git's own verdict on a pair's states, which several rules read apart. */
export const MERGE_CHANNEL = 'merge';

export interface ForecastModel {
  /** What the probability is the probability of (the eval label it was fitted on). */
  readonly label: ProbabilityLabel;
  /** ω per signal: a channel id (its risk r ∈ [0, 1]) or `SHARED_FILES_SIGNAL`. */
  readonly weights: Readonly<Record<string, number>>;
  /** The probability with every signal at 0. */
  readonly leak: number;
  /** A pair is forecast when its probability reaches this. */
  readonly threshold: number;
}

/**
 * `airspace eval --fit-forecast collided --forecast-recall 0.5 --forecast-signal co-change
 * --forecast-signal past-conflicts` on six public histories (newest 300 merges each): fitted on
 * the pairs git merged cleanly after ¼ and ½ of each side's commits (1,564 states, 75 of which
 * collided later), label *collided at any point*; the threshold is the highest probability at which
 * it finds half of those collisions. Signals, recall and label were chosen by
 * leave-one-repository-out among 20 candidates (docs/evaluation.md, "Forecast"). A pair with
 * neither signal is given the leak, 2.3%; past conflicts alone at their cap (0.9) 50%; co-change
 * alone at its cap 13%.
 */
export const DEFAULT_FORECAST_MODEL: ForecastModel = {
  label: 'collided',
  weights: { 'co-change': 0.1204, 'past-conflicts': 0.5407 },
  leak: 0.0233,
  threshold: 0.1016,
};

/** Why a model cannot be used, or undefined when it can. */
export function forecastModelProblem(model: ForecastModel): string | undefined {
  for (const [signal, w] of Object.entries(model.weights))
    if (!(w >= 0 && w <= 1)) return `weight of "${signal}" must be in [0, 1] (got ${w})`;
  if (!(model.leak >= 0 && model.leak < 1)) return `leak must be in [0, 1) (got ${model.leak})`;
  if (!(model.threshold >= 0 && model.threshold <= 1)) return `threshold must be in [0, 1] (got ${model.threshold})`;
  return undefined;
}

/** Paths changed on both sides (a rename counts under either name); edits only declared are not changes. */
export function sharedChangedFiles(a: Pick<Agent, 'files'>, b: Pick<Agent, 'files'>): string[] {
  const paths = new Set(a.files.filter((f) => !f.declared).flatMap((f) => [f.path, ...(f.oldPath ? [f.oldPath] : [])]));
  return b.files.filter((f) => !f.declared && (paths.has(f.path) || (f.oldPath !== undefined && paths.has(f.oldPath)))).map((f) => f.path);
}

/** The model's probability for signal values (a missing signal is 0): 1 − (1 − leak)·Π(1 − ω·value). */
export function forecastProbability(values: Readonly<Record<string, number>>, model: ForecastModel): number {
  let keep = 1 - model.leak;
  for (const [signal, w] of Object.entries(model.weights)) keep *= 1 - w * clamp01(values[signal] ?? 0);
  return clamp01(1 - keep);
}

/** Signal values of a pair: its channels' risks, and whether some file is changed on both sides. */
export function forecastValues(
  channels: readonly Pick<ChannelBreakdown, 'channel' | 'risk'>[],
  sharedFiles: number,
): Record<string, number> {
  const values: Record<string, number> = { [SHARED_FILES_SIGNAL]: sharedFiles > 0 ? 1 : 0 };
  for (const c of channels) values[c.channel] = c.risk;
  return values;
}

/** git's merge of the pair's current states conflicts: the merge channel's risk is above 0. */
export function gitSeesConflict(channels: readonly Pick<ChannelBreakdown, 'channel' | 'risk'>[]): boolean {
  return gitMergeOf(channels) === 'conflict';
}

/**
 * What git's merge of the pair's current states says: `conflict`, `clean`, or undefined when the
 * merge channel did not score the pair — left out (a probe of an edit not yet made, or turned
 * off) or unable to (its part carries a problem and no risk).
 */
export function gitMergeOf(channels: readonly Pick<ChannelBreakdown, 'channel' | 'risk' | 'problems'>[]): 'conflict' | 'clean' | undefined {
  const merge = channels.find((c) => c.channel === MERGE_CHANNEL);
  if (!merge) return undefined;
  if (merge.risk > 0) return 'conflict';
  return merge.problems?.length ? undefined : 'clean';
}

/** Would the forecast speak for this pair at all: no advisory, and git merges its current states cleanly. */
export function forecastApplies(level: Level, channels: readonly Pick<ChannelBreakdown, 'channel' | 'risk'>[]): boolean {
  return level === 'clear' && !gitSeesConflict(channels);
}

/** How many evidence items a forecast keeps per signal. */
const EVIDENCE_PER_SIGNAL = 2;

/**
 * The forecast of a scored pair, or undefined when it has an advisory, git already sees a
 * conflict, or its probability is below the model's threshold.
 */
export function forecastFor(
  pair: { readonly a: string; readonly b: string; readonly level: Level; readonly channels: readonly ChannelBreakdown[] },
  shared: readonly string[] | (() => readonly string[]),
  model: ForecastModel,
): Forecast | undefined {
  if (!forecastApplies(pair.level, pair.channels)) return undefined;
  // The shared paths cost a set per pair: a scan of many agents passes them lazily, and they are
  // read only when the model weighs them.
  const usesShared = (model.weights[SHARED_FILES_SIGNAL] ?? 0) > 0;
  const sharedPaths = !usesShared ? [] : typeof shared === 'function' ? shared() : shared;
  const values = forecastValues(pair.channels, sharedPaths.length);
  const probability = forecastProbability(values, model);
  if (probability < model.threshold) return undefined;
  const signals = Object.entries(model.weights)
    .map(([signal, weight]) => ({ signal, value: clamp01(values[signal] ?? 0), weight }))
    .filter((s) => s.value > 0 && s.weight > 0)
    .sort((x, y) => y.weight * y.value - x.weight * x.value || (x.signal < y.signal ? -1 : 1));
  const evidence: Evidence[] = [];
  for (const s of signals) {
    if (s.signal === SHARED_FILES_SIGNAL) {
      evidence.push(sharedFilesEvidence(pair.a, pair.b, sharedPaths, gitMergeOf(pair.channels) === 'clean'));
      continue;
    }
    const channel = pair.channels.find((c) => c.channel === s.signal);
    const items = [...(channel?.evidence ?? [])].sort((x, y) => (y.risk ?? 0) - (x.risk ?? 0)).slice(0, EVIDENCE_PER_SIGNAL);
    evidence.push(...items);
  }
  return { probability, threshold: model.threshold, signals, evidence };
}

/** `mergedCleanly`: the merge channel scored the pair clean (a probe's pair has no such word). */
function sharedFilesEvidence(a: string, b: string, shared: readonly string[], mergedCleanly: boolean): Evidence {
  const first = shared[0]!;
  const more = shared.length > 1 ? ` (and ${shared.length - 1} more file${shared.length > 2 ? 's' : ''})` : '';
  return {
    message: `${a} and ${b} both change ${first}${more}${mergedCleanly ? '; git merges them cleanly today' : ''}.`,
    kind: 'shared-file',
    a: { agent: a, path: first },
    b: { agent: b, path: first },
  };
}

/** A signal as people read it: "co-change 0.90", "files changed on both sides". */
export function forecastSignalText(s: ForecastSignal): string {
  return s.signal === SHARED_FILES_SIGNAL ? 'files changed on both sides' : `${s.signal} ${s.value.toFixed(2)}`;
}

/** One line for a forecast: "FORECAST 12% chance of colliding later (co-change 0.90, files changed on both sides)". */
export function forecastText(f: Forecast): string {
  const why = f.signals.length ? ` (${f.signals.map(forecastSignalText).join(', ')})` : '';
  return `${percentText(f.probability)} chance of colliding later${why}`;
}
