/**
 * Reading a source file for parsing, the same in every thread: a file too large or binary is
 * skipped with its reason, an unreadable one too. Workers read files themselves when the
 * snapshot says where they are on disk (`SnapshotFile.diskPath`), so the thread that indexes
 * spends nothing on their bytes.
 */
import { readRegularFileSync } from '@airspace/git/worktree-file';

export type SourceSkip = { readonly skip: 'too-large' | 'binary' | 'unreadable'; readonly detail?: string };

/** Whether the first 8,000 bytes hold a NUL byte (as git decides a file is binary). */
export function isBinary(buf: Uint8Array): boolean {
  const n = Math.min(buf.length, 8000);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

/** Why `content` is not parsed, if it is not. */
export function sourceSkip(content: Uint8Array, maxBytes: number): SourceSkip | undefined {
  if (content.length > maxBytes) return { skip: 'too-large', detail: `${content.length} bytes > ${maxBytes}` };
  if (isBinary(content)) return { skip: 'binary' };
  return undefined;
}

/** The bytes of the file at `diskPath` to parse, or why not: a regular file only, read up to `maxBytes` (`readRegularFileSync`). */
export function readSource(diskPath: string, maxBytes: number): { readonly content: Buffer } | SourceSkip {
  const read = readRegularFileSync(diskPath, Number.isFinite(maxBytes) ? { maxBytes } : {});
  if ('skip' in read) return { skip: read.skip === 'too-large' ? 'too-large' : 'unreadable', detail: read.detail };
  return sourceSkip(read.content, maxBytes) ?? { content: read.content };
}
