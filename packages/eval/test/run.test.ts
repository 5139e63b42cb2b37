import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCalibration } from '@airspace/config';
import { readCalibrationFile, validateCalibrationFile } from '../src/calibration.js';
import { formatTable } from '../src/report/table.js';
import { readWeighting, runEval } from '../src/run.js';
import { createChannelScorer } from '../src/score/scorer.js';
import { aTxtChannel, historyFixture, sharedFileChannel, type HistoryFixture } from './helpers.js';

let fx: HistoryFixture;
let out: string;

beforeAll(() => {
  fx = historyFixture();
  out = mkdtempSync(join(tmpdir(), 'airspace-eval-out-'));
});
afterAll(() => {
  fx.repo.dispose();
  rmSync(out, { recursive: true, force: true });
});

describe('runEval end to end', () => {
  it('replays, fits, writes a calibration file the scanner reads, and a report with plots', async () => {
    const scorer = createChannelScorer({ channels: [sharedFileChannel, aTxtChannel] });
    const calibrationOut = join(out, 'calibration.json');
    const progress: number[] = [];
    const run = await runEval({
      repo: fx.repo.dir,
      scorer,
      fit: true,
      folds: 2,
      early: [0.5],
      cacheDir: join(out, 'cache'),
      calibrationOut,
      outDir: join(out, 'report'),
      onProgress: (p) => progress.push(p.done),
    });
    expect(progress).toEqual([1, 2, 3, 4, 5]);
    expect(run.evaluation.scenarios).toBe(4);
    expect(run.evaluation.positives).toBe(1);
    expect(run.context.skippedByReason).toEqual({ 'parent-is-ancestor': 1 });
    expect(run.earlyWarnings[0]).toMatchObject({ fraction: 0.5, scenarios: 4, positives: 1 });

    // The calibration file: valid in full, and its weights are what scanning reads.
    const file = readCalibrationFile(calibrationOut);
    expect(file.problems).toEqual([]);
    expect(file.calibration!.provenance).toMatchObject({ head: fx.repo.head(), merges: 5, scenarios: 4, folds: 2 });
    const forScan = readCalibration(calibrationOut);
    expect(forScan.problems).toEqual([]);
    expect(Object.keys(forScan.calibration!.weights).sort()).toEqual(['a-txt', 'shared-file']);

    for (const f of ['report.md', 'roc.svg', 'reliability.svg']) expect(existsSync(join(out, 'report', f))).toBe(true);
    const svg = readFileSync(join(out, 'report', 'roc.svg'), 'utf8');
    expect(svg).toMatch(/^<svg /);
    expect(svg).toContain('shared-file');
    expect(readFileSync(join(out, 'report', 'report.md'), 'utf8')).toContain('| scanner weights |');

    const table = formatTable(run.evaluation, run.context);
    expect(table).toContain('skipped parent-is-ancestor 1');
    expect(table).toMatch(/channel shared-file\s+0\.833/);

    // Re-weighting reads the cache: a scorer that cannot score still gets every figure.
    const cachedOnly = { ...scorer, score: async () => { throw new Error('must not score'); } };
    const again = await runEval({ repo: fx.repo.dir, scorer: cachedOnly, early: [0.5], cacheDir: join(out, 'cache') });
    expect(again.context.fromCache).toBe(9);
    expect(again.evaluation.channels).toEqual(run.evaluation.channels);
  });
});

describe('calibration files and weightings', () => {
  it('rejects a calibration with a weight out of range, naming it', () => {
    const problems = validateCalibrationFile({ kind: 'airspace-calibration', version: 1, weights: { overlap: 1.5 }, leak: 0, thresholds: { traffic: 0.3, resolution: 0.6 }, label: 'textual', provenance: {} });
    expect(problems.map((p) => p.message)).toEqual([expect.stringContaining('weight of "overlap"')]);
  });

  it('a missing file is a problem, not a throw', () => {
    expect(readCalibrationFile(join(out, 'nope.json')).problems[0]!.code).toBe('CALIBRATION_UNREADABLE');
  });

  it('--weights reads any JSON with a weights object, named after its file, with its leak', () => {
    const path = join(out, 'seed.json');
    writeFileSync(path, JSON.stringify({ weights: { overlap: 1, dependency: 0.9, tree: 0.25 }, leak: 0.02 }));
    expect(readWeighting(path).weighting).toEqual({ name: 'seed', weights: { overlap: 1, dependency: 0.9, tree: 0.25 }, leak: 0.02 });
  });
});
