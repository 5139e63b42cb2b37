import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCalibration, validateCalibration, type CalibrationFile } from '@airspace/config';
import { formatTable } from '../src/report/table.js';
import { readWeighting, runEval } from '../src/run.js';
import { ScratchStore } from '@airspace/git';
import { extractScenario, labelMerge, observedBase } from '../src/extract/scenario.js';
import { listMerges } from '../src/extract/merges.js';
import { replay } from '../src/replay.js';
import { ScenarioCache } from '../src/score/cache.js';
import { createChannelScorer, type ScenarioScorer } from '../src/score/scorer.js';
import { aTxtChannel, historyFixture, sharedFileChannel, throwingChannel, type HistoryFixture } from './helpers.js';

let fx: HistoryFixture;
let scratch: ScratchStore;
let cacheDir: string;
let out: string;

beforeAll(() => {
  fx = historyFixture();
  scratch = new ScratchStore(join(fx.repo.dir, '.git', 'objects'));
  cacheDir = mkdtempSync(join(tmpdir(), 'airspace-eval-cache-'));
  out = mkdtempSync(join(tmpdir(), 'airspace-eval-out-'));
});
afterAll(() => {
  scratch.dispose();
  fx.repo.dispose();
  rmSync(cacheDir, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

function objectCount(): string {
  return fx.repo.git('count-objects', '-v');
}

describe('merges and labels', () => {
  it('lists two-parent merges newest first, and honours --max-merges', async () => {
    const all = await listMerges(fx.repo.dir);
    const m = fx.merges;
    expect(all.map((x) => x.merge)).toEqual([m.ancestor, m.manual, m.sameFile, m.clean, m.conflict]);
    expect(all.every((x) => x.parents.length === 2)).toBe(true);
    expect((await listMerges(fx.repo.dir, { maxMerges: 2 })).map((x) => x.merge)).toEqual([m.ancestor, m.manual]);
  });

  it('labels a textual conflict with its path, and not as a manual resolution', async () => {
    const parents = fx.repo.git('rev-parse', `${fx.merges.conflict}^1`, `${fx.merges.conflict}^2`).split('\n') as [string, string];
    const before = objectCount();
    const labels = await labelMerge(fx.repo.dir, scratch, fx.merges.conflict, parents);
    expect(labels).toEqual({ textual: true, conflictedPaths: ['a.txt'], manual: false, manualPaths: [] });
    // git's merge wrote its trees into the scratch store, not into the repository.
    expect(objectCount()).toBe(before);
  });

  it('labels clean merges clean, and a merge that changed a cleanly merged file as manual', async () => {
    const label = async (merge: string) =>
      labelMerge(fx.repo.dir, scratch, merge, fx.repo.git('rev-parse', `${merge}^1`, `${merge}^2`).split('\n') as [string, string]);
    expect(await label(fx.merges.clean)).toEqual({ textual: false, conflictedPaths: [], manual: false, manualPaths: [] });
    expect(await label(fx.merges.sameFile)).toMatchObject({ textual: false, manual: false });
    expect(await label(fx.merges.manual)).toEqual({ textual: false, conflictedPaths: [], manual: true, manualPaths: ['d.txt'] });
  });
});

describe('scenarios', () => {
  it('each side of a merge is an agent with its diff from the merge base, in base coordinates', async () => {
    const [m] = (await listMerges(fx.repo.dir)).filter((x) => x.merge === fx.merges.conflict);
    const r = await extractScenario(fx.repo.dir, m!, { scratch });
    if (!('scenario' in r)) throw new Error(`skipped: ${JSON.stringify(r.skipped)}`);
    const [main, side] = r.scenario.agents;
    expect(main.files.map((f) => f.path)).toEqual(['a.txt']);
    expect(side.files.map((f) => f.path).sort()).toEqual(['a.txt', 'd.txt']);
    expect(main.files[0]!.baseRanges).toEqual([[5, 5]]);
    expect(side.committedWork).toBeGreaterThanOrEqual(2);
    expect(r.scenario.labels.textual).toBe(true);
  });

  it('skips a merge whose first parent is the merge base, and says why', async () => {
    const [m] = (await listMerges(fx.repo.dir)).filter((x) => x.merge === fx.merges.ancestor);
    const r = await extractScenario(fx.repo.dir, m!, { scratch });
    expect(r).toEqual({ skipped: { merge: fx.merges.ancestor, reason: 'parent-is-ancestor', detail: 'first parent is the merge base' } });
  });

  it('--early observes each side after the first part of its commits', async () => {
    const [m] = (await listMerges(fx.repo.dir)).filter((x) => x.merge === fx.merges.conflict);
    const r = await extractScenario(fx.repo.dir, m!, { scratch, early: 0.5 });
    if (!('scenario' in r)) throw new Error('skipped');
    // s1 made two commits (a.txt, then d.txt): half-way it has changed a.txt only.
    expect(r.scenario.sides[1]).toMatchObject({ chainLength: 2, observed: 1 });
    expect(r.scenario.agents[1].files.map((f) => f.path)).toEqual(['a.txt']);
    expect(r.scenario.labels.textual).toBe(true);
  });

  it('a huge diff is skipped with the reason', async () => {
    const [m] = (await listMerges(fx.repo.dir)).filter((x) => x.merge === fx.merges.conflict);
    const r = await extractScenario(fx.repo.dir, m!, { scratch, maxFiles: 1 });
    expect(r).toMatchObject({ skipped: { reason: 'huge-diff' } });
  });

  it('missing objects are a failed scenario, not a crash', async () => {
    const r = await extractScenario(
      fx.repo.dir,
      { merge: 'f'.repeat(40), parents: ['e'.repeat(40), 'd'.repeat(40)], committedAt: 0 },
      { scratch },
    );
    expect(r).toMatchObject({ skipped: { reason: 'failed' } });
  });
});

describe('replay with the cache', () => {
  const scorer = (): ScenarioScorer => createChannelScorer({ channels: [sharedFileChannel, aTxtChannel, throwingChannel] });

  it('scores every loaded channel, counts skips, and a second run reads everything from the cache', async () => {
    const first = await replay({ repo: fx.repo.dir, scorer: scorer(), scratch, cache: new ScenarioCache(cacheDir, scorer().version) });
    expect(first.merges).toBe(5);
    expect(first.skippedByReason).toEqual({ 'parent-is-ancestor': 1 });
    const full = first.scored.get(1)!;
    expect(full.map((s) => s.merge)).toEqual([fx.merges.manual, fx.merges.sameFile, fx.merges.clean, fx.merges.conflict]);
    const byMerge = new Map(full.map((s) => [s.merge, s]));
    expect(byMerge.get(fx.merges.conflict)!.risks).toEqual({ 'shared-file': 1, 'a-txt': 0.5, throws: 0 });
    expect(byMerge.get(fx.merges.clean)!.risks).toEqual({ 'shared-file': 0, 'a-txt': 0, throws: 0 });
    expect(byMerge.get(fx.merges.sameFile)!.risks['shared-file']).toBe(1);
    expect(byMerge.get(fx.merges.conflict)!.problems).toContain('CHANNEL_THREW:throws');
    expect(first.fromCache).toBe(0);

    const cache = new ScenarioCache(cacheDir, scorer().version);
    expect(cache.size).toBe(5);
    let scored = 0;
    const counting: ScenarioScorer = { ...scorer(), score: async (s) => (scored++, scorer().score(s)) };
    const second = await replay({ repo: fx.repo.dir, scorer: counting, scratch, cache });
    expect(scored).toBe(0);
    expect(second.fromCache).toBe(5);
    expect(second.scored.get(1)).toEqual(full);
  });

  it('another channel set has another cache file', () => {
    const other = createChannelScorer({ channels: [sharedFileChannel] });
    expect(other.version).not.toBe(scorer().version);
  });

  it('a damaged cache line is skipped, not fatal', () => {
    const cache = new ScenarioCache(cacheDir, scorer().version);
    const text = readFileSync(cache.file, 'utf8');
    writeFileSync(cache.file, text + '{"key": "torn');
    const reread = new ScenarioCache(cacheDir, scorer().version);
    expect(reread.size).toBe(5);
    expect(reread.damaged).toBe(1);
  });
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

    // The calibration file: complete by the codec's schema, and its weights are what scanning reads.
    const file = JSON.parse(readFileSync(calibrationOut, 'utf8')) as CalibrationFile;
    expect(validateCalibration(file, calibrationOut, { complete: true })).toEqual([]);
    expect(file.provenance).toMatchObject({ head: fx.repo.head(), merges: 5, scenarios: 4, folds: 2 });
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

    // Calibrating on the half-way states instead: same cache, the provenance says so.
    const halfway = await runEval({
      repo: fx.repo.dir,
      scorer,
      fit: true,
      folds: 2,
      early: [0.5],
      calibrateOn: 0.5,
      cacheDir: join(out, 'cache'),
    });
    expect(halfway.calibration!.provenance).toMatchObject({ early: 0.5, scenarios: 4 });

    // Re-weighting reads the cache: a scorer that cannot score still gets every figure.
    const cachedOnly = {
      ...scorer,
      score: async () => {
        throw new Error('must not score');
      },
    };
    const again = await runEval({ repo: fx.repo.dir, scorer: cachedOnly, early: [0.5], cacheDir: join(out, 'cache') });
    expect(again.context.fromCache).toBe(9);
    expect(again.evaluation.channels).toEqual(run.evaluation.channels);
  });
});

describe('calibration files and weightings', () => {
  it('rejects a calibration with a weight out of range, naming it', () => {
    const problems = validateCalibration({
      kind: 'airspace-calibration',
      version: 1,
      weights: { overlap: 1.5 },
      leak: 0,
      thresholds: { traffic: 0.3, resolution: 0.6 },
      label: 'textual',
      provenance: {},
    });
    expect(problems.map((p) => p.message)).toEqual([expect.stringContaining('weight of "overlap"')]);
  });

  it('a missing file is a problem, not a throw', () => {
    expect(readCalibration(join(out, 'nope.json')).problems[0]!.code).toBe('CALIBRATION_UNREADABLE');
  });

  it('--weights reads any JSON with a weights object, named after its file, with its leak', () => {
    const path = join(out, 'seed.json');
    writeFileSync(path, JSON.stringify({ weights: { overlap: 1, dependency: 0.9, tree: 0.25 }, leak: 0.02 }));
    expect(readWeighting(path).weighting).toEqual({ name: 'seed', weights: { overlap: 1, dependency: 0.9, tree: 0.25 }, leak: 0.02 });
  });
});

describe('the scanner composition', () => {
  it('run from a linked worktree, takes the main worktree config as a scan there does', async () => {
    const { createReplayScorer } = await import('../src/compose.js');
    const { createRepoFixture } = await import('@airspace/git/fixture');
    const repo = createRepoFixture({ 'a.ts': 'export const a = 1;\n' });
    try {
      // The config only in the main worktree, untracked: not on the linked worktree's branch.
      writeFileSync(join(repo.dir, 'airspace.config.json'), JSON.stringify({ channels: { 'call-graph': { enabled: false } } }));
      const linked = repo.worktree('linked');
      const replayScorer = await createReplayScorer({ repo: linked.dir });
      try {
        expect(replayScorer.scorer.channels.map((c) => c.id)).not.toContain('call-graph');
        expect(replayScorer.scorer.channels.map((c) => c.id)).toContain('overlap');
      } finally {
        replayScorer.dispose();
      }
    } finally {
      repo.dispose();
    }
  });

  it('an explicit config it cannot read is an error, as for a scan (it used to be ignored)', async () => {
    const { createReplayScorer } = await import('../src/compose.js');
    const missing = join(fx.repo.dir, 'no-such.config.json');
    await expect(createReplayScorer({ repo: fx.repo.dir, configPath: missing })).rejects.toMatchObject({
      name: 'ScannerError',
      code: 'UNREADABLE_CONFIG',
    });
  });

  it('scores every built-in channel (analysis services included) on a replayed scenario', async () => {
    const { createReplayScorer } = await import('../src/compose.js');
    const { BUILTIN_CHANNELS } = await import('@airspace/scanner');
    const replayScorer = await createReplayScorer({ repo: fx.repo.dir });
    try {
      // Every built-in but typecheck, which compiles each merge and is not part of the replayed label.
      const ids = BUILTIN_CHANNELS.map((make) => make().id).filter((id) => id !== 'typecheck');
      expect(replayScorer.scorer.channels.map((c) => c.id)).toEqual(ids);
      const [m] = (await listMerges(fx.repo.dir)).filter((x) => x.merge === fx.merges.conflict);
      const r = await extractScenario(fx.repo.dir, m!, { scratch });
      if (!('scenario' in r)) throw new Error('skipped');
      const score = await replayScorer.scorer.score(r.scenario);
      expect(Object.keys(score.risks)).toEqual(ids);
      // The merge channel sees the textual conflict the label records; the overlap channel the same lines.
      expect(score.risks['merge']).toBe(1);
      expect(score.risks['overlap']).toBeGreaterThan(0);
      expect(score.problems.filter((p) => p.startsWith('MISSING_SERVICE'))).toEqual([]);
    } finally {
      replayScorer.dispose();
    }
  });

  it('gives the co-change channel each side’s history as of its observed commit, never later', async () => {
    const { createReplayScorer } = await import('../src/compose.js');
    const { createRepoFixture } = await import('@airspace/git/fixture');
    const tail = Array.from({ length: 10 }, (_, i) => `export const c${i} = ${i};\n`).join('');
    const repo = createRepoFixture({ 'api.ts': 'export const api = 0;\n', 'client.ts': `export const client = 0;\n${tail}` });
    try {
      // x couples api.ts and client.ts only in its last two commits; y changes client.ts.
      const x = repo.worktree('x');
      x.write('api.ts', 'export const api = 1;\n').commit('x1');
      x.write('api.ts', 'export const api = 2;\n').commit('x2');
      x.write('api.ts', 'export const api = 3;\n').write('client.ts', `export const client = 3;\n${tail}`).commit('x3');
      x.write('api.ts', 'export const api = 4;\n').write('client.ts', `export const client = 4;\n${tail}`).commit('x4');
      repo.worktree('y').write('client.ts', `export const client = 0;\n${tail}export const y = 1;\n`).commit('y1');
      x.git('merge', '--no-ff', '-q', '-m', 'merge y', 'y');
      const [m] = await listMerges(repo.dir, { rev: 'x' });
      const store = new ScratchStore(join(repo.dir, '.git', 'objects'));
      const replayScorer = await createReplayScorer({ repo: repo.dir });
      try {
        const risk = async (early: number) => {
          const r = await extractScenario(repo.dir, m!, { scratch: store, early });
          if (!('scenario' in r)) throw new Error('skipped');
          return (await replayScorer.scorer.score(r.scenario)).risks['co-change'];
        };
        // Half-way x has made x1 and x2: api.ts and client.ts changed together once (the first commit).
        expect(await risk(0.5)).toBe(0);
        // The full side has x3 and x4 in its history: 3 of the 3 commits that changed client.ts there.
        expect(await risk(1)).toBeCloseTo(0.9);
      } finally {
        replayScorer.dispose();
        store.dispose();
      }
    } finally {
      repo.dispose();
    }
  });
  it('gives the past-conflicts channel only the merges before each side’s observed commit', async () => {
    const { createReplayScorer } = await import('../src/compose.js');
    const { createRepoFixture } = await import('@airspace/git/fixture');
    const log = 'a\nb\nc\nd\ne\nf\ng\n';
    const repo = createRepoFixture({ 'CHANGELOG.md': log, 'a.ts': 'export const a = 0;\n' });
    try {
      const y = repo.worktree('y');
      const x = repo.worktree('x');
      x.write('a.ts', 'export const a = 1;\n').commit('x1');
      x.write('CHANGELOG.md', log.replace('a\n', 'a x\n')).commit('x2');
      // Two merges into x conflict in CHANGELOG.md's first line (kept as x had it).
      for (const name of ['p', 'q']) {
        repo
          .worktree(name, { from: 'main' })
          .write('CHANGELOG.md', log.replace('a\n', `a ${name}\n`))
          .commit(name);
        try {
          x.git('merge', '--no-ff', '--no-commit', name);
        } catch {
          // conflicted: resolved below
        }
        x.write('CHANGELOG.md', log.replace('a\n', 'a x\n')).commit(`merge ${name}`);
      }
      x.write('a.ts', 'export const a = 2;\n').commit('x3');
      y.write('CHANGELOG.md', log.replace('g\n', 'g y\n')).commit('y1');
      x.git('merge', '--no-ff', '-q', '-m', 'merge y', 'y');
      const [m] = await listMerges(repo.dir, { rev: 'x' });
      const store = new ScratchStore(join(repo.dir, '.git', 'objects'));
      const replayScorer = await createReplayScorer({ repo: repo.dir });
      try {
        const risk = async (early: number) => {
          const r = await extractScenario(repo.dir, m!, { scratch: store, early });
          if (!('scenario' in r)) throw new Error('skipped');
          return (await replayScorer.scorer.score(r.scenario)).risks['past-conflicts'];
        };
        // After 2 of x's 6 commits both sides change CHANGELOG.md, but no merge has happened yet.
        expect(await risk(0.25)).toBe(0);
        // The full side has merged p and q: CHANGELOG.md conflicted in 2 of the 2 merges that touched it.
        expect(await risk(1)).toBeCloseTo(2 / 3);
      } finally {
        replayScorer.dispose();
        store.dispose();
      }
    } finally {
      repo.dispose();
    }
  });
});

describe('observedBase', () => {
  it('of a criss-cross history is the merge base closest to both commits, then the newest, never the final one', async () => {
    const { createRepoFixture } = await import('@airspace/git/fixture');
    const repo = createRepoFixture({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'd.txt': 'd\n' });
    try {
      const final = repo.head();
      // Each side merges the other's first commit: the two merges have both first commits as merge bases.
      const crissCross = (pChanges: Record<string, string>, qChanges: Record<string, string>) => {
        const p = repo.worktree(`p${repo.head().slice(0, 6)}`, { from: final });
        const q = repo.worktree(`q${repo.head().slice(0, 6)}`, { from: final });
        const p1 = p.writeAll(pChanges).commit('p1').head();
        const q1 = q.writeAll(qChanges).commit('q1').head();
        p.git('merge', '--no-edit', '-q', q1);
        q.git('merge', '--no-edit', '-q', p1);
        expect(repo.git('merge-base', '--all', p.head(), q.head()).split('\n').sort()).toEqual([p1, q1].sort());
        return { p1, q1, pm: p.head(), qm: q.head() };
      };
      // From either base one file differs on each side: the newer base (q1, a minute later).
      const tie = crissCross({ 'a.txt': 'a from p\n' }, { 'b.txt': 'b from q\n' });
      expect(await observedBase(repo.dir, tie.pm, tie.qm, final)).toBe(tie.q1);
      // p1 (the older) changes three files: from q1 both sides show them (6), from p1 only q1's file
      // (2): the closer base wins over the newer.
      repo.write('a.txt', 'a again\n').commit('main moves on');
      const near = crissCross({ 'a.txt': 'a from p\n', 'b.txt': 'b from p\n', 'd.txt': 'd from p\n' }, { 'c.txt': 'c from q\n' });
      expect(await observedBase(repo.dir, near.pm, near.qm, final)).toBe(near.p1);
      // One merge base, or the same commit: as before.
      expect(await observedBase(repo.dir, tie.p1, tie.q1, final)).toBe(final);
      expect(await observedBase(repo.dir, tie.p1, tie.p1, final)).toBe(final);
    } finally {
      repo.dispose();
    }
  });
});
