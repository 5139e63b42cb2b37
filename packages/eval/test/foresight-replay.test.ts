/**
 * The "collided at any point" label, visible/unseen and dissolving reasons, and `--intent`, on a
 * generated repository whose history is known commit by commit (`foresightFixture`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScratchStore } from '@airspace/git';
import { BUILTIN_CHANNELS } from '@airspace/scanner';
import { createReplayScorer, type ReplayScorer } from '../src/compose.js';
import { completeLabels, dissolveReason } from '../src/extract/history.js';
import { declaredPaths, labelOf } from '../src/extract/scenario.js';
import { DEFAULT_THRESHOLDS, type ForecastModel } from '@airspace/core';
import { isVisible } from '../src/measure/evaluate.js';
import { foresightOf, foresightScorers } from '../src/measure/foresight.js';
import { foresightText } from '../src/report/foresight.js';
import { replay, type ReplayResult } from '../src/replay.js';
import { ScenarioCache, type ScoredScenario } from '../src/score/cache.js';
import { foresightFixture, type ForesightFixture } from './helpers.js';

let fx: ForesightFixture;
let scratch: ScratchStore;
let replayScorer: ReplayScorer;
let cacheDir: string;
let result: ReplayResult;

const at = (fraction: number, merge: string, map: ReadonlyMap<number, readonly ScoredScenario[]> = result.scored): ScoredScenario => {
  const s = map.get(fraction)?.find((x) => x.merge === merge);
  if (!s) throw new Error(`no scenario ${merge} at ${fraction}`);
  return s;
};

beforeAll(async () => {
  fx = foresightFixture();
  scratch = new ScratchStore(join(fx.repo.dir, '.git', 'objects'));
  cacheDir = mkdtempSync(join(tmpdir(), 'airspace-foresight-cache-'));
  const builtins = BUILTIN_CHANNELS.map((make) => make())
    .filter((c) => c.id === 'overlap' || c.id === 'merge')
    .map((channel) => ({ channel, source: 'builtin' }));
  replayScorer = await createReplayScorer({ repo: fx.repo.dir, builtins });
  result = await replay({
    repo: fx.repo.dir,
    scorer: replayScorer.scorer,
    scratch,
    early: [0.25, 0.5, 0.75],
    intent: 'files',
    cache: new ScenarioCache(cacheDir, replayScorer.scorer.version),
  });
});
afterAll(() => {
  replayScorer?.dispose();
  scratch?.dispose();
  fx?.repo.dispose();
  if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
});

describe('collided at any point', () => {
  it("records each side's merges, re-merged, and its reverts", () => {
    const sync = at(1, fx.merges.sync);
    expect(sync.chainLength).toEqual([1, 4]);
    expect(sync.labels.history).toEqual([
      { merges: [], reverts: [] },
      { merges: [{ index: 3, commit: fx.repo.git('rev-parse', `${fx.merges.sync}^2^`), conflicted: true }], reverts: [] },
    ]);
    expect(at(1, fx.merges.revert).labels.history?.[1]).toEqual({ merges: [], reverts: [2] });
  });

  it('a conflicted sync after the observation is a collision, though the final merge is clean', () => {
    const early = at(0.25, fx.merges.sync);
    expect(early.observed).toEqual([1, 1]);
    expect(early.observedConflict).toBe(false);
    expect(isVisible(early)).toBe(false);
    expect(labelOf(early, 'textual')).toBe(false);
    expect(labelOf(early, 'collided')).toBe(true);
    // After the sync (75%: the sync is the observed commit) nothing collides any more.
    const late = at(0.75, fx.merges.sync);
    expect(late.observed).toEqual([1, 3]);
    expect(labelOf(late, 'collided')).toBe(false);
    expect(labelOf(at(1, fx.merges.sync), 'collided')).toBe(false);
  });

  it("part-way, the agents are diffed from the observed commits' own merge base, not the final one", () => {
    const early = at(0.25, fx.merges.sync);
    const full = at(1, fx.merges.sync);
    // The final base is main's a:5 edit (the sync brought it into f); f's first commit predates it.
    expect(full.base).toBe(fx.repo.git('merge-base', `${fx.merges.sync}^1`, `${fx.merges.sync}^2`));
    expect(early.base).toBe(fx.repo.git('rev-list', '--max-parents=0', 'HEAD'));
    // From the final base, f's b-only commit would look like a reversal of main's line 5, a
    // line-level "conflict" with main's later edit of that line; git merges the two cleanly.
    expect(early.files).toEqual([1, 1]);
    expect(early.risks.overlap).toBe(0);
  });

  it('a visible conflict that dissolves says why: a sync merge, or a revert', () => {
    const half = at(0.5, fx.merges.sync);
    expect(half.observedConflict).toBe(true);
    expect(half.risks.merge).toBe(1);
    expect(isVisible(half)).toBe(true);
    expect(labelOf(half, 'collided')).toBe(true);
    expect(dissolveReason(half.labels.history, half.observed)).toBe('sync-merge');
    const reverted = at(0.25, fx.merges.revert);
    expect(reverted.observed).toEqual([1, 1]);
    expect(isVisible(reverted)).toBe(true);
    expect(reverted.labels.textual).toBe(false);
    expect(dissolveReason(reverted.labels.history, reverted.observed)).toBe('revert');
  });

  it('labels are cached with the records; records cached without them are completed alike', async () => {
    const again = await replay({
      repo: fx.repo.dir,
      scorer: replayScorer.scorer,
      scratch,
      early: [0.25, 0.5, 0.75],
      intent: 'files',
      cache: new ScenarioCache(cacheDir, replayScorer.scorer.version),
    });
    // Four merges (the sync is one too), each at four fractions and three with declared intent.
    expect(result.fromCache).toBe(0);
    expect(again.fromCache).toBe(4 * 7);
    // Each record was written once, complete.
    const cache = new ScenarioCache(cacheDir, replayScorer.scorer.version);
    expect(readFileSync(cache.file, 'utf8').split('\n').filter(Boolean)).toHaveLength(4 * 7);
    expect(at(0.25, fx.merges.sync, again.scored)).toEqual(at(0.25, fx.merges.sync));
    const bare = [1, 0.75, 0.5, 0.25].map((f) => {
      const { observedConflict: _o, ...rest } = at(f, fx.merges.sync);
      const { history: _h, ...labels } = rest.labels;
      return { ...rest, labels };
    });
    const completed = await completeLabels(fx.repo.dir, scratch, bare);
    expect(completed.changed).toBe(true);
    expect(completed.records).toEqual([1, 0.75, 0.5, 0.25].map((f) => at(f, fx.merges.sync)));
  });
});

describe('--intent', () => {
  it('each side declares the paths of its final diff, or their directories', async () => {
    const base = fx.repo.git('merge-base', `${fx.merges.intent}^1`, `${fx.merges.intent}^2`);
    expect(await declaredPaths(fx.repo.dir, base, `${fx.merges.intent}^2`, 'files')).toEqual(['lib/shared.txt', 'lib/x.txt']);
    expect(await declaredPaths(fx.repo.dir, base, `${fx.merges.intent}^2`, 'dirs')).toEqual(['lib']);
    // A file at the root declares itself (the root directory would be everything).
    const syncBase = fx.repo.git('merge-base', `${fx.merges.sync}^1`, `${fx.merges.sync}^2`);
    expect(await declaredPaths(fx.repo.dir, syncBase, `${fx.merges.sync}^2`, 'dirs')).toEqual(['b.txt', 'd.txt']);
  });

  it('declared files reach the channels as the scanner applies intent; the full diffs have none', () => {
    const plain = at(0.5, fx.merges.intent);
    const declared = at(0.5, fx.merges.intent, result.declared);
    expect(plain.intent).toBeUndefined();
    expect(declared.intent).toBe('files');
    expect(plain.risks.overlap).toBe(0);
    // h's declared lib/shared.txt is a whole-file edit: it meets main's real edit of it.
    expect(declared.risks.overlap).toBeGreaterThan(0);
    // The merge channel merges the real states: intent does not change git's answer.
    expect(declared.risks.merge).toBe(plain.risks.merge);
    expect(result.declared.has(1)).toBe(false);
    expect([...result.declared.keys()].sort()).toEqual([0.25, 0.5, 0.75]);
  });
});

describe('the forecast in the foresight figures', () => {
  /** Forecast any clean pair whose sides change a common file. */
  const model: ForecastModel = { label: 'collided', weights: { 'shared-files': 0.5 }, leak: 0.01, threshold: 0.2 };
  const scorersAt = (fraction: number) =>
    foresightScorers(
      result.scored.get(fraction)!,
      replayScorer.scorer.channels,
      [{ name: 'scanner weights', weights: Object.fromEntries(replayScorer.scorer.channels.map((c) => [c.id, c.weight])) }],
      DEFAULT_THRESHOLDS,
      undefined,
      model,
    );

  it('flags a finished pair that changed one file and merged cleanly (a false forecast), not its half-way state', () => {
    const full = result.scored.get(1)!;
    const i = full.findIndex((s) => s.merge === fx.merges.intent);
    expect(full[i]!.sharedFiles).toBe(1);
    const forecast = scorersAt(1).find((s) => s.kind === 'forecast')!;
    expect(forecast.scores[i]).toBeCloseTo(1 - 0.99 * 0.5, 12);
    expect(forecast.flagged[i]).toBe(true);
    // Half-way h has only changed lib/x.txt: nothing in common with main's lib/shared.txt yet.
    const half = result.scored.get(0.5)!;
    const j = half.findIndex((s) => s.merge === fx.merges.intent);
    expect(half[j]!.sharedFiles).toBe(0);
    expect(scorersAt(0.5).find((s) => s.kind === 'forecast')!.flagged[j]).toBe(false);
  });

  it('never flags a pair git sees conflicting or one with an advisory', () => {
    for (const fraction of [1, 0.75, 0.5, 0.25]) {
      const scenarios = result.scored.get(fraction)!;
      const scorers = scorersAt(fraction);
      const scanner = scorers.find((s) => s.kind === 'weighting')!;
      const forecast = scorers.find((s) => s.kind === 'forecast')!;
      scenarios.forEach((s, i) => {
        if (isVisible(s) || scanner.flagged[i]) expect(forecast.flagged[i]).toBe(false);
      });
    }
  });

  it('is a row of the unseen figures with no F1 gain of its own, and a line of the report', () => {
    const observation = foresightOf(result.scored.get(1)!, scorersAt(1), {
      fraction: 1,
      labels: ['textual', 'collided'],
      thresholds: DEFAULT_THRESHOLDS,
    });
    const row = observation.byLabel[0]!.scorers.find((s) => s.kind === 'forecast')!;
    expect(row.name).toBe('forecast');
    expect(row.foresightGain).toBeNull();
    expect(row.unseen.flagged).toBeGreaterThanOrEqual(1);
    expect(row.unseen.tp).toBe(0);
    const half = foresightOf(result.scored.get(0.25)!, scorersAt(0.25), {
      fraction: 0.25,
      labels: ['collided'],
      thresholds: DEFAULT_THRESHOLDS,
    });
    const text = foresightText([half]).join('\n');
    expect(text).toMatch(/^forecast\s/m);
    // The sync merge's quarter-way state is an unseen collision (see "collided at any point").
    expect(half.byLabel[0]!.unseen.positives).toBeGreaterThan(0);
    expect(text).toContain('with the forecast: of ');
  });
});
