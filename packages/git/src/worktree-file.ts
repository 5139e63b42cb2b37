/**
 * The one way a file of a work tree (or any file a user names) is read: regular files only, read
 * through a descriptor opened non-blocking and without following a link, its type and size checked
 * on that descriptor (`fstat`) before a byte is read, the read bounded. A FIFO never blocks, a
 * device (`/dev/zero`, `/dev/urandom`) is never read, a symbolic link (`src/x.ts -> /etc/passwd`)
 * is never followed, and a work-tree path never leads outside its work tree — as git itself stores
 * a link as a link and skips what is not a file, and as scans read only git's objects.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { unsafeRepoPath } from './repo-path.js';

export type FileSkipReason = 'outside' | 'not-a-file' | 'too-large' | 'unreadable';

/** A file's bytes, or why they were not read. */
export type FileRead = { readonly content: Buffer } | { readonly skip: FileSkipReason; readonly detail: string };

/** Default bound of a read: larger files are not read at all. */
export const MAX_READ_BYTES = 64 << 20;

export interface ReadFileOptions {
  /** Larger files are not read (default `MAX_READ_BYTES`). */
  readonly maxBytes?: number;
  /** Follow a symbolic link named as the file itself: for a file a user names (a trail, observations), never for a work tree's. */
  readonly followLinks?: boolean;
}

const flags = (o: ReadFileOptions): number =>
  constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (o.followLinks ? 0 : (constants.O_NOFOLLOW ?? 0));

const skipped = (skip: FileSkipReason, detail: string): FileRead => ({ skip, detail });

function kindOf(st: { isFile(): boolean; isDirectory(): boolean; isFIFO(): boolean; isSymbolicLink(): boolean }): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'a device or socket';
}

function failed(path: string, e: unknown): FileRead {
  const code = (e as NodeJS.ErrnoException).code;
  // O_NOFOLLOW on a link: ELOOP (Linux, macOS) or EMLINK (FreeBSD).
  if (code === 'ELOOP' || code === 'EMLINK') return skipped('not-a-file', `${path} is a symbolic link`);
  return skipped('unreadable', e instanceof Error ? e.message : String(e));
}

/** Reads `file` when it is a regular file of at most `maxBytes` (links are not followed unless asked). Never blocks on a FIFO. */
export function readRegularFileSync(file: string, options: ReadFileOptions = {}): FileRead {
  const maxBytes = options.maxBytes ?? MAX_READ_BYTES;
  let fd: number;
  try {
    fd = openSync(file, flags(options));
  } catch (e) {
    return failed(file, e);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return skipped('not-a-file', `${file} is ${kindOf(st)}, not a regular file`);
    if (st.size > maxBytes) return skipped('too-large', `${st.size} bytes > ${maxBytes}`);
    // The size as of fstat, plus one byte to notice a file that grew: never more.
    const buf = Buffer.alloc(st.size + 1);
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
    if (n > maxBytes) return skipped('too-large', `more than ${maxBytes} bytes`);
    return { content: buf.subarray(0, n) };
  } catch (e) {
    return failed(file, e);
  } finally {
    closeSync(fd);
  }
}

/** `readRegularFileSync`, asynchronously. */
export async function readRegularFile(file: string, options: ReadFileOptions = {}): Promise<FileRead> {
  const maxBytes = options.maxBytes ?? MAX_READ_BYTES;
  let handle;
  try {
    handle = await open(file, flags(options));
  } catch (e) {
    return failed(file, e);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return skipped('not-a-file', `${file} is ${kindOf(st)}, not a regular file`);
    if (st.size > maxBytes) return skipped('too-large', `${st.size} bytes > ${maxBytes}`);
    const buf = Buffer.alloc(st.size + 1);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await handle.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    if (n > maxBytes) return skipped('too-large', `more than ${maxBytes} bytes`);
    return { content: buf.subarray(0, n) };
  } catch (e) {
    return failed(file, e);
  } finally {
    await handle.close();
  }
}

/**
 * Where a work tree's repository-relative `path` is on disk, or why it is not inside the work
 * tree: the path passes `unsafeRepoPath` and its directory, links resolved, is inside `root`'s.
 */
export function worktreeFilePath(
  root: string,
  path: string,
): { readonly file: string } | { readonly skip: FileSkipReason; readonly detail: string } {
  const why = unsafeRepoPath(path);
  if (why) return { skip: 'outside', detail: `${JSON.stringify(path)} ${why}` };
  const file = join(root, path);
  try {
    const top = realpathSync(root);
    const parent = realpathSync(dirname(file));
    if (parent !== top && !parent.startsWith(top + sep))
      return { skip: 'outside', detail: `${path} is under a link that leads outside the work tree` };
  } catch (e) {
    return { skip: 'unreadable', detail: e instanceof Error ? e.message : String(e) };
  }
  return { file };
}

/** A work tree's file by repository-relative path: inside the work tree, a regular file, bounded. */
export function readWorktreeFileSync(root: string, path: string, maxBytes = MAX_READ_BYTES): FileRead {
  const at = worktreeFilePath(root, path);
  return 'skip' in at ? at : readRegularFileSync(at.file, { maxBytes });
}

/** `readWorktreeFileSync`, asynchronously. */
export async function readWorktreeFile(root: string, path: string, maxBytes = MAX_READ_BYTES): Promise<FileRead> {
  const at = worktreeFilePath(root, path);
  return 'skip' in at ? at : readRegularFile(at.file, { maxBytes });
}

/** The bytes of a read, or throws an error saying why not (for callers whose contract is to throw). */
export function contentOf(read: FileRead): Buffer {
  if ('content' in read) return read.content;
  throw Object.assign(new Error(read.detail), { code: read.skip === 'unreadable' ? 'EIO' : 'ENOTFILE' });
}
