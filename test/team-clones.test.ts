/**
 * Team mode (`@airspace/git`'s team.ts) on this machine only: a bare repository as the team's remote, clones of it as the
 * teammates' machines (file URLs). Publishing and fetching must leave the clones' refs, objects,
 * index and work tree as they were.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from '@airspace/core';
import { gitEnv, loadAgents, publishAgent, TeamError, withdrawAgent, type LoadAgentsResult } from '@airspace/git';
import { createRepoFixture } from '@airspace/git/fixture';

const numbered = (n: number, prefix = 'line'): string[] => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);
const text = (lines: readonly string[]): string => lines.join('\n') + '\n';
const replaced = (lines: readonly string[], from: number, to: number, tag: string): string[] =>
  lines.map((l, i) => (i + 1 >= from && i + 1 <= to ? `${tag} ${i + 1}` : l));
function agent(agents: readonly Agent[], id: string): Agent {
  const a = agents.find((x) => x.id === id);
  if (!a) throw new Error(`no agent ${id} among ${agents.map((x) => x.id).join(', ')}`);
  return a;
}

const ENV = gitEnv({
  GIT_AUTHOR_NAME: 'T',
  GIT_AUTHOR_EMAIL: 't@example.invalid',
  GIT_COMMITTER_NAME: 'T',
  GIT_COMMITTER_EMAIL: 't@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
});
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

const base = numbered(40);
let dir: string;
let remote: string;
const loaded: LoadAgentsResult[] = [];

/** A teammate's machine: a clone of the remote on its own branch. */
function clone(name: string): string {
  const at = join(dir, name);
  // --no-local: over git's protocol, as another machine would (a local clone would hard-link every object).
  git(dir, 'clone', '-q', '--no-local', remote, at);
  git(at, 'checkout', '-q', '-b', name);
  return at;
}

/** What a user owns in a clone: refs, object count, status, index. */
function owned(at: string): string {
  return [
    git(at, 'for-each-ref'),
    git(at, 'count-objects', '-v'),
    git(at, 'status', '--porcelain=v2', '--untracked-files=all'),
    git(at, 'ls-files', '-s'),
  ].join('\n--\n');
}

async function load(at: string, sources: string[] = ['worktrees', 'published:origin'], now?: number) {
  const r = await loadAgents({ repo: at, sources: sources as never, ...(now !== undefined ? { now } : {}) });
  loaded.push(r);
  return r;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airspace-team-'));
  const seed = createRepoFixture({ 'src/a.ts': text(base), 'src/b.ts': 'export const b = 1;\n' });
  remote = join(dir, 'remote.git');
  git(dir, 'clone', '-q', '--bare', seed.dir, remote);
  seed.dispose();
});
afterEach(() => {
  for (const r of loaded.splice(0)) r.git.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('publish and published:REMOTE', () => {
  it('publishes uncommitted and untracked work with its recorded right of way, touching nothing of the user', async () => {
    const alice = clone('alice');
    writeFileSync(join(alice, 'src/a.ts'), text(replaced(base, 3, 5, 'alice')));
    git(alice, 'commit', '-qam', 'alice: a3-a5');
    writeFileSync(join(alice, 'src/a.ts'), text(replaced(replaced(base, 3, 5, 'alice'), 20, 22, 'wip')));
    writeFileSync(join(alice, 'src/new.ts'), 'export const n = 1;\n');
    const before = owned(alice);
    const published = await publishAgent({ repo: alice, intent: ['src/b.ts'] });
    expect(owned(alice)).toBe(before);
    expect(published.id).toBe('alice');
    expect(published.observation.committedWork).toBe(1 + 6); // one commit, 3 lines out and 3 in
    expect(published.observation.dirty).toBe(true);
    expect(git(remote, 'for-each-ref', '--format=%(refname)', 'refs/airspace/')).toBe('refs/airspace/agents/alice');
    // Only that ref was pushed: no branch of alice's reached the remote.
    expect(git(remote, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).toBe('refs/heads/main');

    const bob = clone('bob');
    writeFileSync(join(bob, 'src/a.ts'), text(replaced(base, 21, 21, 'bob')));
    const bobBefore = owned(bob);
    const { agents, problems } = await load(bob);
    expect(owned(bob)).toBe(bobBefore);
    expect(problems).toEqual([]);
    const a = agent(agents, 'alice');
    expect(a.meta?.['source']).toBe('published');
    expect(a.committedWork).toBe(7);
    expect(a.intent).toEqual(['src/b.ts']);
    expect(a.files.map((f) => f.path)).toEqual(['src/a.ts', 'src/new.ts']);
    const edit = a.files.find((f) => f.path === 'src/a.ts')!;
    expect(edit.baseRanges).toEqual([
      [3, 5],
      [20, 22],
    ]);
    expect(a.incomplete).toBeUndefined();
    expect(agent(agents, 'bob').meta?.['source']).toBe('worktree');
  });

  it('recognises its own publication as itself: the local worktree wins, no duplicate', async () => {
    const alice = clone('alice');
    writeFileSync(join(alice, 'src/b.ts'), 'export const b = 2;\n');
    await publishAgent({ repo: alice });
    // Also under another id: the same branch of the same clone is still itself.
    await publishAgent({ repo: alice, agent: 'alice-laptop' });
    const { agents, problems } = await load(alice);
    expect(agents.map((a) => a.id)).toEqual(['alice']);
    expect(agents[0]!.meta?.['source']).toBe('worktree');
    expect(problems).toEqual([]);
    // A teammate sees both publications.
    const bob = clone('bob');
    expect((await load(bob)).agents.map((a) => a.id)).toEqual(['alice', 'alice-laptop']);
  });

  it('lets concurrent publishers each have their own ref', async () => {
    const [alice, bob, carol] = ['alice', 'bob', 'carol'].map(clone) as [string, string, string];
    writeFileSync(join(alice, 'src/a.ts'), text(replaced(base, 1, 2, 'alice')));
    writeFileSync(join(bob, 'src/a.ts'), text(replaced(base, 30, 31, 'bob')));
    const results = await Promise.all([publishAgent({ repo: alice }), publishAgent({ repo: bob })]);
    expect(results.map((r) => r.unchanged)).toEqual([false, false]);
    const { agents } = await load(carol);
    expect(agents.map((a) => a.id).sort()).toEqual(['alice', 'bob']);
    // Two clones racing for one id: one wins, the other is refused, the remote holds the winner.
    const race = await Promise.allSettled([publishAgent({ repo: alice, agent: 'shared' }), publishAgent({ repo: bob, agent: 'shared' })]);
    const won = race.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof publishAgent>>> => r.status === 'fulfilled');
    const lost = race.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(TeamError);
    expect(git(remote, 'rev-parse', 'refs/airspace/agents/shared')).toBe(won[0]!.value.commit);
  });

  it('refuses to replace a ref someone else pushed (lease), keeping theirs', async () => {
    const alice = clone('alice');
    writeFileSync(join(alice, 'src/a.ts'), text(replaced(base, 1, 2, 'alice')));
    await publishAgent({ repo: alice });
    // Another clone force-pushes its own commit to alice's ref.
    const mallory = clone('mallory');
    writeFileSync(join(mallory, 'x.txt'), 'x\n');
    git(mallory, 'add', '-A');
    git(mallory, 'commit', '-qm', 'other');
    git(mallory, 'push', '-q', '--force', 'origin', 'HEAD:refs/airspace/agents/alice');
    const theirs = git(remote, 'rev-parse', 'refs/airspace/agents/alice');
    writeFileSync(join(alice, 'src/a.ts'), text(replaced(base, 1, 3, 'alice')));
    const error = await publishAgent({ repo: alice }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TeamError);
    expect((error as TeamError).code).toBe('LEASE_FAILED');
    expect((error as Error).message).toMatch(/not what this clone last published .*nothing was pushed/);
    expect(git(remote, 'rev-parse', 'refs/airspace/agents/alice')).toBe(theirs);
    // A first publish under an id another clone already uses fails the same way.
    const alice2 = clone('alice2');
    const taken = await publishAgent({ repo: alice2, agent: 'alice' }).catch((e: unknown) => e);
    expect((taken as TeamError).code).toBe('LEASE_FAILED');
  });

  it('withdraws its own published state, and only its own', async () => {
    const alice = clone('alice');
    writeFileSync(join(alice, 'src/b.ts'), 'export const b = 7;\n');
    expect((await withdrawAgent({ repo: alice })).withdrawn).toBeUndefined();
    const { commit } = await publishAgent({ repo: alice });
    expect((await withdrawAgent({ repo: alice })).withdrawn).toBe(commit);
    expect(git(remote, 'for-each-ref', 'refs/airspace/')).toBe('');
    // Published again, then replaced by someone else: withdrawing would delete their state, so it is refused.
    await publishAgent({ repo: alice });
    const mallory = clone('mallory');
    git(mallory, 'push', '-q', '--force', 'origin', 'HEAD:refs/airspace/agents/alice');
    const error = await withdrawAgent({ repo: alice }).catch((e: unknown) => e);
    expect((error as TeamError).code).toBe('LEASE_FAILED');
    expect(git(remote, 'rev-parse', 'refs/airspace/agents/alice')).toBe(git(mallory, 'rev-parse', 'HEAD'));
  });

  it('says clearly when the remote refuses the push', async () => {
    const hook = join(remote, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "no airspace refs here" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const alice = clone('alice');
    writeFileSync(join(alice, 'src/b.ts'), 'export const b = 3;\n');
    const error = await publishAgent({ repo: alice }).catch((e: unknown) => e);
    expect((error as TeamError).code).toBe('PUSH_REJECTED');
    expect((error as Error).message).toMatch(/refused refs\/airspace\/agents\/alice \(pre-receive hook declined: no airspace refs here\)/);
    expect(git(remote, 'for-each-ref', 'refs/airspace/')).toBe('');
  });

  it('skips an unchanged republish (watch) but not a changed one', async () => {
    const alice = clone('alice');
    writeFileSync(join(alice, 'src/b.ts'), 'export const b = 4;\n');
    const now = Date.parse('2026-06-01T10:00:00Z');
    const first = await publishAgent({ repo: alice, now, skipUnchanged: true });
    const again = await publishAgent({ repo: alice, now: now + 60_000, skipUnchanged: true });
    expect(again.unchanged).toBe(true);
    expect(again.commit).toBe(first.commit);
    writeFileSync(join(alice, 'src/b.ts'), 'export const b = 5;\n');
    const changed = await publishAgent({ repo: alice, now: now + 120_000, skipUnchanged: true });
    expect(changed.unchanged).toBe(false);
    expect(changed.previous).toBe(first.commit);
    // Half-way to expiry a quiet agent is refreshed.
    const refreshed = await publishAgent({ repo: alice, now: now + 5 * 3600_000, skipUnchanged: true });
    expect(refreshed.unchanged).toBe(false);
  });

  it('makes an expired observation unknown with the reason, never clear', async () => {
    const alice = clone('alice');
    writeFileSync(join(alice, 'src/a.ts'), text(replaced(base, 1, 2, 'alice')));
    const at = Date.now() - 3 * 3600_000;
    await publishAgent({ repo: alice, now: at, ttlMs: 3600_000 });
    const bob = clone('bob');
    writeFileSync(join(bob, 'src/b.ts'), 'export const b = 9;\n');
    const { agents } = await load(bob);
    const a = agent(agents, 'alice');
    expect(a.incomplete?.join(' ')).toMatch(/expired at .* \(published /);
  });

  it('flags a published agent whose base this clone has not fetched', async () => {
    const alice = clone('alice');
    // alice's main moved on locally (never pushed); her branch starts from it.
    git(alice, 'checkout', '-q', 'main');
    writeFileSync(join(alice, 'src/b.ts'), 'export const b = "main moved";\n');
    git(alice, 'commit', '-qam', 'main moves');
    git(alice, 'checkout', '-q', '-b', 'feature');
    writeFileSync(join(alice, 'src/a.ts'), text(replaced(base, 10, 12, 'alice')));
    await publishAgent({ repo: alice, base: 'main' });
    const bob = clone('bob');
    writeFileSync(join(bob, 'src/a.ts'), text(replaced(base, 30, 30, 'bob')));
    const { agents } = await load(bob);
    const a = agent(agents, 'feature');
    expect(a.incomplete?.join(' ')).toMatch(/its base \(main at [0-9a-f]{12} where it was published\) is not in this clone's origin\/main/);
  });

  it('compares an agent whose state was not fetched whole by its recorded paths, as unknown', async () => {
    const alice = clone('alice');
    writeFileSync(join(alice, 'src/a.ts'), text(replaced(base, 1, 2, 'alice')));
    writeFileSync(join(alice, 'src/c.ts'), 'export const c = 1;\n');
    const { observation } = await publishAgent({ repo: alice });
    const bob = clone('bob');
    writeFileSync(join(bob, 'src/a.ts'), text(replaced(base, 30, 30, 'bob')));
    await load(bob); // fetched
    // The state's tree goes missing from the team store (a damaged or pruned store).
    const store = join(bob, '.git', 'airspace', 'team.git');
    const tree = git(store, 'rev-parse', 'refs/airspace/remotes/origin/agents/alice^{tree}');
    rmSync(join(store, 'objects', tree.slice(0, 2), tree.slice(2)));
    const r = await loadAgents({ repo: bob, sources: ['worktrees', 'published:origin'], fetchIntervalMs: 60_000 });
    loaded.push(r);
    const a = agent(r.agents, 'alice');
    expect(a.incomplete?.join(' ')).toMatch(/only partly fetched \(tree [0-9a-f]{12} missing\): compared by its recorded paths only/);
    expect(a.files.map((f) => [f.path, f.baseRanges])).toEqual(observation.paths.map((p) => [p, 'whole']));
    expect(a.committedWork).toBe(observation.committedWork);
  });

  it('goes on with local agents when the remote cannot be reached, with a note', async () => {
    const alice = clone('alice');
    writeFileSync(join(alice, 'src/a.ts'), text(replaced(base, 1, 2, 'alice')));
    await publishAgent({ repo: alice });
    const bob = clone('bob');
    writeFileSync(join(bob, 'src/a.ts'), text(replaced(base, 30, 30, 'bob')));
    await load(bob); // fetched once
    git(bob, 'remote', 'set-url', 'origin', join(dir, 'gone.git'));
    const { agents, problems } = await load(bob);
    expect(problems.map((p) => p.code)).toEqual(['PUBLISHED_UNAVAILABLE']);
    expect(problems[0]!.message).toMatch(/^Could not fetch published agents from origin \(.*\); local agents go on/);
    expect(agent(agents, 'bob').incomplete).toBeUndefined();
    expect(agent(agents, 'alice').incomplete?.join(' ')).toMatch(/not refreshed: fetching from origin failed/);
    // An unknown remote name is a problem too, not a failure.
    const other = await load(bob, ['worktrees', 'published:nowhere']);
    expect(other.agents.map((a) => a.id)).toEqual(['bob']);
    expect(other.problems[0]!.message).toMatch(/No remote named "nowhere"/);
  });
});
