import { describe, expect, it } from 'vitest';
import { pairProbability, probabilityMapProblem, probabilityOf, RECENT_CONFLICT_MERGES, type ProbabilityMap } from '@airspace/core';
import { readCalibration, validateCalibration } from '@airspace/config';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probabilityCalibration } from '../src/calibration.js';
import { fitProbabilityMap, isotonicBlocks, pooledBlocks } from '../src/fit/probability.js';
import { evaluate, pairHistoryOf } from '../src/measure/evaluate.js';
import { evaluateCorpus, type CorpusMember } from '../src/measure/corpus.js';
import { formatCorpusTable } from '../src/report/table.js';
import type { ScoredScenario } from '../src/score/cache.js';
import type { ChannelInfo } from '../src/score/scorer.js';
import { scenario } from './helpers.js';

const thresholds = { traffic: 0.5, resolution: 0.9 };
const channels: ChannelInfo[] = [{ id: 'c', precision: 'line', weight: 1 }];

describe('isotonicBlocks', () => {
  it('pools adjacent violators into the non-decreasing fit (hand-computed)', () => {
    // Risks 0.1 … 0.5 with labels 1 0 0 1 1: 0.1 (1) and 0.2 (0) violate, then 0.3 (0): pooled to 1/3.
    const blocks = isotonicBlocks([0.3, 0.1, 0.5, 0.2, 0.4], [false, true, true, false, true]);
    expect(blocks.map((b) => [b.from, b.to, b.n])).toEqual([
      [0.1, 0.3, 3],
      [0.4, 0.5, 2],
    ]);
    expect(blocks[0]!.rate).toBeCloseTo(1 / 3, 12);
    expect(blocks[0]!.meanRisk).toBeCloseTo(0.2, 12);
    expect(blocks[1]!.rate).toBe(1);
  });

  it('keeps equal risks in one block', () => {
    const blocks = isotonicBlocks([0, 0, 0, 1], [true, false, false, true]);
    expect(blocks.map((b) => [b.from, b.n, b.rate])).toEqual([
      [0, 3, 1 / 3],
      [1, 1, 1],
    ]);
  });
});

describe('pooledBlocks', () => {
  it('pools a block of too few states into its neighbour, keeping the rates non-decreasing (hand-computed)', () => {
    const blocks = isotonicBlocks([0.1, 0.1, 0.1, 0.5, 0.9, 0.9, 0.9, 0.9], [false, false, false, true, false, true, true, true]);
    // 0.1: 3 states at 0; 0.5 and 0.9 pool (rate 4/5) under PAV already: n 5.
    expect(blocks.map((b) => b.n)).toEqual([3, 5]);
    expect(pooledBlocks(blocks, 3).map((b) => b.n)).toEqual([3, 5]);
    const one = pooledBlocks(blocks, 4);
    expect(one.map((b) => [b.from, b.to, b.n])).toEqual([[0.1, 0.9, 8]]);
    expect(one[0]!.rate).toBeCloseTo(4 / 8, 12);
    expect(one[0]!.meanRisk).toBeCloseTo((0.3 + 0.5 + 3.6) / 8, 12);
    // The last block too small: pooled into the one before it.
    const tail = pooledBlocks(isotonicBlocks([0, 0, 0, 0, 1], [false, false, false, true, true]), 2);
    expect(tail.map((b) => b.n)).toEqual([5]);
  });
});

describe('fitProbabilityMap', () => {
  it('is strictly increasing from risk 0 to 1 (it keeps every ranking) and calibrated on its training data', () => {
    // 100 pairs at risk 0 (3 collide), 50 at 0.2 (5 collide), 20 at 1 (all collide).
    const risks = [...Array(100).fill(0), ...Array(50).fill(0.2), ...Array(20).fill(1)];
    const labels = [
      ...Array(100)
        .fill(false)
        .map((_, i) => i < 3),
      ...Array(50)
        .fill(false)
        .map((_, i) => i < 5),
      ...Array(20).fill(true),
    ];
    const map = fitProbabilityMap(risks, labels, 'collided');
    expect(probabilityMapProblem(map)).toBeUndefined();
    expect(map.label).toBe('collided');
    expect(probabilityOf(0, map)).toBeCloseTo(0.03, 3);
    expect(probabilityOf(0.2, map)).toBeCloseTo(0.1, 3);
    expect(probabilityOf(1, map)).toBe(1);
    const grid = Array.from({ length: 101 }, (_, i) => probabilityOf(i / 100, map));
    for (let i = 1; i < grid.length; i++) expect(grid[i]!).toBeGreaterThan(grid[i - 1]!);
  });

  it('stays strictly increasing where the data are flat or reversed (no two risks get one probability)', () => {
    // Every pair at 0.5 collides, none at 0.9: the fit pools them, the map still rises.
    const map = fitProbabilityMap([0.1, 0.5, 0.5, 0.9, 0.9], [false, true, true, false, false], 'textual');
    expect(probabilityMapProblem(map)).toBeUndefined();
    expect(probabilityOf(0.9, map)).toBeGreaterThan(probabilityOf(0.5, map));
    // Nothing to fit: a valid map all the same.
    expect(probabilityMapProblem(fitProbabilityMap([], [], 'collided'))).toBeUndefined();
  });
});

describe('a weighting with a probability map', () => {
  it('changes Brier and ECE only: ROC/PR-AUC and F1 are the risk’s', () => {
    // Risk 0.4 on 10 pairs, 1 collides; risk 1 on 2 pairs, both collide.
    const scenarios: ScoredScenario[] = [
      ...Array.from({ length: 10 }, (_, i) => scenario(`m${i}`, { c: 0.4 }, i === 0)),
      scenario('x', { c: 1 }, true),
      scenario('y', { c: 1 }, true),
    ];
    const map: ProbabilityMap = {
      label: 'textual',
      knots: [
        [0, 0.05],
        [0.4, 0.1],
        [1, 1],
      ],
    };
    const run = (probability?: ProbabilityMap) =>
      evaluate(scenarios, {
        channels,
        thresholds,
        label: 'textual',
        weightings: [{ name: 'w', weights: { c: 1 }, ...(probability ? { probability } : {}) }],
      }).weightings[0]!.combined;
    const raw = run();
    const mapped = run(map);
    expect(mapped.rocAuc).toBe(raw.rocAuc);
    expect(mapped.prAuc).toBe(raw.prAuc);
    expect(mapped.traffic).toEqual(raw.traffic);
    // Raw: bin 0.4 holds 10 pairs at 0.4 with rate 0.1 → |0.1 − 0.4|·10/12 = 0.25; mapped: 0.1 = 0.1 → 0.
    expect(raw.ece).toBeCloseTo(0.25, 10);
    expect(mapped.ece).toBeCloseTo(0, 10);
    expect(mapped.brier!).toBeLessThan(raw.brier!);
  });

  it('maps only the whole weighting: an ablation or the variant without merge is a different risk', () => {
    const both: ChannelInfo[] = [...channels, { id: 'merge', precision: 'line', weight: 1 }];
    const scenarios = Array.from({ length: 10 }, (_, i) => scenario(`m${i}`, { c: 0.4, merge: 0 }, i === 0));
    const map: ProbabilityMap = {
      label: 'textual',
      knots: [
        [0, 0.05],
        [0.4, 0.1],
        [1, 1],
      ],
    };
    const report = evaluate(scenarios, {
      channels: both,
      thresholds,
      label: 'textual',
      weightings: [{ name: 'w', weights: { c: 1, merge: 1 }, probability: map }],
    }).weightings[0]!;
    expect(report.combined.ece).toBeCloseTo(0, 10);
    // Without merge the risk is still 0.4, read as it is: |0.1 − 0.4| = 0.3.
    expect(report.withoutMerge!.ece).toBeCloseTo(0.3, 10);
    expect(report.ablations['merge']!.ece).toBeCloseTo(0.3, 10);
  });
});

describe('--fit-probability on a corpus', () => {
  /** A repository whose pairs at risk `r` collide at `rate`; pairs at risk 1 always collide. */
  const member = (name: string, r: number, rate: number, early = 0.5): CorpusMember => {
    const part: ScoredScenario[] = [];
    for (let i = 0; i < 40; i++) part.push(scenario(`${name}${i}`, { c: i < 10 ? 1 : r }, i < 10 || (i - 10) / 30 < rate, { early }));
    const full = part.map((s) => ({ ...s, early: 1 }));
    return {
      name,
      head: `${name}0000000000000`,
      scored: new Map([
        [1, full],
        [early, part],
      ]),
    };
  };

  it('scores each repository with the map fitted on the others and writes the map fitted on all', () => {
    const members = [member('a', 0.1, 0.1), member('b', 0.1, 0.1), member('c', 0.1, 0.5)];
    const corpus = evaluateCorpus(members, {
      channels,
      thresholds,
      label: 'textual',
      weightings: [{ name: 'scanner weights', weights: { c: 1 } }],
      probabilityFit: { label: 'textual', fitOn: [1, 0.5] },
    });
    const heldC = corpus.members[2]!.heldOutProbability!;
    // Fitted on a and b only: pairs at 0.1 collide 10% of the time, not c's 50%.
    expect(probabilityOf(0.1, heldC.map)).toBeCloseTo(0.1, 2);
    const all = corpus.probability!;
    expect(all.scenarios).toBe(240);
    expect(probabilityOf(0.1, all.map)).toBeCloseTo(0.7 / 3, 2);
    // c's held-out ECE at 0.5: 30 pairs at 0.1 with rate 0.5 → (30/40)·0.4 = 0.3.
    const c05 = heldC.byFraction.find((f) => f.fraction === 0.5)!.byLabel.find((b) => b.label === 'textual')!;
    expect(c05.ece).toBeCloseTo(0.3, 2);
    expect(formatCorpusTable(corpus)).toContain('probability of "textual" fitted on 240 states');
    expect(formatCorpusTable(corpus)).toContain('no clean part: no scored state knows its recent conflict rate');

    const file = probabilityCalibration(corpus, { merges: 120, channelSetVersion: 'v', weights: { c: 1 }, thresholds })!;
    expect(validateCalibration(file, 'fit', { complete: true })).toEqual([]);
    expect(file.probability).toEqual(all.map);
    expect(file.provenance.metrics['worstEce@0.5:textual']).toBeCloseTo(0.3, 2);
    const dir = mkdtempSync(join(tmpdir(), 'airspace-probability-'));
    try {
      const path = join(dir, 'calibration.json');
      writeFileSync(path, JSON.stringify(file));
      const read = readCalibration(path);
      expect(read.problems).toEqual([]);
      expect(read.calibration!.probability).toEqual(all.map);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--fit-probability with the recent conflict rate', () => {
  const both: ChannelInfo[] = [...channels, { id: 'merge', precision: 'line', weight: 1 }];
  /**
   * 10 pairs git cannot merge (all collide) and 30 it merges cleanly at c = 0.1, of which
   * `collide` collide later; every pair's recent conflict rate is `recent`.
   */
  const member = (name: string, recent: number, collide: number): CorpusMember => {
    const part: ScoredScenario[] = [];
    for (let i = 0; i < 40; i++)
      part.push(
        scenario(`${name}${i}`, i < 10 ? { c: 0, merge: 1 } : { c: 0.1, merge: 0 }, i < 10 || i - 10 < collide, {
          early: 0.5,
          recentConflicts: recent,
        }),
      );
    return { name, head: `${name}0000000000000`, scored: new Map([[0.5, part]]) };
  };

  it('reads a scored pair as a scan does: clean when the merge channel sees nothing, with its rate when known', () => {
    expect(pairHistoryOf(scenario('m', { c: 0.1, merge: 0 }, false, { recentConflicts: 0.3 }))).toEqual({
      clean: true,
      recentConflicts: 0.3,
    });
    expect(pairHistoryOf(scenario('m', { c: 0.1, merge: 1 }, true, { recentConflicts: 0.3 }))).toEqual({
      clean: false,
      recentConflicts: 0.3,
    });
    expect(pairHistoryOf(scenario('m', { c: 0.1 }, false, { recentConflicts: null }))).toEqual({ clean: true });
  });

  it('fits a clean part, so that clean pairs of a conflict-prone history get their own rate (held out)', () => {
    const members = [member('calm1', 0, 0), member('calm2', 0, 0), member('busy1', 0.6, 12), member('busy2', 0.6, 12)];
    const corpus = evaluateCorpus(members, {
      channels: both,
      thresholds,
      label: 'collided',
      weightings: [{ name: 'scanner weights', weights: { c: 1, merge: 1 } }],
      probabilityFit: { label: 'collided', fitOn: [0.5] },
    });
    const map = corpus.probability!.map;
    expect(probabilityMapProblem(map)).toBeUndefined();
    expect(map.clean!.recentMerges).toBe(RECENT_CONFLICT_MERGES);
    // All clean pairs at R 0.1: 24 of 120 collide, whatever the rate — but 40% where it is 0.6 and none where it is 0.
    expect(probabilityOf(0.1, map)).toBeCloseTo(24 / 120, 2);
    expect(pairProbability(0.1, { clean: true, recentConflicts: 0.6 }, map)).toBeCloseTo(0.4, 2);
    expect(pairProbability(0.1, { clean: true, recentConflicts: 0 }, map)).toBeLessThan(0.01);
    expect(pairProbability(1, { clean: false, recentConflicts: 0.6 }, map)).toBe(1);
    expect(formatCorpusTable(corpus)).toMatch(
      /clean part, for pairs git merges cleanly .* newest 50 past merges that conflicted\): 0\.0000→/,
    );
    // Held out, busy1 is scored by the others' map: its clean pairs read 40%, as they collide.
    const busy = corpus.members[2]!.heldOutProbability!.byFraction[0]!.byLabel.find((b) => b.label === 'collided')!;
    expect(busy.ece).toBeLessThan(0.01);
  });
});
