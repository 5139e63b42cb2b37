/**
 * Deterministic scratch repositories for tests, benchmarks and `airspace demo`: a base commit,
 * then agents in worktrees (or branches) with committed, staged, unstaged and untracked work.
 *
 *   const repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n' });
 *   const alice = repo.worktree('alice');           // new branch + worktree from main
 *   alice.write('src/a.ts', '…').commit('edit a');   // committed work
 *   alice.write('src/b.ts', '…');                    // untracked
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, unlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gitEnv } from './exec.js';

export type FileTree = Readonly<Record<string, string | Buffer>>;

/** Fixed identity and clock so fixtures are byte-for-byte reproducible. */
const FIXTURE_ENV = {
  GIT_AUTHOR_NAME: 'Airspace Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@airspace.invalid',
  GIT_COMMITTER_NAME: 'Airspace Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@airspace.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

export interface FixtureCheckout {
  /** Absolute path of the work tree. */
  readonly dir: string;
  readonly branch: string;
  /** Runs git in this work tree and returns trimmed stdout. */
  git(...args: string[]): string;
  write(path: string, content: string | Buffer): FixtureCheckout;
  writeAll(files: FileTree): FixtureCheckout;
  remove(path: string): FixtureCheckout;
  /** Sets a file's modification time (seconds since the epoch) for recency tests. */
  touch(path: string, epochSeconds: number): FixtureCheckout;
  /** `git add -A` (or the given paths). */
  stage(...paths: string[]): FixtureCheckout;
  /** Stages everything and commits; the commit time advances one minute per commit. */
  commit(message: string): FixtureCheckout;
  head(): string;
}

export interface RepoFixture extends FixtureCheckout {
  /** Adds a worktree at `<root>-wt/<name>` on a new branch `name` from `from` (default main). */
  worktree(name: string, options?: { from?: string; branch?: string; detach?: boolean }): FixtureCheckout;
  /** Deletes the repository and its worktrees. */
  dispose(): void;
}

export interface RepoFixtureOptions {
  /** Parent directory (default: the OS temp directory). */
  readonly parent?: string;
  readonly branch?: string;
  /** Commit time of the first commit, seconds since the epoch (default 2026-01-01T00:00:00Z). */
  readonly epoch?: number;
}

export function createRepoFixture(files: FileTree = {}, options: RepoFixtureOptions = {}): RepoFixture {
  const parent = options.parent ?? tmpdir();
  mkdirSync(parent, { recursive: true });
  const root = mkdtempSync(join(parent, 'airspace-repo-'));
  const branch = options.branch ?? 'main';
  let clock = options.epoch ?? 1767225600;

  const run = (cwd: string, args: string[]): string => {
    const date = `${clock} +0000`;
    return execFileSync('git', args, {
      cwd,
      env: { ...gitEnv(FIXTURE_ENV), GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 1 << 28,
    }).trim();
  };

  const checkout = (dir: string, name: string): FixtureCheckout => {
    const self: FixtureCheckout = {
      dir,
      branch: name,
      git: (...args) => run(dir, args),
      write(path, content) {
        const full = join(dir, path);
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, content);
        return self;
      },
      writeAll(tree) {
        for (const [p, c] of Object.entries(tree)) self.write(p, c);
        return self;
      },
      remove(path) {
        unlinkSync(join(dir, path));
        return self;
      },
      touch(path, epochSeconds) {
        utimesSync(join(dir, path), epochSeconds, epochSeconds);
        return self;
      },
      stage(...paths) {
        run(dir, ['add', '-A', '--', ...(paths.length ? paths : ['.'])]);
        return self;
      },
      commit(message) {
        clock += 60;
        run(dir, ['add', '-A']);
        run(dir, ['commit', '-q', '--allow-empty', '--no-verify', '-m', message]);
        return self;
      },
      head: () => run(dir, ['rev-parse', 'HEAD']),
    };
    return self;
  };

  run(root, ['init', '-q', '-b', branch]);
  run(root, ['config', 'commit.gpgsign', 'false']);
  run(root, ['config', 'core.autocrlf', 'false']);
  const main = checkout(root, branch);
  main.writeAll(files).commit('base');

  const worktreesDir = `${root}-wt`;
  return Object.assign(main, {
    worktree(name: string, opts: { from?: string; branch?: string; detach?: boolean } = {}) {
      const dir = join(worktreesDir, name);
      const b = opts.branch ?? name;
      const from = opts.from ?? branch;
      if (opts.detach) run(root, ['worktree', 'add', '-q', '--detach', dir, from]);
      else run(root, ['worktree', 'add', '-q', '-b', b, dir, from]);
      return checkout(dir, opts.detach ? '' : b);
    },
    dispose() {
      rmSync(root, { recursive: true, force: true });
      rmSync(worktreesDir, { recursive: true, force: true });
    },
  });
}
