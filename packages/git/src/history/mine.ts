/**
 * Mines which files each commit changed: ONE `git log --name-only -z --no-renames` process per
 * call, its output parsed as it streams (never held whole), so a 60,000-commit history costs one
 * pass of git's own tree diffs. Merge commits come with their parents but no files (git lists no
 * files for a merge unless asked): they link the history without counting as a change.
 */
import { spawn } from 'node:child_process';
import { GitError, gitEnv } from '../exec.js';
import { decodePath } from '../path-bytes.js';

export interface MinedCommit {
  readonly id: string;
  /** Committer time, seconds since the epoch (the order git walks history in). */
  readonly time: number;
  readonly parents: readonly string[];
  /** Paths the commit changed against its first parent (none for a merge). */
  readonly files: readonly string[];
}

export interface MineOptions {
  /** Commits to walk from. */
  readonly tips: readonly string[];
  /** Commits whose ancestors are already known (their history is not walked again). */
  readonly exclude?: readonly string[];
  /** At most this many commits, newest first (git's `--max-count`, merges included). */
  readonly maxCount?: number;
  /**
   * Only the commits named in `tips`, not their history (`--no-walk`), each merge with the files
   * it changed against its first parent (what it brought in): the past-conflicts history.
   */
  readonly mergesAgainstFirstParent?: boolean;
}

const HEADER = 0x01;

/**
 * Streams the commits reachable from `tips` (minus the history of `exclude`) to `onCommit`, newest
 * first by commit time, as `git log` walks them. Revisions go through stdin, so thousands of
 * excluded tips are fine; a tip that no longer exists is ignored (`--ignore-missing`).
 */
export function mineCommits(cwd: string, options: MineOptions, onCommit: (commit: MinedCommit) => void): Promise<void> {
  const args = [
    '-c',
    'core.quotepath=off',
    'log',
    '--no-show-signature',
    '--name-only',
    '-z',
    '--no-renames',
    options.mergesAgainstFirstParent ? '--diff-merges=first-parent' : '--diff-merges=off',
    '--format=%x01%H %ct %P',
    '--ignore-missing',
  ];
  if (options.mergesAgainstFirstParent) args.push('--no-walk=unsorted');
  if (options.maxCount !== undefined) args.push(`--max-count=${Math.max(0, Math.floor(options.maxCount))}`);
  args.push('--stdin', '--');
  const revs = [...options.tips, ...(options.exclude ?? []).map((id) => `^${id}`)].join('\n') + '\n';
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let rest: Buffer = Buffer.alloc(0);
    let current: { id: string; time: number; parents: string[]; files: string[] } | undefined;
    let failed: Error | undefined;
    const stderr: Buffer[] = [];
    const flush = (): void => {
      if (current) onCommit(current);
      current = undefined;
    };
    const token = (raw: string): void => {
      // The first path after a header follows a newline; a header starts with \x01.
      const text = raw.charCodeAt(0) === 0x0a ? raw.slice(1) : raw;
      if (text.charCodeAt(0) === HEADER) {
        flush();
        const [id = '', time = '0', ...parents] = text.slice(1).split(' ');
        current = { id, time: Number(time), parents: parents.filter(Boolean), files: [] };
      } else if (text && current) current.files.push(text);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (failed) return;
      try {
        const buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
        let start = 0;
        for (let i = buf.indexOf(0, start); i >= 0; i = buf.indexOf(0, start)) {
          token(decodePath(buf.subarray(start, i)));
          start = i + 1;
        }
        rest = buf.subarray(start);
      } catch (error) {
        failed = error instanceof Error ? error : new Error(String(error));
        child.kill();
      }
    });
    child.stderr.on('data', (d: Buffer) => stderr.push(d));
    child.on('error', (e) => {
      failed ??= e;
    });
    child.on('close', (code) => {
      if (failed) return reject(failed);
      if (code !== 0) return reject(new GitError(['log', '--name-only', '…'], code, Buffer.concat(stderr).toString('utf8')));
      try {
        if (rest.length) token(decodePath(rest));
        flush();
        resolve();
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(revs);
  });
}
