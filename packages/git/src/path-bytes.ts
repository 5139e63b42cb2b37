/**
 * File names are bytes to git and to the file system, not text. A name that is valid UTF-8 is
 * its text; in one that is not, each byte that does not decode stands as a lone surrogate
 * U+DC80–U+DCFF (Python's "surrogateescape"), which no valid UTF-8 text decodes to. So two
 * different names never become one, and `pathBytes` gives back the exact bytes to open the file.
 */
import { join } from 'node:path';

const strict = new TextDecoder('utf-8', { fatal: true });
const ESCAPED = /[\udc80-\udcff]/;

/** Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there does not start one. */
function sequenceAt(b: Uint8Array, i: number): number {
  const x = b[i]!;
  if (x < 0x80) return 1;
  const n = x >= 0xc2 && x <= 0xdf ? 2 : x >= 0xe0 && x <= 0xef ? 3 : x >= 0xf0 && x <= 0xf4 ? 4 : 0;
  if (n === 0 || i + n > b.length) return 0;
  try {
    strict.decode(b.subarray(i, i + n));
    return n;
  } catch {
    return 0;
  }
}

/** A file name's bytes as a string, faithfully (see the file header). */
export function decodePath(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch {
    let out = '';
    for (let i = 0; i < bytes.length;) {
      const n = sequenceAt(bytes, i);
      if (n === 0) {
        out += String.fromCharCode(0xdc00 + bytes[i]!);
        i++;
      } else {
        out += Buffer.from(bytes.buffer, bytes.byteOffset + i, n).toString('utf8');
        i += n;
      }
    }
    return out;
  }
}

/** A name decoded from latin1 text (git output read byte for byte) as `decodePath` gives it. */
export const decodeLatin1Path = (latin1: string): string => decodePath(Buffer.from(latin1, 'latin1'));

/** True when the name holds bytes that are not UTF-8 (escaped by `decodePath`). */
export const hasRawBytes = (path: string): boolean => ESCAPED.test(path);

/** The bytes of a name `decodePath` gave: escaped bytes as themselves, the rest as UTF-8. */
export function pathBytes(path: string): Buffer {
  if (!hasRawBytes(path)) return Buffer.from(path, 'utf8');
  const parts: Buffer[] = [];
  let run = '';
  for (const ch of path) {
    const c = ch.charCodeAt(0);
    if (ch.length === 1 && c >= 0xdc80 && c <= 0xdcff) {
      if (run) parts.push(Buffer.from(run, 'utf8'));
      run = '';
      parts.push(Buffer.of(c - 0xdc00));
    } else run += ch;
  }
  if (run) parts.push(Buffer.from(run, 'utf8'));
  return Buffer.concat(parts);
}

/** A name (or absolute path) for the file system: its bytes when it holds bytes that are not UTF-8. */
export const fsName = (path: string): string | Buffer => (hasRawBytes(path) ? pathBytes(path) : path);

/** `join(dir, path)` for the file system: a Buffer when the name holds bytes that are not UTF-8. */
export function fsPath(dir: string, path: string): string | Buffer {
  return hasRawBytes(path) ? Buffer.concat([Buffer.from(`${join(dir)}/`, 'utf8'), pathBytes(path)]) : join(dir, path);
}

/** Splits NUL-terminated git output (`-z`) into faithful names. */
export function splitPaths(output: Buffer): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = output.indexOf(0); i >= 0; i = output.indexOf(0, start)) {
    if (i > start) out.push(decodePath(output.subarray(start, i)));
    start = i + 1;
  }
  if (start < output.length) out.push(decodePath(output.subarray(start)));
  return out;
}
