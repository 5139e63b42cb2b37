/**
 * `airspace eval` run as a user runs it: the built CLI as a child process over a generated
 * repository with one conflicting and one clean merge. Needs `turbo run build`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airspace as runCli, type Run } from './run-cli.js';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';

let repo: RepoFixture;
let out: string;

function airspace(...args: string[]): Promise<Run> {
  return runCli(args, { cwd: out, timeoutMs: 240_000 });
}

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n') + '\n';

beforeAll(() => {
  repo = createRepoFixture({ 'src/a.ts': lines(20, '// a'), 'src/b.ts': lines(20, '// b') });
  out = mkdtempSync(join(tmpdir(), 'airspace-eval-e2e-'));
  const x = repo.worktree('x');
  x.write('src/a.ts', lines(20, '// a').replace('// a 5\n', '// a five from x\n')).commit('x edits a:5');
  repo.write('src/a.ts', lines(20, '// a').replace('// a 5\n', '// a five from main\n')).commit('main edits a:5');
  try {
    repo.git('merge', '--no-edit', 'x');
  } catch {
    repo.write('src/a.ts', lines(20, '// a').replace('// a 5\n', '// a five merged\n'));
    repo.git('add', '-A');
    repo.git('commit', '--no-edit', '-q', '-m', 'merge x');
  }
  const y = repo.worktree('y');
  y.write('src/b.ts', lines(20, '// b').replace('// b 3\n', '// b three\n')).commit('y edits b');
  repo.write('src/c.ts', 'export const c = 1;\n').commit('main adds c');
  repo.git('merge', '--no-edit', 'y');
}, 120_000);

afterAll(() => {
  repo?.dispose();
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('airspace eval', () => {
  it('prints every figure as JSON, fits, and writes the calibration file and the report', async () => {
    const run = await airspace('eval', '--repo', repo.dir, '--json', '--fit', '--folds', '2', '--out', 'report', '--cache-dir', 'cache');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.context.merges).toBe(2);
    expect(result.evaluation.scenarios).toBe(2);
    expect(result.evaluation.positives).toBe(1);
    // Every built-in channel is scored; the merge channel is exact on full diffs.
    expect(Object.keys(result.evaluation.channels)).toEqual([
      'overlap',
      'tree',
      'dependency',
      'merge',
      'symbols',
      'call-graph',
      'co-change',
      'past-conflicts',
    ]);
    expect(result.evaluation.channels.merge.rocAuc).toBe(1);
    expect(result.calibration.kind).toBe('airspace-calibration');
    // Fitted on the half-way states by default (replayed without --early), pulled toward the shipped weights.
    expect(result.calibration.provenance.early).toBe(0.5);
    expect(result.calibration.provenance.regularisation).toEqual({ priorShare: 0.1, minWeight: 0 });
    expect(Array.isArray(result.calibration.provenance.zeroWeights)).toBe(true);
    expect(result.earlyEvaluations.map((e: { fraction: number }) => e.fraction)).toEqual([0.5]);
    expect(JSON.parse(readFileSync(join(out, 'airspace.calibration.json'), 'utf8')).weights).toEqual(result.calibration.weights);
    for (const f of ['report.md', 'roc.svg', 'reliability.svg']) expect(existsSync(join(out, 'report', f))).toBe(true);
  }, 300_000);

  it('prints the table from the cache, and rejects a bad --early', async () => {
    const run = await airspace('eval', '--repo', repo.dir, '--cache-dir', 'cache', '--label', 'any');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/merges examined 2 · scenarios 2 \(2 from cache\)/);
    expect(run.stdout).toMatch(/scanner weights without merge/);
    const bad = await airspace('eval', '--repo', repo.dir, '--early', '2');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--early takes a fraction/);
  }, 300_000);

  it('reports foresight per fraction under both labels, with declared intent, as JSON and as lines', async () => {
    const run = await airspace(
      'eval',
      '--repo',
      repo.dir,
      '--early',
      '0.25',
      '--early',
      '0.5',
      '--intent',
      'files',
      '--json',
      '--cache-dir',
      'foresight-cache',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    // One observation per fraction (full diffs first), then each early fraction with declared files.
    expect(result.foresight.map((o: { fraction: number; intent: string | null }) => [o.fraction, o.intent])).toEqual([
      [1, null],
      [0.5, null],
      [0.25, null],
      [0.5, 'files'],
      [0.25, 'files'],
    ]);
    for (const o of result.foresight) {
      expect(o.byLabel.map((b: { label: string }) => b.label)).toEqual(['textual', 'collided']);
      const names = o.byLabel[0].scorers.map((s: { name: string }) => s.name);
      // Every channel alone, then the scanner's weighting, then the forecast (no F1 gain of its own).
      expect(names).toEqual([...Object.keys(result.evaluation.channels), 'scanner weights', 'forecast']);
      expect(o.byLabel[0].scorers.find((s: { name: string }) => s.name === 'forecast').foresightGain).toBeNull();
      const merge = o.byLabel[0].scorers.find((s: { name: string }) => s.name === 'merge');
      expect(merge.foresightGain).toBe(0);
      expect(Object.keys(merge.unseen)).toEqual([
        'flagged',
        'tp',
        'recall',
        'precision',
        'lift',
        'prAuc',
        'prAucLift',
        'medianLeadHours',
        'meanLeadHours',
      ]);
    }
    // Both merges are one-commit sides: every fraction observes the full diffs, so the one conflict is visible.
    expect(result.foresight[1].byLabel[0].visible).toMatchObject({ scenarios: 1, positives: 1, dissolved: 0 });
    expect(result.context.foresight).toBeUndefined();
    const table = await airspace('eval', '--repo', repo.dir, '--early', '0.25', '--early', '0.5', '--cache-dir', 'foresight-cache');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/foresight \(scanner weights; label: textual conflict\)/);
    expect(table.stdout).toMatch(/ {2}50%: no collision that was not yet visible; 1 visible/);
    expect(table.stdout).toMatch(/label: collided at any point/);
  }, 300_000);

  it('evaluates a corpus: each repository alone and held out of a fit on the others', async () => {
    const second = createRepoFixture({ 'lib/x.py': lines(30, '# x') });
    try {
      const z = second.worktree('z');
      z.write('lib/x.py', lines(30, '# x').replace('# x 7\n', '# x seven from z\n')).commit('z edits x:7');
      second.write('lib/x.py', lines(30, '# x').replace('# x 7\n', '# x seven from main\n')).commit('main edits x:7');
      try {
        second.git('merge', '--no-edit', 'z');
      } catch {
        second.write('lib/x.py', lines(30, '# x').replace('# x 7\n', '# x seven merged\n'));
        second.git('add', '-A');
        second.git('commit', '--no-edit', '-q', '-m', 'merge z');
      }
      const run = await airspace(
        'eval',
        '--repo',
        repo.dir,
        '--repo',
        second.dir,
        '--fit',
        '--json',
        '--cache-dir',
        'corpus-cache',
        '--calibration-out',
        'corpus.json',
      );
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout);
      expect(result.corpus.members).toHaveLength(2);
      expect(
        result.corpus.members.map((m: { byFraction: { evaluation: { scenarios: number } }[] }) => m.byFraction[0]!.evaluation.scenarios),
      ).toEqual([2, 1]);
      for (const m of result.corpus.members) expect(Object.keys(m.heldOut.weighting.weights)).toContain('merge');
      expect(result.corpus.fitted.fitOn).toEqual([1, 0.5]);
      const file = JSON.parse(readFileSync(join(out, 'corpus.json'), 'utf8'));
      expect(file.leak).toBe(0);
      expect(file.provenance.corpus).toHaveLength(2);
      expect(file.provenance.folds).toBe(2);
      const table = await airspace(
        'eval',
        '--repo',
        repo.dir,
        '--repo',
        second.dir,
        '--cache-dir',
        'corpus-cache',
        '--early',
        '0.5',
        '--fit-forecast',
        'collided',
      );
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/corpus of 2 repositories/);
      expect(table.stdout).toMatch(/scanner weights, full diffs/);
      // The forecast fitted on both, and on each one's other: its held-out rows are in the foresight tables.
      expect(table.stdout).toMatch(/forecast of "collided" fitted on \d+ unseen states/);
      expect(table.stdout).toMatch(/^ {2}without .+: co-change [\d.]+ · past-conflicts [\d.]+ · .*threshold [\d.]+$/m);
      expect(table.stdout).toMatch(/^forecast, held out, 50%, label collided at any point$/m);
      const alone = await airspace('eval', '--repo', repo.dir, '--fit-forecast', 'collided', '--cache-dir', 'corpus-cache');
      expect(alone.code).toBe(1);
      expect(alone.stderr).toMatch(/--fit-forecast fits on a corpus, each repository held out: repeat --repo/);
    } finally {
      second.dispose();
    }
  }, 300_000);
});
