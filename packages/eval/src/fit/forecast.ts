/**
 * Fitting the forecast (`ForecastModel` in @airspace/core): a noisy-OR with a leak over a few
 * look-ahead signals, by maximum likelihood on the pairs git merges cleanly part-way (the unseen
 * ones: a forecast speaks only for them), and a threshold at which it finds a given share of the
 * training collisions. Few parameters on purpose: a corpus has a few dozen unseen collisions.
 */
import { forecastProbability, type ForecastModel } from '@airspace/core';
import { labelOf, type LabelKind } from '../extract/scenario.js';
import type { ScoredScenario } from '../score/cache.js';
import { isVisible } from '../measure/evaluate.js';
import { forecastValuesOf } from '../measure/foresight.js';
import { fitNoisyOr } from './noisy-or.js';

export interface ForecastFitOptions {
  /** What the forecast's probability is the probability of. */
  readonly label: LabelKind;
  /** Observed fractions (< 1) whose unseen pairs are pooled for the fit. */
  readonly fitOn: readonly number[];
  /** The signals (channel ids, `shared-files`); default `DEFAULT_FORECAST_SIGNALS`. */
  readonly signals?: readonly string[];
  /** The threshold is the highest probability at which the forecast finds this share of the training collisions. */
  readonly recall?: number;
}

/**
 * The signals of the shipped model, chosen by leave-one-repository-out among the look-ahead
 * evidence the channels already produce (co-change, past conflicts, overlap's near miss) and the
 * files both sides change (`SHARED_FILES_SIGNAL`): docs/evaluation.md, "Forecast".
 */
export const DEFAULT_FORECAST_SIGNALS: readonly string[] = ['co-change', 'past-conflicts'];

/** The recall on the training pairs the threshold is set for (issue 23's 0.5; chosen like the signals). */
export const DEFAULT_FORECAST_RECALL = 0.5;

/** The training pairs of a forecast: each scenario's unseen states on the fitted fractions. */
export function forecastTrainingSet(
  members: readonly ReadonlyMap<number, readonly ScoredScenario[]>[],
  fitOn: readonly number[],
): ScoredScenario[] {
  return members.flatMap((scored) => fitOn.flatMap((f) => (scored.get(f) ?? []).filter((s) => !isVisible(s))));
}

/** Fitted weights, leak and threshold; with no collision to fit on, a model that forecasts nothing. */
export function fitForecastModel(scenarios: readonly ScoredScenario[], options: ForecastFitOptions): ForecastModel {
  const signals = options.signals ?? DEFAULT_FORECAST_SIGNALS;
  const rows = scenarios.map((s) => {
    const values = forecastValuesOf(s);
    return signals.map((signal) => values[signal] ?? 0);
  });
  const labels = scenarios.map((s) => labelOf(s, options.label));
  const fitted = fitNoisyOr(rows, labels);
  // A signal that never fired on the training pairs keeps the fit's start value, which means nothing: 0.
  const fired = signals.map((_, i) => rows.some((row) => row[i]! > 0));
  const weights = Object.fromEntries(signals.map((signal, i) => [signal, fired[i] ? round(fitted.weights[i] ?? 0) : 0]));
  const model: ForecastModel = { label: options.label, weights, leak: round(fitted.leak), threshold: 1 };
  return { ...model, threshold: thresholdForRecall(scenarios, labels, model, options.recall ?? DEFAULT_FORECAST_RECALL) };
}

/** The highest threshold (to 4 decimals, rounded down) at which the model flags `recall` of the collisions. */
export function thresholdForRecall(
  scenarios: readonly ScoredScenario[],
  labels: readonly boolean[],
  model: ForecastModel,
  recall: number,
): number {
  const positives = scenarios.flatMap((s, i) => (labels[i] ? [forecastProbability(forecastValuesOf(s), model)] : [])).sort((a, b) => b - a);
  if (positives.length === 0) return 1;
  const k = Math.min(positives.length, Math.max(1, Math.ceil(recall * positives.length)));
  // Down to 4 decimals: never above the probability of the collision it must flag.
  return Math.floor(positives[k - 1]! * 10_000) / 10_000;
}

/** Weights as a model file shows them: 4 decimals (the fit is not more precise than that). */
function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
