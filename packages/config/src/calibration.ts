/**
 * The calibration file, one codec: `airspace eval --fit` writes it, scans read its weights and
 * thresholds (`--calibration`, the config's `calibration`), `airspace eval --weights` its weights
 * and leak. Every reader goes through `readCalibration`, checked against
 * `schema/airspace.calibration.schema.json`: a weight out of range is dropped with a problem naming
 * its channel (the others still apply); any other defect rejects the file with one problem.
 */
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject } from 'ajv';
import { readUserFile } from './user-file.js';
import {
  forecastModelProblem,
  probabilityMapProblem,
  type ForecastModel,
  type ProbabilityMap,
  type Problem,
  type Thresholds,
} from '@airspace/core';

export const CALIBRATION_KIND = 'airspace-calibration';

/** What `airspace eval --fit` predicts, as the file records it. */
export type CalibrationLabel = 'textual' | 'manual' | 'any' | 'collided' | 'semantic' | 'textual+semantic' | 'collided+semantic';

/** The file as `airspace eval --fit` writes it (every field); readers need only `weights`. */
export interface CalibrationFile {
  readonly kind: typeof CALIBRATION_KIND;
  readonly version: 1;
  /** ω per channel id, each in [0, 1]. */
  readonly weights: Readonly<Record<string, number>>;
  /**
   * P(collision) that no channel explains, in the fitted model 1 − (1 − leak)(1 − R) (`eval
   * --weights` scores it so). The scanner's noisy-OR has no leak: the probability a scan reports
   * is R through `probability` (or the shipped map).
   */
  readonly leak: number;
  /** Suggested bands for the fitted probabilities (τ_RA maximises out-of-fold F1). */
  readonly thresholds: Thresholds;
  /** Risk → probability (`airspace eval --fit-probability`); scans report each link's probability through it. */
  readonly probability?: ProbabilityMap;
  /** The forecast of clear pairs (`airspace eval --fit-forecast`, fitted on every repository); scans use it over the shipped one. */
  readonly forecast?: ForecastModel;
  /** What was predicted. */
  readonly label: CalibrationLabel;
  readonly provenance: {
    readonly repository: string;
    /** The commit the replay walked from. */
    readonly head: string;
    readonly merges: number;
    readonly scenarios: number;
    readonly newestMerge?: string;
    readonly oldestMerge?: string;
    /** Observed fraction of each side (1: full diffs). */
    readonly early: number;
    readonly folds: number;
    readonly channelSetVersion: string;
    readonly createdAt: string;
    readonly tool: string;
    /** Out-of-fold figures of the fitted model. */
    readonly metrics: Readonly<Record<string, number | null>>;
    /** The pull toward prior weights the fit used (`--prior-share`, `--min-weight`). */
    readonly regularisation?: { readonly priorShare: number; readonly minWeight: number };
    /** Channels whose fitted weight went to 0 (below 0.01; held weights aside). */
    readonly zeroWeights?: readonly string[];
    /** Fitted on a corpus: each repository, its head and its scenarios (`folds` is then their count: leave one repository out). */
    readonly corpus?: readonly { readonly repository: string; readonly head: string; readonly scenarios: number }[];
  };
}

/** What a reader gets from a calibration file. */
export interface Calibration {
  readonly path: string;
  /** The weights in [0, 1]; one out of range is left out (with a problem). */
  readonly weights: Readonly<Record<string, number>>;
  /** The thresholds it suggests, as far as it gives them (the config's win; channel-set.ts checks the pair). */
  readonly thresholds?: Partial<Thresholds>;
  /** 0 when the file has none. */
  readonly leak: number;
  /** Its risk → probability map, when it has a usable one. */
  readonly probability?: ProbabilityMap;
  /** Its forecast model, when it has a usable one (the config's `forecast.threshold`/`enabled` still win). */
  readonly forecast?: ForecastModel;
}

const require = createRequire(import.meta.url);
export const calibrationSchema: object = require('../schema/airspace.calibration.schema.json');

/** The schema with every field a writer writes required (both thresholds included). */
function completeSchema(): object {
  const schema = calibrationSchema as { properties: { thresholds: object } };
  return {
    ...schema,
    required: ['kind', 'version', 'weights', 'leak', 'thresholds', 'label', 'provenance'],
    properties: { ...schema.properties, thresholds: { ...schema.properties.thresholds, required: ['traffic', 'resolution'] } },
  };
}

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
let validators: { readable: Validator; complete: Validator } | undefined;

function check(value: unknown, complete: boolean): ErrorObject[] {
  validators ??= (() => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    return {
      readable: ajv.compile(calibrationSchema),
      // What a writer must write: the same rules, every field present.
      complete: ajv.compile(completeSchema()),
    };
  })();
  const validate = complete ? validators.complete : validators.readable;
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

/** The channel id of a weight's error (`/weights/<id>`), if it is one. */
function weightOf(error: ErrorObject): string | undefined {
  const m = /^\/weights\/(.+)$/.exec(error.instancePath);
  return m ? m[1]!.replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

function invalid(source: string, message: string, channel?: string): Problem {
  return { code: 'CALIBRATION_INVALID', ...(channel !== undefined ? { channel } : {}), message: `Calibration file ${source}: ${message}` };
}

function describe(error: ErrorObject, value: unknown): string {
  const id = weightOf(error);
  if (id !== undefined) {
    const w = (value as { weights: Record<string, unknown> }).weights[id];
    return `weight of "${id}" must be a number in [0, 1], got ${JSON.stringify(w)}.`;
  }
  const at = error.instancePath ? `"${error.instancePath.slice(1).replace(/\//g, '.')}"` : 'the file';
  if (error.keyword === 'required') return `${at} has no "${String(error.params['missingProperty'])}".`;
  if (error.keyword === 'const') return `${at} must be ${JSON.stringify(error.params['allowedValue'])}.`;
  if (error.keyword === 'enum') return `${at} must be one of ${(error.params['allowedValues'] as unknown[]).join(', ')}.`;
  return `${at} ${error.message ?? 'is invalid'}.`;
}

/**
 * Checks a parsed value as a calibration file; returns the problems (empty when valid). With
 * `complete`, every field `airspace eval --fit` writes must be there (what a writer checks).
 */
export function validateCalibration(value: unknown, source = 'calibration file', options: { complete?: boolean } = {}): Problem[] {
  const problems = check(value, options.complete ?? false).map((e) => invalid(source, describe(e, value), weightOf(e)));
  const t = (value as { thresholds?: Partial<Thresholds> } | null)?.thresholds;
  if (typeof t?.traffic === 'number' && typeof t.resolution === 'number' && t.traffic > t.resolution)
    problems.push(invalid(source, '"thresholds" must have traffic ≤ resolution.'));
  return problems;
}

/** Reads a calibration file through the codec; a bad file gives problems and no calibration, never a throw. */
export function readCalibration(path: string): { calibration?: Calibration; problems: Problem[] } {
  let value: unknown;
  try {
    value = JSON.parse(readUserFile(path));
  } catch (error) {
    return {
      problems: [
        {
          code: 'CALIBRATION_UNREADABLE',
          message: `Could not read calibration file ${path}: ${error instanceof Error ? error.message : String(error)}; using configured weights.`,
        },
      ],
    };
  }
  const errors = check(value, false);
  const fatal = errors.filter((e) => weightOf(e) === undefined);
  if (fatal.length > 0) {
    const why = fatal.map((e) => describe(e, value)).join(' ');
    return { problems: [invalid(path, `${why.replace(/\.$/, '')}; using configured weights.`)] };
  }
  const file = value as {
    weights: Record<string, unknown>;
    thresholds?: Partial<Thresholds>;
    leak?: number;
    probability?: ProbabilityMap;
    forecast?: ForecastModel;
  };
  const dropped = new Set(errors.map(weightOf));
  const weights: Record<string, number> = {};
  for (const [id, w] of Object.entries(file.weights)) if (!dropped.has(id)) weights[id] = w as number;
  const problems = errors.map((e) => invalid(path, describe(e, value), weightOf(e)));
  // A map that could reorder pairs is left out (the shipped one applies); the weights still do.
  const mapProblem = file.probability ? probabilityMapProblem(file.probability) : undefined;
  if (mapProblem !== undefined) problems.push(invalid(path, `"probability" ${mapProblem}; using the shipped map.`));
  // Likewise a forecast model out of range: the shipped model applies, the rest of the file still does.
  const forecastProblem = file.forecast ? forecastModelProblem(file.forecast) : undefined;
  if (forecastProblem !== undefined) problems.push(invalid(path, `"forecast" ${forecastProblem}; using the shipped forecast model.`));
  return {
    calibration: {
      path,
      weights,
      leak: file.leak ?? 0,
      ...(file.thresholds ? { thresholds: file.thresholds } : {}),
      ...(file.probability && mapProblem === undefined ? { probability: file.probability } : {}),
      ...(file.forecast && forecastProblem === undefined ? { forecast: file.forecast } : {}),
    },
    problems,
  };
}
