import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createChangeTracker, ignoredPath, watchTargets, watchTree, type ChangeTracker, type TrackedChange } from '../src/changes.js';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';

let tracker: ChangeTracker | undefined;
let repo: RepoFixture | undefined;
afterEach(() => {
  tracker?.close();
  tracker = undefined;
  repo?.dispose();
  repo = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('ignoredPath', () => {
  it.each([
    ['src/a.ts', false, false],
    ['objects/ab', false, false], // a user folder named objects is work
    ['node_modules/x/index.js', false, true],
    ['.git/objects/ab/cd', false, true],
    ['.git/refs/heads/main', false, true], // inside a worktree: the git directory's watcher sees it
    ['Cargo.lock', false, false], // a lock file in a worktree is work
    ['objects/ab/cd', true, true],
    ['logs/HEAD', true, true],
    ['index.lock', true, true],
    ['airspace/cache/x', true, true],
    ['worktrees/alice/index', true, false],
    ['worktrees/alice/logs/HEAD', true, true],
    ['refs/heads/alice', true, false],
    ['HEAD', true, false],
  ])('%s (git dir: %s) → ignored %s', (path, inGitDir, ignored) => {
    expect(ignoredPath(path, inGitDir)).toBe(ignored);
  });
});

describe('watchTree (one watch per directory)', () => {
  it('reports new directories and what they hold, and lets go of removed ones', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'a\n' });
    const events: string[] = [];
    const tree = watchTree(repo.dir, {
      skip: (rel) => rel === '.git',
      onEvent: (rel) => events.push(rel),
      onLost: (error) => events.push(`lost ${error.code}`),
      perDirectory: true,
    });
    try {
      const before = tree.directories();
      // Made with its content in one go (as a checkout or `mv` does): the content counts.
      mkdirSync(join(repo.dir, 'tmp-new/deep'), { recursive: true });
      writeFileSync(join(repo.dir, 'tmp-new/deep/x.ts'), 'x\n');
      renameSync(join(repo.dir, 'tmp-new'), join(repo.dir, 'lib'));
      await until('the moved-in file', () => events.includes('lib/deep/x.ts'));
      expect(tree.directories()).toBe(before + 2);
      events.length = 0;
      writeFileSync(join(repo.dir, 'lib/deep/x.ts'), 'x2\n');
      await until('an edit in it', () => events.includes('lib/deep/x.ts'));
      execFileSync('rm', ['-r', join(repo.dir, 'lib')]);
      await until('the removal', () => tree.directories() === before);
      expect(events.filter((e) => e.startsWith('lost'))).toEqual([]);
    } finally {
      tree.close();
    }
  });

  it('watches a large tree in slices: it returns before every directory is watched, and ends up watching them all', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'a\n' });
    for (let i = 0; i < 20; i++) for (let j = 0; j < 30; j++) mkdirSync(join(repo.dir, `d${i}`, `e${j}`), { recursive: true });
    const total = 1 + 1 + 20 + 20 * 30; // the root, src, d*, d*/e*
    const events: string[] = [];
    const tree = watchTree(repo.dir, {
      skip: (rel) => rel === '.git',
      onEvent: (rel) => events.push(rel),
      onLost: () => undefined,
      perDirectory: true,
      sliceMs: 0, // slices of the least number of directories, whatever the machine's speed
    });
    try {
      // The first slice is set up when watchTree returns, the rest after: the caller (the engine's event loop) goes on.
      expect(tree.directories()).toBe(256);
      await until('every directory watched', () => tree.directories() === total);
      writeFileSync(join(repo.dir, 'd19/e29/x.ts'), 'x\n');
      await until('an edit in the last directory watched', () => events.includes('d19/e29/x.ts'));
    } finally {
      tree.close();
    }
  });

  it('follows a root reached through a symbolic link', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'a\n' });
    const link = `${repo.dir}-link`;
    symlinkSync(repo.dir, link);
    const events: string[] = [];
    const tree = watchTree(link, { skip: () => false, onEvent: (rel) => events.push(rel), onLost: () => undefined, perDirectory: true });
    try {
      expect(tree.directories()).toBeGreaterThan(1);
      writeFileSync(join(repo.dir, 'src/a.ts'), 'a2\n');
      await until('the edit', () => events.includes('src/a.ts'));
    } finally {
      tree.close();
      unlinkSync(link);
    }
  });
});

describe('watchTargets', () => {
  it('lists every worktree, linked ones included, and the common git directory', async () => {
    repo = createRepoFixture({ 'a.txt': 'a\n' });
    const alice = repo.worktree('alice');
    const targets = await watchTargets(alice.dir);
    expect(targets.worktrees.map((d) => realpathSync(d)).sort()).toEqual([realpathSync(repo.dir), realpathSync(alice.dir)].sort());
    expect(realpathSync(targets.commonDir)).toBe(realpathSync(join(repo.dir, '.git')));
  });
});

describe('createChangeTracker', () => {
  const start = async (r: RepoFixture, extra: { forcePoll?: boolean; pollMs?: number } = {}): Promise<TrackedChange[]> => {
    const targets = await watchTargets(r.dir);
    const changes: TrackedChange[] = [];
    tracker = createChangeTracker({
      ...targets,
      debounceMs: 100,
      pollMs: extra.pollMs ?? 60_000,
      ...(extra.forcePoll ? { forcePoll: true } : {}),
      onChange: (c) => changes.push(c),
    });
    return changes;
  };

  it('reports a burst of edits in worktrees as one change with the paths per worktree; a commit as everything', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'a\n', 'src/b.ts': 'b\n' });
    const alice = repo.worktree('alice');
    const bob = repo.worktree('bob');
    const changes = await start(repo);
    expect(tracker!.mode()).toBe('watch');
    // What the engine relies on to trust a stamp: every worktree watched, and an event count.
    const watched = tracker!.watching().map((d) => realpathSync(d));
    for (const d of [repo.dir, alice.dir, bob.dir]) expect(watched).toContain(realpathSync(d));
    await sleep(100);
    const before = tracker!.events();
    alice.write('src/a.ts', 'a2\n').write('src/new.ts', 'n\n');
    bob.write('src/b.ts', 'b2\n');
    await until('a change', () => changes.length > 0);
    await sleep(300);
    expect(changes).toHaveLength(1);
    const change = changes[0]!;
    expect(change.all).toBe(false);
    if (change.all) return;
    const byDir = Object.fromEntries(Object.entries(change.paths).map(([dir, paths]) => [realpathSync(dir), paths]));
    expect(byDir[realpathSync(alice.dir)]).toEqual(['src/a.ts', 'src/new.ts']);
    expect(byDir[realpathSync(bob.dir)]).toEqual(['src/b.ts']);
    expect(tracker!.events()).toBeGreaterThan(before);

    changes.length = 0;
    alice.commit('alice');
    await until('the commit', () => changes.some((c) => c.all));
  });

  it("counts events by where they were: a save moves its worktree's count alone, a commit the count of everything", async () => {
    repo = createRepoFixture({ 'src/a.ts': 'a\n' });
    const alice = repo.worktree('alice');
    const bob = repo.worktree('bob');
    const changes = await start(repo);
    await sleep(100);
    const count = (dir: string) =>
      [...tracker!.eventCounts().worktrees].filter(([d]) => realpathSync(d) === realpathSync(dir)).reduce((n, [, c]) => n + c, 0);
    const before = tracker!.eventCounts();
    alice.write('src/a.ts', 'a2\n');
    await until('the save', () => changes.length > 0);
    expect(count(alice.dir)).toBeGreaterThan(0);
    expect(count(bob.dir)).toBe(0);
    expect(count(repo.dir)).toBe(0);
    expect(tracker!.eventCounts().all).toBe(before.all);
    const aliceKey = tracker!.watching().find((d) => realpathSync(d) === realpathSync(alice.dir))!;
    expect(tracker!.pathsSince(aliceKey, 0)).toEqual(['src/a.ts']);
    expect(tracker!.pathsSince(aliceKey, count(alice.dir))).toEqual([]);
    bob.commit('bob');
    await until('the commit', () => tracker!.eventCounts().all > before.all);
  });

  it('answers a save after a quiet period at once (leadingMs), and the rest of a burst once it is over', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'a\n', 'src/b.ts': 'b\n' });
    const alice = repo.worktree('alice');
    const targets = await watchTargets(repo.dir);
    const changes: { at: number; change: TrackedChange }[] = [];
    // A quiet period far longer than the wait below: only the leading answer can arrive in time.
    tracker = createChangeTracker({
      ...targets,
      debounceMs: 5000,
      leadingMs: 20,
      pollMs: 60_000,
      onChange: (change) => changes.push({ at: performance.now(), change }),
    });
    await sleep(100);
    const file = join(alice.dir, 'src/a.ts');
    const saved = performance.now();
    writeFileSync(`${file}.tmp`, 'saved\n');
    renameSync(`${file}.tmp`, file);
    await until('the save', () => changes.length > 0, 2500);
    await sleep(200);
    // The save's few events (the temporary file, the rename) are one change.
    expect(changes).toHaveLength(1);
    expect(changes[0]!.at - saved).toBeLessThan(2500);
    const first = changes[0]!.change;
    expect(first.all).toBe(false);
    if (!first.all) expect(Object.values(first.paths).flat()).toContain('src/a.ts');
    // Within the quiet period of that answer, a burst is coalesced into one trailing change.
    for (let i = 0; i < 5; i++) alice.write('src/b.ts', `b${i}\n`);
    await sleep(1000);
    expect(changes).toHaveLength(1);
    await until('the end of the burst', () => changes.length > 1, 10_000);
    await sleep(200);
    expect(changes).toHaveLength(2);
    const second = changes[1]!.change;
    if (!second.all) expect(Object.values(second.paths).flat()).toContain('src/b.ts');
  });

  it('never answers a change of git state early: a new worktree and its files come as one change', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'a\n' });
    const targets = await watchTargets(repo.dir);
    const changes: TrackedChange[] = [];
    tracker = createChangeTracker({ ...targets, debounceMs: 1500, leadingMs: 20, pollMs: 60_000, onChange: (c) => changes.push(c) });
    await sleep(100);
    // Created and edited at once: an early answer would read the worktree before its edit.
    repo.worktree('carol').write('src/a.ts', 'carol\n');
    await sleep(700);
    expect(changes).toEqual([]);
    await until('the new worktree', () => changes.length > 0, 10_000);
    expect(changes[0]!.all).toBe(true);
  });

  it('attributes a file of a worktree nested in another to the nested one only', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'a\n', '.gitignore': '.worktrees/\n' });
    repo.git('worktree', 'add', '-q', '-b', 'inner', join(repo.dir, '.worktrees', 'inner'));
    const inner = join(repo.dir, '.worktrees', 'inner');
    const changes = await start(repo);
    await sleep(100);
    repo.write('.worktrees/inner/src/a.ts', 'inner\n');
    await until('a change', () => changes.length > 0);
    await sleep(300);
    const paths = changes.flatMap((c) => (c.all ? [] : Object.entries(c.paths)));
    expect(paths.map(([dir, p]) => [realpathSync(dir), p])).toEqual([[realpathSync(inner), ['src/a.ts']]]);
  });

  it('follows a file saved by rename (an atomic save, sed -i) through its later in-place edits', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'a\n' });
    const alice = repo.worktree('alice');
    const changes = await start(repo);
    await sleep(100);
    const file = join(alice.dir, 'src/a.ts');
    const seen = async (what: string, save: () => void): Promise<void> => {
      changes.length = 0;
      save();
      await until(what, () => changes.some((c) => !c.all && Object.values(c.paths).some((p) => p.includes('src/a.ts'))));
    };
    await seen('a save by rename', () => {
      writeFileSync(`${file}.tmp`, 'renamed\n');
      renameSync(`${file}.tmp`, file);
    });
    await seen('an in-place edit after it', () => writeFileSync(file, 'in place\n'));
    await seen('sed -i', () => execFileSync('sed', ['-i', 's/in place/sed/', file]));
    await seen('a revert in place after sed -i', () => writeFileSync(file, 'a\n'));
    // A directory replaced by another of the same name is followed too.
    renameSync(join(alice.dir, 'src'), join(alice.dir, 'old-src'));
    mkdirSync(join(alice.dir, 'src'));
    await seen('a file in a replaced directory', () => writeFileSync(file, 'new dir\n'));
    await seen('an in-place edit in it', () => writeFileSync(file, 'new dir again\n'));
    expect(tracker!.lostTrack()).toBeUndefined();
  });

  it('polls, reporting only what changed: an edit with its path, a commit as everything, nothing when idle', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'a\n' });
    const alice = repo.worktree('alice');
    const changes = await start(repo, { forcePoll: true, pollMs: 100 });
    expect(tracker!.mode()).toBe('poll');
    expect(tracker!.watching()).toEqual([]);
    await sleep(400);
    expect(changes).toEqual([]);
    alice.write('src/a.ts', 'a2\n');
    await until('the edit', () => changes.length > 0);
    expect(changes[0]).toMatchObject({ all: false });
    expect(Object.values((changes[0] as Extract<TrackedChange, { all: false }>).paths)).toEqual([['src/a.ts']]);
    // A second edit of a file already changed is seen too.
    changes.length = 0;
    await sleep(50);
    alice.write('src/a.ts', 'a3, longer\n');
    await until('the second edit', () => changes.length > 0);
    changes.length = 0;
    alice.commit('alice');
    await until('the commit', () => changes.some((c) => c.all));
  });
});
