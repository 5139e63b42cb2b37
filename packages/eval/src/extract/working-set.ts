/**
 * A committed working set: the FileEdits of `git diff base..commit`, with recency from commit
 * times, through @airspace/git's diff parser and FileEdit conversion.
 */
import { DEFAULT_RECENCY, type FileEdit, type RecencyOptions } from '@airspace/core';
import { DEFAULT_MAX_FILE_BYTES, blobSizes, diffTrees, readHistory, toFileEdit } from '@airspace/git';

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

export async function commitWorkingSet(cwd: string, base: string, commit: string, options: CommitWorkingSetOptions): Promise<CommitWorkingSet> {
  const env = options.env ?? {};
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const [entries, history] = await Promise.all([diffTrees(cwd, env, base, commit, maxFileBytes), readHistory(cwd, base, commit)]);
  const common = { commits: history.commits, changedLines: history.changedLines, ...(history.firstCommitAt !== undefined ? { startedAt: history.firstCommitAt } : {}) };
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
