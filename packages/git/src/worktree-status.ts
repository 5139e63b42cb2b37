/**
 * A worktree's `git status` (porcelain v2, every untracked file), read once and shared: the
 * resident engine reads it for its freshness stamp just before it reads the agents, and the
 * worktree snapshot then takes that reading instead of walking the whole work tree again. Only a
 * reading taken moments ago is taken, and only once: what changed after it, the next stamp sees.
 */
import { decodePath } from './path-bytes.js';
import { runGitRaw } from './exec.js';

/** The status every reader of this module asks for (the stamp parses the same records). */
export const WORKTREE_STATUS_ARGS = [
  'status',
  '--porcelain=v2',
  '--branch',
  '-z',
  '--untracked-files=all',
  '--no-renames',
  '--ignore-submodules=none',
] as const;

/** How old a shared reading may be when the snapshot takes it (ms). */
export const SHARED_STATUS_MAX_AGE_MS = 2_000;

const shared = new Map<string, { readonly at: number; readonly output: Buffer }>();

/**
 * `git status` of the worktree at `dir` (raw bytes, NUL-separated records), kept for the next
 * snapshot of that worktree. Optional locks off: git does not refresh the user's index.
 */
export async function readWorktreeStatus(dir: string): Promise<Buffer> {
  const output = (await runGitRaw(WORKTREE_STATUS_ARGS, { cwd: dir, env: { GIT_OPTIONAL_LOCKS: '0' } })).stdout;
  shared.set(dir, { at: Date.now(), output });
  return output;
}

/**
 * `git status` of only these paths of the worktree at `dir` (literal pathspecs; a directory
 * covers what is under it), in the same records; HEAD's lines are the whole worktree's. Not kept
 * for a snapshot, which needs every path.
 */
export async function readWorktreeStatusOf(dir: string, paths: readonly string[]): Promise<Buffer> {
  const env = { GIT_OPTIONAL_LOCKS: '0', GIT_LITERAL_PATHSPECS: '1' };
  return (await runGitRaw([...WORKTREE_STATUS_ARGS, '--', ...paths], { cwd: dir, env })).stdout;
}

/** The reading `readWorktreeStatus(dir)` kept, if it is at most `maxAgeMs` old; taken once. */
export function takeRecentStatus(dir: string, maxAgeMs: number = SHARED_STATUS_MAX_AGE_MS): Buffer | undefined {
  const kept = shared.get(dir);
  shared.delete(dir);
  return kept && Date.now() - kept.at <= maxAgeMs ? kept.output : undefined;
}

/** A path of the status whose work-tree file differs from the index: changed, deleted, unmerged or untracked. */
export interface StatusPath {
  readonly path: string;
  readonly untracked: boolean;
}

/** Fields before the path in each kind of porcelain v2 record. */
const FIELDS: Readonly<Record<string, number>> = { '1': 8, '2': 9, u: 10, '?': 1 };

/**
 * The paths of a porcelain v2 `-z` status whose work-tree state is not the index's: what
 * `git add -A` would change. Records of staged changes only (`Y` is `.`) are already in the index.
 */
export function statusWorktreePaths(output: Buffer): StatusPath[] {
  const out: StatusPath[] = [];
  let start = 0;
  while (start < output.length) {
    let end = output.indexOf(0, start);
    if (end < 0) end = output.length;
    const record = output.subarray(start, end);
    start = end + 1;
    const kind = String.fromCharCode(record[0] ?? 0);
    const fields = FIELDS[kind];
    if (fields === undefined) continue; // headers (`#`), ignored files (`!`)
    // A rename record (kept off by --no-renames) is followed by its original path.
    if (kind === '2') start = Math.max(start, output.indexOf(0, start) + 1 || output.length);
    if (kind === '1' && record[3] === 0x2e /* . */) continue;
    let at = -1;
    for (let k = 0; k < fields; k++) {
      at = record.indexOf(0x20, at + 1);
      if (at < 0) break;
    }
    if (at < 0) continue;
    out.push({ path: decodePath(record.subarray(at + 1)), untracked: kind === '?' });
  }
  return out;
}
