import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommitHistory, PastConflictHistory, pastConflictsService } from '../src/index.js';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});
function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'airspace-conflicts-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Merges `branch` into main with a merge commit; a conflict is resolved by writing `resolution`. */
function merge(r: RepoFixture, branch: string, resolution: Record<string, string> = {}): string {
  try {
    r.git('merge', '--no-ff', '--no-commit', branch);
  } catch {
    // conflicted: resolved below
  }
  for (const [p, text] of Object.entries(resolution)) r.write(p, text);
  r.commit(`merge ${branch}`);
  return r.head();
}

/**
 * main: CHANGELOG.md and x.ts. Branch one edits CHANGELOG.md's line while main does too (a
 * conflict, resolved); branch two edits x.ts only (clean). Returns the commits around them.
 */
function history(): { r: RepoFixture; beforeFirst: string; first: string; second: string } {
  const r = createRepoFixture({ 'CHANGELOG.md': 'v1\n', 'x.ts': 'export const x = 1;\n' });
  cleanup.push(() => r.dispose());
  const one = r.worktree('one');
  one.write('CHANGELOG.md', 'v1 feature one\n').commit('one');
  r.write('CHANGELOG.md', 'v1 fix\n').commit('fix');
  const beforeFirst = r.head();
  const first = merge(r, 'one', { 'CHANGELOG.md': 'v1 fix\nfeature one\n' });
  const two = r.worktree('two');
  two.write('x.ts', 'export const x = 2;\n').commit('two');
  r.write('CHANGELOG.md', 'v1 fix\nfeature one\nv2\n').commit('v2');
  const second = merge(r, 'two');
  return { r, beforeFirst, first, second };
}

const opts = { window: 1000, maxMerges: 100 };

describe('PastConflictHistory', () => {
  it('re-merges past merges: per path, the merges that touched it and those that conflicted in it', async () => {
    const { r } = history();
    const past = await PastConflictHistory.open(await CommitHistory.open(r.dir, { cacheDir: false }), r.dir, { cacheDir: false });
    const objectsBefore = r.git('count-objects', '-v');
    const view = (await past.viewAt('HEAD', opts))!;
    expect(view.merges).toBe(2);
    expect(view.conflicted('CHANGELOG.md')).toBe(1);
    expect(view.touched('CHANGELOG.md')).toBe(1); // the second merge brought nothing to it
    expect(view.conflicted('x.ts')).toBe(0);
    expect(view.touched('x.ts')).toBe(1);
    expect(view.touched('nowhere')).toBe(0);
    // The re-merges wrote their objects to a scratch store, never the repository's.
    expect(r.git('count-objects', '-v')).toBe(objectsBefore);
    past.dispose();
  });

  it('the recent conflict share: of the newest merges of the view, those that conflicted anywhere', async () => {
    const { r, beforeFirst, first } = history();
    const past = await PastConflictHistory.open(await CommitHistory.open(r.dir, { cacheDir: false }), r.dir, { cacheDir: false });
    // Newest first: the second merge (clean), then the first (conflicted in CHANGELOG.md).
    const head = (await past.viewAt('HEAD', opts))!;
    expect(head.recentConflictShare!(1)).toBe(0);
    expect(head.recentConflictShare!(2)).toBe(0.5);
    expect(head.recentConflictShare!(50)).toBe(0.5);
    expect((await past.viewAt(first, opts))!.recentConflictShare!(50)).toBe(1);
    // No merge known before the first: no share (not 0).
    expect((await past.viewAt(beforeFirst, opts))!.recentConflictShare!(50)).toBeUndefined();
    past.dispose();
  });

  it('never counts a merge made after the view’s commit', async () => {
    const { r, beforeFirst, first } = history();
    const past = await PastConflictHistory.open(await CommitHistory.open(r.dir, { cacheDir: false }), r.dir, { cacheDir: false });
    const before = (await past.viewAt(beforeFirst, opts))!;
    expect(before.merges).toBe(0);
    expect(before.conflicted('CHANGELOG.md')).toBe(0);
    const atFirst = (await past.viewAt(first, opts))!;
    expect(atFirst.merges).toBe(1);
    expect(atFirst.touched('x.ts')).toBe(0);
    // maxMerges keeps the newest: at HEAD with one merge, only the clean second one.
    const newest = (await past.viewAt('HEAD', { window: 1000, maxMerges: 1 }))!;
    expect(newest.merges).toBe(1);
    expect(newest.conflicted('CHANGELOG.md')).toBe(0);
    past.dispose();
  });

  it('caches each merge once by commit; an unreadable line is skipped and re-merged', async () => {
    const { r, first } = history();
    const dir = cacheDir();
    const open = async () => PastConflictHistory.open(await CommitHistory.open(r.dir, { cacheDir: false }), r.dir, { cacheDir: dir });
    const cold = await open();
    await cold.viewAt('HEAD', opts);
    cold.dispose();
    const lines = readFileSync(join(dir, 'merges.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as string[])[0]).sort()).toHaveLength(2);
    const warm = await open();
    expect(warm.size).toBe(2); // read back, nothing re-merged
    expect(warm.record(first)?.conflicted).toEqual(['CHANGELOG.md']);
    warm.dispose();
    appendFileSync(join(dir, 'merges.jsonl'), '["torn');
    const damaged = await open();
    expect(damaged.takeProblems().join(' ')).toMatch(/could not be read/);
    const view = (await damaged.viewAt('HEAD', opts))!;
    expect(view.conflicted('CHANGELOG.md')).toBe(1);
    damaged.dispose();
  });

  it('serves each agent as of its own commit', async () => {
    const { r, beforeFirst } = history();
    const past = await PastConflictHistory.open(await CommitHistory.open(r.dir, { cacheDir: false }), r.dir, { cacheDir: false });
    const commits: Record<string, string> = { early: beforeFirst, late: r.head() };
    const service = pastConflictsService(past, (a) => commits[a.id]);
    const agent = (id: string) => ({ id, label: id, files: [], committedWork: 0 }) as never;
    expect((await service.viewFor(agent('early'), opts))?.conflicted('CHANGELOG.md')).toBe(0);
    expect((await service.viewFor(agent('late'), opts))?.conflicted('CHANGELOG.md')).toBe(1);
    expect(await service.viewFor(agent('unknown'), opts)).toBeUndefined();
    past.dispose();
  });
});
