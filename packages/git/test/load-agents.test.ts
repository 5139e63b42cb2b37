import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';
import { loadAgents, type LoadAgentsResult } from '../src/load-agents.js';
import { hashBlob } from '../src/blob.js';
import { agent, baseConflict, file, numbered, replaced, text } from './helpers.js';

let repo: RepoFixture | undefined;
let result: LoadAgentsResult | undefined;
afterEach(() => {
  result?.git.dispose();
  result = undefined;
  repo?.dispose();
  repo = undefined;
});

const base100 = numbered(100);

describe('loadAgents: worktrees in merge-base coordinates', () => {
  it('(1)(2) compares base ranges, not new-side line numbers shifted by an insertion at the top', async () => {
    repo = createRepoFixture({ 'a.ts': text(base100) });
    const top = numbered(50, 'top');
    repo
      .worktree('alice')
      .write('a.ts', text([...top, ...replaced(base100, 10, 20, 'alice')]))
      .commit('alice edits');
    repo.worktree('bob').write('a.ts', text(replaced(base100, 15, 18, 'bob')));
    repo
      .worktree('carol')
      .write('a.ts', text(replaced(base100, 60, 70, 'carol')))
      .stage();
    result = await loadAgents({ repo: repo.dir });
    const { agents } = result;
    expect(agents.map((a) => a.id).sort()).toEqual(['alice', 'bob', 'carol']); // main has no change: not an agent
    const a = file(agent(agents, 'alice'), 'a.ts');
    const b = file(agent(agents, 'bob'), 'a.ts');
    const c = file(agent(agents, 'carol'), 'a.ts');
    expect(a.baseRanges).toEqual([
      [1, 0],
      [10, 20],
    ]);
    expect(a.newRanges).toEqual([
      [1, 50],
      [60, 70],
    ]);
    expect(b.baseRanges).toEqual([[15, 18]]);
    expect(c.baseRanges).toEqual([[60, 70]]);
    expect(baseConflict(a.baseRanges, b.baseRanges)).toBe(true); // (1) overlap
    expect(baseConflict(a.baseRanges, c.baseRanges)).toBe(false); // (2) apart in base coordinates…
    expect(baseConflict(a.newRanges, c.newRanges)).toBe(true); // …although new-side numbers coincide
    expect(a.hunks?.map((h) => h.contentId)).toHaveLength(2);
    expect(readdirSync(result.git.scratch.dir).filter((f) => f.startsWith('index'))).toEqual([]); // temporary indexes are removed
    expect(a.baseBlob).toBe(hashBlob(text(base100)));
    expect(a.newBlob).toBe(hashBlob(text([...top, ...replaced(base100, 10, 20, 'alice')])));
  });

  it('(6) counts commits, staged, unstaged and untracked work; ignored files and clean agents do not count', async () => {
    repo = createRepoFixture({ 'a.txt': text(numbered(10)), 'b.txt': 'b\n', 'c.txt': 'c\n', '.gitignore': 'build/\n' });
    const w = repo.worktree('w');
    w.write('a.txt', text(replaced(numbered(10), 2, 2, 'committed')))
      .commit('one')
      .write('d.txt', 'd\n')
      .commit('two');
    w.write('b.txt', 'staged\n').stage('b.txt');
    w.write('c.txt', 'unstaged\n');
    w.write('notes/new.md', 'untracked\n');
    w.write('build/out.js', 'ignored\n');
    repo.worktree('idle');
    result = await loadAgents({ repo: repo.dir });
    expect(result.agents.map((a) => a.id)).toEqual(['w']);
    const a = agent(result.agents, 'w');
    expect(a.files.map((f) => [f.path, f.status])).toEqual([
      ['a.txt', 'modified'],
      ['b.txt', 'modified'],
      ['c.txt', 'modified'],
      ['d.txt', 'added'],
      ['notes/new.md', 'added'],
    ]);
    expect(file(a, 'notes/new.md')).toMatchObject({ baseRanges: 'whole', newRanges: 'whole', newBlob: hashBlob('untracked\n') });
    expect(file(a, 'c.txt').newBlob).toBe(hashBlob('unstaged\n'));
    // 2 commits + 2 changed lines (a.txt: 1 deleted, 1 added) + 1 added line (d.txt).
    expect(a.committedWork).toBe(2 + 2 + 1);
    expect(a.startedAt).toBe((1767225600 + 120) * 1000); // author time of the first commit after the base
    expect(a.base).toBe(repo.head());
    expect(a.repository).toBe(result.repository.id);
    expect(a.meta).toMatchObject({ source: 'worktree', ref: 'refs/heads/w', dirty: true, commits: 2 });
  });

  it('weights committed work by commit time and keeps uncommitted work current (weight 1)', async () => {
    repo = createRepoFixture({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const w = repo.worktree('w').write('a.txt', 'a2\n').commit('a'); // committed at epoch + 120 s
    w.write('b.txt', 'b2\n').touch('b.txt', 1767225600 + 3600);
    const day = 24 * 3600 * 1000;
    const now = (1767225600 + 120) * 1000 + day; // a.txt committed one day ago, b.txt saved a bit later
    result = await loadAgents({ repo: repo.dir, now, recency: { halfLifeMs: day, floor: 0.1 } });
    const a = agent(result.agents, 'w');
    expect(file(a, 'b.txt').lastEditedAt).toBe((1767225600 + 3600) * 1000);
    expect(file(a, 'b.txt').weight).toBe(1);
    expect(file(a, 'a.txt').lastEditedAt).toBe((1767225600 + 120) * 1000);
    expect(file(a, 'a.txt').weight).toBeCloseTo(0.5, 6);
    // Thirty days later with nothing changed: the uncommitted edit is still current, the commit at the floor.
    const later = await loadAgents({ repo: repo.dir, now: now + 30 * day, recency: { halfLifeMs: day, floor: 0.1 }, git: result.git });
    expect(file(agent(later.agents, 'w'), 'b.txt').weight).toBe(1);
    expect(file(agent(later.agents, 'w'), 'a.txt').weight).toBe(0.1);
    // With the default grace period, committed work of the last day is current too.
    const graced = await loadAgents({ repo: repo.dir, now: now - day / 2, git: result.git });
    expect(file(agent(graced.agents, 'w'), 'a.txt').weight).toBe(1);
  });

  it('reports deleted, renamed, binary and symlink changes; a mode change alone is not an edit', async () => {
    repo = createRepoFixture({
      'gone.txt': 'bye\n',
      'old/name.ts': text(numbered(30)),
      'img.bin': Buffer.from([0, 1, 2, 3]),
      'run.sh': 'echo\n',
    });
    const w = repo.worktree('w');
    w.remove('gone.txt');
    w.remove('old/name.ts').write('new/name.ts', text(replaced(numbered(30), 5, 5, 'renamed')));
    w.write('img.bin', Buffer.from([0, 9, 9, 3]));
    w.git('update-index', '--chmod=+x', 'run.sh');
    execFileSync('ln', ['-s', 'run.sh', join(w.dir, 'link')]);
    result = await loadAgents({ repo: repo.dir });
    const a = agent(result.agents, 'w');
    expect(a.files.map((f) => f.path)).toEqual(['gone.txt', 'img.bin', 'link', 'new/name.ts']);
    expect(file(a, 'gone.txt')).toMatchObject({ status: 'deleted', baseRanges: 'whole' });
    expect(file(a, 'gone.txt').newBlob).toBeUndefined();
    expect(file(a, 'new/name.ts')).toMatchObject({ status: 'renamed', oldPath: 'old/name.ts', baseRanges: [[5, 5]], newRanges: [[5, 5]] });
    expect(file(a, 'img.bin')).toMatchObject({ status: 'modified', binary: true, baseRanges: 'whole', newRanges: 'whole' });
    expect(file(a, 'link')).toMatchObject({ status: 'added', newBlob: hashBlob('run.sh') });
  });

  it('treats a submodule as one whole-file entry', async () => {
    repo = createRepoFixture({ 'a.txt': 'a\n' });
    const w = repo.worktree('w');
    const lib = join(w.dir, 'vendor/lib');
    execFileSync('git', ['init', '-q', lib]);
    execFileSync('git', ['-C', lib, '-c', 'user.name=x', '-c', 'user.email=x@x', 'commit', '-q', '--allow-empty', '-m', 'lib']);
    w.commit('add submodule');
    result = await loadAgents({ repo: repo.dir });
    expect(file(agent(result.agents, 'w'), 'vendor/lib')).toMatchObject({ status: 'added', baseRanges: 'whole', newRanges: 'whole' });
  });

  it('keeps paths with spaces, quotes, tabs, newlines and non-ASCII intact', async () => {
    const names = ['with space.txt', 'quote"d.txt', 'tab\there.txt', 'new\nline.txt', 'ünïcødé/日本.txt', "it's.txt"];
    repo = createRepoFixture(Object.fromEntries(names.map((n) => [n, text(numbered(5))])));
    const w = repo.worktree('w');
    for (const n of names) w.write(n, text(replaced(numbered(5), 3, 3, 'x')));
    w.write('untracked \t"ü".txt', 'u\n');
    result = await loadAgents({ repo: repo.dir });
    const a = agent(result.agents, 'w');
    expect(a.files.map((f) => f.path).sort()).toEqual([...names, 'untracked \t"ü".txt'].sort());
    for (const n of names) expect(file(a, n).baseRanges).toEqual([[3, 3]]);
  });

  it('names a detached worktree after its folder', async () => {
    repo = createRepoFixture({ 'a.txt': 'a\n' });
    const d = repo.worktree('loose', { detach: true });
    d.write('a.txt', 'b\n').commit('detached work');
    result = await loadAgents({ repo: d.dir });
    const a = agent(result.agents, 'loose');
    expect(a.meta).toMatchObject({ detached: true });
    expect(a.committedWork).toBe(1 + 2);
  });

  it('diffs an unsaved editor buffer instead of the file on disk', async () => {
    repo = createRepoFixture({ 'a.ts': text(base100) });
    const w = repo.worktree('w');
    w.write('a.ts', text(replaced(base100, 40, 41, 'disk')));
    const buffer = text(replaced(base100, 7, 7, 'buffer'));
    result = await loadAgents({ repo: repo.dir, overrides: { [w.dir]: { 'a.ts': buffer, 'fresh.ts': 'new\n' } }, now: 5 });
    const a = agent(result.agents, 'w');
    expect(file(a, 'a.ts')).toMatchObject({ baseRanges: [[7, 7]], newBlob: hashBlob(buffer), lastEditedAt: 5 });
    expect(file(a, 'fresh.ts')).toMatchObject({ status: 'added', newBlob: hashBlob('new\n') });
    expect(w.git('status', '--porcelain')).toBe('M a.ts'); // the buffer never reached the disk or index
    // An editor re-reads only its own worktree.
    repo.worktree('other').write('a.ts', 'other\n');
    const mine = await loadAgents({ repo: repo.dir, only: [w.dir], git: result.git });
    expect(mine.agents.map((x) => x.id)).toEqual(['w']);
  });

  it('treats files over the size limit as whole-file changes and says so', async () => {
    repo = createRepoFixture({ 'big.txt': text(numbered(400)), 'small.txt': 'a\n' });
    const w = repo.worktree('w');
    w.write('big.txt', text(replaced(numbered(400), 3, 3, 'x')));
    w.write('huge-untracked.txt', 'x'.repeat(5000));
    w.write('small.txt', 'b\n');
    result = await loadAgents({ repo: repo.dir, maxFileBytes: 1000 });
    const a = agent(result.agents, 'w');
    expect(file(a, 'big.txt')).toMatchObject({ baseRanges: 'whole', newRanges: 'whole' });
    expect(file(a, 'big.txt').binary).toBeUndefined();
    expect(file(a, 'huge-untracked.txt')).toMatchObject({ status: 'added', baseRanges: 'whole' });
    expect(file(a, 'small.txt').baseRanges).toEqual([[1, 1]]);
    expect(result.problems.map((p) => [p.code, p.path]).sort()).toEqual([
      ['FILE_TOO_LARGE', 'big.txt'],
      ['FILE_TOO_LARGE', 'huge-untracked.txt'],
    ]);
  });
});

describe('loadAgents: bases and errors', () => {
  it('fails clearly outside a repository and on an unknown base', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-norepo-'));
    try {
      await expect(loadAgents({ repo: dir })).rejects.toMatchObject({ code: 'NOT_A_REPOSITORY', message: expect.stringContaining(dir) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    repo = createRepoFixture({ 'a.txt': 'a\n' });
    await expect(loadAgents({ repo: repo.dir, base: 'no-such-branch' })).rejects.toMatchObject({
      code: 'UNKNOWN_BASE',
      message: expect.stringContaining('"no-such-branch"'),
    });
  });

  it('tells a repository with no commits so, instead of asking for a base it cannot have', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-nocommits-'));
    try {
      execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
      for (const base of [undefined, 'main'])
        await expect(loadAgents({ repo: dir, ...(base ? { base } : {}) })).rejects.toMatchObject({
          code: 'UNKNOWN_BASE',
          message: expect.stringMatching(/^This repository has no commits yet/),
        });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('defaults to main, then master; an explicit base and a per-agent base are honoured', async () => {
    repo = createRepoFixture({ 'a.txt': text(numbered(10)) }, { branch: 'master' });
    const w = repo
      .worktree('w')
      .write('a.txt', text(replaced(numbered(10), 2, 2, 'w')))
      .commit('w');
    repo.worktree('v', { from: 'w' }).write('a.txt', text(replaced(replaced(numbered(10), 2, 2, 'w'), 9, 9, 'v')));
    result = await loadAgents({ repo: repo.dir });
    expect(result.base.ref).toBe('master');
    expect(file(agent(result.agents, 'v'), 'a.txt').baseRanges).toEqual([
      [2, 2],
      [9, 9],
    ]);
    const onW = await loadAgents({ repo: repo.dir, base: 'w', git: result.git });
    expect(onW.base).toEqual({ ref: 'w', commit: w.head() });
    expect(file(agent(onW.agents, 'v'), 'a.txt').baseRanges).toEqual([[9, 9]]);
    const perAgent = await loadAgents({ repo: repo.dir, baseOverrides: { v: 'w', w: 'nope' }, git: result.git });
    expect(file(agent(perAgent.agents, 'v'), 'a.txt').baseRanges).toEqual([[9, 9]]);
    expect(perAgent.agents.map((a) => a.id)).toEqual(['v']);
    expect(perAgent.problems).toContainEqual(expect.objectContaining({ code: 'UNKNOWN_BASE', agent: 'w' }));
  });

  it('marks an agent whose merge base is missing in a shallow clone: whole files, file level only', async () => {
    repo = createRepoFixture({ 'a.txt': text(numbered(10)) });
    repo.git('branch', 'feature');
    repo.write('a.txt', text(replaced(numbered(10), 1, 1, 'main'))).commit('main moves');
    repo.git('checkout', '-q', 'feature');
    repo.write('a.txt', text(replaced(numbered(10), 9, 9, 'feature'))).commit('feature work');
    repo.git('checkout', '-q', 'main');
    const parent = mkdtempSync(join(tmpdir(), 'airspace-shallow-'));
    try {
      const clone = join(parent, 'clone');
      execFileSync('git', ['clone', '-q', '--depth', '1', '--no-single-branch', `file://${repo.dir}`, clone]);
      result = await loadAgents({ repo: clone, sources: 'remote:origin/feature' });
      expect(result.base.ref).toBe('origin/main');
      const a = agent(result.agents, 'origin/feature');
      expect(a.files).toEqual([expect.objectContaining({ path: 'a.txt', baseRanges: 'whole', newRanges: 'whole' })]);
      expect(a.incomplete?.[0]).toContain('file-level only');
      expect(a.meta).toMatchObject({ fileLevelOnly: true, mergeBase: null });
      expect(result.problems).toContainEqual(expect.objectContaining({ code: 'MISSING_MERGE_BASE', agent: 'origin/feature' }));
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe('loadAgents: damaged repositories', () => {
  it('degrades to whole files when a blob is missing, instead of losing the agent', async () => {
    repo = createRepoFixture({ 'a.txt': text(numbered(10)), 'b.txt': 'b\n' });
    const lost = repo.git('rev-parse', 'HEAD:a.txt');
    repo
      .worktree('w')
      .write('a.txt', text(replaced(numbered(10), 3, 3, 'w')))
      .commit('w')
      .write('b.txt', 'c\n');
    // git may read a blob from a work tree file that is stat-clean in the index: leave no copy.
    repo.write('a.txt', 'main edits it too\n');
    rmSync(join(repo.dir, '.git', 'objects', lost.slice(0, 2), lost.slice(2)));
    await new Promise((r) => setTimeout(r, 1100)); // past the racy second: stat data is trusted
    result = await loadAgents({ repo: repo.dir });
    const a = agent(result.agents, 'w');
    expect(a.files.map((f) => [f.path, f.baseRanges])).toEqual([
      ['a.txt', 'whole'],
      ['b.txt', 'whole'],
    ]);
    expect(a.meta).toMatchObject({ fileLevelOnly: true, commits: 1 });
    expect(a.incomplete?.[0]).toContain('file-level only');
    expect(result.problems).toContainEqual(expect.objectContaining({ code: 'DIFF_FAILED', agent: 'w' }));
  });
});

describe('loadAgents: other sources', () => {
  it('reads local branches and remote-tracking branches matching a pattern', async () => {
    repo = createRepoFixture({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    repo.git('branch', 'agent/x');
    repo.worktree('y').write('b.txt', 'y\n').commit('y').write('b.txt', 'uncommitted\n');
    repo.git('update-ref', 'refs/remotes/origin/agent/x', repo.head());
    repo.git('checkout', '-q', 'agent/x');
    repo.write('a.txt', 'x\n').commit('x');
    repo.git('update-ref', 'refs/remotes/origin/agent/x', 'agent/x');
    repo.git('update-ref', 'refs/remotes/origin/other', 'agent/x');
    repo.git('checkout', '-q', 'main');
    result = await loadAgents({ repo: repo.dir, sources: 'branches' });
    expect(result.agents.map((a) => a.id).sort()).toEqual(['agent/x', 'y']);
    expect(file(agent(result.agents, 'y'), 'b.txt').newBlob).toBe(hashBlob('y\n')); // branches: committed state only
    const remote = await loadAgents({ repo: repo.dir, sources: 'remote:origin/agent/*', git: result.git });
    expect(remote.agents.map((a) => [a.id, a.meta?.source])).toEqual([['origin/agent/x', 'remote']]);
  });

  it('an agent in two sources keeps its richer state whatever their order: the worktree over the branch', async () => {
    repo = createRepoFixture({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    repo.worktree('y').write('b.txt', 'y\n').commit('y').write('b.txt', 'uncommitted\n');
    repo.git('branch', 'z');
    const states = [];
    for (const sources of [
      ['branches', 'worktrees'],
      ['worktrees', 'branches'],
    ] as const) {
      const loaded = await loadAgents({ repo: repo.dir, sources: [...sources], ...(result ? { git: result.git } : {}) });
      result ??= loaded;
      const y = agent(loaded.agents, 'y');
      expect(y.worktree, sources.join(' ')).toBeDefined();
      expect(file(y, 'b.txt').newBlob, sources.join(' ')).toBe(hashBlob('uncommitted\n'));
      // main is a worktree and a branch too, but without work: not an agent, so no news.
      expect(loaded.problems.filter((p) => p.code === 'DUPLICATE_AGENT').map((p) => p.agent)).toEqual(['y']);
      const duplicate = loaded.problems.find((p) => p.code === 'DUPLICATE_AGENT' && p.agent === 'y');
      expect(duplicate?.message).toMatch(
        /^Agent "y" appears as a (worktree and as a branch|branch and as a worktree); the worktree .* \(uncommitted work included\) was kept\.$/,
      );
      states.push(loaded.agents.map((a) => [a.id, a.worktree ?? null, a.files.map((f) => f.newBlob)]).sort());
    }
    expect(states[0]).toEqual(states[1]);

    // An orchestrator's observation of that worktree (with its intent) is richer still, in either order.
    const observations = JSON.stringify({
      version: 1,
      agents: [{ id: 'y', worktree: agent(result!.agents, 'y').worktree, intent: ['a.txt'] }],
    });
    for (const sources of [
      [{ observations }, 'worktrees'],
      ['worktrees', { observations }],
    ] as const) {
      const loaded = await loadAgents({ repo: repo.dir, sources: [...sources], git: result!.git });
      expect(agent(loaded.agents, 'y')).toMatchObject({ intent: ['a.txt'], meta: { source: 'observation' } });
      expect(file(agent(loaded.agents, 'y'), 'b.txt').newBlob).toBe(hashBlob('uncommitted\n'));
      expect(loaded.problems.find((p) => p.code === 'DUPLICATE_AGENT')?.message).toMatch(/the observation of the worktree .* was kept\.$/);
    }
  });

  it('keeps an agent with no changes yet only when it declared intent', async () => {
    repo = createRepoFixture({ 'a.txt': 'a\n' });
    const idle = repo.worktree('idle');
    const planned = repo.worktree('planned');
    const told = repo.worktree('told');
    const observations = {
      version: 1,
      agents: [
        { id: 'idle', worktree: idle.dir },
        { id: 'planned', worktree: planned.dir, intent: ['a.txt'] },
      ],
    };
    result = await loadAgents({ repo: repo.dir, sources: [{ observations }, 'worktrees'], declaring: [told.dir] });
    expect(result.agents.map((a) => a.id)).toEqual(['planned', 'told']);
    expect(agent(result.agents, 'planned')).toMatchObject({ files: [], intent: ['a.txt'], worktree: planned.dir, committedWork: 0 });
    expect(agent(result.agents, 'told')).toMatchObject({ files: [], worktree: told.dir });
  });

  it("reads an orchestrator's JSON observations and rejects malformed ones clearly", async () => {
    repo = createRepoFixture({ 'a.txt': 'a\n' });
    const w = repo.worktree('w').write('a.txt', 'w\n');
    repo.git('branch', 'r');
    repo.git('checkout', '-q', 'r');
    repo.write('a.txt', 'r\n').commit('r');
    repo.git('checkout', '-q', 'main');
    const observations = JSON.stringify({
      version: 1,
      agents: [
        { id: 'agent-1', label: 'Task 12', worktree: w.dir, startedAt: '2026-01-01T10:00:00Z', intent: ['a.txt'] },
        { id: 'agent-2', ref: 'r' },
      ],
    });
    result = await loadAgents({ repo: repo.dir, sources: { observations } });
    expect(result.agents.map((a) => [a.id, a.label, a.meta?.source])).toEqual([
      ['agent-1', 'Task 12', 'observation'],
      ['agent-2', 'agent-2', 'observation'],
    ]);
    expect(agent(result.agents, 'agent-1')).toMatchObject({
      startedAt: Date.parse('2026-01-01T10:00:00Z'),
      intent: ['a.txt'],
      worktree: w.dir,
    });
    await expect(
      loadAgents({ repo: repo.dir, sources: { observations: '{"agents": [{"id": "x"}]}' }, git: result.git }),
    ).rejects.toMatchObject({
      code: 'INVALID_OBSERVATIONS',
      message: expect.stringContaining('agents[0] ("x") needs exactly one of "worktree"'),
    });
    await expect(loadAgents({ repo: repo.dir, sources: { observations: '{not json' }, git: result.git })).rejects.toMatchObject({
      code: 'INVALID_OBSERVATIONS',
    });
    await expect(
      loadAgents({
        repo: repo.dir,
        sources: {
          observations: [
            { id: 'a', ref: 'r' },
            { id: 'a', ref: 'r' },
          ],
        },
        git: result.git,
      }),
    ).rejects.toThrow(/used twice/);
  });
});
