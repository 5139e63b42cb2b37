/**
 * From scored scenarios to every figure of the report. Pure: scenarios, weightings and
 * thresholds in; numbers out.
 */
import {
  classifyRisk,
  DEFAULT_ESCALATION,
  gitSeesConflict,
  MERGE_CHANNEL,
  noisyOr,
  pairProbability,
  type PairHistory,
  type Precision,
  type ProbabilityMap,
  type Thresholds,
} from '@airspace/core';
import { isSemanticLabel, LABEL_KINDS, labelKnown, labelOf, type LabelKind } from '../extract/scenario.js';
import { crossValidateNoisyOr, fitNoisyOr, regularised, zeroWeightsOf, type Regularisation } from '../fit/noisy-or.js';
import type { ScoredScenario } from '../score/cache.js';
import type { ChannelInfo } from '../score/scorer.js';
import {
  averagePrecision,
  baseRate,
  brierScore,
  confusion,
  confusionAt,
  DEFAULT_CALIBRATION_BINS,
  expectedCalibrationError,
  median,
  reliabilityBins,
  rocAuc,
  rocCurve,
  type Confusion,
  type ReliabilityBin,
  type RocPoint,
} from './metrics.js';

export interface Metrics {
  readonly n: number;
  readonly positives: number;
  readonly rocAuc: number | null;
  /** Average precision. */
  readonly prAuc: number | null;
  readonly brier: number | null;
  readonly ece: number | null;
  /** Prediction "traffic or above" (risk ≥ τ_TA). */
  readonly traffic: Confusion;
  /** Prediction "resolution" (risk ≥ τ_RA, after the escalation discipline for combinations). */
  readonly resolution: Confusion;
}

export interface Curves {
  readonly roc: readonly RocPoint[];
  readonly reliability: readonly ReliabilityBin[];
}

export interface Weighting {
  readonly name: string;
  readonly weights: Readonly<Record<string, number>>;
  /** Leak of a fitted model; 0 for a scanner weighting. */
  readonly leak?: number;
  /**
   * Risk → probability, as the scanner reports it: Brier and ECE read the mapped probability
   * (the map is strictly increasing, so every other figure is the risk's). Absent: the risk itself.
   */
  readonly probability?: ProbabilityMap;
}

export interface WeightingReport {
  readonly name: string;
  readonly weights: Readonly<Record<string, number>>;
  readonly leak: number;
  readonly combined: Metrics;
  /** The same weighting with the merge channel left out (heuristic channels only). */
  readonly withoutMerge: Metrics | null;
  /** Leave-one-channel-out: the combination without each channel. */
  readonly ablations: Readonly<Record<string, Metrics>>;
}

export interface FitReport {
  readonly folds: number;
  /** Weights fitted on every scenario (what the calibration file holds). */
  readonly weights: Readonly<Record<string, number>>;
  readonly leak: number;
  /** Channels whose fitted weight went to 0 (below 0.01; held weights aside). */
  readonly zeroWeights: readonly string[];
  /** Figures of out-of-fold predictions: each scenario predicted by a model that never saw it. */
  readonly outOfFold: Metrics;
  readonly withoutMerge: { readonly weights: Readonly<Record<string, number>>; readonly leak: number; readonly outOfFold: Metrics } | null;
  /** Thresholds suggested from the out-of-fold predictions (see `suggestThresholds`). */
  readonly suggestedThresholds: Thresholds;
  readonly curves: Curves;
}

export interface EvaluateOptions {
  readonly channels: readonly ChannelInfo[];
  readonly thresholds: Thresholds;
  readonly label: LabelKind;
  readonly weightings: readonly Weighting[];
  readonly resolutionPrecisions?: readonly Precision[];
  /** k for k-fold cross-validated fitting; no fitting when absent. */
  readonly fitFolds?: number;
  /** Channel weights held at a value while fitting the others. */
  readonly fixedWeights?: Readonly<Record<string, number>>;
  /** Pull of the fit toward prior weights (see `Regularisation`); none when absent. */
  readonly regularisation?: Regularisation;
  readonly bins?: number;
}

/** The labels every evaluation has a rate for; the semantic ones only when the replay checked the merges. */
type PlainLabel = 'textual' | 'manual' | 'any' | 'collided';

export interface Evaluation {
  readonly label: LabelKind;
  readonly scenarios: number;
  readonly positives: number;
  readonly baseRate: number | null;
  /** Rates of each label, for context. */
  readonly labelRates: Readonly<Record<PlainLabel, number | null>> & Readonly<Partial<Record<LabelKind, number | null>>>;
  readonly thresholds: Thresholds;
  readonly bins: number;
  /** Each channel's own risk r_i as the score. */
  readonly channels: Readonly<Record<string, Metrics>>;
  readonly weightings: readonly WeightingReport[];
  readonly fit?: FitReport;
  /** ROC and reliability curves of the first weighting, its merge-less variant and each channel. */
  readonly curves: Readonly<Record<string, Curves>>;
}

export function metricsOf(
  scores: readonly number[],
  labels: readonly boolean[],
  thresholds: Thresholds,
  bins: number,
  resolutionPredicted?: readonly boolean[],
  probabilities: readonly number[] = scores,
): Metrics {
  return {
    n: labels.length,
    positives: labels.filter(Boolean).length,
    rocAuc: rocAuc(scores, labels),
    prAuc: averagePrecision(scores, labels),
    brier: brierScore(probabilities, labels),
    ece: expectedCalibrationError(probabilities, labels, bins),
    traffic: confusionAt(scores, labels, thresholds.traffic),
    resolution: resolutionPredicted ? confusion(resolutionPredicted, labels) : confusionAt(scores, labels, thresholds.resolution),
  };
}

/** A weighting's noisy-OR risk of one scenario over a channel subset, with its leak. */
export function riskOf(s: ScoredScenario, channels: readonly ChannelInfo[], weighting: Weighting): number {
  const weighted = channels.map((c) => (weighting.weights[c.id] ?? 0) * (s.risks[c.id] ?? 0));
  return 1 - (1 - (weighting.leak ?? 0)) * (1 - noisyOr(weighted));
}

/**
 * Scores of a weighting over a channel subset: noisy-OR risk (plus leak), the scanner's resolution
 * call, and the probability it reports (the weighting's map of the risk; the risk without one).
 */
export function combine(
  scenarios: readonly ScoredScenario[],
  channels: readonly ChannelInfo[],
  weighting: Weighting,
  thresholds: Thresholds,
  resolutionPrecisions: readonly Precision[],
): { scores: number[]; resolution: boolean[]; probabilities: number[] } {
  const scores: number[] = [];
  const resolution: boolean[] = [];
  const leak = weighting.leak ?? 0;
  for (const s of scenarios) {
    const parts = channels.map((c) => {
      const weight = weighting.weights[c.id] ?? 0;
      const precise = s.preciseRisks?.[c.id];
      return {
        channel: c.id,
        precision: c.precision,
        weighted: weight * (s.risks[c.id] ?? 0),
        ...(precise !== undefined ? { weightedPrecise: weight * precise } : {}),
      };
    });
    const risk = 1 - (1 - leak) * (1 - noisyOr(parts.map((p) => p.weighted)));
    scores.push(risk);
    // The leak is part of no channel: it cannot escalate, so the band comes from the channels.
    const band = classifyRisk(parts, thresholds, { resolutionPrecisions }).level;
    resolution.push(band === 'resolution');
  }
  const map = weighting.probability;
  return { scores, resolution, probabilities: map ? scores.map((r, i) => pairProbability(r, pairHistoryOf(scenarios[i]!), map)) : scores };
}

/** The merge channel found a conflict between the observed states (else: git's own merge of them, recorded for the label). */
export function isVisible(s: ScoredScenario): boolean {
  const merge = s.risks[MERGE_CHANNEL];
  return merge !== undefined ? merge > 0 : s.observedConflict === true;
}

/** What a scan's probability reads of a pair besides its risk, as `scanAirspace` reads it. */
export function pairHistoryOf(s: ScoredScenario): PairHistory {
  const clean = !gitSeesConflict([{ channel: MERGE_CHANNEL, risk: s.risks[MERGE_CHANNEL] ?? 0 }]);
  return { clean, ...(typeof s.recentConflicts === 'number' ? { recentConflicts: s.recentConflicts } : {}) };
}

/**
 * Thresholds from out-of-fold probabilities: τ_RA maximises F1; τ_TA is the highest threshold
 * that still catches 90% of the positives (never above τ_RA).
 */
export function suggestThresholds(probabilities: readonly number[], labels: readonly boolean[], fallback: Thresholds): Thresholds {
  const candidates = [...new Set(probabilities.map((p) => Math.floor(p * 1000) / 1000))].sort((a, b) => b - a);
  let bestF1 = -1;
  let resolution = fallback.resolution;
  let traffic: number | undefined;
  for (const t of candidates) {
    const c = confusionAt(probabilities, labels, t);
    if ((c.f1 ?? 0) > bestF1) {
      bestF1 = c.f1 ?? 0;
      resolution = t;
    }
    if (traffic === undefined && (c.recall ?? 0) >= 0.9) traffic = t;
  }
  if (bestF1 <= 0) return fallback;
  return { traffic: Math.min(traffic ?? resolution, resolution), resolution };
}

export function evaluate(scenarios: readonly ScoredScenario[], options: EvaluateOptions): Evaluation {
  const bins = options.bins ?? DEFAULT_CALIBRATION_BINS;
  const thresholds = options.thresholds;
  const precisions = options.resolutionPrecisions ?? DEFAULT_ESCALATION.resolutionPrecisions;
  const labels = scenarios.map((s) => labelOf(s, options.label));
  const channelIds = options.channels.map((c) => c.id);
  const hasMerge = channelIds.includes(MERGE_CHANNEL);
  const curves: Record<string, Curves> = {};

  const channels: Record<string, Metrics> = {};
  for (const c of options.channels) {
    const scores = scenarios.map((s) => s.risks[c.id] ?? 0);
    channels[c.id] = metricsOf(scores, labels, thresholds, bins);
    curves[`channel:${c.id}`] = { roc: rocCurve(scores, labels), reliability: reliabilityBins(scores, labels, bins) };
  }

  const weightings: WeightingReport[] = options.weightings.map((w, index) => {
    // The map was fitted on the whole weighting's risk: a subset's (ablations, without merge) is read as it is.
    const { probability: _map, ...unmapped } = w;
    const run = (subset: readonly ChannelInfo[]) => {
      const { scores, resolution, probabilities } = combine(
        scenarios,
        subset,
        subset === options.channels ? w : unmapped,
        thresholds,
        precisions,
      );
      return { metrics: metricsOf(scores, labels, thresholds, bins, resolution, probabilities), scores, probabilities };
    };
    const all = run(options.channels);
    const withoutMerge = hasMerge ? run(options.channels.filter((c) => c.id !== MERGE_CHANNEL)) : null;
    if (index === 0) {
      curves[w.name] = { roc: rocCurve(all.scores, labels), reliability: reliabilityBins(all.probabilities, labels, bins) };
      if (withoutMerge)
        curves[`${w.name} without merge`] = {
          roc: rocCurve(withoutMerge.scores, labels),
          reliability: reliabilityBins(withoutMerge.probabilities, labels, bins),
        };
    }
    const ablations: Record<string, Metrics> = {};
    if (options.channels.length > 1)
      for (const c of options.channels) ablations[c.id] = run(options.channels.filter((x) => x.id !== c.id)).metrics;
    return {
      name: w.name,
      weights: w.weights,
      leak: w.leak ?? 0,
      combined: all.metrics,
      withoutMerge: withoutMerge?.metrics ?? null,
      ablations,
    };
  });

  let fit: FitReport | undefined;
  if (options.fitFolds !== undefined && scenarios.length >= options.fitFolds) {
    const fitOn = (subset: readonly ChannelInfo[]) => {
      const rows = scenarios.map((s) => subset.map((c) => s.risks[c.id] ?? 0));
      const fixedWeights = new Map(
        subset.flatMap((c, i) => (options.fixedWeights?.[c.id] === undefined ? [] : [[i, options.fixedWeights[c.id]!] as const])),
      );
      const reg = regularised(
        subset.map((c) => c.id),
        rows.length,
        options.regularisation,
      );
      const cv = crossValidateNoisyOr(rows, labels, options.fitFolds!, { fixedWeights, ...reg });
      const model = fitNoisyOr(rows, labels, { fixedWeights, ...reg });
      const weights = Object.fromEntries(subset.map((c, i) => [c.id, model.weights[i]!]));
      // Resolution calls of out-of-fold probabilities use τ_RA directly: the fitted model is a probability.
      return { weights, leak: model.leak, outOfFold: metricsOf(cv.outOfFold, labels, thresholds, bins), probabilities: cv.outOfFold };
    };
    const all = fitOn(options.channels);
    const heuristic = hasMerge ? fitOn(options.channels.filter((c) => c.id !== MERGE_CHANNEL)) : null;
    fit = {
      folds: options.fitFolds,
      weights: all.weights,
      leak: all.leak,
      zeroWeights: zeroWeightsOf(all.weights, options.fixedWeights),
      outOfFold: all.outOfFold,
      withoutMerge: heuristic ? { weights: heuristic.weights, leak: heuristic.leak, outOfFold: heuristic.outOfFold } : null,
      suggestedThresholds: suggestThresholds(all.probabilities, labels, thresholds),
      curves: { roc: rocCurve(all.probabilities, labels), reliability: reliabilityBins(all.probabilities, labels, bins) },
    };
    curves['fitted (out-of-fold)'] = fit.curves;
  }

  // A semantic label's rate is over the scenarios with a verdict, and only when the replay asked for verdicts.
  const rate = (kind: LabelKind) => baseRate(scenarios.filter((s) => labelKnown(s, kind)).map((s) => labelOf(s, kind)));
  const checked = scenarios.some((s) => s.semantic !== undefined);
  const rated = LABEL_KINDS.filter((kind) => checked || !isSemanticLabel(kind));
  return {
    label: options.label,
    scenarios: scenarios.length,
    positives: labels.filter(Boolean).length,
    baseRate: baseRate(labels),
    labelRates: Object.fromEntries(rated.map((kind) => [kind, rate(kind)])) as Evaluation['labelRates'],
    thresholds,
    bins,
    channels,
    weightings,
    ...(fit ? { fit } : {}),
    curves,
  };
}

export interface EarlyWarning {
  readonly fraction: number;
  /** Scenarios present at both the early fraction and in full. */
  readonly scenarios: number;
  readonly positives: number;
  /** Positives flagged (traffic or above, first weighting) at the early state, and with the full diffs. */
  readonly foreseenEarly: number;
  readonly foreseenFull: number;
  /** Median hours between the observation and the merge, over positives foreseen at each state. */
  readonly medianLeadHoursEarly: number | null;
  readonly medianLeadHoursFull: number | null;
  /** Median share of each side's commits still to come at the early observation, over positives foreseen early. */
  readonly medianCommitsAhead: number | null;
}

/** How much earlier collisions are foreseen when each side is observed part-way. */
export function earlyWarning(
  early: readonly ScoredScenario[],
  full: readonly ScoredScenario[],
  options: { channels: readonly ChannelInfo[]; weighting: Weighting; thresholds: Thresholds; label: LabelKind },
): EarlyWarning {
  const fullBy = new Map(full.map((s) => [s.merge, s]));
  const flagged = (s: ScoredScenario) => {
    const parts = options.channels.map((c) => (options.weighting.weights[c.id] ?? 0) * (s.risks[c.id] ?? 0));
    return 1 - (1 - (options.weighting.leak ?? 0)) * (1 - noisyOr(parts)) >= options.thresholds.traffic;
  };
  const hours = (s: ScoredScenario) => (s.committedAt - s.observedAt) / 3_600_000;
  let scenarios = 0;
  let positives = 0;
  const leadEarly: number[] = [];
  const leadFull: number[] = [];
  const ahead: number[] = [];
  for (const e of early) {
    const f = fullBy.get(e.merge);
    if (!f) continue;
    scenarios++;
    if (!labelOf(e, options.label)) continue;
    positives++;
    if (flagged(e)) {
      leadEarly.push(hours(e));
      const remaining = e.chainLength.map((n, i) => (n === 0 ? 0 : (n - e.observed[i]!) / n));
      ahead.push(Math.max(...remaining));
    }
    if (flagged(f)) leadFull.push(hours(f));
  }
  const fraction = early[0]?.early ?? NaN;
  return {
    fraction,
    scenarios,
    positives,
    foreseenEarly: leadEarly.length,
    foreseenFull: leadFull.length,
    medianLeadHoursEarly: median(leadEarly),
    medianLeadHoursFull: median(leadFull),
    medianCommitsAhead: median(ahead),
  };
}
