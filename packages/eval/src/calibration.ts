/**
 * The calibration file `airspace eval --fit` writes. Scanning reads its `weights` and
 * `thresholds` through @airspace/config's `readCalibration` (`--calibration FILE` or the
 * config's `calibration`); the rest records how the weights were obtained.
 */
import { readFileSync } from 'node:fs';
import type { Problem, Thresholds } from '@airspace/core';
import { LABEL_KINDS, type LabelKind } from './extract/scenario.js';
import type { CorpusEvaluation } from './measure/corpus.js';
import type { Metrics } from './measure/evaluate.js';

export const CALIBRATION_KIND = 'airspace-calibration';

export interface CalibrationFile {
  readonly kind: typeof CALIBRATION_KIND;
  readonly version: 1;
  /** ω per channel id, each in [0, 1]. */
  readonly weights: Readonly<Record<string, number>>;
  /**
   * P(collision) that no channel explains. The scanner's noisy-OR has no leak; a front end that
   * wants a probability computes 1 − (1 − leak)(1 − R).
   */
  readonly leak: number;
  /** Suggested bands for the fitted probabilities (τ_RA maximises out-of-fold F1). */
  readonly thresholds: Thresholds;
  /** What was predicted. */
  readonly label: LabelKind;
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

/**
 * The calibration file of a corpus fit: the weighting fitted on every repository; its metrics are
 * the worst repository's held-out figures on the first fitted fraction (each repository scored by
 * the weighting fitted on the others).
 */
export function corpusCalibration(
  corpus: CorpusEvaluation,
  info: { merges: number; channelSetVersion: string; tool?: string; regularisation?: { priorShare: number; minWeight: number } },
): CalibrationFile | undefined {
  const fitted = corpus.fitted;
  if (!fitted) return undefined;
  const on = fitted.fitOn[0] ?? 1;
  const held = corpus.members.map((m) => m.heldOut?.byFraction.find((x) => x.fraction === on)?.metrics);
  const worst = (pick: (m: Metrics) => number | null, lowest: boolean): number | null => {
    const values = held.map((m) => (m ? pick(m) : null)).filter((v): v is number => v !== null);
    return values.length ? (lowest ? Math.min(...values) : Math.max(...values)) : null;
  };
  return {
    kind: CALIBRATION_KIND,
    version: 1,
    weights: fitted.weights,
    leak: 0,
    thresholds: fitted.thresholds,
    label: corpus.label,
    provenance: {
      repository: corpus.members.map((m) => m.name).join(', '),
      head: corpus.members.map((m) => m.head.slice(0, 12)).join(', '),
      merges: info.merges,
      scenarios: fitted.scenarios,
      early: on,
      folds: corpus.members.length,
      channelSetVersion: info.channelSetVersion,
      createdAt: new Date().toISOString(),
      tool: info.tool ?? 'airspace eval (corpus)',
      ...(info.regularisation ? { regularisation: info.regularisation } : {}),
      zeroWeights: fitted.zeroWeights,
      metrics: {
        worstTrafficPrecision: worst((m) => m.traffic.precision, true),
        worstTrafficRecall: worst((m) => m.traffic.recall, true),
        worstF1AtResolution: worst((m) => m.resolution.f1, true),
        worstEce: worst((m) => m.ece, false),
      },
      corpus: corpus.members.map((m) => ({
        repository: m.name,
        head: m.head,
        scenarios: m.byFraction.find((x) => x.fraction === on)?.evaluation.scenarios ?? 0,
      })),
    },
  };
}

const isUnit = (v: unknown): v is number => typeof v === 'number' && v >= 0 && v <= 1;

/** Checks a parsed value as a calibration file; returns the problems (empty when valid). */
export function validateCalibrationFile(value: unknown, source = 'calibration file'): Problem[] {
  const problems: Problem[] = [];
  const bad = (message: string) => problems.push({ code: 'CALIBRATION_INVALID', message: `${source}: ${message}` });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    bad('expected a JSON object');
    return problems;
  }
  const v = value as Record<string, unknown>;
  if (v.kind !== CALIBRATION_KIND) bad(`"kind" must be "${CALIBRATION_KIND}"`);
  if (v.version !== 1) bad(`"version" must be 1, got ${JSON.stringify(v.version)}`);
  if (typeof v.weights !== 'object' || v.weights === null || Array.isArray(v.weights))
    bad('"weights" must be an object of channel id → number in [0, 1]');
  else
    for (const [id, w] of Object.entries(v.weights))
      if (!isUnit(w)) bad(`weight of "${id}" must be a number in [0, 1], got ${JSON.stringify(w)}`);
  if (!isUnit(v.leak)) bad(`"leak" must be a number in [0, 1], got ${JSON.stringify(v.leak)}`);
  const t = v.thresholds as Record<string, unknown> | undefined;
  if (
    typeof t !== 'object' ||
    t === null ||
    !isUnit(t.traffic) ||
    !isUnit(t.resolution) ||
    (t.traffic as number) > (t.resolution as number)
  ) {
    bad('"thresholds" must be { traffic, resolution } in [0, 1] with traffic ≤ resolution');
  }
  if (!LABEL_KINDS.includes(v.label as LabelKind)) bad(`"label" must be one of ${LABEL_KINDS.join(', ')}`);
  if (typeof v.provenance !== 'object' || v.provenance === null) bad('"provenance" must be an object');
  return problems;
}

/** Reads and validates a calibration file; a bad file gives problems and no calibration, never a throw. */
export function readCalibrationFile(path: string): { calibration?: CalibrationFile; problems: Problem[] } {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return {
      problems: [
        {
          code: 'CALIBRATION_UNREADABLE',
          message: `Could not read calibration file ${path}: ${error instanceof Error ? error.message : String(error)}.`,
        },
      ],
    };
  }
  const problems = validateCalibrationFile(value, path);
  return problems.length ? { problems } : { calibration: value as CalibrationFile, problems };
}
