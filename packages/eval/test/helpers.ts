import { defineChannel } from '@airspace/core';
import type { ScoredScenario } from '../src/score/cache.js';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';

const lines = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n') + '\n';

function edit(text: string, at: number, replacement: string): string {
  const l = text.split('\n');
  l[at - 1] = replacement;
  return l.join('\n');
}

/** Merges `branch` into main; on a conflict, resolves with `resolve` (path → content) and commits. */
function merge(repo: RepoFixture, branch: string, resolve?: Record<string, string>): string {
  try {
    repo.git('merge', '--no-ff', '--no-edit', '-m', `merge ${branch}`, branch);
  } catch {
    repo.writeAll(resolve ?? {});
    repo.git('add', '-A');
    repo.git('commit', '--no-edit', '-q', '-m', `merge ${branch} (resolved)`);
  }
  return repo.head();
}

export interface HistoryFixture {
  readonly repo: RepoFixture;
  /** Merge commit ids by what they are. */
  readonly merges: { conflict: string; clean: string; manual: string; ancestor: string; sameFile: string };
}

/**
 * A repository with five merges of known outcome, oldest first:
 * - `conflict`: both sides edit line 5 of a.txt differently (textual conflict);
 * - `clean`: the sides edit different files;
 * - `sameFile`: the sides edit far-apart lines of b.txt (clean, one shared file);
 * - `manual`: the sides edit different files and the merge commit also changes c.txt (manual resolution);
 * - `ancestor`: a branch merged with --no-ff into a main that did not move (skipped).
 */
export function historyFixture(): HistoryFixture {
  const repo = createRepoFixture({ 'a.txt': lines(20, 'a'), 'b.txt': lines(40, 'b'), 'c.txt': lines(10, 'c'), 'd.txt': lines(10, 'd') });
  const base = { a: lines(20, 'a'), b: lines(40, 'b'), c: lines(10, 'c') };

  const s1 = repo.worktree('s1');
  s1.write('a.txt', edit(base.a, 5, 'a five from s1')).commit('s1 edits a:5');
  s1.write('d.txt', lines(11, 'd')).commit('s1 appends to d');
  repo.write('a.txt', edit(base.a, 5, 'a five from main')).commit('main edits a:5');
  const conflict = merge(repo, 's1', { 'a.txt': edit(base.a, 5, 'a five merged') });

  const s2 = repo.worktree('s2');
  s2.write('c.txt', edit(base.c, 2, 'c two from s2')).commit('s2 edits c');
  repo.write('e.txt', 'new file on main\n').commit('main adds e');
  const clean = merge(repo, 's2');

  const s3 = repo.worktree('s3');
  s3.write('b.txt', edit(base.b, 3, 'b three from s3')).commit('s3 edits b:3');
  repo.write('b.txt', edit(base.b, 35, 'b thirty-five from main')).commit('main edits b:35');
  const sameFile = merge(repo, 's3');

  const s4 = repo.worktree('s4');
  s4.write('f.txt', 'f from s4\n').commit('s4 adds f');
  s4.write('f.txt', 'f from s4, again\n').commit('s4 edits f');
  repo.write('g.txt', 'g from main\n').commit('main adds g');
  repo.git('merge', '--no-ff', '--no-commit', 's4');
  repo.write('d.txt', lines(12, 'd'));
  repo.git('add', '-A');
  repo.git('commit', '--no-edit', '-q', '-m', 'merge s4 with a fix-up in d');
  const manual = repo.head();

  const s5 = repo.worktree('s5');
  s5.write('h.txt', 'h\n').commit('s5 adds h');
  const ancestor = merge(repo, 's5');

  return { repo, merges: { conflict, clean, manual, ancestor, sameFile } };
}

/** A channel that says 1 when the two sides change a common path. */
export const sharedFileChannel = defineChannel({
  id: 'shared-file',
  defaultWeight: 1,
  meta: { precision: 'file' },
  score(a, b) {
    const paths = new Set(a.files.map((f) => f.path));
    const shared = b.files.find((f) => paths.has(f.path));
    return shared ? { risk: 1, evidence: [{ message: `both change ${shared.path}` }] } : { risk: 0, evidence: [] };
  },
});

/** A channel that says 0.5 when either side touches a.txt (a stand-in for a line-level channel). */
export const aTxtChannel = defineChannel({
  id: 'a-txt',
  defaultWeight: 0.8,
  meta: { precision: 'line' },
  score(a, b) {
    const touches = [a, b].every((x) => x.files.some((f) => f.path === 'a.txt'));
    return touches ? { risk: 0.5, evidence: [{ message: 'both touch a.txt' }] } : { risk: 0, evidence: [] };
  },
});

export const throwingChannel = defineChannel({
  id: 'throws',
  defaultWeight: 1,
  score() {
    throw new Error('boom');
  },
});

/** A scored scenario with the given channel risks and textual label; the rest fixed. */
export function scenario(
  merge: string,
  risks: Record<string, number>,
  textual: boolean,
  extra: Partial<ScoredScenario> = {},
): ScoredScenario {
  return {
    merge,
    parents: ['p1', 'p2'],
    base: 'b',
    committedAt: 10 * 3_600_000,
    early: 1,
    observedAt: 8 * 3_600_000,
    observed: [2, 2],
    chainLength: [2, 2],
    files: [1, 1],
    sharedFiles: 1,
    labels: { textual, conflictedPaths: textual ? ['x'] : [], manual: false, manualPaths: [] },
    risks,
    ...extra,
  };
}

export interface ForesightFixture {
  readonly repo: RepoFixture;
  /**
   * - `sync`: side f edits b, then a:5 (which conflicts with main's a:5), then merges main (a
   *   conflicted sync, resolved to main's line), then edits d; main edits a:5 again; the final
   *   merge is clean. f's chain is [b, a:5, sync, d]: after 25% unseen but collided later (the sync), after
   *   50% visible and dissolved by the sync, after 75% neither.
   * - `revert`: side g edits e:4 (conflicting with main's e:4), reverts it, edits b:8; clean in
   *   the end: visible after 25% (one of three commits), dissolved by the revert.
   * - `intent`: side h edits lib/x.txt, then lib/shared.txt:3; main edits lib/shared.txt:15;
   *   clean; after 50% h has touched only lib/x.txt.
   */
  readonly merges: { sync: string; revert: string; intent: string };
}

export function foresightFixture(): ForesightFixture {
  const base = {
    a: lines(20, 'a'),
    b: lines(10, 'b'),
    c: lines(10, 'c'),
    d: lines(10, 'd'),
    e: lines(10, 'e'),
    x: lines(10, 'x'),
    shared: lines(20, 's'),
  };
  const repo = createRepoFixture({
    'a.txt': base.a,
    'b.txt': base.b,
    'c.txt': base.c,
    'd.txt': base.d,
    'e.txt': base.e,
    'lib/x.txt': base.x,
    'lib/shared.txt': base.shared,
  });

  const f = repo.worktree('f');
  f.write('b.txt', edit(base.b, 2, 'b two from f')).commit('f1: b');
  f.write('a.txt', edit(base.a, 5, 'a five from f')).commit('f2: a:5');
  repo.write('a.txt', edit(base.a, 5, 'a five from main')).commit('m1: a:5');
  try {
    f.git('merge', '--no-edit', '-m', 'sync main into f', 'main');
    throw new Error('the sync merge was expected to conflict');
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('the sync')) throw error;
    f.write('a.txt', edit(base.a, 5, 'a five from main'));
    f.git('add', '-A');
    f.git('commit', '--no-edit', '-q');
  }
  f.write('d.txt', edit(base.d, 3, 'd three from f')).commit('f3: d');
  // Main edits line 5 again: the final merge base is m1, so both sides change a.txt from it.
  repo.write('a.txt', edit(base.a, 5, 'a five again from main')).commit('m2: a:5 again');
  const sync = merge(repo, 'f');

  const g = repo.worktree('g');
  g.write('e.txt', edit(base.e, 4, 'e four from g')).commit('g1: e:4');
  repo.write('e.txt', edit(base.e, 4, 'e four from main')).commit('m3: e:4');
  g.git('revert', '--no-edit', 'HEAD');
  g.write('b.txt', edit(edit(base.b, 2, 'b two from f'), 8, 'b eight from g')).commit('g3: b:8');
  const revert = merge(repo, 'g');

  const h = repo.worktree('h');
  h.write('lib/x.txt', edit(base.x, 2, 'x two from h')).commit('h1: lib/x');
  h.write('lib/shared.txt', edit(base.shared, 3, 's three from h')).commit('h2: lib/shared:3');
  repo.write('lib/shared.txt', edit(base.shared, 15, 's fifteen from main')).commit('m4: lib/shared:15');
  const intent = merge(repo, 'h');
  return { repo, merges: { sync, revert, intent } };
}
