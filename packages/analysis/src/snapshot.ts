/**
 * What the index reads: a list of files with a content id and a way to read them. Front ends
 * build it from a worktree (`worktreeSnapshot`), a commit (`treeSnapshot`) or anything else
 * (an editor's unsaved buffers, an in-memory test set: `memorySnapshot`).
 */
import { createHash } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import {
  contentOf,
  createBlobReader,
  END_OF_OPTIONS,
  fsName,
  gitOperand,
  hasRawBytes,
  readWorktreeFile,
  runGit,
  runGitRaw,
  splitPaths,
  worktreeFilePath,
} from '@airspace/git';

export interface SnapshotFile {
  /** Repository-relative path, forward slashes. */
  readonly path: string;
  /** Git blob id of the content, when known (otherwise the index hashes the content as git does). */
  readonly blobId?: string;
  read(): Promise<Buffer> | Buffer;
  /**
   * Where the content is a plain file on disk (a worktree's file), absolute: parse workers then
   * read it themselves instead of being handed its bytes.
   */
  readonly diskPath?: string;
}

export interface Snapshot {
  readonly files: readonly SnapshotFile[];
  /** The work tree the files are read from, when the snapshot is of one (`worktreeSnapshot`). */
  readonly root?: string;
}

/** The git blob id of some content: sha1 of `blob <length>\0<content>`. */
export function gitBlobId(content: Buffer | string): string {
  const buf = typeof content === 'string' ? Buffer.from(content) : content;
  return createHash('sha1').update(`blob ${buf.length}\0`).update(buf).digest('hex');
}

/** A snapshot of literal contents (tests, editors' unsaved buffers). */
export function memorySnapshot(files: Readonly<Record<string, string | Buffer>>): Snapshot {
  return {
    files: Object.entries(files).map(([path, content]) => {
      const buf = typeof content === 'string' ? Buffer.from(content) : content;
      return { path, blobId: gitBlobId(buf), read: () => buf };
    }),
  };
}

/** The repository's common git directory (shared by all worktrees), absolute. */
export async function gitCommonDir(dir: string): Promise<string> {
  const out = (await runGit(['rev-parse', '--git-common-dir'], { cwd: dir })).trim();
  return isAbsolute(out) ? out : resolve(dir, out);
}

/** Where the facts cache lives for a repository: `<git common dir>/airspace/cache`. */
export async function defaultCacheDir(dir: string): Promise<string> {
  return join(await gitCommonDir(dir), 'airspace', 'cache');
}

/**
 * A worktree as it is on disk: tracked files by their index blob id (`git ls-files -s`), files
 * changed in the work tree and untracked files that are not ignored hashed from disk. Submodules,
 * symbolic links and whatever is not a regular file (a FIFO, a device), committed or not, are left
 * out; files are read by `readWorktreeFile` (regular, inside the work tree, bounded). Read-only:
 * git is run with optional locks off.
 */
export async function worktreeSnapshot(dir: string): Promise<Snapshot> {
  const root = (await runGit(['rev-parse', '--show-toplevel'], { cwd: dir })).trim();
  const [staged, status] = await Promise.all([
    runGitRaw(['ls-files', '-s', '-z'], { cwd: root }),
    runGitRaw(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all'], { cwd: root }),
  ]);
  const blobs = new Map<string, string | undefined>();
  // Names are bytes: read faithfully, so two names that are not UTF-8 never become one.
  for (const rec of splitPaths(staged.stdout)) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    const [mode, blob, stage] = rec.slice(0, tab).split(' ');
    const path = rec.slice(tab + 1);
    if (mode === '160000' || mode === '120000') continue;
    // Conflicted entries (stage 1–3): the work tree's content decides.
    blobs.set(path, stage === '0' ? blob : undefined);
  }
  for (const rec of splitPaths(status.stdout)) {
    if (rec.length < 4) continue;
    const x = rec[0]!;
    const y = rec[1]!;
    const path = rec.slice(3);
    if (x === '?' && y === '?') blobs.set(path, undefined);
    else if (y === 'D' || (x === 'D' && y === ' ')) blobs.delete(path);
    else if (y !== ' ') blobs.set(path, undefined);
  }
  const files: SnapshotFile[] = [];
  const listed = await Promise.all(
    [...blobs].map(async ([path, blobId]): Promise<SnapshotFile | undefined> => {
      const full = join(root, path);
      // A name that is not UTF-8 is read by its bytes (a parsing thread takes text paths only).
      const raw = hasRawBytes(path);
      // What git did not hash (changed, untracked) may be a link, a FIFO or a device: left out.
      if (!blobId && !(await lstat(raw ? fsName(full) : full).catch(() => undefined))?.isFile()) return undefined;
      const read = raw ? () => readFile(fsName(full)) : async () => contentOf(await readWorktreeFile(root, path));
      const where = raw ? {} : { diskPath: full };
      return blobId ? { path, blobId, read, ...where } : { path, read, ...where };
    }),
  );
  // In git's order, whichever stat came back first.
  for (const file of listed) if (file) files.push(file);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, root };
}

/**
 * A worktree snapshot after some of its files changed on disk, without listing the worktree
 * again (an editor that knows which files it saved): each changed path is read from disk (its
 * blob id is then computed by the index), dropped when it no longer exists as a file, or added.
 * Paths are repository-relative; the snapshot must have a `root`.
 */
export async function patchSnapshot(snapshot: Snapshot, changedPaths: readonly string[]): Promise<Snapshot> {
  const root = snapshot.root;
  if (root === undefined) throw new Error('patchSnapshot needs a snapshot of a work tree (with a root)');
  const now = new Map<string, SnapshotFile | null>();
  await Promise.all(
    [...new Set(changedPaths)].map(async (path) => {
      const at = worktreeFilePath(root, path);
      const full = 'file' in at ? at.file : undefined;
      const st = full ? await lstat(full).catch(() => undefined) : undefined;
      now.set(
        path,
        full && st?.isFile() ? { path, read: async () => contentOf(await readWorktreeFile(root, path)), diskPath: full } : null,
      );
    }),
  );
  const files: SnapshotFile[] = [];
  const seen = new Set<string>();
  for (const f of snapshot.files) {
    const n = now.get(f.path);
    if (n === undefined) files.push(f);
    else {
      seen.add(f.path);
      if (n) files.push(n);
    }
  }
  const added = [...now.values()].filter((f): f is SnapshotFile => f !== null && !seen.has(f.path));
  if (added.length > 0) {
    files.push(...added);
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  return { files, root };
}

/**
 * A commit's tree (`git ls-tree -r`): contents are read through one long-lived
 * `git cat-file --batch` (`createBlobReader`).
 */
export async function treeSnapshot(dir: string, rev: string): Promise<Snapshot> {
  const out = await runGitRaw(['ls-tree', '-r', '-z', '--full-tree', END_OF_OPTIONS, gitOperand(rev, 'revision')], { cwd: dir });
  const reader = createBlobReader(dir);
  const files: SnapshotFile[] = [];
  for (const rec of out.stdout.toString('utf8').split('\0')) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    const [mode, type, blob] = rec.slice(0, tab).split(' ');
    if (type !== 'blob' || mode === '120000' || !blob) continue;
    files.push({ path: rec.slice(tab + 1), blobId: blob, read: () => reader.read(blob) });
  }
  return { files };
}
