/**
 * Foresight: what the scorers announce before git can see a collision. Per observed fraction and
 * label, the scenarios split into *visible* (the merge channel finds a conflict between the
 * observed states) and *unseen* (it does not); for the unseen, each scorer's recall, precision,
 * lift over the base rate, PR-AUC and lead time; for the visible, how many conflicts later
 * dissolve and why; over all scenarios, each scorer's F1 at traffic minus the merge channel's
 * (the foresight gain) and a lead-time curve. Pure: scored scenarios and scores in, numbers out.
 */
import {
  DEFAULT_ESCALATION,
  DEFAULT_FORECAST_MODEL,
  forecastProbability,
  SHARED_FILES_SIGNAL,
  type ForecastModel,
  type Precision,
  type Thresholds,
  MERGE_CHANNEL,
} from '@airspace/core';
import { dissolveReason, type DissolveReason } from '../extract/history.js';
import { labelOf, type IntentMode, type LabelKind } from '../extract/scenario.js';
import type { ScoredScenario } from '../score/cache.js';
import { crossValidateNoisyOr, regularised, type Regularisation } from '../fit/noisy-or.js';
import type { ChannelInfo } from '../score/scorer.js';
import { combine, isVisible, metricsOf, type Metrics, type Weighting } from './evaluate.js';
import { averagePrecision, confusion, DEFAULT_CALIBRATION_BINS, median } from './metrics.js';

/** One scorer's scores over the scenarios (parallel arrays). */
export interface ForesightScorer {
  readonly name: string;
  readonly kind: 'channel' | 'weighting' | 'fitted' | 'forecast';
  readonly scores: readonly number[];
  /** Traffic or above. */
  readonly flagged: readonly boolean[];
  /** The scanner's resolution call (combinations); else score ≥ τ_RA. */
  readonly resolution?: readonly boolean[];
  /** The probabilities it reports, when they are not the scores (a weighting's probability map): Brier and ECE read them. */
  readonly probabilities?: readonly number[];
}

/** Lead-time buckets in hours before the merge: [from, to). */
export const LEAD_BUCKETS: readonly { readonly fromHours: number; readonly toHours: number | null }[] = [
  { fromHours: 0, toHours: 1 },
  { fromHours: 1, toHours: 6 },
  { fromHours: 6, toHours: 24 },
  { fromHours: 24, toHours: 72 },
  { fromHours: 72, toHours: 168 },
  { fromHours: 168, toHours: null },
];

export interface UnseenFigures {
  readonly flagged: number;
  readonly tp: number;
  readonly recall: number | null;
  readonly precision: number | null;
  /** precision ÷ the unseen base rate. */
  readonly lift: number | null;
  readonly prAuc: number | null;
  /** PR-AUC ÷ the unseen base rate (1: no better than chance). */
  readonly prAucLift: number | null;
  /** Median hours between observation and merge of the unseen collisions flagged. */
  readonly medianLeadHours: number | null;
  readonly meanLeadHours: number | null;
}

export interface ScorerForesight {
  readonly name: string;
  readonly kind: ForesightScorer['kind'];
  /** Every figure over all scenarios of the fraction (ROC-AUC, PR-AUC, Brier, ECE, TA, RA). */
  readonly all: Metrics;
  /**
   * F1 at traffic minus the merge channel's alone, over all scenarios (null without a merge
   * channel, and for the forecast, which raises no traffic advisory).
   */
  readonly foresightGain: number | null;
  readonly unseen: UnseenFigures;
  /** Collisions (all scenarios) flagged per lead-time bucket (`LEAD_BUCKETS`). */
  readonly leadCurve: readonly number[];
}

export interface LabelForesight {
  readonly label: LabelKind;
  readonly scenarios: number;
  readonly positives: number;
  readonly visible: {
    readonly scenarios: number;
    readonly positives: number;
    /** Visible conflicts gone by the final merge (it merged cleanly), by reason. */
    readonly dissolved: number;
    readonly dissolvedBy: Readonly<Record<DissolveReason, number>>;
  };
  readonly unseen: {
    readonly scenarios: number;
    readonly positives: number;
    readonly baseRate: number | null;
    /** Unseen by the merge channel, yet git's merge of the observed commits conflicts (the channel only merges pairs whose diffs share a path). */
    readonly gitConflicts: number;
  };
  /** Collisions (all scenarios) per lead-time bucket. */
  readonly leadCurve: readonly number[];
  readonly scorers: readonly ScorerForesight[];
}

export interface ForesightObservation {
  readonly fraction: number;
  /** Declared intent of the sides at the observation (`--intent`), or null. */
  readonly intent: IntentMode | null;
  readonly scenarios: number;
  readonly byLabel: readonly LabelForesight[];
}

export interface ForesightOptions {
  readonly fraction: number;
  readonly intent?: IntentMode;
  readonly labels: readonly LabelKind[];
  readonly thresholds: Thresholds;
  readonly bins?: number;
}

export function leadHours(s: ScoredScenario): number {
  return Math.max(0, (s.committedAt - s.observedAt) / 3_600_000);
}

export function bucketOf(hours: number): number {
  const i = LEAD_BUCKETS.findIndex((b) => b.toHours === null || hours < b.toHours);
  return i < 0 ? LEAD_BUCKETS.length - 1 : i;
}

const mean = (values: readonly number[]): number | null => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null);
const ratio = (x: number | null, base: number | null): number | null => (x === null || !base ? null : x / base);

/** Unseen figures of one scorer over a set of scenario indices. */
export function unseenFigures(
  scenarios: readonly ScoredScenario[],
  labels: readonly boolean[],
  scorer: ForesightScorer,
  indices: readonly number[],
): UnseenFigures {
  const y = indices.map((i) => labels[i]!);
  const c = confusion(
    indices.map((i) => scorer.flagged[i]!),
    y,
  );
  const positives = y.filter(Boolean).length;
  const base = indices.length ? positives / indices.length : null;
  const prAuc = averagePrecision(
    indices.map((i) => scorer.scores[i]!),
    y,
  );
  const leads = indices.filter((i) => labels[i] && scorer.flagged[i]).map((i) => leadHours(scenarios[i]!));
  return {
    flagged: c.tp + c.fp,
    tp: c.tp,
    recall: c.recall,
    precision: c.precision,
    lift: ratio(c.precision, base),
    prAuc,
    prAucLift: ratio(prAuc, base),
    medianLeadHours: median(leads),
    meanLeadHours: mean(leads),
  };
}

/** Foresight figures of one observed fraction (each scorer's arrays parallel to `scenarios`). */
export function foresightOf(
  scenarios: readonly ScoredScenario[],
  scorers: readonly ForesightScorer[],
  options: ForesightOptions,
): ForesightObservation {
  const bins = options.bins ?? DEFAULT_CALIBRATION_BINS;
  const visible = scenarios.map(isVisible);
  const unseenIdx = scenarios.flatMap((_, i) => (visible[i] ? [] : [i]));
  const visibleIdx = scenarios.flatMap((_, i) => (visible[i] ? [i] : []));
  const buckets = scenarios.map((s) => bucketOf(leadHours(s)));
  const reference = scorers.find((s) => s.kind === 'channel' && s.name === MERGE_CHANNEL);
  const byLabel = options.labels.map((label): LabelForesight => {
    const labels = scenarios.map((s) => labelOf(s, label));
    const all = (s: ForesightScorer) => metricsOf(s.scores, labels, options.thresholds, bins, s.resolution, s.probabilities);
    const referenceF1 = reference ? (all(reference).traffic.f1 ?? 0) : null;
    const curve = (include: (i: number) => boolean) => {
      const counts = LEAD_BUCKETS.map(() => 0);
      scenarios.forEach((_, i) => {
        if (labels[i] && include(i)) counts[buckets[i]!]!++;
      });
      return counts;
    };
    const dissolvedBy: Record<DissolveReason, number> = { 'sync-merge': 0, revert: 0, unexplained: 0 };
    let dissolved = 0;
    for (const i of visibleIdx) {
      const s = scenarios[i]!;
      if (s.labels.textual) continue;
      dissolved++;
      dissolvedBy[dissolveReason(s.labels.history, s.observed)]++;
    }
    const unseenPositives = unseenIdx.filter((i) => labels[i]).length;
    return {
      label,
      scenarios: scenarios.length,
      positives: labels.filter(Boolean).length,
      visible: { scenarios: visibleIdx.length, positives: visibleIdx.filter((i) => labels[i]).length, dissolved, dissolvedBy },
      unseen: {
        scenarios: unseenIdx.length,
        positives: unseenPositives,
        baseRate: unseenIdx.length ? unseenPositives / unseenIdx.length : null,
        gitConflicts: unseenIdx.filter((i) => scenarios[i]!.observedConflict === true).length,
      },
      leadCurve: curve(() => true),
      scorers: scorers.map((s) => {
        const metrics = all(s);
        return {
          name: s.name,
          kind: s.kind,
          all: metrics,
          foresightGain: referenceF1 === null || s.kind === 'forecast' ? null : (metrics.traffic.f1 ?? 0) - referenceF1,
          unseen: unseenFigures(scenarios, labels, s, unseenIdx),
          leadCurve: curve((i) => s.flagged[i]!),
        };
      }),
    };
  });
  return { fraction: options.fraction, intent: options.intent ?? null, scenarios: scenarios.length, byLabel };
}

/** Pooled unseen figures of one scorer over several repositories' observations of one fraction (the corpus line). */
export function pooledUnseen(
  parts: readonly { readonly scenarios: readonly ScoredScenario[]; readonly scorer: ForesightScorer }[],
  label: LabelKind,
): UnseenFigures & { readonly scenarios: number; readonly positives: number; readonly baseRate: number | null } {
  const scenarios = parts.flatMap((p) => p.scenarios);
  const scorer: ForesightScorer = {
    name: parts[0]?.scorer.name ?? '',
    kind: parts[0]?.scorer.kind ?? 'weighting',
    scores: parts.flatMap((p) => p.scorer.scores),
    flagged: parts.flatMap((p) => p.scorer.flagged),
  };
  const labels = scenarios.map((s) => labelOf(s, label));
  const unseen = scenarios.flatMap((s, i) => (isVisible(s) ? [] : [i]));
  const positives = unseen.filter((i) => labels[i]).length;
  return {
    scenarios: unseen.length,
    positives,
    baseRate: unseen.length ? positives / unseen.length : null,
    ...unseenFigures(scenarios, labels, scorer, unseen),
  };
}

/**
 * Each channel alone, each weighting (the scanner's first), flagged at τ_TA as the report's rows
 * are, and the forecast beside the scanner's weighting (unless `forecast` is false).
 */
export function foresightScorers(
  scenarios: readonly ScoredScenario[],
  channels: readonly ChannelInfo[],
  weightings: readonly Weighting[],
  thresholds: Thresholds,
  resolutionPrecisions: readonly Precision[] = DEFAULT_ESCALATION.resolutionPrecisions,
  forecast: ForecastModel | false = DEFAULT_FORECAST_MODEL,
): ForesightScorer[] {
  const out: ForesightScorer[] = channels.map((c) => {
    const scores = scenarios.map((s) => s.risks[c.id] ?? 0);
    return { name: c.id, kind: 'channel', scores, flagged: scores.map((r) => r >= thresholds.traffic) };
  });
  for (const w of weightings) out.push(weightingScorer(scenarios, channels, w, thresholds, resolutionPrecisions, 'weighting'));
  const scanner = out.find((s) => s.kind === 'weighting');
  if (forecast && scanner) out.push(forecastScorer(scenarios, scanner.flagged, forecast));
  return out;
}

/** The forecast's signal values of a scored scenario, as a scan computes them for a link. */
export function forecastValuesOf(s: ScoredScenario): Record<string, number> {
  return { ...s.risks, [SHARED_FILES_SIGNAL]: s.sharedFiles > 0 ? 1 : 0 };
}

/**
 * The forecast as a scorer: its probability for every scenario, flagged where a scan would show
 * it — no advisory (`advised`: the scanner's weighting at traffic or above), git merges the
 * observed states cleanly, probability at or above the model's threshold.
 */
export function forecastScorer(
  scenarios: readonly ScoredScenario[],
  advised: readonly boolean[],
  model: ForecastModel,
  name = 'forecast',
): ForesightScorer {
  const scores = scenarios.map((s) => forecastProbability(forecastValuesOf(s), model));
  return {
    name,
    kind: 'forecast',
    scores,
    flagged: scores.map((p, i) => !advised[i] && !isVisible(scenarios[i]!) && p >= model.threshold),
  };
}

/** A weighting as a scorer, flagged at its own bands (a fitted scanner weighting's) or the given ones. */
export function weightingScorer(
  scenarios: readonly ScoredScenario[],
  channels: readonly ChannelInfo[],
  weighting: Weighting,
  thresholds: Thresholds,
  resolutionPrecisions: readonly Precision[] = DEFAULT_ESCALATION.resolutionPrecisions,
  kind: ForesightScorer['kind'] = 'weighting',
): ForesightScorer {
  const { scores, resolution, probabilities } = combine(scenarios, channels, weighting, thresholds, resolutionPrecisions);
  return {
    name: weighting.name,
    kind,
    scores,
    flagged: scores.map((r) => r >= thresholds.traffic),
    resolution,
    ...(weighting.probability ? { probabilities } : {}),
  };
}

/** The noisy-OR with a leak fitted k-fold on these scenarios: each scored by a model that never saw it. */
export function outOfFoldScorer(
  scenarios: readonly ScoredScenario[],
  channels: readonly ChannelInfo[],
  options: {
    label: LabelKind;
    folds: number;
    thresholds: Thresholds;
    fixedWeights?: Readonly<Record<string, number>>;
    regularisation?: Regularisation;
    name?: string;
  },
): ForesightScorer | undefined {
  if (scenarios.length < options.folds || options.folds < 2) return undefined;
  const rows = scenarios.map((s) => channels.map((c) => s.risks[c.id] ?? 0));
  const labels = scenarios.map((s) => labelOf(s, options.label));
  const fixedWeights = new Map(
    channels.flatMap((c, i) => (options.fixedWeights?.[c.id] === undefined ? [] : [[i, options.fixedWeights[c.id]!] as const])),
  );
  const cv = crossValidateNoisyOr(rows, labels, options.folds, {
    fixedWeights,
    ...regularised(
      channels.map((c) => c.id),
      rows.length,
      options.regularisation,
    ),
  });
  return {
    name: options.name ?? 'fitted (out-of-fold)',
    kind: 'fitted',
    scores: cv.outOfFold,
    flagged: cv.outOfFold.map((p) => p >= options.thresholds.traffic),
  };
}
