import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommitHistory, coChangeService } from '../src/index.js';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '../src/fixture.js';

const opts = { window: 1000, maxFilesPerCommit: 30 };
let n = 0;
/** One commit changing exactly these files. */
function change(c: FixtureCheckout, ...paths: string[]): string {
  n++;
  for (const p of paths) c.write(p, `edit ${n}\n`);
  c.commit(`change ${paths.join(' ')}`);
  return c.head();
}

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});
function repo(): RepoFixture {
  const r = createRepoFixture({ 'README.md': 'hello\n' });
  cleanup.push(() => r.dispose());
  return r;
}
function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'airspace-history-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
/** Everything a view says about these paths, for comparing two views. */
function describeView(
  view: { commits: number; count(p: string): number; partners(p: string, s: number): readonly unknown[] } | undefined,
  paths: readonly string[],
) {
  return { commits: view?.commits, per: paths.map((p) => ({ p, count: view?.count(p), partners: view?.partners(p, 1) })) };
}

describe('CommitHistory', () => {
  it('counts commits per file and commits per pair (support; confidence = support / count)', async () => {
    const r = repo();
    change(r, 'a.ts', 'b.ts');
    change(r, 'a.ts', 'b.ts');
    change(r, 'a.ts', 'c.py');
    change(r, 'b.ts');
    const history = await CommitHistory.open(r.dir, { cacheDir: false });
    const view = (await history.viewAt('HEAD', opts))!;
    expect(view.commits).toBe(5); // the base commit changed README.md
    expect(view.count('a.ts')).toBe(3);
    expect(view.count('b.ts')).toBe(3);
    expect(view.partners('a.ts', 2)).toEqual([{ path: 'b.ts', support: 2 }]);
    expect(view.partners('a.ts', 1)).toEqual([
      { path: 'b.ts', support: 2 },
      { path: 'c.py', support: 1 },
    ]);
    expect(view.count('nowhere.txt')).toBe(0);
    expect(view.partners('nowhere.txt', 1)).toEqual([]);
  });

  it('leaves out commits over the size limit and merge commits, which still count in the window', async () => {
    const r = repo();
    change(r, 'a.ts', 'b.ts');
    change(r, 'a.ts', 'b.ts', 'x1', 'x2', 'x3');
    const side = r.worktree('side');
    change(side, 'a.ts', 'd.ts');
    change(r, 'e.ts');
    r.git('merge', '--no-ff', '-q', '-m', 'merge side', 'side');
    const history = await CommitHistory.open(r.dir, { cacheDir: false });
    const small = (await history.viewAt('HEAD', { window: 1000, maxFilesPerCommit: 4 }))!;
    expect(small.count('a.ts')).toBe(2); // the 5-file commit is left out; the side's commit counts
    expect(small.partners('a.ts', 1)).toEqual([
      { path: 'b.ts', support: 1 },
      { path: 'd.ts', support: 1 },
    ]);
    const large = (await history.viewAt('HEAD', { window: 1000, maxFilesPerCommit: 5 }))!;
    expect(large.partners('a.ts', 2)).toEqual([{ path: 'b.ts', support: 2 }]);
    // Window of 3: the merge, e.ts and the side's commit (newest first by commit time).
    const recent = (await history.viewAt('HEAD', { window: 3, maxFilesPerCommit: 30 }))!;
    expect(recent.commits).toBe(2);
    expect(recent.count('a.ts')).toBe(1);
    expect(recent.count('e.ts')).toBe(1);
  });

  it('reads history as of a commit: only its ancestors, never a later or a sibling commit', async () => {
    const r = repo();
    change(r, 'a.ts', 'b.ts');
    const early = change(r, 'a.ts', 'b.ts');
    const side = r.worktree('side');
    change(side, 'a.ts', 'c.ts');
    change(side, 'a.ts', 'c.ts');
    change(r, 'a.ts', 'd.ts');
    change(r, 'a.ts', 'd.ts');
    const history = await CommitHistory.open(r.dir, { cacheDir: false });
    await history.ensure('side');
    await history.ensure('HEAD');
    const asOfEarly = (await history.viewAt(early, opts))!;
    expect(asOfEarly.partners('a.ts', 1)).toEqual([{ path: 'b.ts', support: 2 }]);
    const main = (await history.viewAt('main', opts))!;
    expect(main.partners('a.ts', 1).map((p) => p.path)).toEqual(['b.ts', 'd.ts']);
    const onSide = (await history.viewAt('side', opts))!;
    expect(onSide.partners('a.ts', 1).map((p) => p.path)).toEqual(['b.ts', 'c.ts']);
  });

  it('deletes other versions of the history cache once unused for two weeks, and keeps the rest', async () => {
    const r = repo();
    change(r, 'a.ts', 'b.ts');
    const root = join(r.dir, '.git', 'airspace', 'cache');
    const old = join(root, 'history-v0');
    const recent = join(root, 'history-v9');
    const other = join(root, 'facts-abc-b3');
    for (const d of [old, recent, other]) mkdirSync(d, { recursive: true });
    const longAgo = new Date(Date.now() - 15 * 24 * 60 * 60 * 1000);
    for (const d of [old, other]) utimesSync(d, longAgo, longAgo);
    const history = await CommitHistory.open(r.dir);
    await history.viewAt('HEAD', opts);
    const left = readdirSync(root);
    expect(left).not.toContain('history-v0');
    expect(left).toContain('history-v9');
    expect(left).toContain('facts-abc-b3');
    expect(left).toContain('history-v1');
  });

  it('adds commits incrementally: a cached history extended by new commits equals a cold one', async () => {
    const r = repo();
    for (let i = 0; i < 6; i++) change(r, `f${i % 3}.ts`, `g${i % 2}.ts`);
    const dir = cacheDir();
    const first = await CommitHistory.open(r.dir, { cacheDir: dir });
    await first.viewAt('HEAD', opts);
    expect(first.graph.size).toBe(7);
    change(r, 'f0.ts', 'g1.ts');
    change(r, 'f1.ts', 'new.ts');
    const warm = await CommitHistory.open(r.dir, { cacheDir: dir });
    expect(warm.graph.size).toBe(7); // read from the cache, not mined
    expect(await warm.ensure('HEAD')).toBe(2); // only the new commits
    const cold = await CommitHistory.open(r.dir, { cacheDir: false });
    const paths = ['f0.ts', 'f1.ts', 'f2.ts', 'g0.ts', 'g1.ts', 'new.ts'];
    expect(describeView(await warm.viewAt('HEAD', opts), paths)).toEqual(describeView(await cold.viewAt('HEAD', opts), paths));
    expect(readdirSync(dir).filter((f) => f.startsWith('seg-'))).toHaveLength(2);
    // A sliding window drops old commits: the 3 newest only.
    const w = { window: 3, maxFilesPerCommit: 30 };
    expect(describeView(await warm.viewAt('HEAD', w), paths)).toEqual(describeView(await cold.viewAt('HEAD', w), paths));
    expect((await warm.viewAt('HEAD', w))!.count('f0.ts')).toBe(1);
  });

  it('merges small segments as updates pile up, never rewriting the largest', async () => {
    const r = repo();
    for (let i = 0; i < 20; i++) change(r, `f${i % 4}.ts`, `g${i % 3}.ts`);
    const dir = cacheDir();
    const history = await CommitHistory.open(r.dir, { cacheDir: dir });
    await history.viewAt('HEAD', opts);
    const [largest] = readdirSync(dir);
    for (let i = 0; i < 12; i++) {
      change(r, `f${i % 4}.ts`, 'h.ts');
      await history.viewAt('HEAD', opts);
    }
    const names = readdirSync(dir).filter((f) => f.startsWith('seg-'));
    expect(names.length).toBeLessThanOrEqual(9);
    expect(names).toContain(largest);
    const paths = ['f0.ts', 'f1.ts', 'g0.ts', 'h.ts'];
    const fromCache = await CommitHistory.open(r.dir, { cacheDir: dir });
    expect(fromCache.graph.size).toBe(33);
    const cold = await CommitHistory.open(r.dir, { cacheDir: false });
    expect(describeView(await fromCache.viewAt('HEAD', opts), paths)).toEqual(describeView(await cold.viewAt('HEAD', opts), paths));
  });

  it('mines a commit’s whole window when the cache holds only a shorter one', async () => {
    const r = repo();
    for (let i = 0; i < 8; i++) change(r, 'a.ts', 'b.ts');
    const dir = cacheDir();
    await (await CommitHistory.open(r.dir, { cacheDir: dir })).viewAt('HEAD', { window: 3, maxFilesPerCommit: 30 });
    const again = await CommitHistory.open(r.dir, { cacheDir: dir });
    expect(again.graph.size).toBe(3);
    expect((await again.viewAt('HEAD', opts))!.count('a.ts')).toBe(8);
    // A whole history is not cut short at a tip of which only a window was mined.
    const whole = await CommitHistory.open(r.dir, { cacheDir: cacheDir() });
    await whole.viewAt('HEAD', { window: 3, maxFilesPerCommit: 30 });
    await whole.ensure('HEAD');
    expect(whole.graph.size).toBe(9);
  });

  it('never trusts a damaged cache: it is mined again, with a problem', async () => {
    const r = repo();
    change(r, 'a.ts', 'b.ts');
    change(r, 'a.ts', 'b.ts');
    const dir = cacheDir();
    await (await CommitHistory.open(r.dir, { cacheDir: dir })).viewAt('HEAD', opts);
    const [segment] = readdirSync(dir).filter((f) => f.startsWith('seg-'));
    const file = join(dir, segment!);
    // Same length, one count changed: only the checksum can tell.
    writeFileSync(file, readFileSync(file, 'utf8').replace('"a.ts"', '"x.ts"'));
    const damaged = await CommitHistory.open(r.dir, { cacheDir: dir });
    expect(damaged.takeProblems().join()).toMatch(/damaged.*checksum/);
    expect(damaged.graph.size).toBe(0);
    const view = (await damaged.viewAt('HEAD', opts))!;
    expect(view.partners('a.ts', 2)).toEqual([{ path: 'b.ts', support: 2 }]);
    expect(view.count('x.ts')).toBe(0);
  });

  it('serves each agent the view of its own commit', async () => {
    const r = repo();
    const one = change(r, 'a.ts', 'b.ts');
    const two = change(r, 'a.ts', 'c.ts');
    const history = await CommitHistory.open(r.dir, { cacheDir: false });
    const service = coChangeService(history, (agent) => (agent.id === 'x' ? one : agent.id === 'y' ? two : undefined));
    const agent = (id: string) => ({ id, label: id, startedAt: 0, committedWork: 0, files: [] });
    expect((await service.viewFor(agent('x'), opts))!.partners('a.ts', 1)).toEqual([{ path: 'b.ts', support: 1 }]);
    expect((await service.viewFor(agent('y'), opts))!.partners('a.ts', 1)).toHaveLength(2);
    expect(await service.viewFor(agent('z'), opts)).toBeUndefined();
  });
});
