/**
 * What a resident engine asks git before an answer when file events are counted by worktree: a
 * save in one worktree reads `git status` in that worktree only (the others keep their stamp), a
 * change no event told of is still found by the stat check and read in its worktree alone, and a
 * change of git's state (a moved HEAD, a new worktree) still reads every worktree and the list.
 * Every git process is counted through a `git` on PATH that logs where it ran and what it was asked.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type FixtureCheckout } from '@airspace/git/fixture';
import { EngineCore, scanInProcess } from '../src/questions.js';

const lines = Array.from({ length: 30 }, (_, i) => `export const a${i + 1} = ${i + 1};`);
const text = (edit: Record<number, string> = {}) => lines.map((l, i) => edit[i + 1] ?? l).join('\n') + '\n';

let shimDir: string;
let log: string;
let savedPath: string | undefined;

beforeAll(() => {
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  shimDir = mkdtempSync(join(tmpdir(), 'airspace-git-log-'));
  log = join(shimDir, 'calls.log');
  writeFileSync(log, '');
  writeFileSync(join(shimDir, 'git'), `#!/bin/sh\nprintf '%s\\t%s\\n' "$(pwd -P)" "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(shimDir, 'git'), 0o755);
  savedPath = process.env.PATH;
  process.env.PATH = `${shimDir}${delimiter}${process.env.PATH ?? ''}`;
});

afterAll(() => {
  process.env.PATH = savedPath;
  rmSync(shimDir, { recursive: true, force: true });
});

/** The git processes run since the last call: directory and arguments. */
function calls(): { dir: string; args: string }[] {
  const out = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ dir: l.slice(0, l.indexOf('\t')), args: l.slice(l.indexOf('\t') + 1) }));
  writeFileSync(log, '');
  return out;
}

/** The directories `git status` ran in, sorted. */
const statusDirs = (seen: readonly { dir: string; args: string }[]) =>
  [...new Set(seen.filter((c) => /(^| )status( |$)/.test(c.args)).map((c) => c.dir))].sort();
const listsWorktrees = (seen: readonly { dir: string; args: string }[]) => seen.some((c) => c.args.includes('worktree list'));

describe('stamps with file events counted by worktree', () => {
  it('a save reads git status in the saving worktree only; an unnoticed edit only in its own', { timeout: 120_000 }, async () => {
    const repo = createRepoFixture({ 'src/a.ts': text(), 'src/b.ts': text() }, { epoch: Math.floor(Date.now() / 1000) - 600 });
    const listed = () =>
      repo
        .git('worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree '))
        .map((l) => l.slice('worktree '.length));
    let watched = listed();
    const keyOf = (w: FixtureCheckout) => watched.find((d) => realpathSync(d) === realpathSync(w.dir))!;
    let all = 0;
    const per = new Map<string, number>();
    const saved = (w: FixtureCheckout) => per.set(keyOf(w), (per.get(keyOf(w)) ?? 0) + 1);
    const core = new EngineCore({
      commonDir: join(repo.dir, '.git'),
      resident: true,
      changes: {
        events: () => all + [...per.values()].reduce((a, b) => a + b, 0),
        counts: () => ({ all, worktrees: new Map(per) }),
        watching: () => watched,
      },
    });
    try {
      const alice = repo.worktree('alice').write('src/a.ts', text({ 5: 'export const a5 = "alice";' }));
      const bob = repo.worktree('bob').write('src/a.ts', text({ 20: 'export const a20 = "bob";' }));
      const carol = repo.worktree('carol').write('src/b.ts', text({ 3: 'export const a3 = "carol";' }));
      watched = listed();
      const pair = (result: Awaited<ReturnType<typeof scanInProcess>>) => result.links.find((l) => l.a === 'alice' && l.b === 'bob')?.level;
      expect(pair(await core.scanFor({ cwd: bob.dir }))).toBe('clear');
      const everyWorktree = [repo.dir, alice.dir, bob.dir, carol.dir].map((d) => realpathSync(d)).sort();
      expect(statusDirs(calls())).toEqual(everyWorktree);

      // alice saves onto bob's line: one file event in alice's worktree.
      alice.write('src/a.ts', text({ 5: 'export const a5 = "alice";', 20: 'export const a20 = "alice";' }));
      saved(alice);
      const afterSave = await core.scanFor({ cwd: bob.dir });
      const seen = calls();
      expect(statusDirs(seen)).toEqual([realpathSync(alice.dir)]);
      expect(listsWorktrees(seen)).toBe(false);
      expect(pair(afterSave)).toBe('resolution');
      expect(pair(afterSave)).toBe(pair(await scanInProcess({ cwd: bob.dir })));
      calls();

      // A question with no event since: nothing is asked of git.
      await core.scanFor({ cwd: bob.dir });
      expect(statusDirs(calls())).toEqual([]);

      // bob's dirty file edited again with no event (a lost watch): the stat check finds it, and
      // only bob's worktree is read again.
      bob.write('src/a.ts', text({ 25: 'export const a25 = "bob";' }));
      const unnoticed = await core.scanFor({ cwd: bob.dir });
      expect(statusDirs(calls())).toEqual([realpathSync(bob.dir)]);
      expect(pair(unnoticed)).toBe('clear');
      expect(core.stamps.missed).toBe(1);
      expect(pair(unnoticed)).toBe(pair(await scanInProcess({ cwd: bob.dir })));
      calls();
    } finally {
      await core.dispose();
      repo.dispose();
    }
  });

  it(
    'with the paths of the events, git status reads only those paths, and the answer stays a cold scan’s',
    { timeout: 120_000 },
    async () => {
      const repo = createRepoFixture({ 'src/a.ts': text(), 'src/b.ts': text() }, { epoch: Math.floor(Date.now() / 1000) - 600 });
      const listed = () =>
        repo
          .git('worktree', 'list', '--porcelain')
          .split('\n')
          .filter((l) => l.startsWith('worktree '))
          .map((l) => l.slice('worktree '.length));
      let watched = listed();
      const keyOf = (w: FixtureCheckout) => watched.find((d) => realpathSync(d) === realpathSync(w.dir))!;
      /** Per worktree, the path of each event in turn. */
      const log = new Map<string, string[]>();
      const saved = (w: FixtureCheckout, ...paths: string[]) => log.set(keyOf(w), [...(log.get(keyOf(w)) ?? []), ...paths]);
      const core = new EngineCore({
        commonDir: join(repo.dir, '.git'),
        resident: true,
        changes: {
          events: () => [...log.values()].reduce((n, l) => n + l.length, 0),
          counts: () => ({ all: 0, worktrees: new Map([...log].map(([w, l]) => [w, l.length])) }),
          pathsSince: (w, count) => (log.get(w) ?? []).slice(count),
          watching: () => watched,
        },
      });
      try {
        const alice = repo.worktree('alice').write('src/a.ts', text({ 5: 'export const a5 = "alice";' }));
        const bob = repo.worktree('bob').write('src/a.ts', text({ 20: 'export const a20 = "bob";' }));
        watched = listed();
        const levels = (r: Awaited<ReturnType<typeof scanInProcess>>) => r.links.map((l) => [l.a, l.b, l.level]);
        const agreesWithCold = async () => {
          const warm = await core.scanFor({ cwd: bob.dir });
          const seen = calls();
          expect(levels(warm)).toEqual(levels(await scanInProcess({ cwd: bob.dir })));
          calls();
          return { warm, seen };
        };
        await core.scanFor({ cwd: bob.dir });
        calls();

        // alice saves onto bob's line: status of that path in alice's worktree, nothing else.
        alice.write('src/a.ts', text({ 20: 'export const a20 = "alice";' }));
        saved(alice, 'src/a.ts');
        let { warm, seen } = await agreesWithCold();
        const statuses = seen.filter((c) => /(^| )status( |$)/.test(c.args));
        expect(statuses.map((c) => c.dir)).toEqual([realpathSync(alice.dir)]);
        expect(statuses[0]!.args).toMatch(/ -- src\/a\.ts$/);
        expect(levels(warm)).toContainEqual(['alice', 'bob', 'resolution']);

        // A new file in a new folder (the event names the folder), then alice's edit undone.
        alice.write('src/new/c.ts', 'export const c = 1;\n');
        saved(alice, 'src/new');
        ({ warm } = await agreesWithCold());
        expect(warm.agents.find((a) => a.id === 'alice')?.files.map((f) => f.path)).toContain('src/new/c.ts');
        alice.write('src/a.ts', text());
        saved(alice, 'src/a.ts');
        ({ warm } = await agreesWithCold());
        expect(warm.agents.find((a) => a.id === 'alice')?.files.map((f) => f.path)).toEqual(['src/new/c.ts']);
      } finally {
        await core.dispose();
        repo.dispose();
      }
    },
  );

  it(
    'a moved HEAD or a new worktree (an event in git’s directory) still reads every worktree and the list',
    { timeout: 120_000 },
    async () => {
      const repo = createRepoFixture({ 'src/a.ts': text() }, { epoch: Math.floor(Date.now() / 1000) - 600 });
      const listed = () =>
        repo
          .git('worktree', 'list', '--porcelain')
          .split('\n')
          .filter((l) => l.startsWith('worktree '))
          .map((l) => l.slice('worktree '.length));
      let watched = listed();
      let all = 0;
      const core = new EngineCore({
        commonDir: join(repo.dir, '.git'),
        resident: true,
        changes: { events: () => all, counts: () => ({ all, worktrees: new Map() }), watching: () => watched },
      });
      try {
        const alice = repo.worktree('alice').write('src/a.ts', text({ 5: 'export const a5 = "alice";' }));
        const bob = repo.worktree('bob').write('src/a.ts', text({ 20: 'export const a20 = "bob";' }));
        watched = listed();
        await core.scanFor({ cwd: bob.dir });
        calls();

        // bob commits: HEAD, the index and a ref move (events in git's directory).
        bob.commit('bob');
        all++;
        const afterCommit = await core.scanFor({ cwd: bob.dir });
        let seen = calls();
        expect(statusDirs(seen)).toEqual([repo.dir, alice.dir, bob.dir].map((d) => realpathSync(d)).sort());
        expect(listsWorktrees(seen)).toBe(true);
        expect(afterCommit.links.map((l) => [l.a, l.b, l.level])).toEqual(
          (await scanInProcess({ cwd: bob.dir })).links.map((l) => [l.a, l.b, l.level]),
        );
        calls();

        // A new worktree with work on bob's line.
        const dave = repo.worktree('dave').write('src/a.ts', text({ 20: 'export const a20 = "dave";' }));
        all++;
        watched = listed();
        calls();
        const withDave = await core.scanFor({ cwd: bob.dir });
        seen = calls();
        expect(statusDirs(seen)).toEqual([repo.dir, alice.dir, bob.dir, dave.dir].map((d) => realpathSync(d)).sort());
        expect(listsWorktrees(seen)).toBe(true);
        expect(withDave.agents.map((a) => a.id)).toContain('dave');
      } finally {
        await core.dispose();
        repo.dispose();
      }
    },
  );
});
