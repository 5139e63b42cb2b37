/**
 * Figures over a corpus of repositories: each repository's own figures, and a scanner weighting
 * fitted on the corpus with every repository's figures held out — the weights and thresholds
 * that repository is scored with were fitted on the *other* repositories only, so a shipped
 * default is judged on histories it never saw. Pure: scored scenarios in, numbers out.
 */
import {
  DEFAULT_ESCALATION,
  DEFAULT_FORECAST_MODEL,
  pairProbability,
  type ForecastModel,
  type Precision,
  type ProbabilityMap,
  type Thresholds,
} from '@airspace/core';
import { labelOf, type LabelKind } from '../extract/scenario.js';
import { fitNoisyOr, regularised, zeroWeightsOf, type Regularisation } from '../fit/noisy-or.js';
import { fitProbabilityModel } from '../fit/probability.js';
import { DEFAULT_FORECAST_RECALL, fitForecastModel, forecastTrainingSet, type ForecastFitOptions } from '../fit/forecast.js';
import type { ScoredScenario } from '../score/cache.js';
import type { ChannelInfo } from '../score/scorer.js';
import { brierScore, confusionAt, DEFAULT_CALIBRATION_BINS, expectedCalibrationError } from './metrics.js';
import { combine, evaluate, metricsOf, pairHistoryOf, riskOf, type Evaluation, type Metrics, type Weighting } from './evaluate.js';
import {
  foresightOf,
  forecastScorer,
  foresightScorers,
  LEAD_BUCKETS,
  pooledUnseen,
  weightingScorer,
  type ForesightObservation,
  type ForesightScorer,
  type UnseenFigures,
} from './foresight.js';
import type { IntentMode } from '../extract/scenario.js';

export interface CorpusMember {
  /** A short name for the report (the repository's folder name). */
  readonly name: string;
  readonly head: string;
  /** Scored scenarios by observed fraction (1: the full diffs). */
  readonly scored: ReadonlyMap<number, readonly ScoredScenario[]>;
  /** With `--intent`: the early fractions' scenarios with declared intent. */
  readonly declared?: ReadonlyMap<number, readonly ScoredScenario[]>;
}

/** A scanner weighting: channel weights (no leak: the scanner has none) and the bands. */
export interface ScannerWeighting {
  readonly weights: Readonly<Record<string, number>>;
  readonly thresholds: Thresholds;
}

export interface CorpusFitOptions {
  /** Observed fractions whose states the weights are fitted on, pooled (1: full diffs). */
  readonly fitOn: readonly number[];
  /** The fraction whose states set the bands (default: 1 when fitted on, else the first of `fitOn`). */
  readonly bandsOn?: number;
  /** τ_TA is the lowest threshold whose advisories are at least this precise on the training states. */
  readonly trafficPrecision?: number;
  /** Channel weights held at a value instead of fitted (e.g. the exact merge channel at 1). */
  readonly fixedWeights?: Readonly<Record<string, number>>;
  /** Pull toward prior (shipped) weights; none when absent. */
  readonly regularisation?: Regularisation;
}

/** Fitting the first weighting's risk → probability map (`--fit-probability`). */
export interface ProbabilityFitOptions {
  /** What the probability is the probability of. */
  readonly label: LabelKind;
  /** Observed fractions whose states are pooled for the fit (1: full diffs). */
  readonly fitOn: readonly number[];
}

/** A probability map's calibration on one repository's states of one fraction, per label. */
export interface ProbabilityFigures {
  readonly fraction: number;
  readonly byLabel: readonly { readonly label: LabelKind; readonly ece: number | null; readonly brier: number | null }[];
}

export interface CorpusOptions {
  readonly channels: readonly ChannelInfo[];
  readonly thresholds: Thresholds;
  readonly label: LabelKind;
  readonly weightings: readonly Weighting[];
  readonly resolutionPrecisions?: readonly Precision[];
  /** The forecast scored beside the scanner's weighting (default the shipped model; false: none). */
  readonly forecast?: ForecastModel | false;
  /** Fit a scanner weighting; absent: no fitting. */
  readonly fit?: CorpusFitOptions;
  readonly bins?: number;
  /** Labels the foresight figures are reported under (default: `label` and `collided`). */
  readonly foresightLabels?: readonly LabelKind[];
  /** The intent mode of the members' `declared` scenarios. */
  readonly intent?: IntentMode;
  /** Fit the first weighting's probability map, each repository held out; absent: no such fit. */
  readonly probabilityFit?: ProbabilityFitOptions;
  /** Fit the forecast, each repository held out (a scorer `FORECAST_HELD_OUT`); absent: no such fit. */
  readonly forecastFit?: ForecastFitOptions;
}

export interface CorpusMemberReport {
  readonly name: string;
  readonly head: string;
  /** Each fraction's evaluation of this repository alone (the given weightings, no fit). */
  readonly byFraction: readonly { readonly fraction: number; readonly evaluation: Evaluation }[];
  /** With `fit`: the weighting fitted on the other repositories, and its figures here per fraction. */
  readonly heldOut?: {
    readonly weighting: ScannerWeighting;
    readonly byFraction: readonly { readonly fraction: number; readonly metrics: Metrics }[];
  };
  /** Foresight per observation: every channel, every weighting and (with `fit`) the held-out fit. */
  readonly foresight: readonly ForesightObservation[];
  /**
   * With `probabilityFit`: the first weighting's map fitted on the *other* repositories, and its
   * calibration here per fraction and label (Brier and ECE; every other figure is the risk's).
   */
  readonly heldOutProbability?: { readonly map: ProbabilityMap; readonly byFraction: readonly ProbabilityFigures[] };
  /** With `forecastFit`: the forecast fitted on the *other* repositories (scored here as `FORECAST_HELD_OUT`). */
  readonly heldOutForecast?: ForecastModel;
}

/** Pooled over the corpus: one observation and label, per scorer. */
export interface CorpusForesight {
  readonly fraction: number;
  readonly intent: IntentMode | null;
  readonly label: LabelKind;
  readonly visible: number;
  readonly dissolved: number;
  /** Collisions per lead-time bucket (all scenarios), summed over the repositories. */
  readonly leadCurve: readonly number[];
  readonly scorers: readonly (UnseenFigures & { readonly leadCurve: readonly number[] } & {
    readonly name: string;
    readonly scenarios: number;
    readonly positives: number;
    readonly baseRate: number | null;
  })[];
}

export interface CorpusEvaluation {
  readonly label: LabelKind;
  readonly fractions: readonly number[];
  readonly members: readonly CorpusMemberReport[];
  /** With `fit`: the weighting fitted on every repository (what a calibration file ships). */
  readonly fitted?: ScannerWeighting & {
    readonly fitOn: readonly number[];
    readonly bandsOn: number;
    readonly scenarios: number;
    readonly zeroWeights: readonly string[];
  };
  /** Foresight pooled over the repositories, per observation and label. */
  readonly foresight: readonly CorpusForesight[];
  /** With `probabilityFit`: the map fitted on every repository (what a calibration file ships). */
  readonly probability?: { readonly map: ProbabilityMap; readonly fitOn: readonly number[]; readonly scenarios: number };
  /** With `forecastFit`: the forecast fitted on every repository (what `DEFAULT_FORECAST_MODEL` ships). */
  readonly forecast?: {
    readonly model: ForecastModel;
    readonly fitOn: readonly number[];
    readonly recall: number;
    /** Unseen pairs fitted on, and the collisions among them. */
    readonly scenarios: number;
    readonly positives: number;
  };
}

/** The name of the held-out fitted weighting among the foresight scorers. */
export const HELD_OUT = 'fitted, held out';

/** The name of the held-out fitted forecast among the foresight scorers. */
export const FORECAST_HELD_OUT = 'forecast, held out';

const DEFAULT_TRAFFIC_PRECISION = 0.7;

/**
 * The scanner's plain noisy-OR (leak fixed at 0) fitted by maximum likelihood on `fitOn`, with
 * bands from its probabilities on `bandsOn` (one group per repository; see `bandsFor`). Fitting
 * without a leak is what makes the weights usable as scanner weights.
 */
export function fitScannerWeighting(
  fitOn: readonly ScoredScenario[],
  bandsOn: readonly (readonly ScoredScenario[])[],
  channels: readonly ChannelInfo[],
  label: LabelKind,
  fallback: Thresholds,
  trafficPrecision = DEFAULT_TRAFFIC_PRECISION,
  fixedWeights: Readonly<Record<string, number>> = {},
  regularisation?: Regularisation,
): ScannerWeighting {
  const rows = (set: readonly ScoredScenario[]) => set.map((s) => channels.map((c) => s.risks[c.id] ?? 0));
  const fixed = new Map(channels.flatMap((c, i) => (fixedWeights[c.id] === undefined ? [] : [[i, fixedWeights[c.id]!] as const])));
  const model = fitNoisyOr(
    rows(fitOn),
    fitOn.map((s) => labelOf(s, label)),
    {
      fixedLeak: 0,
      fixedWeights: fixed,
      ...regularised(
        channels.map((c) => c.id),
        fitOn.length,
        regularisation,
      ),
    },
  );
  const weights = Object.fromEntries(channels.map((c, i) => [c.id, round3(model.weights[i]!)]));
  const groups = bandsOn.map((set) => ({
    probabilities: rows(set).map((r) => 1 - r.reduce((keep, risk, i) => keep * (1 - (weights[channels[i]!.id] ?? 0) * risk), 1)),
    labels: set.map((s) => labelOf(s, label)),
  }));
  return { weights, thresholds: bandsFor(groups, fallback, trafficPrecision) };
}

/**
 * Bands from scores grouped by repository. τ_TA is the lowest threshold whose flags are at least
 * `trafficPrecision` right in *every* group that it flags anything in (a pooled precision would be
 * the precision of the repository with the most collisions); τ_RA ≥ τ_TA has the best pooled F1.
 * Each band is then put half-way down to the next lower score, which classifies the training
 * scores the same and leaves them a margin: a case that sits exactly on a threshold flips with
 * the smallest change.
 */
export function bandsFor(
  groups: readonly { readonly probabilities: readonly number[]; readonly labels: readonly boolean[] }[],
  fallback: Thresholds,
  trafficPrecision = DEFAULT_TRAFFIC_PRECISION,
): Thresholds {
  const all = groups.flatMap((g) => g.probabilities);
  const labels = groups.flatMap((g) => g.labels);
  const scores = [...new Set(all)].sort((a, b) => a - b);
  const candidates = scores.filter((t) => t > 0);
  const preciseEverywhere = (t: number) =>
    groups.every((g) => (confusionAt(g.probabilities, g.labels, t).precision ?? 1) >= trafficPrecision);
  const traffic = candidates.find(preciseEverywhere);
  if (traffic === undefined) return fallback;
  let resolution = traffic;
  let best = -1;
  for (const t of candidates) {
    if (t < traffic) continue;
    const f1 = confusionAt(all, labels, t).f1 ?? 0;
    if (f1 > best) [best, resolution] = [f1, t];
  }
  const withMargin = (t: number) => {
    const below = scores[scores.indexOf(t) - 1] ?? 0;
    return Math.round(((t + below) / 2) * 1000) / 1000;
  };
  const bandTraffic = withMargin(traffic);
  return { traffic: bandTraffic, resolution: Math.max(bandTraffic, withMargin(resolution)) };
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

const sumCurves = (curves: readonly (readonly number[])[]): number[] =>
  LEAD_BUCKETS.map((_, i) => curves.reduce((n, c) => n + (c[i] ?? 0), 0));

function pooled(members: readonly CorpusMember[], fractions: readonly number[]): ScoredScenario[] {
  return members.flatMap((m) => fractions.flatMap((f) => [...(m.scored.get(f) ?? [])]));
}

/** A weighting's map fitted on the pooled states of `fit.fitOn` of `members` (see fit/probability.ts). */
function fitMapOn(
  members: readonly CorpusMember[],
  fit: ProbabilityFitOptions,
  channels: readonly ChannelInfo[],
  weighting: Weighting,
): ProbabilityMap {
  const scenarios = pooled(members, fit.fitOn);
  return fitProbabilityModel(
    scenarios.map((s) => ({ risk: riskOf(s, channels, weighting), history: pairHistoryOf(s), label: labelOf(s, fit.label) })),
    fit.label,
  );
}

/** A map's Brier and ECE on a repository's states of each fraction, under each label. */
export function probabilityFigures(
  member: CorpusMember,
  fractions: readonly number[],
  channels: readonly ChannelInfo[],
  weighting: Weighting,
  map: ProbabilityMap,
  labels: readonly LabelKind[],
  bins = DEFAULT_CALIBRATION_BINS,
): ProbabilityFigures[] {
  return fractions.map((fraction) => {
    const scenarios = member.scored.get(fraction) ?? [];
    const p = scenarios.map((s) => pairProbability(riskOf(s, channels, weighting), pairHistoryOf(s), map));
    return {
      fraction,
      byLabel: labels.map((label) => {
        const y = scenarios.map((s) => labelOf(s, label));
        return { label, ece: expectedCalibrationError(p, y, bins), brier: brierScore(p, y) };
      }),
    };
  });
}

/** What the steps of one corpus evaluation share. */
interface CorpusSetup {
  readonly options: CorpusOptions;
  readonly members: readonly CorpusMember[];
  readonly bins: number;
  readonly precisions: readonly Precision[];
  /** Every observed fraction of any member, descending. */
  readonly fractions: readonly number[];
  readonly bandsOn: number;
  readonly labels: readonly LabelKind[];
}

/** One member's scorers and foresight at one observation (the arrays kept for the pooled figures). */
interface MemberObservation {
  readonly fraction: number;
  readonly intent: IntentMode | null;
  readonly scenarios: readonly ScoredScenario[];
  readonly scorers: readonly ForesightScorer[];
  readonly observation: ForesightObservation;
}

/** A member's own figures per fraction, and with `fit` the weighting fitted on the others and its figures here. */
function memberReport(setup: CorpusSetup, member: CorpusMember, index: number): CorpusMemberReport {
  const { options, members, fractions, bins } = setup;
  const byFraction = fractions.map((fraction) => ({
    fraction,
    evaluation: evaluate(member.scored.get(fraction) ?? [], {
      channels: options.channels,
      thresholds: options.thresholds,
      label: options.label,
      weightings: options.weightings,
      ...(options.resolutionPrecisions ? { resolutionPrecisions: options.resolutionPrecisions } : {}),
      bins,
    }),
  }));
  const fit = options.fit;
  if (!fit) return { name: member.name, head: member.head, byFraction, foresight: [] };
  const others = members.filter((_, i) => i !== index);
  const weighting = fitScannerWeighting(
    pooled(others, fit.fitOn),
    others.map((m) => m.scored.get(setup.bandsOn) ?? []),
    options.channels,
    options.label,
    options.thresholds,
    fit.trafficPrecision,
    fit.fixedWeights,
    fit.regularisation,
  );
  const heldOut = fractions.map((fraction) => {
    const scenarios = member.scored.get(fraction) ?? [];
    const labels = scenarios.map((s) => labelOf(s, options.label));
    const { scores, resolution } = combine(
      scenarios,
      options.channels,
      { name: 'held out', weights: weighting.weights },
      weighting.thresholds,
      setup.precisions,
    );
    return { fraction, metrics: metricsOf(scores, labels, weighting.thresholds, bins, resolution) };
  });
  return { name: member.name, head: member.head, byFraction, heldOut: { weighting, byFraction: heldOut }, foresight: [] };
}

/** With `forecastFit`: per member, the forecast fitted on the other repositories (leave-one-repository-out). */
function heldOutForecastsOf(setup: CorpusSetup): (ForecastModel | undefined)[] {
  const { members } = setup;
  const forecastFit = setup.options.forecastFit;
  return members.map((_, i) =>
    forecastFit
      ? fitForecastModel(
          forecastTrainingSet(
            members.filter((_, j) => j !== i).map((m) => m.scored),
            forecastFit.fitOn,
          ),
          forecastFit,
        )
      : undefined,
  );
}

/** A member's foresight per observation: every channel, every weighting, the held-out fits. */
function memberForesight(
  setup: CorpusSetup,
  m: CorpusMember,
  held: ScannerWeighting | undefined,
  heldForecast: ForecastModel | undefined,
): MemberObservation[] {
  const { options, precisions } = setup;
  const observations = [
    ...setup.fractions.map((fraction) => ({ fraction, intent: null as IntentMode | null, scenarios: m.scored.get(fraction) ?? [] })),
    ...[...(m.declared ?? [])].map(([fraction, scenarios]) => ({ fraction, intent: options.intent ?? null, scenarios })),
  ];
  return observations.map(({ fraction, intent, scenarios }) => {
    const scorers: ForesightScorer[] = foresightScorers(
      scenarios,
      options.channels,
      options.weightings,
      options.thresholds,
      precisions,
      options.forecast ?? DEFAULT_FORECAST_MODEL,
    );
    if (held)
      scorers.push(
        weightingScorer(scenarios, options.channels, { name: HELD_OUT, weights: held.weights }, held.thresholds, precisions, 'fitted'),
      );
    const scanner = scorers.find((s) => s.kind === 'weighting');
    if (heldForecast && scanner) scorers.push(forecastScorer(scenarios, scanner.flagged, heldForecast, FORECAST_HELD_OUT));
    return {
      fraction,
      intent,
      scenarios,
      scorers,
      observation: foresightOf(scenarios, scorers, {
        fraction,
        ...(intent ? { intent } : {}),
        labels: setup.labels,
        thresholds: options.thresholds,
        bins: setup.bins,
      }),
    };
  });
}

/** With `probabilityFit`: the first weighting's map fitted on the other repositories, and its calibration on this one. */
function withHeldOutProbability(setup: CorpusSetup, report: CorpusMemberReport, index: number): CorpusMemberReport {
  const { options, members } = setup;
  // The probability the scanner reports is the first weighting's: its map is the one fitted.
  const mapFit = options.probabilityFit;
  const reported = options.weightings[0];
  if (!mapFit || !reported) return report;
  // Held out: the map this repository is scored with never saw it.
  const map = fitMapOn(
    members.filter((_, j) => j !== index),
    mapFit,
    options.channels,
    reported,
  );
  const byFraction = probabilityFigures(members[index]!, setup.fractions, options.channels, reported, map, setup.labels, setup.bins);
  return { ...report, heldOutProbability: { map, byFraction } };
}

/** The maps and models fitted on every repository (what a calibration file ships). */
function corpusFits(setup: CorpusSetup): Pick<CorpusEvaluation, 'probability' | 'forecast'> {
  const { options, members } = setup;
  const mapFit = options.probabilityFit;
  const reported = options.weightings[0];
  const probability =
    mapFit && reported
      ? { map: fitMapOn(members, mapFit, options.channels, reported), fitOn: mapFit.fitOn, scenarios: pooled(members, mapFit.fitOn).length }
      : undefined;
  const forecastFit = options.forecastFit;
  const forecastSet = forecastFit
    ? forecastTrainingSet(
        members.map((m) => m.scored),
        forecastFit.fitOn,
      )
    : [];
  const forecast = forecastFit
    ? {
        model: fitForecastModel(forecastSet, forecastFit),
        fitOn: forecastFit.fitOn,
        recall: forecastFit.recall ?? DEFAULT_FORECAST_RECALL,
        scenarios: forecastSet.length,
        positives: forecastSet.filter((s) => labelOf(s, forecastFit.label)).length,
      }
    : undefined;
  return { ...(probability ? { probability } : {}), ...(forecast ? { forecast } : {}) };
}

/** Foresight pooled over the members, per observation (in the first member's order) and label. */
function pooledForesight(labels: readonly LabelKind[], perMember: readonly (readonly MemberObservation[])[]): CorpusForesight[] {
  const out: CorpusForesight[] = [];
  for (const [k, first] of (perMember[0] ?? []).entries()) {
    for (const label of labels) {
      const parts = perMember.map((obs) => obs[k]!);
      const byLabel = (p: MemberObservation) => p.observation.byLabel.find((b) => b.label === label);
      out.push({
        fraction: first.fraction,
        intent: first.intent,
        label,
        visible: parts.reduce((n, p) => n + (byLabel(p)?.visible.scenarios ?? 0), 0),
        dissolved: parts.reduce((n, p) => n + (byLabel(p)?.visible.dissolved ?? 0), 0),
        leadCurve: sumCurves(parts.map((p) => byLabel(p)?.leadCurve ?? [])),
        scorers: first.scorers.map((scorer, j) => ({
          name: scorer.name,
          ...pooledUnseen(
            parts.map((p) => ({ scenarios: p.scenarios, scorer: p.scorers[j]! })),
            label,
          ),
          leadCurve: sumCurves(parts.map((p) => byLabel(p)?.scorers[j]?.leadCurve ?? [])),
        })),
      });
    }
  }
  return out;
}

/** With `fit`: the weighting fitted on every repository. */
function corpusFitted(setup: CorpusSetup): CorpusEvaluation['fitted'] {
  const { options, members } = setup;
  const fit = options.fit;
  if (!fit) return undefined;
  const scenarios = pooled(members, fit.fitOn);
  const weighting = fitScannerWeighting(
    scenarios,
    members.map((m) => m.scored.get(setup.bandsOn) ?? []),
    options.channels,
    options.label,
    options.thresholds,
    fit.trafficPrecision,
    fit.fixedWeights,
    fit.regularisation,
  );
  const zeroWeights = zeroWeightsOf(weighting.weights, fit.fixedWeights);
  return { ...weighting, fitOn: fit.fitOn, bandsOn: setup.bandsOn, scenarios: scenarios.length, zeroWeights };
}

export function evaluateCorpus(members: readonly CorpusMember[], options: CorpusOptions): CorpusEvaluation {
  const fit = options.fit;
  const setup: CorpusSetup = {
    options,
    members,
    bins: options.bins ?? DEFAULT_CALIBRATION_BINS,
    precisions: options.resolutionPrecisions ?? DEFAULT_ESCALATION.resolutionPrecisions,
    fractions: [...new Set(members.flatMap((m) => [...m.scored.keys()]))].sort((a, b) => b - a),
    bandsOn: fit?.bandsOn ?? (fit?.fitOn.includes(1) ? 1 : (fit?.fitOn[0] ?? 1)),
    labels: options.foresightLabels ?? [...new Set<LabelKind>([options.label, 'collided'])],
  };
  const reports = members.map((member, index) => memberReport(setup, member, index));
  const heldOutForecasts = heldOutForecastsOf(setup);
  const perMember = members.map((m, i) => memberForesight(setup, m, reports[i]!.heldOut?.weighting, heldOutForecasts[i]));
  const withForesight = reports.map((r, i) => {
    const heldOutForecast = heldOutForecasts[i];
    const report = { ...r, foresight: perMember[i]!.map((o) => o.observation), ...(heldOutForecast ? { heldOutForecast } : {}) };
    return withHeldOutProbability(setup, report, i);
  });
  const { probability, forecast } = corpusFits(setup);
  const corpusForesight = pooledForesight(setup.labels, perMember);
  const fitted = corpusFitted(setup);
  return {
    label: options.label,
    fractions: setup.fractions,
    members: withForesight,
    ...(fitted ? { fitted } : {}),
    foresight: corpusForesight,
    ...(probability ? { probability } : {}),
    ...(forecast ? { forecast } : {}),
  };
}
