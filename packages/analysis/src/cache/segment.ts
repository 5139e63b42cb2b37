/**
 * One segment of the facts cache on disk: a batch of entries written by one index run, in two
 * files. `seg-*.head.json` holds per entry the head (imports as JSON text, decoded on first
 * access, parse errors, line count) and where its body lies; `seg-*.body` holds per entry Int32
 * references and calls, then exports, definitions and the string table as JSON. A body is read
 * whole (one synchronous read) on first use of any of its entries and checked against the
 * checksum in its head — crc32, or sha1 on a Node without `zlib.crc32` (`checksum.ts`). The head
 * is itself sealed with its own checksum line and checked when read, so a flipped bit in an
 * import specifier drops the segment (its files are parsed again) rather than changing the graph.
 * The body is written
 * before the head, each to a temporary file renamed into place (atomic on one filesystem), so
 * readers never see half of a segment and concurrent writers never clash (each writes its own).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, readSync, unlinkSync } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { checksumOf, newChecksum, seal, unseal } from './checksum.js';
import { checkBody, validHead, type PackedBody, type PackedHead } from './pack.js';

const FORMAT = 'airspace-facts-segment-4';
const ENDIAN = endianness();

/** Head file entry: key, head, then the body's byte offset and its part sizes. */
export type HeadEntry = [key: string, head: PackedHead, offset: number, refs: number, calls: number, jsonBytes: number];

export interface SegmentHead {
  readonly format: string;
  readonly version: string;
  readonly endian: string;
  readonly bodyBytes: number;
  /** `crc32:<hex>` or `sha1:<hex>`. */
  readonly bodyCheck: string;
  readonly entries: HeadEntry[];
}

/** An entry as the store holds it: the head and the body, read on demand (undefined: bad). */
export interface SegmentEntry {
  readonly head: PackedHead;
  readonly body: () => PackedBody | undefined;
}

export const isBlob = (blob: string) => /^[0-9a-f]{6,64}$/.test(blob);

export const headPath = (dir: string, name: string) => join(dir, `${name}.head.json`);
export const bodyPath = (dir: string, name: string) => join(dir, `${name}.body`);

/** A fresh segment name: time, process and randomness, so concurrent writers never clash. */
export const newSegmentName = () => `seg-${Date.now().toString(36)}-${process.pid}-${randomBytes(4).toString('hex')}`;

/** Deletes a segment's two files, head first; a file already gone (merged or removed by another process) is fine. */
export function removeSegment(dir: string, name: string): void {
  for (const p of [headPath(dir, name), bodyPath(dir, name)]) {
    try {
      unlinkSync(p);
    } catch {
      // Already gone.
    }
  }
}

/**
 * A head file's bytes as a segment head of `version` on this machine; `{ damaged }` saying why
 * when its checksum does not match or it is corrupt or foreign.
 */
export function parseSegmentHead(raw: Buffer, version: string): SegmentHead | { damaged: string } {
  const sealed = unseal(raw);
  if (!('text' in sealed)) return { damaged: 'damaged' in sealed ? sealed.damaged : 'no checksum line' };
  let seg: Partial<SegmentHead>;
  try {
    seg = JSON.parse(sealed.text) as Partial<SegmentHead>;
  } catch {
    seg = {};
  }
  if (
    seg.format !== FORMAT ||
    seg.version !== version ||
    seg.endian !== ENDIAN ||
    !Array.isArray(seg.entries) ||
    typeof seg.bodyBytes !== 'number' ||
    typeof seg.bodyCheck !== 'string'
  )
    return { damaged: 'not a segment head of this version' };
  return seg as SegmentHead;
}

/** What a head file lists for one entry, checked: its key and head, or undefined when damaged. */
export function checkedEntry(e: unknown): { key: string; head: PackedHead } | undefined {
  const key = Array.isArray(e) ? (e[0] as unknown) : undefined;
  const head = Array.isArray(e) && e.length === 6 ? validHead(e[1]) : undefined;
  const [blob, language] = typeof key === 'string' ? key.split(':') : [];
  if (
    typeof key !== 'string' ||
    !key ||
    !blob ||
    !isBlob(blob) ||
    !head ||
    head.l !== language ||
    !(e as unknown[]).slice(2).every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0)
  )
    return undefined;
  return { key, head };
}

/**
 * The body reader of one segment: one read of the whole file, checked, on first use. The body
 * is opened with its head, so a merge by another process that deletes it meanwhile does not
 * take it away (POSIX keeps an open file readable). `damaged` is told once, with why, when the
 * body is short, fails its checksum or an entry does not decode (`onLookUp`: found by a checked
 * look-up); `read` is told when a body was read whole.
 */
export function bodyReader(
  seg: SegmentHead,
  fd: number,
  on: { readonly read: () => void; readonly damaged: (why: string, onLookUp: boolean) => void },
): { whole(onLookUp?: boolean): boolean; read(e: HeadEntry): PackedBody | undefined } {
  let buf: Buffer | null | undefined;
  const whole = (onLookUp = false): boolean => {
    if (buf === undefined) {
      try {
        const size = fstatSync(fd).size;
        if (size !== seg.bodyBytes) throw new Error(`${size} bytes, expected ${seg.bodyBytes}`);
        const b = Buffer.allocUnsafe(size);
        for (let at = 0; at < size;) {
          const n = readSync(fd, b, at, size - at, at);
          if (n <= 0) throw new Error('short read');
          at += n;
        }
        if (checksumOf(seg.bodyCheck, b) !== seg.bodyCheck) throw new Error('checksum mismatch');
        buf = b;
        on.read();
      } catch (err) {
        buf = null;
        on.damaged(err instanceof Error ? err.message : String(err), onLookUp);
      } finally {
        closeSync(fd);
      }
    }
    return buf !== null;
  };
  const read = (e: HeadEntry): PackedBody | undefined => {
    if (!whole() || !buf) return undefined;
    try {
      return decodeBody(buf, e);
    } catch (err) {
      buf = null;
      on.damaged(err instanceof Error ? err.message : String(err), false);
      return undefined;
    }
  };
  return { whole, read };
}

/**
 * Writes `entries` (those whose body reads) as segment `name` of `dir`: the body, then the head,
 * each renamed into place. Returns the keys written; throws when it cannot write, leaving no
 * temporary file behind.
 */
export async function writeSegmentFiles(
  dir: string,
  name: string,
  version: string,
  entries: Iterable<[string, SegmentEntry]>,
): Promise<string[]> {
  const tmpBody = `${bodyPath(dir, name)}.tmp`;
  const tmpHead = `${headPath(dir, name)}.tmp`;
  try {
    await mkdir(dir, { recursive: true });
    const heads: HeadEntry[] = [];
    const check = newChecksum();
    let offset = 0;
    const fh = await open(tmpBody, 'w');
    try {
      let chunks: Buffer[] = [];
      let chunkBytes = 0;
      const drain = async () => {
        if (chunks.length === 0) return;
        const b = Buffer.concat(chunks, chunkBytes);
        chunks = [];
        chunkBytes = 0;
        await fh.write(b);
      };
      for (const [key, slot] of entries) {
        const body = slot.body();
        if (!body) continue;
        const parts = encodeBody(body);
        const { l, p, e, el, n, i, ni, o } = slot.head;
        heads.push([
          key,
          { l, p, e, el, n, i: typeof i === 'string' ? i : JSON.stringify(i), ni, ...(o ? { o } : {}) },
          offset,
          body.r.length,
          body.c.length,
          parts[2].length,
        ]);
        for (const p of parts) {
          check.update(p);
          chunks.push(p);
          chunkBytes += p.length;
          offset += p.length;
        }
        if (chunkBytes > 4 << 20) await drain();
      }
      await drain();
    } finally {
      await fh.close();
    }
    const head: SegmentHead = { format: FORMAT, version, endian: ENDIAN, bodyBytes: offset, bodyCheck: check.digest(), entries: heads };
    const hf = await open(tmpHead, 'w');
    try {
      await hf.writeFile(seal(JSON.stringify(head)));
    } finally {
      await hf.close();
    }
    await rename(tmpBody, bodyPath(dir, name));
    await rename(tmpHead, headPath(dir, name));
    return heads.map((h) => h[0]);
  } catch (e) {
    await unlink(tmpBody).catch(() => undefined);
    await unlink(tmpHead).catch(() => undefined);
    throw e;
  }
}

const pad4 = (n: number) => (4 - (n % 4)) % 4;

/** An entry's body bytes: Int32 references, Int32 calls, JSON (exports, definitions, strings) padded to 4 bytes. */
function encodeBody(b: PackedBody): [Buffer, Buffer, Buffer, Buffer] {
  const json = Buffer.from(JSON.stringify([b.x, b.d, b.s]));
  return [
    Buffer.from(b.r.buffer, b.r.byteOffset, b.r.byteLength),
    Buffer.from(b.c.buffer, b.c.byteOffset, b.c.byteLength),
    json,
    Buffer.alloc(pad4(json.length)),
  ];
}

function decodeBody(buf: Buffer, e: HeadEntry): PackedBody {
  const [, , offset, refs, calls, jsonBytes] = e;
  const cAt = offset + refs * 4;
  const jAt = cAt + calls * 4;
  if (jAt + jsonBytes > buf.length) throw new Error('entry beyond the end of the body');
  // Copies: aligned Int32 views that do not keep the whole body alive.
  const r = new Int32Array(buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + cAt));
  const c = new Int32Array(buf.buffer.slice(buf.byteOffset + cAt, buf.byteOffset + jAt));
  const [x, d, s] = JSON.parse(buf.toString('utf8', jAt, jAt + jsonBytes)) as [PackedBody['x'], PackedBody['d'], PackedBody['s']];
  const body: PackedBody = { x, d, s, r, c };
  checkBody(body);
  return body;
}
