/**
 * The one way Airspace runs git. Read-only by convention: callers never pass commands that
 * write to a user's work tree, index, refs or stash (scratch objects go through
 * GIT_OBJECT_DIRECTORY / GIT_INDEX_FILE, see the merge channel).
 */
import { spawn } from 'node:child_process';
import { launch, useLauncher } from './launcher.js';

export interface GitRunOptions {
  readonly cwd: string;
  /** Extra environment (e.g. GIT_INDEX_FILE for a scratch index). */
  readonly env?: Readonly<Record<string, string>>;
  /** Standard input to send. */
  readonly input?: string | Buffer;
  /** Exit codes that are answers, not failures (e.g. `merge-tree` exits 1 on conflicts). */
  readonly okCodes?: readonly number[];
  readonly maxBuffer?: number;
}

export interface GitResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly code: number;
}

export class GitError extends Error {
  readonly code = 'GIT_FAILED';
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${stderr.trim() || 'no message'}`);
    this.name = 'GitError';
  }
}

/** Environment that keeps git from prompting, paging, translating or reading user hooks. */
export function gitEnv(extra?: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  // GIT_NO_LAZY_FETCH (git ≥ 2.45): a partial clone must not fetch a missing blob over the
  // network behind the user's back; the read fails instead and the caller degrades.
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0', GIT_NO_LAZY_FETCH: '1' };
  // A caller's repository must not be redirected by variables of the parent process.
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_COMMON_DIR']) delete env[k];
  return { ...env, ...extra };
}

/** Runs git and returns raw stdout. Rejects with GitError unless the exit code is 0 or in okCodes. */
export function runGitRaw(args: readonly string[], options: GitRunOptions): Promise<GitResult> {
  if (useLauncher()) {
    const launched = launch({ args: ['-c', 'core.quotepath=off', ...args], cwd: options.cwd, env: gitEnv(options.env), ...(options.input !== undefined ? { input: options.input } : {}), maxBuffer: options.maxBuffer ?? 1 << 30 });
    if (launched) {
      return launched.then((r) => {
        // The launcher died or could not start git: run it here instead.
        if ('error' in r) return spawnGit(args, options);
        if (r.code === 0 || options.okCodes?.includes(r.code)) return { stdout: Buffer.from(r.stdout), stderr: r.stderr, code: r.code };
        throw new GitError(args, r.code, r.stderr);
      });
    }
  }
  return spawnGit(args, options);
}

function spawnGit(args: readonly string[], options: GitRunOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-c', 'core.quotepath=off', ...args], { cwd: options.cwd, env: gitEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    const max = options.maxBuffer ?? 1 << 30;
    child.stdout.on('data', (d: Buffer) => {
      size += d.length;
      if (size > max) child.kill();
      else out.push(d);
    });
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => reject(new GitError(args, null, e.message)));
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const exit = code ?? -1;
      if (exit === 0 || options.okCodes?.includes(exit)) resolve({ stdout: Buffer.concat(out), stderr, code: exit });
      else reject(new GitError(args, code, stderr));
    });
    child.stdin.on('error', () => undefined);
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

/** Runs git and returns stdout as UTF-8 text. */
export async function runGit(args: readonly string[], options: GitRunOptions): Promise<string> {
  return (await runGitRaw(args, options)).stdout.toString('utf8');
}
