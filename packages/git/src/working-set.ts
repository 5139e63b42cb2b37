/**
 * An agent's working set: one `git diff-tree` from its merge base to its state tree, turned into
 * FileEdits (ranges in base and current coordinates, hunks, blob ids, recency weight).
 */
import { lstatSync } from 'node:fs';
import { DEFAULT_RECENCY, recencyWeight, type FileEdit, type RecencyOptions } from '@airspace/core';
import { modeKind, parseRawPatch, type DiffEntry } from './diff.js';
import { runGit, runGitRaw } from './exec.js';
import { decodeLatin1Path, fsPath, splitPaths } from './path-bytes.js';

/** The tree of an empty repository: what an unborn branch is diffed against. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;

/**
 * Flags that make the diff the one a merge sees: histogram (merge-ort's algorithm), renames on,
 * no context so each change is its own hunk; files over the size limit are treated as binary.
 */
export function diffArgs(from: string, to: string, maxFileBytes: number, paths?: readonly string[]): string[] {
  const big = Number.isFinite(maxFileBytes) ? ['-c', `core.bigFileThreshold=${Math.max(1, Math.floor(maxFileBytes))}`] : [];
  return [
    ...big,
    'diff-tree',
    '-r',
    '-z',
    '--raw',
    '-p',
    '-U0',
    '--inter-hunk-context=0',
    '--no-abbrev',
    '--full-index',
    '-M',
    '--diff-algorithm=histogram',
    '--no-textconv',
    '--no-ext-diff',
    from,
    to,
    ...(paths ? ['--', ...paths.map((p) => `:(literal)${p}`)] : []),
  ];
}

export async function diffTrees(
  cwd: string,
  env: Readonly<Record<string, string>>,
  from: string,
  to: string,
  maxFileBytes: number,
  paths?: readonly string[],
): Promise<DiffEntry[]> {
  const r = await runGitRaw(diffArgs(from, to, maxFileBytes, paths), { cwd, env });
  return parseRawPatch(r.stdout);
}

/**
 * The changed paths alone (no patch, so no blob is read): the fallback when the patch cannot be
 * made, e.g. a blob missing from a partial or damaged clone.
 */
export async function diffTreesRaw(cwd: string, env: Readonly<Record<string, string>>, from: string, to: string): Promise<DiffEntry[]> {
  const r = await runGitRaw(['diff-tree', '-r', '-z', '--raw', '--no-abbrev', '--no-renames', from, to], { cwd, env });
  return parseRawPatch(r.stdout);
}

/** Sizes of blobs (for telling "binary" from "too large"); missing objects are left out. */
export async function blobSizes(cwd: string, env: Readonly<Record<string, string>>, ids: readonly string[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  if (ids.length === 0) return sizes;
  const out = await runGit(['cat-file', '--batch-check=%(objectname) %(objectsize)'], { cwd, env, input: ids.join('\n') + '\n' });
  for (const line of out.split('\n')) {
    const [id, size] = line.split(' ');
    if (id && size && /^\d+$/.test(size)) sizes.set(id, Number(size));
  }
  return sizes;
}

export interface History {
  readonly commits: number;
  readonly changedLines: number;
  /** Author time of the first commit after the merge base (ms). */
  readonly firstCommitAt?: number;
  /** Commit time of the last commit touching each path (ms). */
  readonly lastCommitAt: ReadonlyMap<string, number>;
}

/** Commits in `from..to` with their per-file line counts: one `git log` call. */
export async function readHistory(
  cwd: string,
  from: string | undefined,
  to: string,
  options: { readonly numstat?: boolean } = {},
): Promise<History> {
  const range = from ? [`${from}..${to}`] : [to];
  // Without numstat no blob is read: the fallback when some blob is missing.
  const stat = options.numstat === false ? ['--name-only'] : ['--numstat'];
  // Read byte for byte (latin1): names are decoded faithfully one by one.
  const out = (
    await runGitRaw(
      ['log', '--no-show-signature', '--no-decorate', '--no-color', '--no-renames', '-z', '--format=%x01%at %ct', ...stat, ...range, '--'],
      { cwd },
    )
  ).stdout.toString('latin1');
  let commits = 0;
  let changedLines = 0;
  let firstCommitAt: number | undefined;
  const lastCommitAt = new Map<string, number>();
  for (const chunk of out.split('\x01')) {
    if (!chunk) continue;
    const headerEnd = chunk.indexOf('\0');
    const header = headerEnd < 0 ? chunk : chunk.slice(0, headerEnd);
    const [at, ct] = header.trim().split(' ').map(Number);
    commits++;
    if (at !== undefined && Number.isFinite(at)) firstCommitAt = at * 1000; // log is newest first: the last seen is the first commit
    const when = (ct ?? 0) * 1000;
    if (headerEnd < 0) continue;
    for (const record of chunk
      .slice(headerEnd + 1)
      .replace(/^\n/, '')
      .split('\0')) {
      const m = /^(\d+|-)\t(\d+|-)\t([\s\S]*)$/.exec(record) ?? (options.numstat === false && record ? [record, '-', '-', record] : null);
      if (!m) continue;
      changedLines += (m[1] === '-' ? 0 : Number(m[1])) + (m[2] === '-' ? 0 : Number(m[2]));
      const path = decodeLatin1Path(m[3]!);
      if (!lastCommitAt.has(path)) lastCommitAt.set(path, when);
    }
  }
  return { commits, changedLines, ...(firstCommitAt !== undefined ? { firstCommitAt } : {}), lastCommitAt };
}

/** Paths whose content in `tree` differs from `head` (uncommitted work), by name. */
export async function changedPaths(cwd: string, env: Readonly<Record<string, string>>, head: string, tree: string): Promise<Set<string>> {
  const r = await runGitRaw(['diff-tree', '-r', '-z', '--name-only', '--no-renames', head, tree], { cwd, env });
  return new Set(splitPaths(r.stdout));
}

/** A change of mode alone (e.g. chmod +x) changes no line: it is not an edit. */
export function isModeOnly(e: DiffEntry): boolean {
  return e.status === 'modified' && e.oldBlob !== undefined && e.oldBlob === e.newBlob && e.hunks.length === 0;
}

export interface EditContext {
  /** Time of the last edit of a path, or undefined when unknown. */
  lastEditedAt(path: string): number | undefined;
  /** Whether a path's change is uncommitted work (current: weight 1, whatever its age). */
  readonly uncommitted?: (path: string) => boolean;
  readonly now: number;
  readonly recency: RecencyOptions;
  /** Blob sizes over the limit (from blobSizes), to tell "too large" from "binary". */
  readonly tooLarge: (blob: string | undefined) => boolean;
  /** Compare file-level only (missing merge base): every file is whole. */
  readonly wholeFiles: boolean;
}

/** One diff entry as a FileEdit; undefined for what is not an edit (mode-only changes). */
export function toFileEdit(e: DiffEntry, ctx: EditContext): FileEdit | undefined {
  if (isModeOnly(e)) return undefined;
  const lastEditedAt = ctx.lastEditedAt(e.path);
  const status = e.status === 'typechange' ? 'modified' : e.status;
  const common = {
    path: e.path,
    ...(e.status === 'renamed' ? { oldPath: e.oldPath } : {}),
    status,
    weight: ctx.uncommitted?.(e.path) ? 1 : recencyWeight(lastEditedAt, ctx.now, ctx.recency),
    ...(e.oldBlob ? { baseBlob: e.oldBlob } : {}),
    ...(e.newBlob ? { newBlob: e.newBlob } : {}),
    ...(lastEditedAt !== undefined ? { lastEditedAt } : {}),
  } as const;
  const gitlink = modeKind(e.oldMode) === 'gitlink' || modeKind(e.newMode) === 'gitlink';
  const large = e.binary && (ctx.tooLarge(e.newBlob) || ctx.tooLarge(e.oldBlob));
  const whole = ctx.wholeFiles || gitlink || e.binary || e.status === 'typechange' || e.status === 'added' || e.status === 'deleted';
  if (whole) return { ...common, baseRanges: 'whole', newRanges: 'whole', ...(e.binary && !large ? { binary: true } : {}) };
  return { ...common, baseRanges: e.hunks.map((h) => h.base), newRanges: e.hunks.map((h) => h.current), hunks: e.hunks };
}

/** Modification time of a work tree file (ms), or undefined when it is gone. */
export function fileMtime(dir: string, path: string): number | undefined {
  try {
    return lstatSync(fsPath(dir, path)).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * A committed working set: the FileEdits of `git diff base..commit` (no work tree involved), with
 * recency from the commit times of base..commit. What replaying history (`airspace eval`) uses
 * for each side of a merge.
 */
export interface CommitWorkingSet {
  readonly files: FileEdit[];
  /** Commits in base..commit. */
  readonly commits: number;
  readonly changedLines: number;
  /** Author time of the first commit after the base (ms). */
  readonly startedAt?: number;
  /** The diff listed more files than `maxFiles`; `files` is empty. */
  readonly tooManyFiles: boolean;
}

export interface CommitWorkingSetOptions {
  /** Time of observation for recency weights (ms). */
  readonly now: number;
  readonly recency?: RecencyOptions;
  readonly maxFileBytes?: number;
  readonly maxFiles?: number;
  readonly env?: Readonly<Record<string, string>>;
}

export async function commitWorkingSet(
  cwd: string,
  base: string,
  commit: string,
  options: CommitWorkingSetOptions,
): Promise<CommitWorkingSet> {
  const env = options.env ?? {};
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const [entries, history] = await Promise.all([diffTrees(cwd, env, base, commit, maxFileBytes), readHistory(cwd, base, commit)]);
  const common = {
    commits: history.commits,
    changedLines: history.changedLines,
    ...(history.firstCommitAt !== undefined ? { startedAt: history.firstCommitAt } : {}),
  };
  if (options.maxFiles !== undefined && entries.length > options.maxFiles) return { files: [], ...common, tooManyFiles: true };
  const binaries = entries.filter((e) => e.binary).flatMap((e) => [e.oldBlob, e.newBlob].filter((b): b is string => b !== undefined));
  const sizes = await blobSizes(cwd, env, binaries);
  const files: FileEdit[] = [];
  for (const entry of entries) {
    const edit = toFileEdit(entry, {
      lastEditedAt: (path) => history.lastCommitAt.get(path),
      now: options.now,
      recency: options.recency ?? DEFAULT_RECENCY,
      tooLarge: (blob) => blob !== undefined && (sizes.get(blob) ?? 0) > maxFileBytes,
      wholeFiles: false,
    });
    if (edit) files.push(edit);
  }
  return { files, ...common, tooManyFiles: false };
}
