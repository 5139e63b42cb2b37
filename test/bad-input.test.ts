/**
 * The bad-input matrix: hostile and unlucky input across the CLI, config, observations, the facts
 * cache, git states and the trail. For every case it checks the exit code, that the message is
 * one sentence naming the problem (no stack trace), that the output is still valid (JSON parses
 * with --json), and that nothing in the user's repository changed (`repoFingerprint`).
 *
 * Speed: cases run in-process through the CLI's `run(argv, io)` and share repositories where
 * they only read them; only what needs a real process (a closed stdout, git missing from PATH)
 * spawns the built CLI. Repositories are generated here; nothing is fetched.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { run, type Io } from '@airspace/cli';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { repoFingerprint } from './fingerprint.js';
import { airspace, ENV, type Run } from './run-cli.js';

// ---------------------------------------------------------------------------------------------
// Repositories (generated, shared by the cases that only read them)

const lines = (n: number, tag = 'line'): string =>
  Array.from({ length: n }, (_, i) => `export const ${tag}${i + 1} = ${i + 1};`).join('\n') + '\n';
const BASE = {
  'src/a.ts': lines(30, 'a'),
  'src/b.ts': "import { a1 } from './a';\nexport const b = a1;\n",
  'src/with space.ts': 'export const s = 1;\n',
  'src/ünïcødé.ts': 'export const u = 1;\n',
  'src/-dash.ts': 'export const d = 1;\n',
  'src/odd\u001b[2Jname\n.ts': "import { a1 } from './a';\nexport const o = a1;\n",
  'assets/logo.bin': Buffer.from([0, 1, 2, 3, 0, 255, 0, 7]),
  'docs/notes.md': '# notes\n',
};
const edit = (from: number, to: number, tag: string): string =>
  BASE['src/a.ts']
    .split('\n')
    .map((line, i) => (i + 1 >= from && i + 1 <= to ? `${line} // ${tag}` : line))
    .join('\n');

let scratch: string;
/** Worktrees alice (committed + uncommitted) and bob (uncommitted) collide; odd names, binary, huge and symlinked files; a detached worktree. */
let main: RepoFixture;
/** git states that could make a whole scan fail: corrupt index, a lock, a merge in progress, a deleted worktree, an unborn branch. */
let messy: RepoFixture;
/** The facts cache is damaged here between cases. */
let cached: RepoFixture;
/** A committed airspace.config.json that does not parse. */
let badConfig: RepoFixture;
let shallow: string;
let empty: string;
let trunkOnly: RepoFixture;
let notRepo: string;
let aFile: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_AUTHOR_DATE: '1700000000 +0000', GIT_COMMITTER_DATE: '1700000000 +0000' },
  });
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'airspace-bad-input-'));
  const epoch = Math.floor(Date.now() / 1000) - 600;

  main = createRepoFixture(BASE, { epoch });
  main
    .worktree('alice')
    .write('src/a.ts', edit(5, 9, 'alice'))
    .commit('alice: a5-a9')
    .write('src/with space.ts', 'export const s = 2;\n');
  main
    .worktree('bob')
    .write('src/a.ts', edit(7, 8, 'bob'))
    .write('src/ünïcødé.ts', 'export const u = 2;\n')
    .write('assets/logo.bin', Buffer.from([0, 9, 9, 9, 0]));
  const carol = main
    .worktree('carol')
    .write('src/-dash.ts', 'export const d = 3;\n')
    .write('big/huge.ts', `export const big = "${'x'.repeat(3 << 20)}";\n`);
  symlinkSync('../src/a.ts', join(carol.dir, 'docs', 'link.ts'));
  // A stash entry: the fingerprint covers it, and no scan may drop or apply it.
  main.write('docs/notes.md', '# notes\n\nstashed\n');
  main.git('stash', 'push', '-q', '-m', 'keep me');
  const det = main.worktree('det').write('docs/notes.md', '# notes\n\ndetached\n').commit('det');
  git(det.dir, 'checkout', '-q', '--detach');

  messy = createRepoFixture(BASE, { epoch });
  const corrupt = messy.worktree('corrupt').write('src/a.ts', edit(1, 2, 'corrupt'));
  writeFileSync(git(corrupt.dir, 'rev-parse', '--absolute-git-dir').trim() + '/index', 'DIRC this is not an index');
  const locked = messy.worktree('locked').write('src/a.ts', edit(3, 4, 'locked'));
  writeFileSync(git(locked.dir, 'rev-parse', '--absolute-git-dir').trim() + '/index.lock', '');
  const merging = messy.worktree('merging').write('src/b.ts', 'export const b = 2;\n').commit('merging: b');
  const side = messy.worktree('side').write('src/b.ts', 'export const b = 3;\n').commit('side: b');
  try {
    git(merging.dir, 'merge', '--no-edit', '-q', 'side');
  } catch {
    // the conflict is the point: a merge in progress, conflict markers in the work tree
  }
  void side;
  const gone = messy.worktree('gone').write('docs/notes.md', 'gone\n');
  rmSync(gone.dir, { recursive: true, force: true });
  const unborn = messy.worktree('unborn');
  git(unborn.dir, 'checkout', '-q', '--orphan', 'unborn-branch');
  writeFileSync(join(unborn.dir, 'src', 'new.ts'), 'export const n = 1;\n');

  cached = createRepoFixture(BASE, { epoch });
  cached.worktree('alice').write('src/a.ts', edit(5, 9, 'alice'));
  cached.worktree('bob').write('src/a.ts', edit(7, 8, 'bob'));

  badConfig = createRepoFixture({ ...BASE, 'airspace.config.json': '{ "channels": { ' }, { epoch });
  badConfig.worktree('alice').write('src/a.ts', edit(5, 9, 'alice'));

  // A shallow clone: the agent branches' merge base with main is cut off.
  const deep = createRepoFixture(BASE, { epoch });
  for (let i = 0; i < 3; i++) deep.write('docs/notes.md', `# notes ${i}\n`).commit(`main ${i}`);
  deep.git('checkout', '-q', '-b', 'agent', 'HEAD~3');
  for (let i = 0; i < 3; i++) deep.write('src/a.ts', edit(1, i + 1, `agent${i}`)).commit(`agent ${i}`);
  deep.git('checkout', '-q', 'main');
  shallow = join(scratch, 'shallow');
  execFileSync('git', ['clone', '-q', '--depth', '1', '--no-single-branch', `file://${deep.dir}`, shallow]);
  git(shallow, 'branch', '-q', 'agent', 'origin/agent');
  deep.dispose();

  empty = join(scratch, 'empty');
  mkdirSync(empty);
  git(empty, 'init', '-q', '-b', 'main');

  trunkOnly = createRepoFixture(BASE, { epoch });
  trunkOnly.worktree('alice').write('src/a.ts', edit(5, 9, 'alice'));
  trunkOnly.git('branch', '-m', 'main', 'trunk');

  notRepo = join(scratch, 'not-a-repo');
  mkdirSync(notRepo);
  aFile = join(scratch, 'a-file.txt');
  writeFileSync(aFile, 'x\n');

  // Config, calibration, observations and trail files live outside every repository.
  const put = (name: string, value: unknown): void => {
    mkdirSync(dirname(join(scratch, name)), { recursive: true });
    writeFileSync(join(scratch, name), typeof value === 'string' ? value : JSON.stringify(value));
  };
  put('config/broken.json', '{ "channels": ');
  put('config/not-object.json', '[1, 2]');
  put('config/unknown-channel.json', { channels: { 'no-such-channel': { weight: 0.5 } } });
  put('config/bad-weight.json', { channels: { overlap: { weight: 'heavy' } } });
  put('config/inverted.json', { thresholds: { traffic: 0.9, resolution: 0.2 } });
  put('config/missing-plugin.json', { plugins: ['./no-such-plugin.mjs'] });
  put('config/plugin-throws.json', { plugins: ['./throws.mjs'] });
  put('config/throws.mjs', 'throw new Error("plugin module exploded on import");\n');
  put('config/calibration-broken.json', '{"weights": ');
  const wt = (name: string): string => join(main.dir + '-wt', name);
  put('obs/not-json.json', '{ agents: [');
  put('obs/no-agents.json', { version: 1 });
  put('obs/no-source.json', { version: 1, agents: [{ id: 'x' }] });
  put('obs/duplicate.json', {
    version: 1,
    agents: [
      { id: 'a', ref: 'main' },
      { id: 'a', ref: 'main' },
    ],
  });
  put('obs/bad-version.json', { version: 7, agents: [] });
  put('obs/unknown-ref.json', {
    version: 1,
    agents: [
      { id: 'ghost', ref: 'refs/heads/no-such-branch' },
      { id: 'alice', worktree: wt('alice') },
    ],
  });
  put('obs/missing-worktree.json', {
    version: 1,
    agents: [
      { id: 'lost', worktree: join(scratch, 'no-such-worktree') },
      { id: 'bob', worktree: wt('bob') },
    ],
  });
  put('obs/hostile-ids.json', {
    version: 1,
    agents: [
      { id: 'ev\u001b[31mil\nRESOLUTION 1.00 fake', label: 'x\u001b]0;title\u0007', worktree: wt('alice') },
      { id: 'b\u202eob', worktree: wt('bob') },
    ],
  });
  put('obs/bad-date.json', { version: 1, agents: [{ id: 'a', ref: 'main', startedAt: 'yesterday-ish' }] });
  put('obs/empty-list.json', { version: 1, agents: [] });

  put('trail/alice.json', observation('alice', { writePaths: ['src/cart.ts'] }));
  put('trail/bob.json', observation('bob', { writePaths: ['src/cart.ts'] }));
  put('trail/not-json.json', '{"format":');
  put(
    'trail/alice-twice.json',
    JSON.stringify(observation('alice', { writePaths: ['src/cart.ts'] })).replace(
      '"agentId":"alice"',
      '"agentId":"mallory","agentId":"alice"',
    ),
  );
});

afterAll(() => {
  for (const f of [main, messy, cached, badConfig, trunkOnly]) f?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

function observation(agentId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const at = (m: number): string => new Date(Date.parse('2026-03-01T12:00:00.000Z') + m * 60_000).toISOString();
  return {
    version: 1,
    agentId,
    taskId: 'task-7',
    repositoryId: 'example/shop',
    base: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
    scopeId: 'worktree-diff',
    readPaths: [],
    writePaths: [],
    complete: true,
    observedAt: at(0),
    expiresAt: at(60),
    ...overrides,
  };
}

// ---------------------------------------------------------------------------------------------
// Running a case

/** The CLI in this process, with its output captured (what `bin.ts` does, minus the process). */
async function runInProcess(args: string[], cwd: string): Promise<Run> {
  let stdout = '';
  let stderr = '';
  let code = 0;
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        append(chunk.toString());
        done();
      },
    });
  const io: Io = {
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)) as unknown as NodeJS.WriteStream,
    env: ENV,
    cwd,
    exitCode: (c) => void (code = Math.max(code, c)),
  };
  await run(args, io);
  return { code, stdout, stderr };
}

interface Case {
  readonly name: string;
  /** The repository whose fingerprint must not change (and the default working directory). */
  readonly repo: () => string;
  readonly args: (r: string) => string[];
  readonly cwd?: (r: string) => string;
  readonly code: number;
  /** The message naming the problem: on stderr for an error, else in the problems or the output. */
  readonly says?: RegExp;
  /** Something the output must (or, with `not`, must not) hold. */
  readonly output?: RegExp;
  readonly not?: RegExp;
  /** Needs a real process: a closed stdout, another environment. */
  readonly child?: { readonly closeStdout?: boolean; readonly env?: NodeJS.ProcessEnv };
  /** Runs before the case (e.g. damaging the cache); must not touch what the fingerprint covers. */
  readonly before?: (r: string) => void | Promise<void>;
  /** Checked after the case. */
  readonly after?: (r: string, out: Run) => void;
}

/** What a terminal would obey: control characters other than our own line breaks, and bidi overrides. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const R = {
  main: () => main.dir,
  messy: () => messy.dir,
  cached: () => cached.dir,
  badConfig: () => badConfig.dir,
  shallow: () => shallow,
  empty: () => empty,
  trunk: () => trunkOnly.dir,
};
const s = (name: string): string => join(scratch, name);
const wtOf = (r: string, name: string): string => join(`${r}-wt`, name);

const cacheRoot = (repo: string): string => join(repo, '.git', 'airspace', 'cache');

/**
 * The facts cache of `repo` emptied and filled again by a scan, so a cache case damages a cache in
 * a known state whichever cases ran before it (or none: a case run alone with `-t`).
 */
async function refillCache(repo: string): Promise<void> {
  rmSync(cacheRoot(repo), { recursive: true, force: true });
  const out = await runInProcess(['scan', '--repo', repo, '--json'], repo);
  if (out.code !== 0) throw new Error(`the scan filling the facts cache exited ${out.code}: ${out.stderr}`);
}

/** The facts cache files of `repo` that `which` selects, refilled, then replaced by `bytes` or deleted. */
async function damageCacheFiles(
  repo: string,
  which: (name: string) => boolean,
  bytes: Buffer | 'delete' | ((b: Buffer) => Buffer),
): Promise<void> {
  await refillCache(repo);
  const root = cacheRoot(repo);
  let damaged = 0;
  for (const version of readdirSync(root).filter((d) => d.startsWith('facts-'))) {
    for (const name of readdirSync(join(root, version)).filter(which)) {
      const file = join(root, version, name);
      if (bytes === 'delete') rmSync(file);
      else writeFileSync(file, typeof bytes === 'function' ? bytes(readFileSync(file)) : bytes);
      damaged++;
    }
  }
  // A case that damaged nothing would test a clean cache under a misleading name.
  if (damaged === 0) throw new Error(`no facts cache file of ${repo} to damage`);
}
/** Every segment body (or head) of the refilled facts cache of `repo`, damaged by `damage`. */
const damageCache = (repo: string, suffix: '.body' | '.head.json', damage: (b: Buffer) => Buffer): Promise<void> =>
  damageCacheFiles(repo, (n) => n.endsWith(suffix), damage);

/** The CLI is started by its absolute path; with this PATH it finds no git. */
const GIT_MISSING_ENV = { ...ENV, PATH: '/nonexistent-airspace-bin' };

const BIN_JS = join(dirname(new URL(import.meta.url).pathname), '../packages/cli/dist/bin.js');
/** A valid trail file made by the built CLI. */
function createTrail(name: string): string {
  execFileSync(
    process.execPath,
    [
      BIN_JS,
      'trail',
      'create',
      s(name),
      '--a',
      s('trail/alice.json'),
      '--b',
      s('trail/bob.json'),
      '--now',
      '2026-03-01T12:01:00.000Z',
      '--trail-id',
      't',
      '--event-id',
      'e',
    ],
    { env: ENV, stdio: 'ignore' },
  );
  return s(name);
}

const CASES: Case[] = [
  // --- CLI: flags and arguments -------------------------------------------------------------
  {
    name: 'unknown option',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--frobnicate'],
    code: 1,
    says: /unknown option '--frobnicate'/,
  },
  { name: 'unknown command', repo: R.main, args: () => ['frobnicate'], code: 1, says: /unknown command 'frobnicate'/ },
  {
    name: '--fail-on with a bad level',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--fail-on', 'sometimes'],
    code: 1,
    says: /argument 'sometimes' is invalid.*traffic, resolution/,
  },
  { name: "--base ''", repo: R.main, args: (r) => ['scan', '--repo', r, '--base', ''], code: 1, says: /^--base was given an empty value/ },
  { name: "--repo ''", repo: R.main, args: () => ['scan', '--repo', ''], code: 1, says: /^--repo was given an empty value/ },
  {
    name: "--source ''",
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', ''],
    code: 1,
    says: /^--source was given an empty value/,
  },
  {
    name: "--config ''",
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--config', ''],
    code: 1,
    says: /^--config was given an empty value/,
  },
  {
    name: 'unknown base',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--base', 'no-such-ref'],
    code: 1,
    says: /^Unknown base "no-such-ref"/,
  },
  {
    name: 'base beyond the history',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--base', 'main~99'],
    code: 1,
    says: /^Unknown base "main~99"/,
  },
  {
    name: 'base that looks like an option',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--base=--all'],
    code: 1,
    says: /^Unknown base "--all"/,
  },
  {
    name: 'unknown source',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', 'somewhere'],
    code: 1,
    says: /^Unknown agent source "somewhere"/,
  },
  {
    name: 'missing --repo folder',
    repo: R.main,
    args: () => ['scan', '--repo', s('no/such/folder')],
    code: 1,
    says: /no\/such\/folder does not exist\.$/,
  },
  {
    name: '--repo names a file',
    repo: R.main,
    args: () => ['scan', '--repo', aFile],
    code: 1,
    says: /a-file\.txt is a file, not a folder inside a git repository\.$/,
  },
  {
    name: '--repo outside any repository',
    repo: R.main,
    args: () => ['scan', '--repo', notRepo],
    code: 1,
    says: /not-a-repo is not inside a git repository\.$/,
  },
  {
    name: 'graph of a missing folder',
    repo: R.main,
    args: () => ['graph', '--repo', s('nowhere')],
    code: 1,
    says: /nowhere does not exist\.$/,
  },
  { name: 'watch --interval 0', repo: R.main, args: (r) => ['watch', '--repo', r, '--interval', '0'], code: 1, says: /--interval/ },
  {
    name: 'view --port out of range',
    repo: R.main,
    args: (r) => ['view', '--repo', r, '--port', '99999'],
    code: 1,
    says: /^--port must be a port number/,
  },
  {
    name: 'view --out into a missing folder',
    repo: R.main,
    args: (r) => ['view', '--repo', r, '--out', s('no-dir/view.html')],
    code: 1,
    says: /no-dir does not exist\.$/,
  },
  {
    name: 'view --out onto a folder',
    repo: R.main,
    args: (r) => ['view', '--repo', r, '--out', scratch],
    code: 1,
    says: /is a folder; give a file name/,
  },
  {
    name: 'view --out writes one page',
    repo: R.main,
    args: (r) => ['view', '--repo', r, '--out', s('view.html')],
    code: 0,
    output: /^Wrote .*view\.html \(4 agents, 1 resolution/,
    after: () => expect(readFileSync(s('view.html'), 'utf8')).toMatch(/^<!doctype html>/i),
  },
  {
    name: 'demo --dir into a missing folder creates nothing',
    repo: R.main,
    args: () => ['demo', '--dir', s('demo-parent/deeper')],
    code: 1,
    says: /demo-parent\/deeper does not exist; create it first/,
    after: () => expect(readdirSync(scratch)).not.toContain('demo-parent'),
  },

  // --- team mode ------------------------------------------------------------------------------
  {
    name: 'published: with no such remote',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--json', '--source', 'worktrees', '--source', 'published:origin'],
    code: 0,
    says: /No remote named "origin" in this repository .*published agents were left out\./,
  },
  {
    name: "published: with no remote's name",
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', 'published:'],
    code: 1,
    says: /^Unknown agent source "published:"; expected .*published:<remote>/,
  },
  {
    name: 'publish with no such remote',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['publish', '--remote', 'nowhere'],
    code: 1,
    says: /^No remote named "nowhere" in this repository/,
  },
  {
    name: 'publish an id git cannot name',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['publish', '--agent', 'a..b'],
    code: 1,
    says: /^"a\.\.b" cannot be part of a git ref name; give another agent id/,
  },
  {
    name: 'publish --ttl 0',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['publish', '--ttl', '0'],
    code: 1,
    says: /^--ttl must be a positive number of hours/,
  },
  {
    name: 'publish outside any repository',
    repo: R.main,
    cwd: () => notRepo,
    args: () => ['publish'],
    code: 1,
    says: /not-a-repo is not inside a git repository\.$/,
  },
  {
    name: 'order --exact-limit 0',
    repo: R.main,
    args: (r) => ['order', '--repo', r, '--exact-limit', '0'],
    code: 1,
    says: /^--exact-limit must be a positive whole number/,
  },
  { name: 'order of the colliding worktrees', repo: R.main, args: (r) => ['order', '--repo', r, '--json'], code: 0, output: /"order": \[/ },

  // --- check ----------------------------------------------------------------------------------
  {
    name: 'check .',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', '.'],
    code: 1,
    says: /^\. is a directory; check takes the file about to be edited\.$/,
  },
  {
    name: "check ''",
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', ''],
    code: 1,
    says: /^check needs the path of a file, got an empty one\.$/,
  },
  {
    name: 'check a folder',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src'],
    code: 1,
    says: /^src is a directory/,
  },
  {
    name: 'check --agent nobody',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/a.ts', '--agent', 'nobody'],
    code: 1,
    says: /^No agent "nobody" in this repository; known agents: alice, bob, carol, .*main\.$/,
  },
  {
    name: "check --agent ''",
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/a.ts', '--agent', ''],
    code: 1,
    says: /^--agent needs an agent id/,
  },
  {
    name: 'check --agent another agent',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/a.ts', '--agent', 'bob', '--json'],
    code: 2,
    output: /"agent": "bob"/,
  },
  {
    name: 'check a file that does not exist yet',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/brand-new.ts'],
    code: 0,
    output: /^src\/brand-new\.ts does not exist yet: checking alice creating it\.\nCLEAR {2}src\/brand-new\.ts \(new file\)/,
  },
  {
    name: 'check from a worktree with no work yet names it by its branch',
    repo: R.main,
    args: () => ['check', 'src/brand-new.ts'],
    code: 0,
    output: /^src\/brand-new\.ts does not exist yet: checking main creating it\.$/m,
  },
  {
    name: 'check a new file, as JSON',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/brand-new.ts', '--json'],
    code: 0,
    output: /"new": true/,
  },
  {
    name: 'check --lines on a new file',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/brand-new.ts', '--lines', '3'],
    code: 1,
    says: /does not exist, so it has no lines 3 yet/,
  },
  {
    name: 'check PATH:A-B reads the lines from the path',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/a.ts:7-8', '--json'],
    code: 2,
    output: /"path": "src\/a\.ts",\s*"lines": \[\s*7,\s*8\s*\]/,
  },
  {
    name: 'check PATH:N on a new file',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/brand-new.ts:3'],
    code: 1,
    says: /^src\/brand-new\.ts does not exist, so it has no lines 3 yet; give src\/brand-new\.ts alone to check creating it\.$/,
  },
  {
    name: 'check PATH:A-B with --lines too',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/a.ts:2-3', '--lines', '4'],
    code: 1,
    says: /^src\/a\.ts:2-3 names its lines, and lines 4 were given too; give them once\.$/,
  },
  {
    name: 'check PATH:backwards',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/a.ts:9-3'],
    code: 1,
    says: /^src\/a\.ts:9-3: lines are 1-based and the end may not come before the start\.$/,
  },
  {
    name: 'check --lines 0',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/a.ts', '--lines', '0'],
    code: 1,
    says: /^--lines 0: lines are 1-based/,
  },
  {
    name: 'check --lines backwards',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/a.ts', '--lines', '9-3'],
    code: 1,
    says: /may not come before the start/,
  },
  {
    name: 'check --lines nonsense',
    repo: R.main,
    cwd: (r) => wtOf(r, 'alice'),
    args: () => ['check', 'src/a.ts', '--lines', 'ten'],
    code: 1,
    says: /^--lines must look like 12 or 12-18, got "ten"\.$/,
  },
  {
    name: 'check inside .git',
    repo: R.main,
    args: () => ['check', '.git/config'],
    code: 1,
    says: /^\.git\/config is inside a git directory, not a work tree\.$/,
  },
  {
    name: 'check outside any repository',
    repo: R.main,
    cwd: () => notRepo,
    args: () => ['check', 'x.ts'],
    code: 1,
    says: /x\.ts is not inside a git repository\.$/,
  },
  {
    name: 'check the colliding lines',
    repo: R.main,
    cwd: (r) => wtOf(r, 'bob'),
    args: () => ['check', 'src/a.ts', '--lines', '7-8', '--json'],
    code: 2,
    output: /"level": "resolution"/,
  },

  // --- config ---------------------------------------------------------------------------------
  {
    name: 'missing --config file',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--config', s('config/none.json')],
    code: 1,
    says: /none\.json does not exist/,
  },
  {
    name: 'broken --config JSON',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--config', s('config/broken.json')],
    code: 1,
    says: /^Could not read .*broken\.json/,
  },
  {
    name: 'config that is not an object',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--json', '--config', s('config/not-object.json')],
    code: 0,
    says: /not-object\.json .*object/,
  },
  {
    name: 'config with an unknown channel',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--json', '--config', s('config/unknown-channel.json')],
    code: 0,
    says: /no-such-channel/,
  },
  {
    name: 'config with a weight that is not a number',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--json', '--config', s('config/bad-weight.json')],
    code: 0,
    says: /weight/,
  },
  {
    name: 'config with inverted thresholds',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--json', '--config', s('config/inverted.json')],
    code: 0,
    says: /threshold/i,
  },
  {
    name: 'config naming a missing plugin',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--json', '--config', s('config/missing-plugin.json')],
    code: 0,
    says: /no-such-plugin\.mjs/,
  },
  {
    name: 'config with a plugin that throws on import',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--json', '--config', s('config/plugin-throws.json')],
    code: 0,
    says: /plugin module exploded on import/,
  },
  {
    name: 'broken --calibration',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--calibration', s('config/calibration-broken.json')],
    code: 1,
    says: /calibration-broken\.json/,
  },
  // Found rather than named: the scan goes on with the defaults and says so (a named --config that does not read is an error).
  {
    name: 'broken airspace.config.json at the root',
    repo: R.badConfig,
    args: (r) => ['scan', '--repo', r, '--json'],
    code: 0,
    says: /^Could not read .*airspace\.config\.json: .*; using defaults\.$/,
  },

  // --- observations JSON ------------------------------------------------------------------------
  {
    name: 'observations that are not JSON',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', 'json:' + s('obs/not-json.json')],
    code: 1,
    says: /^Invalid agent observations: not JSON/,
  },
  {
    name: 'observations without agents',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', 'json:' + s('obs/no-agents.json')],
    code: 1,
    says: /^Invalid agent observations: expected an object with an "agents" array/,
  },
  {
    name: 'an observed agent with neither worktree nor ref',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', 'json:' + s('obs/no-source.json')],
    code: 1,
    says: /needs exactly one of "worktree" .* or "ref"/,
  },
  {
    name: 'an observed id used twice',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', 'json:' + s('obs/duplicate.json')],
    code: 1,
    says: /\.id "a" is used twice/,
  },
  {
    name: 'observations of another version',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', 'json:' + s('obs/bad-version.json')],
    code: 1,
    says: /unsupported version 7/,
  },
  {
    name: 'an observed startedAt that is not a date',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', 'json:' + s('obs/bad-date.json')],
    code: 1,
    says: /startedAt must be an ISO date/,
  },
  {
    name: 'observations file that does not exist',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', `json:${s('obs/none.json')}`],
    code: 1,
    says: /cannot read .*none\.json/,
  },
  {
    name: 'observations file named without json:',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', s('obs/empty-list.json')],
    code: 1,
    says: /; to read agent observations from that file, write json:.*empty-list\.json\.$/,
  },
  {
    name: 'an observed ref that does not exist',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--json', '--source', 'json:' + s('obs/unknown-ref.json')],
    code: 0,
    says: /no-such-branch does not name a commit; the agent was left out/,
  },
  {
    name: 'an observed worktree that does not exist',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--json', '--source', 'json:' + s('obs/missing-worktree.json')],
    code: 0,
    says: /no-such-worktree/,
  },
  {
    name: 'no observed agents',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', 'json:' + s('obs/empty-list.json')],
    code: 0,
    output: /^0 agents, 0 pairs/m,
  },
  {
    name: 'escape sequences and newlines in observed ids and labels',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--source', 'json:' + s('obs/hostile-ids.json')],
    code: 0,
    output: /^RESOLUTION +1\.00 +100% +b\\u202eob ↔ ev\\x1b\[31mil\\nRESOLUTION 1\.00 fake/m,
    not: CONTROL,
  },
  {
    name: 'the same, as JSON (escaped by JSON itself)',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--json', '--source', 'json:' + s('obs/hostile-ids.json')],
    code: 0,
    output: /"ev\\u001b\[31mil\\nRESOLUTION 1\.00 fake"/,
  },
  {
    name: 'branches and worktrees in either order keep uncommitted work',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--json', '--source', 'branches', '--source', 'worktrees'],
    code: 0,
    says: /^Agent "alice" appears as a worktree and as a branch; the worktree .* \(uncommitted work included\) was kept\.$/,
  },

  // --- git states -------------------------------------------------------------------------------
  {
    name: 'odd paths, binary, huge and symlinked files, a detached worktree',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--json', '--all'],
    code: 0,
    says: /big\/huge\.ts/,
    output: /"id": "det"/,
  },
  {
    name: 'the same as a table',
    repo: R.main,
    args: (r) => ['scan', '--repo', r],
    code: 0,
    output: /^RESOLUTION +\d\.\d\d +(\d+|<1|>99)% +alice ↔ bob/m,
    not: CONTROL,
  },
  {
    name: '--fail-on resolution',
    repo: R.main,
    args: (r) => ['scan', '--repo', r, '--fail-on', 'resolution'],
    code: 2,
    output: /1 resolution/,
  },
  {
    name: 'graph of odd file names',
    repo: R.main,
    args: (r) => ['graph', '--repo', r, '--json'],
    code: 0,
    output: /"src\/with space\.ts"/,
  },
  {
    name: 'graph of odd file names, as text',
    repo: R.main,
    args: (r) => ['graph', '--repo', r],
    code: 0,
    output: /^src\/odd\\x1b\[2Jname\\n\.ts\n {2}→ src\/a\.ts$/m,
    not: CONTROL,
  },
  {
    name: 'a shallow clone',
    repo: R.shallow,
    args: (r) => ['scan', '--repo', r, '--json', '--source', 'branches'],
    code: 0,
    says: /^No merge base between agent and origin\/main .*shallow clone/,
  },
  {
    name: 'a repository without commits',
    repo: R.empty,
    args: (r) => ['scan', '--repo', r],
    code: 1,
    says: /^This repository has no commits yet, so there is no base/,
  },
  {
    name: 'no default branch (trunk only)',
    repo: R.trunk,
    args: (r) => ['scan', '--repo', r],
    code: 1,
    says: /^No base given and no default branch found \(tried origin\/HEAD, main, master\); pass a base ref/,
  },
  {
    name: 'the same with --base trunk',
    repo: R.trunk,
    args: (r) => ['scan', '--repo', r, '--base', 'trunk', '--json'],
    code: 0,
    output: /"id": "alice"/,
  },
  {
    name: 'corrupt index, index.lock, merge in progress, deleted and unborn worktrees',
    repo: R.messy,
    args: (r) => ['scan', '--repo', r, '--json'],
    code: 0,
    says: /^Could not read corrupt's working set; it was left out: its index \/.*\/index is damaged \(index file smaller than expected\); git status in \/.*corrupt reports the same\.$/,
    output: /"id": "locked"/,
  },
  { name: 'the same as a table', repo: R.messy, args: (r) => ['scan', '--repo', r], code: 0, output: /agents, \d+ pairs/ },
  // The unborn branch adds every file of its work tree: a collision with any of them.
  {
    name: 'check from the worktree with a corrupt index',
    repo: R.messy,
    cwd: (r) => wtOf(r, 'corrupt'),
    args: () => ['check', 'src/a.ts', '--json'],
    code: 2,
    output: /"with": "unborn-branch"/,
  },
  {
    name: 'check on a file with a merge conflict',
    repo: R.messy,
    cwd: (r) => wtOf(r, 'merging'),
    args: () => ['check', 'src/b.ts', '--json'],
    code: 2,
    output: /"with": "side"/,
  },
  {
    name: '--repo inside the .git directory',
    repo: R.main,
    args: (r) => ['scan', '--repo', join(r, '.git'), '--json'],
    code: 0,
    output: /"id": "alice"/,
  },

  // --- the facts cache ----------------------------------------------------------------------------
  {
    name: 'a clean cache (first scan fills it)',
    repo: R.cached,
    before: (r) => rmSync(cacheRoot(r), { recursive: true, force: true }),
    args: (r) => ['scan', '--repo', r, '--json'],
    code: 0,
    output: /"level": "resolution"/,
  },
  {
    name: 'truncated segment bodies',
    repo: R.cached,
    before: (r) => damageCache(r, '.body', (b) => b.subarray(0, 3)),
    args: (r) => ['scan', '--repo', r, '--json'],
    code: 0,
    says: /facts cache segment body .* was damaged \(3 bytes, expected \d+\); it was removed and its \d+ files? (was|were) parsed again\./,
    output: /"level": "resolution"/,
  },
  {
    name: 'flipped bytes in segment bodies',
    repo: R.cached,
    before: (r) => damageCache(r, '.body', (b) => Buffer.from(b.map((x, i) => (i === 5 ? x ^ 0xff : x)))),
    args: (r) => ['scan', '--repo', r, '--json'],
    code: 0,
    says: /was damaged \(checksum mismatch\)/,
    output: /"level": "resolution"/,
  },
  {
    name: 'segment heads that are not JSON',
    repo: R.cached,
    before: (r) => damageCache(r, '.head.json', () => Buffer.from('{"format": ')),
    args: (r) => ['scan', '--repo', r, '--json'],
    code: 0,
    says: /^The facts cache segment .* was damaged \(no checksum line\); it was removed and its files are parsed again\.$/,
    output: /"level": "resolution"/,
  },
  {
    name: 'segment bodies deleted',
    repo: R.cached,
    args: (r) => ['scan', '--repo', r, '--json'],
    code: 0,
    says: /^The facts cache segment .* had no body; it was removed and its files are parsed again\.$/,
    output: /"level": "resolution"/,
    before: (r) => damageCacheFiles(r, (n) => n.endsWith('.body'), 'delete'),
  },
  {
    name: 'resolution and memo files that are not JSON',
    repo: R.cached,
    args: (r) => ['scan', '--repo', r, '--json'],
    code: 0,
    output: /"level": "resolution"/,
    before: (r) => damageCacheFiles(r, (n) => /^(res|memo)-/.test(n), Buffer.from('{"entries": [1,')),
  },
  {
    name: 'a cache folder that cannot be written',
    repo: R.cached,
    before: (r) => {
      rmSync(cacheRoot(r), { recursive: true, force: true });
      mkdirSync(join(r, '.git', 'airspace'), { recursive: true });
      writeFileSync(cacheRoot(r), 'not a folder');
    },
    args: (r) => ['scan', '--repo', r, '--json'],
    code: 0,
    says: /^Cannot write the facts cache \(.*\); continuing without it\.$/,
    output: /"level": "resolution"/,
    after: (r) => rmSync(cacheRoot(r), { force: true }),
  },

  // --- the trail ----------------------------------------------------------------------------------
  {
    name: 'trail verify of a missing file',
    repo: R.main,
    args: () => ['trail', 'verify', s('trail/none.json')],
    code: 1,
    says: /none\.json/,
  },
  {
    name: 'trail verify of a file that is not JSON',
    repo: R.main,
    args: () => ['trail', 'verify', s('trail/not-json.json')],
    code: 1,
    says: /\(malformed-json\)/,
  },
  {
    name: 'trail create from observations that are not JSON',
    repo: R.main,
    args: () => ['trail', 'create', s('trail/new.json'), '--a', s('trail/not-json.json'), '--b', s('trail/bob.json')],
    code: 1,
    says: /not-json\.json is not JSON/,
  },
  {
    name: 'trail create from an observation with a key given twice',
    repo: R.main,
    args: () => ['trail', 'create', s('trail/twice.json'), '--a', s('trail/alice-twice.json'), '--b', s('trail/bob.json')],
    code: 1,
    says: /alice-twice\.json gives \$\.agentId twice in one object; each key may appear once\.$/,
  },
  {
    name: 'trail create of one agent twice',
    repo: R.main,
    args: () => [
      'trail',
      'create',
      s('trail/same.json'),
      '--a',
      s('trail/alice.json'),
      '--b',
      s('trail/alice.json'),
      '--now',
      '2026-03-01T12:01:00.000Z',
    ],
    code: 1,
    says: /same-agent/,
  },
  {
    name: 'trail verify with a key given twice',
    repo: R.main,
    before: () => {
      const file = createTrail('trail/dup.json');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/"level": "/, '"level": "clear", "level": "'));
    },
    args: () => ['trail', 'verify', s('trail/dup.json')],
    code: 1,
    says: /\(duplicate-key\): .*level appears twice in one object/,
  },
  {
    name: 'trail verify with a head that does not match',
    repo: R.main,
    before: () => void createTrail('trail/ok.json'),
    args: () => ['trail', 'verify', s('trail/ok.json'), '--head', 'f'.repeat(64)],
    code: 1,
    says: /\(head-mismatch\)/,
  },

  // --- processes: closed pipes and a missing git ----------------------------------------------------
  // A closed stdout ends the run quietly with the code it had: a CI gate behind `| head` still fails.
  ...(
    [
      ['scan', 0],
      ['scan --json', 0],
      ['scan --fail-on resolution', 2],
      ['graph', 0],
      ['graph --json', 0],
      ['check src/a.ts', 2],
    ] as const
  ).map(([command, code]): Case => ({
    name: `${command} | head (stdout closed)`,
    repo: R.main,
    cwd: (r) => wtOf(r, 'bob'),
    args: () => command.split(' '),
    code,
    child: { closeStdout: true },
  })),
  { name: 'watch | head (stdout closed)', repo: R.main, args: (r) => ['watch', '--repo', r], code: 0, child: { closeStdout: true } },
  {
    name: 'git missing from PATH: scan',
    repo: R.main,
    args: (r) => ['scan', '--repo', r],
    code: 1,
    says: /^git was not found on PATH/,
    child: { env: GIT_MISSING_ENV },
  },
  {
    name: 'git missing from PATH: check',
    repo: R.main,
    cwd: (r) => wtOf(r, 'bob'),
    args: () => ['check', 'src/a.ts'],
    code: 1,
    says: /^git was not found on PATH/,
    child: { env: GIT_MISSING_ENV },
  },
];

// ---------------------------------------------------------------------------------------------

/** Runs one case and checks what every case must hold. */
async function check(c: Case, expect: ExpectStatic): Promise<void> {
  const repo = c.repo();
  const cwd = c.cwd?.(repo) ?? repo;
  const args = c.args(repo);
  await c.before?.(repo);
  const before = repoFingerprint(repo);
  const out = c.child
    ? await airspace(args, {
        cwd,
        ...(c.child.env ? { env: c.child.env } : {}),
        ...(c.child.closeStdout ? { closeStdout: true } : {}),
        timeoutMs: 60_000,
      })
    : await runInProcess(args, cwd);
  let problems = '';
  try {
    problems = `\nproblems: ${JSON.stringify((JSON.parse(out.stdout) as { problems?: unknown }).problems, null, 1)}`;
  } catch {
    // not JSON output
  }
  const detail = `airspace ${args.join(' ')}\nexit ${out.code}${problems}\nstdout: ${out.stdout.slice(0, 1500)}\nstderr: ${out.stderr.slice(0, 1500)}`;

  expect(out.code, detail).toBe(c.code);
  // No stack trace, ever.
  expect(out.stderr, detail).not.toMatch(/\n\s+at |Error: |node:internal/);

  if (c.code === 1) {
    // One sentence on one line (commander adds its usage hint on a second line).
    const [first, ...rest] = out.stderr.trimEnd().split('\n');
    expect(
      rest.filter((l) => l !== '(run with --help for usage)'),
      detail,
    ).toEqual([]);
    const message = first!.replace(/^airspace: /, '').replace(/^error: /, '');
    if (c.says) expect(message, detail).toMatch(c.says);
    expect(out.stdout, detail).toBe('');
  } else if (c.child?.closeStdout) {
    // A closed pipe ends the run quietly: stderr holds at most the scan's own one-line problems.
    expect(out.stderr, detail).not.toMatch(/EPIPE|write after end/);
    for (const line of out.stderr.split('\n').filter(Boolean)) expect(line, detail).toMatch(/^airspace( \w+)?: [^\n]+\.$/);
  } else if (args.includes('--json')) {
    const parsed = JSON.parse(out.stdout) as { problems?: { message: string }[] };
    if (c.says)
      expect(
        (parsed.problems ?? []).map((p) => p.message),
        detail,
      ).toContainEqual(expect.stringMatching(c.says));
    for (const p of parsed.problems ?? []) expect(p.message.trim().split('\n'), detail).toHaveLength(1);
  } else if (c.says) expect(out.stdout + out.stderr, detail).toMatch(c.says);
  if (c.output) expect(out.stdout, detail).toMatch(c.output);
  if (c.not) expect(out.stdout, detail).not.toMatch(c.not);

  expect(repoFingerprint(repo), detail).toEqual(before);
  c.after?.(repo, out);
}

describe('bad input: a clear message, valid output, the repository untouched', () => {
  it('has at least 60 cases, on repositories whose fingerprint covers a stash, locks and a merge', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
    expect(repoFingerprint(main.dir).stash).toMatch(/keep me/);
    expect(
      Object.values(repoFingerprint(messy.dir).trees)
        .map((t) => t.locks)
        .join(' '),
    ).toMatch(/index\.lock:[0-9a-f]{64}.*MERGE_HEAD:[0-9a-f]{64}/);
  });

  // Cases that only read their repository run side by side; the cache cases share one repository,
  // so they run one at a time, each refilling the cache before it damages it.
  describe.concurrent('independent cases', () => {
    for (const c of CASES.filter((x) => x.repo !== R.cached)) it(c.name, ({ expect }) => check(c, expect));
  });
  describe('the facts cache, one at a time', () => {
    for (const c of CASES.filter((x) => x.repo === R.cached)) it(c.name, ({ expect }) => check(c, expect));
  });
});
