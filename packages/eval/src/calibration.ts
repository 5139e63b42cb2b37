/**
 * The calibration file of a corpus fit. The file's type, schema and the one reader every front end
 * uses (`readCalibration`, `validateCalibration`) are @airspace/config's codec (calibration.ts).
 */
import type { Thresholds } from '@airspace/core';
import { CALIBRATION_KIND, type CalibrationFile } from '@airspace/config';
import type { CorpusEvaluation } from './measure/corpus.js';
import type { Metrics } from './measure/evaluate.js';

export { CALIBRATION_KIND, type CalibrationFile } from '@airspace/config';

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

/**
 * The calibration file of a probability or forecast fit (`--fit-probability`, `--fit-forecast`,
 * or both in one file): the scanner's weights and bands as they are, the risk → probability map
 * and/or the forecast model fitted on every repository; its metrics are the worst repository's
 * held-out ECE per fraction and label (`ece@0.5:collided`) when a map was fitted.
 */
export function probabilityCalibration(
  corpus: CorpusEvaluation,
  info: { merges: number; channelSetVersion: string; weights: Readonly<Record<string, number>>; thresholds: Thresholds; tool?: string },
): CalibrationFile | undefined {
  const fitted = corpus.probability;
  const forecast = corpus.forecast;
  if (!fitted && !forecast) return undefined;
  const metrics: Record<string, number | null> = {};
  for (const fraction of fitted ? corpus.fractions : []) {
    const cells = corpus.members.flatMap((m) => m.heldOutProbability?.byFraction.find((f) => f.fraction === fraction)?.byLabel ?? []);
    for (const label of new Set(cells.map((c) => c.label))) {
      const values = cells.filter((c) => c.label === label && c.ece !== null).map((c) => c.ece!);
      metrics[`worstEce@${fraction}:${label}`] = values.length ? Math.max(...values) : null;
    }
  }
  // The map's fractions and states when there is one; the forecast's otherwise.
  const fitOn = fitted?.fitOn ?? forecast!.fitOn;
  const tool = [fitted ? '--fit-probability' : undefined, forecast ? '--fit-forecast' : undefined].filter(Boolean).join(' ');
  return {
    kind: CALIBRATION_KIND,
    version: 1,
    weights: info.weights,
    leak: 0,
    thresholds: info.thresholds,
    ...(fitted ? { probability: fitted.map } : {}),
    ...(forecast ? { forecast: forecast.model } : {}),
    label: fitted?.map.label ?? forecast!.model.label,
    provenance: {
      repository: corpus.members.map((m) => m.name).join(', '),
      head: corpus.members.map((m) => m.head.slice(0, 12)).join(', '),
      merges: info.merges,
      scenarios: fitted?.scenarios ?? forecast!.scenarios,
      early: Math.min(...fitOn),
      folds: corpus.members.length,
      channelSetVersion: info.channelSetVersion,
      createdAt: new Date().toISOString(),
      tool: info.tool ?? `airspace eval ${tool} (corpus)`,
      metrics,
      corpus: corpus.members.map((m) => ({
        repository: m.name,
        head: m.head,
        scenarios: fitOn.reduce((n, f) => n + (m.byFraction.find((x) => x.fraction === f)?.evaluation.scenarios ?? 0), 0),
      })),
    },
  };
}
