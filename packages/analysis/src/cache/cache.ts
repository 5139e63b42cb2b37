/**
 * Facts cached by content: the key is the git blob id plus the language, in a directory named by
 * the facts version (queries + extractor + grammars) and this layout's version, so a new version
 * never reads old entries (and deletes the directories of other versions once they have gone
 * unused for two weeks). It lives under the repository's git common directory and is shared by
 * all its worktrees.
 *
 * On disk it is a log of segments, each a batch of entries written by one index run, in two
 * files: `seg-*.head.json` (per entry the head — imports as JSON text, decoded on first access,
 * parse errors, line count — and where its
 * body lies) and `seg-*.body` (per entry Int32 references and calls, then exports, definitions and
 * the string table as JSON). A warm start parses only heads; a segment's body is read (one
 * synchronous read, checked against the checksum in its head — crc32, or sha1 on a Node without
 * `zlib.crc32`) on first access of a body field of any
 * of its entries. The body is written before the head, each to a temporary file renamed into
 * place (atomic on one filesystem), so readers never see half of a segment and concurrent
 * writers never clash (each writes its own). When segments pile up, all but the largest are
 * merged into one (so an editor's small segments never rewrite the large one); only segments this
 * process has read are deleted, so nothing written meanwhile is lost.
 *
 * A head or entry that does not decode is removed and counted, and the affected files are parsed
 * again. An index whose facts bodies will be used (the symbols service) asks for them checked on
 * look-up (`get(…, { body: true })`): a segment body that is short or fails its checksum is then a
 * miss, and its files are parsed again by that same index, with a problem saying so. A body found
 * corrupt (or missing) only when first used — after the index that needed it was built, when it
 * did not ask — degrades: the facts of its entries get empty exports, definitions, references and
 * calls, the store reports a problem, and the segment is deleted and its entries dropped, so the
 * next index parses those files again (facts so damaged are never reused from a previous index).
 * An entry whose imports text does not decode when first used gives no imports; the next index
 * parses that file again and the segment is rewritten without it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, unlinkSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink, utimes } from 'node:fs/promises';
import { endianness } from 'node:os';
import * as zlib from 'node:zlib';
import { join } from 'node:path';
import type { FileFacts, Language } from '../facts.js';
import { factsVersion } from '../extract/queries.js';
import {
  checkBody,
  isDamaged,
  noteDamage,
  packedOf,
  packFacts,
  unpackLazy,
  validHead,
  type PackedBody,
  type PackedFacts,
  type PackedHead,
} from './pack.js';

const FORMAT = 'airspace-facts-segment-3';
/** Version of the on-disk layout (part of the directory name, with the facts version). */
const LAYOUT = 'b3';
/** Merge segments when a store has read more than this many. */
const MAX_SEGMENTS = 8;
/** A body file without its head older than this is left over from a crashed writer. */
const ORPHAN_MS = 60 * 60 * 1000;
/**
 * A facts directory of another version (older queries, grammars or layout) unused for this long
 * is deleted. Each store marks its own directory used (its modification time) when it opens it,
 * so two Airspace versions in use side by side keep their caches.
 */
export const STALE_CACHE_MS = 14 * 24 * 60 * 60 * 1000;

/** Marks `own` used and deletes the other `facts-*` directories under `root` unused for `STALE_CACHE_MS`. */
async function sweepStaleVersions(root: string, own: string): Promise<void> {
  const now = new Date();
  await utimes(own, now, now).catch(() => undefined);
  const names = await readdir(root).catch(() => [] as string[]);
  for (const n of names) {
    const full = join(root, n);
    if (!n.startsWith('facts-') || full === own) continue;
    const st = await stat(full).catch(() => undefined);
    if (st?.isDirectory() && now.getTime() - st.mtimeMs > STALE_CACHE_MS)
      await rm(full, { recursive: true, force: true }).catch(() => undefined);
  }
}

export interface CacheStats {
  memoryHits: number;
  diskHits: number;
  misses: number;
  corrupt: number;
  writes: number;
  writeErrors: number;
  segmentsRead: number;
  /** Segment bodies read (on first use of a body field). */
  bodiesRead: number;
}

/** A facts store: an in-memory layer (per process) over an optional disk directory. */
export interface FactsStore {
  readonly dir?: string;
  readonly stats: CacheStats;
  /** Reads segments written since the last call (other processes, other worktrees). */
  refresh(): Promise<void>;
  /**
   * Facts by blob id. With `body`, an entry read from disk counts only when its segment's body is
   * whole (length and checksum, read once per segment): else the segment is dropped, a problem
   * recorded, and the answer is a miss, so the caller parses the file again.
   */
  get(blob: string, language: Language, options?: { readonly body?: boolean }): FileFacts | undefined;
  put(blob: string, language: Language, facts: FileFacts): void;
  /** Writes the entries put since the last flush as one segment (and merges segments when many). */
  flush(): Promise<void>;
  /** Problems met (corrupt entries, unwritable directory), drained by the index. */
  takeProblems(): string[];
  /**
   * The store of facts extracted for the import graph only (`isImportsOnly`), beside this one in
   * its own directory: they never mix with whole facts, so an index that needs definitions never
   * meets them. Created on first use; its own `importsOnly()` is itself.
   */
  importsOnly(): FactsStore;
}

export interface FactsStoreOptions {
  /** Cache root, e.g. `<git common dir>/airspace/cache`; omitted: memory only. */
  readonly cacheDir?: string;
  /** The store of imports-only facts (see `FactsStore.importsOnly`). */
  readonly variant?: 'imports';
}

interface Slot {
  readonly head: PackedHead;
  /** The body, loaded on demand; undefined when it is corrupt. */
  readonly body: () => PackedBody | undefined;
  /** Whether the segment's body is whole (read and checked on the first call); absent: not from disk. */
  readonly bodyWhole?: (onLookUp: boolean) => boolean;
  /** Segment the entry was read from (undefined: put by this process). */
  readonly segment?: string;
  facts?: FileFacts;
  /** Loaded from disk (counts as a disk hit the first time it is used). */
  fromDisk: boolean;
}

/** Head file entry: key, head, then the body's byte offset and its part sizes. */
type HeadEntry = [key: string, head: PackedHead, offset: number, refs: number, calls: number, jsonBytes: number];

interface SegmentHead {
  readonly format: string;
  readonly version: string;
  readonly endian: string;
  readonly bodyBytes: number;
  /** `crc32:<hex>` or `sha1:<hex>`. */
  readonly bodyCheck: string;
  readonly entries: HeadEntry[];
}

const isBlob = (blob: string) => /^[0-9a-f]{6,64}$/.test(blob);
const ENDIAN = endianness();

export function createFactsStore(options: FactsStoreOptions = {}): FactsStore {
  const version = factsVersion();
  const dir = options.cacheDir
    ? join(options.cacheDir, `facts-${version}-${options.variant ? `${options.variant}-` : ''}${LAYOUT}`)
    : undefined;
  let companion: FactsStore | undefined;
  const memory = new Map<string, Slot>();
  const pending = new Map<string, Slot>();
  const loadedSegments = new Set<string>();
  /** Segments whose body was found corrupt. */
  const dropped = new Set<string>();
  /** Keys of each segment read or written. */
  const segmentKeys = new Map<string, readonly string[]>();
  const stats: CacheStats = {
    memoryHits: 0,
    diskHits: 0,
    misses: 0,
    corrupt: 0,
    writes: 0,
    writeErrors: 0,
    segmentsRead: 0,
    bodiesRead: 0,
  };
  const problems: string[] = [];
  let refreshing: Promise<void> | undefined;
  let swept = false;

  const headPath = (name: string) => join(dir!, `${name}.head.json`);
  const bodyPath = (name: string) => join(dir!, `${name}.body`);

  /** Forgets a segment whose body is bad: its entries go, so their files are parsed again. */
  /** `onLookUp`: found by a checked look-up, so its files are parsed again now rather than by the next index. */
  const dropSegment = (name: string, keys: readonly string[], why: string, onLookUp = false) => {
    const files = keys.length === 1 ? '1 file' : `${keys.length} files`;
    stats.corrupt++;
    dropped.add(name);
    noteDamage();
    problems.push(
      onLookUp
        ? `The facts cache segment body ${bodyPath(name)} was damaged (${why}); it was removed and its ${files} ${keys.length === 1 ? 'was' : 'were'} parsed again.`
        : `The facts cache segment body ${bodyPath(name)} was damaged (${why}); it was removed and its ${files} lack references, calls and definitions until the next index parses them again.`,
    );
    loadedSegments.delete(name);
    segmentKeys.delete(name);
    for (const k of keys) if (memory.get(k)?.segment === name) memory.delete(k);
    for (const p of [headPath(name), bodyPath(name)]) {
      try {
        unlinkSync(p);
      } catch {
        // Already gone (merged or removed by another process).
      }
    }
  };

  /**
   * Removes a segment with one damaged entry: its other entries are kept in memory and go into
   * the next segment written (their bodies read now), the damaged one is parsed again.
   */
  const healSegment = (name: string, damagedKey: string) => {
    stats.corrupt++;
    problems.push(`The facts cache segment ${headPath(name)} had 1 corrupt entry; it was removed and that file is parsed again.`);
    for (const k of segmentKeys.get(name) ?? []) {
      const s = memory.get(k);
      if (k === damagedKey || s?.segment !== name) continue;
      const body = s.body();
      if (!body) return; // the body is bad too: dropped with its segment
      const own: Slot = { head: s.head, body: () => body, fromDisk: s.fromDisk };
      if (s.facts) own.facts = s.facts;
      memory.set(k, own);
      pending.set(k, own);
    }
    loadedSegments.delete(name);
    segmentKeys.delete(name);
    for (const p of [headPath(name), bodyPath(name)]) {
      try {
        unlinkSync(p);
      } catch {
        // Already gone.
      }
    }
  };

  /**
   * The body reader of one segment: one read of the whole file, checked, on first use. The body
   * is opened with its head, so a merge by another process that deletes it meanwhile does not
   * take it away (POSIX keeps an open file readable).
   */
  const bodyReader = (
    name: string,
    seg: SegmentHead,
    fd: number,
  ): { whole(onLookUp?: boolean): boolean; read(e: HeadEntry): PackedBody | undefined } => {
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
          stats.bodiesRead++;
        } catch (err) {
          buf = null;
          dropSegment(
            name,
            seg.entries.map((x) => x[0]),
            err instanceof Error ? err.message : String(err),
            onLookUp,
          );
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
        dropSegment(
          name,
          seg.entries.map((x) => x[0]),
          err instanceof Error ? err.message : String(err),
        );
        return undefined;
      }
    };
    return { whole, read };
  };

  const loadSegment = async (name: string): Promise<void> => {
    const path = headPath(name);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return; // merged away by another process meanwhile
    }
    loadedSegments.add(name);
    stats.segmentsRead++;
    let seg: Partial<SegmentHead>;
    try {
      seg = JSON.parse(text) as Partial<SegmentHead>;
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
    ) {
      stats.corrupt++;
      problems.push(`The facts cache segment ${path} was corrupt; it was removed and its files are parsed again.`);
      loadedSegments.delete(name);
      await unlink(path).catch(() => undefined);
      await unlink(bodyPath(name)).catch(() => undefined);
      return;
    }
    let fd: number;
    try {
      fd = openSync(bodyPath(name), 'r');
    } catch {
      loadedSegments.delete(name);
      if (!(await stat(path).catch(() => undefined))) return; // merged away meanwhile
      stats.corrupt++;
      problems.push(`The facts cache segment ${path} had no body; it was removed and its files are parsed again.`);
      await unlink(path).catch(() => undefined);
      return;
    }
    const reader = bodyReader(name, seg as SegmentHead, fd);
    let bad = 0;
    let used = 0;
    const good: [string, Slot][] = [];
    for (const e of seg.entries) {
      const key = Array.isArray(e) ? e[0] : undefined;
      const head = Array.isArray(e) && e.length === 6 ? validHead(e[1]) : undefined;
      const [blob, language] = typeof key === 'string' ? key.split(':') : [];
      if (
        !key ||
        !blob ||
        !isBlob(blob) ||
        !head ||
        head.l !== language ||
        !e.slice(2).every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0)
      ) {
        bad++;
        continue;
      }
      const slot: Slot = { head, body: () => reader.read(e), bodyWhole: reader.whole, segment: name, fromDisk: true };
      good.push([key, slot]);
      if (!memory.has(key)) {
        memory.set(key, slot);
        used++;
      }
    }
    segmentKeys.set(
      name,
      good.map(([k]) => k),
    );
    // Nothing new in it (another process merged entries this one has): its body is never needed,
    // and an open descriptor would keep the file's space after that process deletes it.
    if (used === 0 && bad === 0) closeSync(fd);
    if (bad > 0) {
      // Heal: the good entries go into the next segment written, the damaged one goes away.
      stats.corrupt += bad;
      problems.push(
        `The facts cache segment ${path} had ${bad} corrupt entr${bad === 1 ? 'y' : 'ies'}; ${bad === 1 ? 'it was' : 'they were'} removed and parsed again.`,
      );
      for (const [k, s] of good) {
        const body = s.body();
        if (!body) break; // the body is bad too: dropped with its segment
        const own: Slot = { head: s.head, body: () => body, fromDisk: true };
        pending.set(k, own);
        if (memory.get(k) === s) memory.set(k, own);
      }
      if (loadedSegments.has(name)) {
        loadedSegments.delete(name);
        await unlink(path).catch(() => undefined);
        await unlink(bodyPath(name)).catch(() => undefined);
      }
    }
  };

  const writeSegment = async (entries: Iterable<[string, Slot]>): Promise<string | undefined> => {
    const name = `seg-${Date.now().toString(36)}-${process.pid}-${randomBytes(4).toString('hex')}`;
    const tmpBody = `${bodyPath(name)}.tmp`;
    const tmpHead = `${headPath(name)}.tmp`;
    try {
      await mkdir(dir!, { recursive: true });
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
        await hf.writeFile(JSON.stringify(head));
      } finally {
        await hf.close();
      }
      await rename(tmpBody, bodyPath(name));
      await rename(tmpHead, headPath(name));
      stats.writes++;
      loadedSegments.add(name);
      segmentKeys.set(
        name,
        heads.map((h) => h[0]),
      );
      return name;
    } catch (e) {
      stats.writeErrors++;
      if (stats.writeErrors <= 3)
        problems.push(`Cannot write the facts cache (${e instanceof Error ? e.message : String(e)}); continuing without it.`);
      await unlink(tmpBody).catch(() => undefined);
      await unlink(tmpHead).catch(() => undefined);
      return undefined;
    }
  };

  /** Removes body files whose head never appeared (a writer that crashed long ago). */
  const removeOrphans = async (names: readonly string[]) => {
    const heads = new Set(names.filter((n) => n.endsWith('.head.json')).map((n) => n.slice(0, -'.head.json'.length)));
    for (const n of names) {
      const seg = n.endsWith('.body') ? n.slice(0, -'.body'.length) : n.endsWith('.tmp') ? n : undefined;
      if (!seg || heads.has(seg)) continue;
      const full = join(dir!, n);
      const st = await stat(full).catch(() => undefined);
      if (st && Date.now() - st.mtimeMs > ORPHAN_MS) await unlink(full).catch(() => undefined);
    }
  };

  const store: FactsStore = {
    ...(dir ? { dir } : {}),
    stats,
    refresh() {
      if (!dir) return Promise.resolve();
      refreshing ??= (async () => {
        if (!swept) {
          swept = true;
          await sweepStaleVersions(options.cacheDir!, dir);
        }
        let names: string[];
        try {
          names = await readdir(dir);
        } catch {
          return;
        }
        const fresh = names
          .filter((n) => n.startsWith('seg-') && n.endsWith('.head.json'))
          .map((n) => n.slice(0, -'.head.json'.length))
          .filter((n) => !loadedSegments.has(n))
          .sort();
        await Promise.all(fresh.map(loadSegment));
      })().finally(() => {
        refreshing = undefined;
      });
      return refreshing;
    },
    get(blob, language, options) {
      const key = `${blob}:${language}`;
      let slot = memory.get(key);
      // A body that is not whole drops its segment (and this slot with it), with a problem.
      if (options?.body && slot?.bodyWhole && !slot.bodyWhole(true)) slot = undefined;
      if (slot?.facts && isDamaged(slot.facts)) {
        // Found damaged on use since (imports text that does not decode): the entry goes.
        memory.delete(key);
        if (slot.segment !== undefined && !dropped.has(slot.segment)) healSegment(slot.segment, key);
        slot = undefined;
      }
      if (!slot) {
        stats.misses++;
        return undefined;
      }
      if (slot.fromDisk) {
        slot.fromDisk = false;
        stats.diskHits++;
      } else stats.memoryHits++;
      const segment = slot.segment;
      slot.facts ??= unpackLazy(slot.head, slot.body, segment === undefined ? undefined : () => !dropped.has(segment));
      return slot.facts;
    },
    put(blob, language, facts) {
      const key = `${blob}:${language}`;
      // Keep only the packed form: the object form of references and calls is rebuilt on use.
      const packed: PackedFacts = packedOf(facts) ?? packFacts(facts);
      const slot: Slot = { head: packed, body: () => packed, fromDisk: false };
      memory.set(key, slot);
      if (dir && isBlob(blob)) pending.set(key, slot);
    },
    async flush() {
      if (!dir) return;
      if (pending.size > 0) {
        const batch = [...pending];
        pending.clear();
        await writeSegment(batch);
      }
      if (loadedSegments.size > MAX_SEGMENTS) {
        const bySize = [...loadedSegments].sort((a, b) => (segmentKeys.get(b)?.length ?? 0) - (segmentKeys.get(a)?.length ?? 0));
        const old = bySize.slice(1);
        const keys = new Set(old.flatMap((n) => segmentKeys.get(n) ?? []));
        for (const k of segmentKeys.get(bySize[0]!) ?? []) keys.delete(k);
        const merged = await writeSegment(
          [...keys].flatMap((k) => {
            const slot = memory.get(k);
            return slot ? [[k, slot] as [string, Slot]] : [];
          }),
        );
        if (merged) {
          for (const n of old) {
            loadedSegments.delete(n);
            segmentKeys.delete(n);
            await unlink(headPath(n)).catch(() => undefined);
            await unlink(bodyPath(n)).catch(() => undefined);
          }
          await removeOrphans(await readdir(dir).catch(() => []));
        }
      }
    },
    takeProblems() {
      return problems.splice(0);
    },
    importsOnly() {
      if (options.variant === 'imports') return store;
      return (companion ??= createFactsStore({ ...options, variant: 'imports' }));
    },
  };
  return store;
}

const crc32 = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** A running checksum of a body: crc32 where Node has it (five times faster than sha1), else sha1. */
function newChecksum(algorithm: 'crc32' | 'sha1' = crc32 ? 'crc32' : 'sha1'): { update(b: Uint8Array): void; digest(): string } {
  if (algorithm === 'crc32' && crc32) {
    let value = 0;
    // Empty input is skipped: Node 20's crc32 of an empty view returns 0 instead of the running value.
    return { update: (b) => void (b.length > 0 && (value = crc32(b, value))), digest: () => `crc32:${value.toString(16)}` };
  }
  const h = createHash('sha1');
  return { update: (b) => void h.update(b), digest: () => `sha1:${h.digest('hex')}` };
}

/** The checksum of `data` with the algorithm named in `like` (undefined for an unknown algorithm). */
function checksumOf(like: string, data: Uint8Array): string | undefined {
  const algorithm = like.slice(0, like.indexOf(':'));
  // A Node without crc32 cannot check another's crc32 body: it trusts the length alone rather than delete it.
  if (algorithm === 'crc32' && !crc32) return like;
  if (algorithm !== 'crc32' && algorithm !== 'sha1') return undefined;
  const c = newChecksum(algorithm);
  c.update(data);
  return c.digest();
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
