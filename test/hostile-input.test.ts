/**
 * Hostile input, one case or more per class, through the built CLI as a child process (so a hang
 * is killed at its timeout and fails the case instead of the run):
 * - option injection: option-shaped remotes, URLs, sources and bases never run a command;
 * - work-tree files: untracked links to /etc/passwd, /dev/zero and /dev/urandom and FIFOs are
 *   never read and never block; a FIFO named to `trail verify` neither;
 * - paths from outside: a teammate's published tree with `..` and `.git` entries, and published
 *   or observed intent naming `../../etc/passwd` or `/etc/shadow`, are left out with a problem;
 * - `view --host` on a non-loopback address keeps refusing other Host names and warns once.
 * Nothing in the user's repository changes (`repoFingerprint`). Repositories are generated here.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { repoFingerprint } from './fingerprint.js';
import { ENGINE_ENV, stopEngines } from './engines.js';
import { airspace, BIN, ENV } from './run-cli.js';

const MARK = 'MARK';
const engines = new Set<number>();
let scratch: string;
let repo: RepoFixture;
const wt = (name: string): string => join(repo.dir + '-wt', name);

const gitIn = (cwd: string, args: string[], input?: string): string =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    ...(input !== undefined ? { input } : {}),
    env: { ...process.env, GIT_AUTHOR_NAME: 'm', GIT_AUTHOR_EMAIL: 'm@x', GIT_COMMITTER_NAME: 'm', GIT_COMMITTER_EMAIL: 'm@x' },
  }).trim();

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'airspace-hostile-'));
  repo = createRepoFixture(
    {
      'src/a.ts': "import { b } from './b';\nexport const a = b;\n",
      'src/b.ts': 'export const b = 1;\n',
    },
    { epoch: Math.floor(Date.now() / 1000) - 600 },
  );
  repo.worktree('alice').write('src/b.ts', 'export const b = 2;\n');
  const eve = repo.worktree('eve').write('src/a.ts', "import { b } from './b';\nexport const a = b + 1;\n");
  symlinkSync('/etc/passwd', join(eve.dir, 'src', 'passwd.ts'));
  symlinkSync('../../../../../../../../../etc/hosts', join(eve.dir, 'src', 'hosts.ts'));
  symlinkSync('/dev/zero', join(eve.dir, 'src', 'zero.ts'));
  symlinkSync('/dev/urandom', join(eve.dir, 'src', 'random.ts'));
  execFileSync('mkfifo', [join(eve.dir, 'src', 'fifo.ts')]);
  execFileSync('mkfifo', [join(scratch, 'trail.json')]);
});

afterAll(() => {
  repo?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

const marked = (): boolean => [repo.dir, wt('alice'), wt('eve'), scratch].some((d) => existsSync(join(d, MARK)));

describe('option injection', () => {
  const HOSTILE = `--upload-pack=touch ${MARK} @x:`;

  it.each([
    ['a published: source', ['scan', '--source', `published:${HOSTILE}`]],
    ['a remote: source', ['scan', '--source', `remote:${HOSTILE}`]],
    ['the publish remote', ['publish', '--remote', `--receive-pack=touch ${MARK} @x:`]],
    ['a base', ['scan', '--base', `--output=${MARK}`]],
  ])('%s shaped as an option runs nothing and says why', { timeout: 30_000 }, async (_what, args) => {
    const before = repoFingerprint(repo.dir);
    const r = await airspace(args, { cwd: wt('alice'), timeoutMs: 25_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^airspace: (Refused .* it starts with "-", so git would read it as an option; nothing was run\.|Unknown base)/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(marked()).toBe(false);
    expect(repoFingerprint(repo.dir)).toEqual(before);
  });

  it('a path shaped as an option is a path: it reaches git after --, and nothing is written', { timeout: 30_000 }, async () => {
    const before = repoFingerprint(repo.dir);
    const r = await airspace(['check', '--', `--output=${MARK}`], { cwd: wt('alice'), timeoutMs: 25_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--output=MARK does not exist yet/);
    expect(marked()).toBe(false);
    expect(repoFingerprint(repo.dir)).toEqual(before);
  });

  it("a config file's sources, and a configured remote whose URL is an option, run nothing", { timeout: 60_000 }, async () => {
    const config = join(scratch, 'hostile.config.json');
    writeFileSync(config, JSON.stringify({ sources: ['worktrees', `published:${HOSTILE}`] }));
    const r = await airspace(['scan', '--config', config], { cwd: repo.dir, timeoutMs: 25_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Refused the remote of source/);
    gitIn(repo.dir, ['remote', 'add', 'evil', 'placeholder']);
    gitIn(repo.dir, ['config', 'remote.evil.url', HOSTILE]);
    try {
      const scan = await airspace(['scan', '--source', 'worktrees', '--source', 'published:evil'], { cwd: repo.dir, timeoutMs: 25_000 });
      expect(scan.stdout + scan.stderr).toMatch(/Refused the URL of remote "evil"/);
      const publish = await airspace(['publish', '--remote', 'evil'], { cwd: wt('alice'), timeoutMs: 25_000 });
      expect(publish.code).toBe(1);
      expect(publish.stderr).toMatch(/Refused the URL of remote "evil"/);
    } finally {
      gitIn(repo.dir, ['remote', 'remove', 'evil']);
    }
    expect(marked()).toBe(false);
  });
});

describe('work-tree files: regular, inside the work tree, never blocking', () => {
  it('graph leaves out untracked links to /etc/passwd and devices, and FIFOs', { timeout: 30_000 }, async () => {
    const r = await airspace(['graph', '--json'], { cwd: wt('eve'), timeoutMs: 20_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/root:|passwd\.ts|zero\.ts|random\.ts|fifo\.ts|hosts\.ts/);
    expect(r.stdout).toMatch(/src\/a\.ts/);
  });

  it('check and scan answer with such files in a worktree', { timeout: 30_000 }, async () => {
    const before = repoFingerprint(repo.dir);
    const check = await airspace(['check', 'src/b.ts'], { cwd: wt('eve'), timeoutMs: 20_000 });
    expect(check.code).toBe(2);
    const scan = await airspace(['scan', '--json'], { cwd: repo.dir, timeoutMs: 20_000 });
    expect(scan.code).toBe(0);
    expect(JSON.parse(scan.stdout).agents.map((a: { id: string }) => a.id)).toEqual(expect.arrayContaining(['alice', 'eve']));
    expect(repoFingerprint(repo.dir)).toEqual(before);
  });

  it('the resident engine answers check with such files in a worktree, without reading them', { timeout: 60_000 }, async () => {
    try {
      const check = await airspace(['check', 'src/b.ts'], { cwd: wt('eve'), env: ENGINE_ENV, timeoutMs: 45_000 });
      expect(check.code).toBe(2);
      const status = await airspace(['engine', 'status', '--json', '--repo', repo.dir], { env: ENGINE_ENV, timeoutMs: 10_000 });
      const pid = (JSON.parse(status.stdout) as { pid?: number }).pid;
      if (pid) engines.add(pid);
      // One more check through the same engine: a FIFO read before would have wedged it.
      expect((await airspace(['check', 'src/a.ts'], { cwd: wt('alice'), env: ENGINE_ENV, timeoutMs: 20_000 })).code).not.toBe(null);
    } finally {
      await stopEngines(repo.dir, engines);
    }
  });

  it('observations named through a FIFO are refused, not waited for', { timeout: 15_000 }, async () => {
    const r = await airspace(['scan', '--source', `json:${join(scratch, 'trail.json')}`], { cwd: repo.dir, timeoutMs: 10_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is a FIFO, not a regular file/);
  });

  it('trail verify on a FIFO says it is not a regular file', { timeout: 15_000 }, async () => {
    const r = await airspace(['trail', 'verify', join(scratch, 'trail.json')], { timeoutMs: 10_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^airspace: Cannot read trail file .*trail\.json: .* is a FIFO, not a regular file\n$/);
  });
});

describe('paths from outside are validated on every read', () => {
  it("a teammate's published tree with `..` and `.git` entries and intent outside the work tree", { timeout: 60_000 }, async () => {
    const head = gitIn(repo.dir, ['rev-parse', 'HEAD']);
    const blob = (text: string): string => gitIn(repo.dir, ['hash-object', '-w', '--stdin'], text);
    const tree = (lines: string[]): string => gitIn(repo.dir, ['mktree'], lines.join('\n') + '\n');
    const passwd = tree([`100644 blob ${blob('root:x:0:0\n')}\tpasswd`]);
    const src = tree([
      `100644 blob ${gitIn(repo.dir, ['rev-parse', 'HEAD:src/a.ts'])}\ta.ts`,
      `100644 blob ${blob('export const b = 9;\n')}\tb.ts`,
    ]);
    const state = tree([
      `040000 tree ${tree([`040000 tree ${passwd}\tetc`])}\t..`,
      `040000 tree ${passwd}\t.git`,
      `040000 tree ${src}\tsrc`,
    ]);
    const at = (ms: number): string => new Date(Date.now() + ms).toISOString();
    const observation = {
      airspace: 1,
      id: 'mallory',
      label: 'mallory',
      clone: 'elsewhere',
      head,
      base: { ref: 'main', commit: head },
      mergeBase: head,
      committedWork: 0,
      commits: 0,
      changedLines: 0,
      startedAt: at(-60_000),
      publishedAt: at(-60_000),
      expiresAt: at(3_600_000),
      intent: ['../../etc/passwd', '/etc/shadow'],
      dirty: true,
      paths: ['../etc/passwd', '.git/passwd', 'src/b.ts'],
    };
    const commit = gitIn(repo.dir, ['commit-tree', state, '-p', head], `airspace observation: mallory\n\n${JSON.stringify(observation)}\n`);
    // The remote is a bare clone holding the teammate's ref; the scanning repository fetches it.
    const remote = join(scratch, 'remote.git');
    gitIn(scratch, ['clone', '-q', '--bare', repo.dir, remote]);
    gitIn(repo.dir, ['push', '-q', remote, `${commit}:refs/airspace/agents/mallory`]);
    const before = repoFingerprint(repo.dir);
    const r = await airspace(['scan', '--json', '--source', 'worktrees', '--source', `published:${remote}`], {
      cwd: repo.dir,
      timeoutMs: 40_000,
    });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as {
      agents: { id: string; files: { path: string }[]; intent?: string[]; incomplete?: string[] }[];
      problems: { code: string; path?: string }[];
    };
    const mallory = result.agents.find((a) => a.id === 'mallory')!;
    expect(mallory.files.map((f) => f.path)).toEqual(['src/b.ts']);
    expect(mallory.intent ?? []).toEqual([]);
    expect(mallory.incomplete?.join(' ')).toMatch(/outside the work tree/);
    expect(result.problems.filter((p) => p.code === 'UNSAFE_PATH').map((p) => p.path)).toEqual(
      expect.arrayContaining(['../etc/passwd', '.git/passwd', '../../etc/passwd', '/etc/shadow']),
    );
    expect(repoFingerprint(repo.dir)).toEqual(before);
  });

  it('observations (json:) whose intent names /etc/shadow or ../../etc/passwd', { timeout: 30_000 }, async () => {
    const file = join(scratch, 'obs.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        agents: [
          { id: 'orc', ref: 'main', intent: ['../../etc/passwd', '/etc/shadow', 'src/b.ts'] },
          { id: 'alice', worktree: wt('alice') },
        ],
      }),
    );
    const r = await airspace(['scan', '--json', '--source', `json:${file}`], { cwd: repo.dir, timeoutMs: 20_000 });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as {
      agents: { id: string; files: { path: string }[] }[];
      problems: { code: string; path?: string }[];
    };
    expect(result.agents.find((a) => a.id === 'orc')!.files.map((f) => f.path)).toEqual(['src/b.ts']);
    expect(result.problems.filter((p) => p.code === 'UNSAFE_PATH').map((p) => p.path)).toEqual(['../../etc/passwd', '/etc/shadow']);
  });
});

describe('view --host on a non-loopback address', () => {
  it('refuses other Host names and warns once that the scan is exposed', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, [BIN, 'view', '--host', '0.0.0.0', '--port', '0', '--no-engine'], {
      cwd: repo.dir,
      env: ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`view did not start: ${stderr}`)), 40_000);
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          const m = /Airspace view at (\S+)/.exec(stdout);
          if (m) {
            clearTimeout(timer);
            resolve(new URL(m[1]!));
          }
        });
      });
      const status = (host: string): Promise<number> =>
        new Promise((resolve, reject) => {
          request({ host: '127.0.0.1', port: url.port, path: '/scan.json', headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          })
            .on('error', reject)
            .end();
        });
      expect(await status(`rebound.example:${url.port}`)).toBe(403);
      expect(await status(`127.0.0.1:${url.port}`)).toBe(200);
      await expect.poll(() => stderr, { timeout: 5_000 }).toMatch(/warning: listening on 0\.0\.0\.0, not loopback/);
      expect(stderr.match(/warning: listening/g)).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
