/**
 * The one way Airspace runs git. Read-only by convention: callers never pass commands that
 * write to a user's work tree, index, refs or stash (scratch objects go through
 * GIT_OBJECT_DIRECTORY / GIT_INDEX_FILE, see the merge channel).
 */
import { existsSync } from 'node:fs';
import { launch, useLauncher } from './launcher.js';
import { gitNotFound, optionLikeArgument } from './problems.js';
import { runProcess } from './run-process.js';

export interface GitRunOptions {
  readonly cwd: string;
  /** Extra environment (e.g. GIT_INDEX_FILE for a scratch index). */
  readonly env?: Readonly<Record<string, string>>;
  /** Standard input to send. */
  readonly input?: string | Buffer;
  /** Exit codes that are answers, not failures (e.g. `merge-tree` exits 1 on conflicts). */
  readonly okCodes?: readonly number[];
  readonly maxBuffer?: number;
  /** Kill git after this many milliseconds (network commands: a remote that never answers). */
  readonly timeoutMs?: number;
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
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    LC_ALL: 'C',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_NO_LAZY_FETCH: '1',
  };
  // A caller's repository must not be redirected by variables of the parent process.
  for (const k of [
    'GIT_DIR',
    'GIT_WORK_TREE',
    'GIT_INDEX_FILE',
    'GIT_OBJECT_DIRECTORY',
    'GIT_ALTERNATE_OBJECT_DIRECTORIES',
    'GIT_COMMON_DIR',
  ])
    delete env[k];
  return { ...env, ...extra };
}

/**
 * The one rule against option injection. A ref, URL, ref pattern or path that comes from a user, a
 * config file or a teammate reaches git only through here: git reads an argument that starts with
 * `-` as an option wherever it stands before `--` (`--upload-pack=CMD` runs CMD), so such a value
 * is refused (a `GitSourceError` coded `OPTION_LIKE_ARGUMENT`). Callers also put
 * `END_OF_OPTIONS` before revisions and URLs where git takes it, and paths after `--`.
 */
export function gitOperand(value: string, what: string): string {
  if (value.startsWith('-')) throw optionLikeArgument(what, value);
  return value;
}

/** Whether `value` would be refused by `gitOperand` (for callers that degrade rather than throw). */
export const isOptionLike = (value: string): boolean => value.startsWith('-');

/** git's own end of options (git ≥ 2.24): what follows is a revision, URL or pattern, never an option. */
export const END_OF_OPTIONS = '--end-of-options';

/** Runs git and returns raw stdout. Rejects with GitError unless the exit code is 0 or in okCodes. */
export async function runGitRaw(args: readonly string[], options: GitRunOptions): Promise<GitResult> {
  const request = {
    args: ['-c', 'core.quotepath=off', ...args],
    cwd: options.cwd,
    env: gitEnv(options.env),
    ...(options.input !== undefined ? { input: options.input } : {}),
    maxBuffer: options.maxBuffer ?? 1 << 30,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
  // The launcher's child knows no timeout: a timed command runs here.
  let r = useLauncher() && options.timeoutMs === undefined ? await launch(request) : undefined;
  // No launcher, or it died or could not start git: run it here.
  if (!r || 'error' in r) r = await runProcess('git', request);
  if ('error' in r) {
    // spawn says ENOENT for a missing git and for a missing working directory alike.
    if (/\bENOENT\b/.test(r.error) && existsSync(options.cwd)) throw gitNotFound();
    throw new GitError(args, null, r.error);
  }
  const exit = r.code ?? -1;
  if (exit === 0 || options.okCodes?.includes(exit)) return { stdout: r.stdout, stderr: r.stderr, code: exit };
  throw new GitError(args, r.code, r.stderr);
}

/** Runs git and returns stdout as UTF-8 text. */
export async function runGit(args: readonly string[], options: GitRunOptions): Promise<string> {
  return (await runGitRaw(args, options)).stdout.toString('utf8');
}
