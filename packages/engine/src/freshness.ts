/**
 * Is the engine's view still the repository's? Each request compares a cheap stamp of every
 * worktree — `git status` (porcelain v2: HEAD, branch, every changed or untracked path) plus the
 * stat of each such path (a second save of a dirty file changes no status line) — and of the
 * repository (the worktree list, every branch and remote-tracking ref) with the stamp of the last
 * scan. What differs becomes the scanner's `only` + `changedPaths`: the agents that changed are
 * patched, a moved HEAD is read again, and a new or removed worktree or a moved ref reads every
 * agent. File events only make this cheaper (`freshStamp`): a worktree with no file event since
 * the last stamp keeps its stamp once the stat of its changed paths agrees, so a save reads `git
 * status` in the saving worktree alone; an event in git's directory (HEAD, refs, an index, the
 * worktree list) reads everything. This check makes it correct (a save just before the question
 * counts). Read-only: git runs without optional locks.
 */
import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseWorktreeList, readWorktreeStatus, readWorktreeStatusOf, runGit, type EventCounts } from '@airspace/git';

export interface WorktreeStamp {
  /** `# branch.oid` and `# branch.head` of git status. */
  readonly head: string;
  /** Changed or untracked path → its status record and file stat. */
  readonly paths: ReadonlyMap<string, string>;
}

export interface RepositoryStamp {
  /** Refs (branches, remote-tracking) and the worktree list, as one string. */
  readonly refs: string;
  readonly worktrees: ReadonlyMap<string, WorktreeStamp>;
}

export type StampDelta =
  | { readonly kind: 'same' }
  /** Only these worktrees changed, at these paths (`all`: read the worktree again, e.g. HEAD moved). */
  | { readonly kind: 'worktrees'; readonly changed: ReadonlyMap<string, readonly string[] | 'all'> }
  /** Worktrees came or went, or refs moved: read every agent. */
  | { readonly kind: 'repository' };

function fileStamp(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.mtimeNs}:${s.ctimeNs}:${s.size}:${s.ino}`;
  } catch {
    return 'absent';
  }
}

/** Whether every changed path of one worktree's stamp still has the stat it had then. */
function worktreeStatsHold(dir: string, worktree: WorktreeStamp): boolean {
  for (const [path, value] of worktree.paths) if (value.slice(value.lastIndexOf(' ') + 1) !== fileStamp(join(dir, path))) return false;
  return true;
}

/**
 * Whether every changed path of the stamp still has the stat it had then: a check without git
 * (a stat per path) of what file events vouch for, since a watch that lost a file (one saved by
 * rename, on a platform that watches inodes) would vouch for an edit it never saw.
 */
export function statsHold(stamp: RepositoryStamp): boolean {
  for (const [dir, worktree] of stamp.worktrees) if (!worktreeStatsHold(dir, worktree)) return false;
  return true;
}

/** Parses `git status --porcelain=v2 --branch -z` into HEAD and path → record. */
export function parseStatusV2(text: string): { head: string; records: Map<string, string> } {
  const records = new Map<string, string>();
  const head: string[] = [];
  const parts = text.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const record = parts[i]!;
    if (record === '') continue;
    if (record.startsWith('# ')) {
      if (record.startsWith('# branch.oid ') || record.startsWith('# branch.head ')) head.push(record);
      continue;
    }
    const fields = record[0] === '1' ? 8 : record[0] === '2' ? 9 : record[0] === 'u' ? 10 : 1;
    let at = 0;
    for (let k = 0; k < fields && at >= 0; k++) at = record.indexOf(' ', at + 1);
    if (at < 0) continue;
    const path = record.slice(at + 1);
    records.set(path, record.slice(0, at));
    // A rename record is followed by its original path, which changed too.
    if (record[0] === '2') {
      const original = parts[++i];
      if (original) records.set(original, `renamed-from ${record.slice(0, at)}`);
    }
  }
  return { head: head.join('\n'), records };
}

export async function worktreeStamp(worktree: string): Promise<WorktreeStamp> {
  // Read through the worktree snapshot's reader: a snapshot right after this stamp takes it.
  const { head, records } = parseStatusV2((await readWorktreeStatus(worktree)).toString('utf8'));
  const paths = new Map<string, string>();
  for (const [path, record] of records) paths.set(path, `${record} ${fileStamp(join(worktree, path))}`);
  return { head, paths };
}

const readableStamp = (dir: string): Promise<WorktreeStamp> => worktreeStamp(dir).catch(() => ({ head: 'unreadable', paths: new Map() }));

/** Every worktree's and the repository's stamp, read in parallel. */
export async function repositoryStamp(repo: string): Promise<RepositoryStamp> {
  const [list, refs] = await Promise.all([
    runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: repo }),
    runGit(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads', 'refs/remotes'], { cwd: repo }),
  ]);
  const dirs = parseWorktreeList(list)
    .filter((w) => !w.bare && !w.prunable)
    .map((w) => w.dir)
    .sort();
  const stamps = await Promise.all(dirs.map(async (dir) => [dir, await readableStamp(dir)] as const));
  return { refs: `${dirs.join('\n')}\n${refs}`, worktrees: new Map(stamps) };
}

/** What file events vouch for: the counts when the last stamp was taken and now, and the worktrees followed. */
export interface Vouching {
  readonly then: EventCounts | undefined;
  readonly now: EventCounts | undefined;
  readonly watched: readonly string[];
  /** The paths of a worktree's file events after its count was `count`, when known: only they are read again. */
  readonly pathsSince?: (worktree: string, count: number) => readonly string[] | undefined;
}

/** More event paths than this in one worktree: its whole status is read. */
const MAX_EVENT_PATHS = 200;

export interface FreshStamp {
  readonly stamp: RepositoryStamp;
  /** The repository was read again: worktree list, refs and every worktree's status. */
  readonly full: boolean;
  /** Worktrees whose `git status` was read (whole, or of their event paths). */
  readonly read: number;
  /** Worktrees without a file event whose changed paths' stat moved all the same (late or missed events). */
  readonly missed: number;
}

/**
 * The repository's stamp now, reading as little as file events allow: with `before` and every
 * one of its worktrees followed, and no event in git's directory since, only the worktrees that
 * had file events (or whose changed paths' stat moved without one) are read again, the others keep
 * their stamp, and so do the worktree list and refs. Otherwise, everything is read.
 */
export async function freshStamp(repo: string, before: RepositoryStamp | undefined, vouching: Vouching | undefined): Promise<FreshStamp> {
  const unsure = before && vouching ? unvouched(before, vouching) : undefined;
  if (!before || !unsure) {
    const stamp = await repositoryStamp(repo);
    return { stamp, full: true, read: stamp.worktrees.size, missed: 0 };
  }
  if (unsure.dirs.length === 0) return { stamp: before, full: false, read: 0, missed: 0 };
  const worktrees = new Map(before.worktrees);
  const read = await Promise.all(
    unsure.dirs.map(async (dir) => {
      const paths = unsure.missedIn.has(dir) ? undefined : vouching!.pathsSince?.(dir, vouching!.then?.worktrees.get(dir) ?? 0);
      const then = before.worktrees.get(dir)!;
      return [dir, (paths && (await pathsStamp(dir, then, paths))) ?? (await readableStamp(dir))] as const;
    }),
  );
  for (const [dir, stamp] of read) worktrees.set(dir, stamp);
  return { stamp: { refs: before.refs, worktrees }, full: false, read: read.length, missed: unsure.missed };
}

/** The worktrees of `stamp` file events do not vouch for; undefined when they vouch for nothing. */
function unvouched(
  stamp: RepositoryStamp,
  { then, now, watched }: Vouching,
): { dirs: string[]; missed: number; missedIn: Set<string> } | undefined {
  if (!then || !now || then.all !== now.all) return undefined;
  const followed = new Set(watched);
  const dirs: string[] = [];
  const missedIn = new Set<string>();
  for (const [dir, worktree] of stamp.worktrees) {
    if (!followed.has(dir)) return undefined;
    if ((then.worktrees.get(dir) ?? 0) !== (now.worktrees.get(dir) ?? 0)) dirs.push(dir);
    else if (!worktreeStatsHold(dir, worktree)) {
      dirs.push(dir);
      missedIn.add(dir);
    }
  }
  return { dirs, missed: missedIn.size, missedIn };
}

/**
 * A worktree's stamp with only its event paths read again (`git status` of those paths): the
 * records under them replaced, the others kept once their stat holds. Undefined (read the whole
 * status) when there are too many paths, or a kept path's stat moved with no event.
 */
async function pathsStamp(dir: string, then: WorktreeStamp, paths: readonly string[]): Promise<WorktreeStamp | undefined> {
  if (paths.length === 0 || paths.length > MAX_EVENT_PATHS) return undefined;
  const covered = (path: string): boolean => paths.some((p) => path === p || path.startsWith(`${p}/`));
  const kept = new Map([...then.paths].filter(([path]) => !covered(path)));
  if (!worktreeStatsHold(dir, { head: then.head, paths: kept })) return undefined;
  let status: Buffer;
  try {
    status = await readWorktreeStatusOf(dir, paths);
  } catch {
    return undefined;
  }
  const { head, records } = parseStatusV2(status.toString('utf8'));
  for (const [path, record] of records) kept.set(path, `${record} ${fileStamp(join(dir, path))}`);
  return { head, paths: kept };
}

/** What changed from `before` to `after`. */
export function stampDelta(before: RepositoryStamp | undefined, after: RepositoryStamp): StampDelta {
  if (!before || before.refs !== after.refs) return { kind: 'repository' };
  const changed = new Map<string, readonly string[] | 'all'>();
  for (const [dir, now] of after.worktrees) {
    const then = before.worktrees.get(dir);
    if (!then || then.head !== now.head) {
      changed.set(dir, 'all');
      continue;
    }
    const paths = new Set<string>();
    for (const [path, stamp] of now.paths) if (then.paths.get(path) !== stamp) paths.add(path);
    // A path that left the status was reverted or committed: read it again too.
    for (const path of then.paths.keys()) if (!now.paths.has(path)) paths.add(path);
    if (paths.size > 0) changed.set(dir, [...paths].sort());
  }
  return changed.size === 0 ? { kind: 'same' } : { kind: 'worktrees', changed };
}

/** An editor's unsaved buffers: worktree directory → path (repository-relative or absolute) → text. */
export type Buffers = Readonly<Record<string, Readonly<Record<string, string | Buffer>>>>;

const realOr = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
};

/**
 * Buffers as digests per worktree, keyed as the stamp names worktrees (matched by real path),
 * paths repository-relative: what the scanner read them as, compared at the next scan.
 */
export function bufferDigests(buffers: Buffers | undefined, worktrees: readonly string[]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  if (!buffers) return out;
  const byReal = new Map(worktrees.map((w) => [realOr(w), w]));
  for (const [dir, files] of Object.entries(buffers)) {
    const worktree = byReal.get(realOr(dir)) ?? resolve(dir);
    const digests = out.get(worktree) ?? new Map<string, string>();
    for (const [path, text] of Object.entries(files)) {
      const rel = (isAbsolute(path) ? relative(realOr(dir), realOr(path)) : path).split(sep).join('/').replace(/^\.\//, '');
      digests.set(rel, createHash('sha1').update(text).digest('hex'));
    }
    if (digests.size > 0) out.set(worktree, digests);
  }
  return out;
}

/** The paths, per worktree, whose buffer came, changed or went between two scans. */
export function buffersDelta(
  before: ReadonlyMap<string, ReadonlyMap<string, string>>,
  after: ReadonlyMap<string, ReadonlyMap<string, string>>,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const worktree of new Set([...before.keys(), ...after.keys()])) {
    const then = before.get(worktree) ?? new Map<string, string>();
    const now = after.get(worktree) ?? new Map<string, string>();
    const paths = [...new Set([...then.keys(), ...now.keys()])].filter((p) => then.get(p) !== now.get(p)).sort();
    if (paths.length > 0) out.set(worktree, paths);
  }
  return out;
}

/** A stamp's delta with the paths whose buffers changed read again too. */
export function withBuffers(delta: StampDelta, buffers: ReadonlyMap<string, readonly string[]>): StampDelta {
  if (buffers.size === 0 || delta.kind === 'repository') return delta;
  const changed = new Map<string, readonly string[] | 'all'>(delta.kind === 'worktrees' ? delta.changed : []);
  for (const [worktree, paths] of buffers) {
    const known = changed.get(worktree);
    if (known === 'all') continue;
    changed.set(worktree, [...new Set([...(known ?? []), ...paths])].sort());
  }
  return { kind: 'worktrees', changed };
}
