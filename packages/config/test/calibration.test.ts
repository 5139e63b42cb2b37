import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCalibration, validateCalibration } from '../src/calibration.js';

const dir = mkdtempSync(join(tmpdir(), 'airspace-calibration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, value: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
};

describe('the calibration codec', () => {
  it('reads weights, thresholds and leak; a bare {"weights"} file is enough', () => {
    const full = readCalibration(
      file('full.json', { kind: 'airspace-calibration', version: 1, weights: { overlap: 0.9 }, leak: 0.02, thresholds: { traffic: 0.3 } }),
    );
    expect(full.problems).toEqual([]);
    expect(full.calibration).toMatchObject({ weights: { overlap: 0.9 }, leak: 0.02, thresholds: { traffic: 0.3 } });
    expect(readCalibration(file('bare.json', { weights: { tree: 0.1 } })).calibration).toMatchObject({ weights: { tree: 0.1 }, leak: 0 });
  });

  it('reads a forecast model, and drops one out of range with a problem (the shipped model applies, the rest of the file still does)', () => {
    const model = { label: 'collided', weights: { 'co-change': 0.3, 'shared-files': 0.2 }, leak: 0.01, threshold: 0.05 };
    const good = readCalibration(file('forecast.json', { weights: { overlap: 1 }, forecast: model }));
    expect(good.problems).toEqual([]);
    expect(good.calibration!.forecast).toEqual(model);
    const bad = readCalibration(file('bad-forecast.json', { weights: { overlap: 1 }, forecast: { ...model, leak: 1 } }));
    expect(bad.calibration!.weights).toEqual({ overlap: 1 });
    expect(bad.calibration!.forecast).toBeUndefined();
    expect(bad.problems).toEqual([expect.objectContaining({ code: 'CALIBRATION_INVALID' })]);
    expect(bad.problems[0]!.message).toContain('bad-forecast.json');
    expect(bad.problems[0]!.message).toContain('"forecast" leak must be in [0, 1)');
    expect(bad.problems[0]!.message).toContain('using the shipped forecast model');
  });

  it('reads a probability map, and drops one that could reorder pairs with a problem (the weights still apply)', () => {
    const map = {
      label: 'collided',
      knots: [
        [0, 0.01],
        [0.5, 0.1],
        [1, 1],
      ],
    };
    const good = readCalibration(file('map.json', { weights: { overlap: 1 }, probability: map }));
    expect(good.problems).toEqual([]);
    expect(good.calibration!.probability).toEqual(map);
    const flat = readCalibration(
      file('flat.json', {
        weights: { overlap: 1 },
        probability: {
          label: 'collided',
          knots: [
            [0, 0.1],
            [0.5, 0.1],
            [1, 1],
          ],
        },
      }),
    );
    expect(flat.calibration!.weights).toEqual({ overlap: 1 });
    expect(flat.calibration!.probability).toBeUndefined();
    expect(flat.problems).toEqual([expect.objectContaining({ code: 'CALIBRATION_INVALID' })]);
    expect(flat.problems[0]!.message).toContain('"probability" knots must be strictly increasing');
    // A clean part (pairs git merges cleanly, with the recent conflict rate) is read, and checked as the knots are.
    const clean = {
      recentMerges: 50,
      knots: [
        [0, 0.01],
        [1, 0.5],
      ],
    };
    expect(
      readCalibration(file('clean.json', { weights: { overlap: 1 }, probability: { ...map, clean } })).calibration!.probability,
    ).toEqual({
      ...map,
      clean,
    });
    const badClean = readCalibration(
      file('bad-clean.json', {
        weights: { overlap: 1 },
        probability: {
          ...map,
          clean: {
            ...clean,
            knots: [
              [0, 0.5],
              [1, 0.4],
            ],
          },
        },
      }),
    );
    expect(badClean.calibration!.probability).toBeUndefined();
    expect(badClean.problems[0]!.message).toContain('"probability" clean: knots must be strictly increasing');
    // A map of the wrong shape breaks the schema: the file is rejected as any other defect.
    const shape = readCalibration(file('shape.json', { weights: { overlap: 1 }, probability: { label: 'collided', knots: [[0, 2]] } }));
    expect(shape.calibration).toBeUndefined();
  });

  it('drops a weight out of range, naming its channel, and keeps the others', () => {
    const read = readCalibration(file('weight.json', { weights: { overlap: 3, tree: 0.2 } }));
    expect(read.calibration!.weights).toEqual({ tree: 0.2 });
    expect(read.problems).toEqual([expect.objectContaining({ code: 'CALIBRATION_INVALID', channel: 'overlap' })]);
    expect(read.problems[0]!.message).toContain('weight of "overlap" must be a number in [0, 1], got 3');
  });

  // Scans used to take any thresholds and leak as they came (eval's reader had other rules).
  it('rejects a file whose other fields break the schema, with one problem', () => {
    for (const [name, value, says] of [
      ['no-weights.json', { thresholds: { traffic: 0.3 } }, 'has no "weights"'],
      ['thresholds.json', { weights: { overlap: 1 }, thresholds: { traffic: 'high' } }, '"thresholds.traffic"'],
      ['leak.json', { weights: { overlap: 1 }, leak: 1.5 }, '"leak"'],
      ['kind.json', { weights: { overlap: 1 }, kind: 'something-else' }, '"kind" must be "airspace-calibration"'],
    ] as const) {
      const read = readCalibration(file(name, value));
      expect(read.calibration, name).toBeUndefined();
      expect(read.problems, name).toHaveLength(1);
      expect(read.problems[0]).toMatchObject({ code: 'CALIBRATION_INVALID' });
      expect(read.problems[0]!.channel).toBeUndefined();
      expect(read.problems[0]!.message).toContain(says);
    }
    expect(readCalibration(file('broken.json', '{"weights": ')).problems[0]!.code).toBe('CALIBRATION_UNREADABLE');
  });

  it('complete: what a writer must write, thresholds in order', () => {
    const written = {
      kind: 'airspace-calibration',
      version: 1,
      weights: { overlap: 1 },
      leak: 0,
      thresholds: { traffic: 0.3, resolution: 0.6 },
      label: 'textual',
      provenance: {},
    };
    expect(validateCalibration(written, 'w', { complete: true })).toEqual([]);
    expect(validateCalibration({ weights: { overlap: 1 } }, 'w', { complete: true }).length).toBeGreaterThan(0);
    expect(validateCalibration({ ...written, thresholds: { traffic: 0.7, resolution: 0.6 } }, 'w')[0]!.message).toContain(
      'traffic ≤ resolution',
    );
  });
});
