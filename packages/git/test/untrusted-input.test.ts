/**
 * Input from outside this process never runs a command and never names a path outside the work
 * tree: option-shaped refs, URLs and patterns are refused before git runs (`gitOperand`), and a
 * teammate's published tree, paths and intent, or an orchestrator's observations, that lead out
 * of the work tree are left out with a problem (`unsafeRepoPath`), the rest of the scan kept.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';
import {
  gitOperand,
  loadAgents,
  observationMessage,
  parseObservationMessage,
  parseSourceSpec,
  publishAgent,
  remoteCandidates,
  resolveCommit,
  unsafeRepoPath,
  type PublishedObservation,
} from '../src/index.js';

describe('unsafeRepoPath: the one rule for paths from outside', () => {
  it.each(['src/a.ts', 'a..b/c', '..foo', '.gitignore', '.github/workflows/ci.yml', 'x/.git-keep', 'src/with space.ts'])(
    'accepts %j',
    (path) => expect(unsafeRepoPath(path)).toBeUndefined(),
  );
  it.each([
    ['', /empty/],
    ['../etc/passwd', /leads outside/],
    ['src/../../etc/passwd', /leads outside/],
    ['./src/a.ts', /"\." component/],
    ['a\\..\\..\\b', /leads outside/],
    ['/etc/shadow', /absolute/],
    ['C:\\Windows\\x', /absolute/],
    ['.git/config', /\.git/],
    ['sub/.GIT/hooks/pre-commit', /\.git/],
    ['.g\u200cit/config', /\.git/],
    ['.git./config', /\.git/],
    ['GIT~1/config', /\.git/],
    ['a//b', /empty component/],
    ['a\0b', /NUL/],
  ])('refuses %j', (path, why) => expect(unsafeRepoPath(path)).toMatch(why));
});

describe('gitOperand: no option injection', () => {
  it('refuses a value git would read as an option, with a code and one sentence', () => {
    expect(gitOperand('origin', 'remote')).toBe('origin');
    expect(() => gitOperand('--upload-pack=touch x', 'remote')).toThrow(
      expect.objectContaining({ code: 'OPTION_LIKE_ARGUMENT', message: expect.stringMatching(/^Refused remote .*nothing was run\.$/) }),
    );
  });
});

const now = Date.parse('2026-06-01T10:00:00.000Z');
let repo: RepoFixture;
const MARK = 'MARK';
/** Shaped as in the report: runs `touch MARK` in the repository when git reads it as an option. */
const HOSTILE = [`--upload-pack=touch ${MARK} @x:`, `--receive-pack=touch ${MARK} @x:`, `-ooops`, `--output=${MARK}`];

beforeAll(() => {
  repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n' });
  repo.worktree('alice').write('src/a.ts', 'export const a = 2;\n');
});
afterAll(() => repo?.dispose());

/** git with standard input, in the repository (the fixture's `git` sends none). */
const gitIn = (args: string[], input: string | Buffer): string =>
  execFileSync('git', args, {
    cwd: repo.dir,
    input,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 'm', GIT_AUTHOR_EMAIL: 'm@x', GIT_COMMITTER_NAME: 'm', GIT_COMMITTER_EMAIL: 'm@x' },
  });

describe('option-shaped values from the command line or a config file', () => {
  const marked = (): boolean => existsSync(join(repo.dir, MARK)) || existsSync(join(repo.dir + '-wt', 'alice', MARK));

  it.each(HOSTILE)('refuses %j as a source, a remote, a push URL, a base and a ref pattern; nothing runs', async (value) => {
    expect(() => parseSourceSpec(`published:${value}`, repo.dir)).toThrow(expect.objectContaining({ code: 'OPTION_LIKE_ARGUMENT' }));
    expect(() => parseSourceSpec(`remote:${value}`, repo.dir)).toThrow(expect.objectContaining({ code: 'OPTION_LIKE_ARGUMENT' }));
    // A typed source that never went through the parser (the API, a config's object).
    const published = await loadAgents({ repo: repo.dir, sources: [`published:${value}`], now });
    expect(published.problems.map((p) => p.message).join('\n')).toMatch(/Refused remote .*nothing was run/);
    await expect(remoteCandidates(repo.dir, value)).rejects.toMatchObject({ code: 'OPTION_LIKE_ARGUMENT' });
    await expect(publishAgent({ repo: join(repo.dir + '-wt', 'alice'), remote: value, now })).rejects.toMatchObject({
      code: 'OPTION_LIKE_ARGUMENT',
    });
    await expect(loadAgents({ repo: repo.dir, base: value, now })).rejects.toMatchObject({ code: 'UNKNOWN_BASE' });
    expect(await resolveCommit(repo.dir, value)).toBeUndefined();
    expect(marked()).toBe(false);
  });

  it('refuses a configured remote whose URL is option-shaped, on fetch and on push; nothing runs', async () => {
    repo.git('remote', 'add', 'evil', 'placeholder');
    repo.git('config', 'remote.evil.url', HOSTILE[0]!);
    try {
      const loaded = await loadAgents({ repo: repo.dir, sources: ['published:evil'], now });
      expect(loaded.problems.map((p) => p.message).join('\n')).toMatch(/Refused the URL of remote "evil"/);
      await expect(publishAgent({ repo: join(repo.dir + '-wt', 'alice'), remote: 'evil', now })).rejects.toMatchObject({
        code: 'OPTION_LIKE_ARGUMENT',
      });
      expect(marked()).toBe(false);
    } finally {
      repo.git('remote', 'remove', 'evil');
    }
  });

  it('refuses a published intent that leads outside the work tree before anything is pushed', async () => {
    for (const intent of ['../../etc/passwd', '/etc/shadow', '.git/config'])
      await expect(publishAgent({ repo: join(repo.dir + '-wt', 'alice'), remote: repo.dir, intent: [intent], now })).rejects.toMatchObject({
        code: 'BAD_INTENT',
      });
  });
});

describe("a teammate's hostile publication and hostile observations", () => {
  it('an observation whose base or merge base is not a commit id is unreadable', () => {
    const o = {
      airspace: 1,
      id: 'm',
      label: 'm',
      clone: 'c',
      base: { ref: 'main', commit: 'a'.repeat(40) },
      committedWork: 0,
      commits: 0,
      changedLines: 0,
      startedAt: '2026-06-01T09:00:00.000Z',
      publishedAt: '2026-06-01T09:00:00.000Z',
      expiresAt: '2026-06-01T18:00:00.000Z',
      dirty: true,
      paths: [],
    } satisfies PublishedObservation;
    expect(parseObservationMessage(observationMessage(o)).observation).toBeDefined();
    expect(parseObservationMessage(observationMessage({ ...o, mergeBase: '--output=x' })).error).toMatch(/not a commit id/);
    expect(parseObservationMessage(observationMessage({ ...o, base: { ref: 'main', commit: '-x' } })).error).toMatch(/not a commit id/);
  });

  it("leaves out a published tree's `..` and `.git` entries and intent outside the work tree, keeping its real change", async () => {
    const head = repo.git('rev-parse', 'HEAD').trim();
    const hash = (text: string): string => gitIn(['hash-object', '-w', '--stdin'], text).trim();
    const tree = (lines: string[]): string => gitIn(['mktree'], lines.join('\n') + '\n').trim();
    const passwd = tree([`100644 blob ${hash('root:x:0:0\n')}\tpasswd`]);
    const etc = tree([`040000 tree ${passwd}\tetc`]);
    const src = tree([
      `100644 blob ${hash('export const a = 9;\n')}\ta.ts`,
      `100644 blob ${repo.git('rev-parse', 'HEAD:src/b.ts').trim()}\tb.ts`,
    ]);
    const state = tree([`040000 tree ${etc}\t..`, `040000 tree ${passwd}\t.git`, `040000 tree ${src}\tsrc`]);
    const observation: PublishedObservation = {
      airspace: 1,
      id: 'mallory',
      label: 'mallory',
      clone: 'someone-else',
      head,
      base: { ref: 'main', commit: head },
      mergeBase: head,
      committedWork: 0,
      commits: 0,
      changedLines: 0,
      startedAt: new Date(now - 60_000).toISOString(),
      publishedAt: new Date(now - 60_000).toISOString(),
      expiresAt: new Date(now + 3_600_000).toISOString(),
      intent: ['../../etc/passwd', '/etc/shadow', 'src/b.ts'],
      dirty: true,
      paths: ['../etc/passwd', 'src/a.ts'],
    };
    const commit = gitIn(['commit-tree', state, '-p', head], observationMessage(observation)).trim();
    repo.git('update-ref', 'refs/airspace/agents/mallory', commit);
    try {
      const loaded = await loadAgents({ repo: repo.dir, sources: ['worktrees', `published:${repo.dir}`], now });
      const mallory = loaded.agents.find((a) => a.id === 'mallory');
      expect(mallory).toBeDefined();
      expect(mallory!.files.map((f) => f.path)).toEqual(['src/a.ts']);
      expect(mallory!.intent).toEqual(['src/b.ts']);
      expect(mallory!.incomplete?.join(' ')).toMatch(/outside the work tree/);
      const unsafe = loaded.problems.filter((p) => p.code === 'UNSAFE_PATH').map((p) => p.path);
      expect(unsafe).toEqual(expect.arrayContaining(['../etc/passwd', '.git/passwd', '../../etc/passwd', '/etc/shadow']));
      expect(loaded.agents.map((a) => a.id).sort()).toEqual(['alice', 'mallory']);
      // The tree's entries themselves, as git fsck names them.
      expect(loaded.problems.filter((p) => p.code === 'UNSAFE_PATH').map((p) => p.path)).toEqual(expect.arrayContaining(['..', '.git']));
      expect(mallory!.incomplete?.join(' ')).toMatch(/entries git fsck refuses/);
    } finally {
      repo.git('update-ref', '-d', 'refs/airspace/agents/mallory');
    }
  });

  it('names a published tree entry with a "/" in its name, which no path shows', async () => {
    const head = repo.git('rev-parse', 'HEAD').trim();
    const blob = gitIn(['hash-object', '-w', '--stdin'], 'export const evil = 1;\n').trim();
    const src = repo.git('rev-parse', 'HEAD:src').trim();
    const raw = Buffer.concat([
      Buffer.from('40000 src\0'),
      Buffer.from(src, 'hex'),
      Buffer.from('100644 src/evil.ts\0'),
      Buffer.from(blob, 'hex'),
    ]);
    const tree = gitIn(['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], raw).trim();
    const observation: PublishedObservation = {
      airspace: 1,
      id: 'slash',
      label: 'slash',
      clone: 'someone-else',
      head,
      base: { ref: 'main', commit: head },
      mergeBase: head,
      committedWork: 0,
      commits: 0,
      changedLines: 0,
      startedAt: new Date(now - 60_000).toISOString(),
      publishedAt: new Date(now - 60_000).toISOString(),
      expiresAt: new Date(now + 3_600_000).toISOString(),
      dirty: true,
      paths: ['src/evil.ts'],
    };
    const commit = gitIn(['commit-tree', tree, '-p', head], observationMessage(observation)).trim();
    repo.git('update-ref', 'refs/airspace/agents/slash', commit);
    try {
      const loaded = await loadAgents({ repo: repo.dir, sources: [`published:${repo.dir}`], now });
      expect(loaded.agents.find((a) => a.id === 'slash')?.incomplete?.join(' ')).toMatch(/entries git fsck refuses \("src\/evil\.ts"\)/);
      expect(loaded.problems).toContainEqual(expect.objectContaining({ code: 'UNSAFE_PATH', path: 'src/evil.ts' }));
    } finally {
      repo.git('update-ref', '-d', 'refs/airspace/agents/slash');
    }
  });

  it('leaves out observation intent outside the work tree', async () => {
    const file = join(repo.dir + '-wt', 'obs.json');
    writeFileSync(
      file,
      JSON.stringify({ version: 1, agents: [{ id: 'orc', ref: 'main', intent: ['../../etc/passwd', '/etc/shadow', './src/b.ts'] }] }),
    );
    const loaded = await loadAgents({ repo: repo.dir, sources: [parseSourceSpec(`json:${file}`)], now });
    const orc = loaded.agents.find((a) => a.id === 'orc');
    expect(orc?.intent).toEqual(['src/b.ts']);
    expect(loaded.problems.filter((p) => p.code === 'UNSAFE_PATH').map((p) => p.path)).toEqual(['../../etc/passwd', '/etc/shadow']);
  });
});
