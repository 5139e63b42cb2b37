/**
 * Facts cached by content: the key is the git blob id plus the language, in a directory named by
 * the facts version (queries + extractor + grammars) and this layout's version, so a new version
 * never reads old entries (and deletes the directories of other versions once they have gone
 * unused for two weeks, `sweep.ts`). It lives under the repository's git common directory and is
 * shared by all its worktrees.
 *
 * On disk it is a log of segments (`segment.ts`), each a batch of entries written by one index
 * run. A warm start parses only heads; a segment's body is read on first access of a body field
 * of any of its entries. When segments pile up, all but the largest are merged into one (so an
 * editor's small segments never rewrite the large one); only segments this process has read are
 * deleted, so nothing written meanwhile is lost.
 *
 * A head that fails its checksum line (`checksum.ts`), or an entry that does not decode, is
 * removed and counted, and the affected files are parsed again. An index whose facts bodies will be used (the symbols service) asks for them checked on
 * look-up (`get(…, { body: true })`): a segment body that is short or fails its checksum is then a
 * miss, and its files are parsed again by that same index, with a problem saying so. A body found
 * corrupt (or missing) only when first used — after the index that needed it was built, when it
 * did not ask — degrades: the facts of its entries get empty exports, definitions, references and
 * calls, the store reports a problem, and the segment is deleted and its entries dropped, so the
 * next index parses those files again (facts so damaged are never reused from a previous index).
 * An entry whose imports text does not decode when first used gives no imports; the next index
 * parses that file again and the segment is rewritten without it.
 */
import { openSync, closeSync } from 'node:fs';
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileFacts, Language } from '../facts.js';
import { factsVersion } from '../extract/queries.js';
import { isDamaged, noteDamage, packedOf, packFacts, unpackLazy, type PackedFacts } from './pack.js';
import {
  bodyPath,
  bodyReader,
  checkedEntry,
  headPath,
  isBlob,
  newSegmentName,
  parseSegmentHead,
  removeSegment,
  writeSegmentFiles,
  type SegmentEntry,
} from './segment.js';
import { removeOrphans, sweepStaleVersions } from './sweep.js';

export { STALE_CACHE_MS } from './sweep.js';

/** Version of the on-disk layout (part of the directory name, with the facts version). */
const LAYOUT = 'b4';
/** Merge segments when a store has read more than this many. */
const MAX_SEGMENTS = 8;

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

interface Slot extends SegmentEntry {
  /** Whether the segment's body is whole (read and checked on the first call); absent: not from disk. */
  readonly bodyWhole?: (onLookUp: boolean) => boolean;
  /** Segment the entry was read from (undefined: put by this process). */
  readonly segment?: string;
  facts?: FileFacts;
  /** Loaded from disk (counts as a disk hit the first time it is used). */
  fromDisk: boolean;
}

/** A store's state, shared by the steps below. `dir` is used only by the steps that touch disk. */
interface StoreState {
  readonly dir: string | undefined;
  readonly version: string;
  readonly memory: Map<string, Slot>;
  readonly pending: Map<string, Slot>;
  readonly loadedSegments: Set<string>;
  /** Segments whose body was found corrupt. */
  readonly dropped: Set<string>;
  /** Keys of each segment read or written. */
  readonly segmentKeys: Map<string, readonly string[]>;
  readonly stats: CacheStats;
  readonly problems: string[];
}

/** The state of a store with a disk directory. */
interface DiskState extends StoreState {
  readonly dir: string;
}

/** Forgets a segment whose body is bad: its entries go, so their files are parsed again. */
/** `onLookUp`: found by a checked look-up, so its files are parsed again now rather than by the next index. */
function dropSegment(st: DiskState, name: string, keys: readonly string[], why: string, onLookUp = false): void {
  const files = keys.length === 1 ? '1 file' : `${keys.length} files`;
  st.stats.corrupt++;
  st.dropped.add(name);
  noteDamage();
  st.problems.push(
    onLookUp
      ? `The facts cache segment body ${bodyPath(st.dir, name)} was damaged (${why}); it was removed and its ${files} ${keys.length === 1 ? 'was' : 'were'} parsed again.`
      : `The facts cache segment body ${bodyPath(st.dir, name)} was damaged (${why}); it was removed and its ${files} lack references, calls and definitions until the next index parses them again.`,
  );
  st.loadedSegments.delete(name);
  st.segmentKeys.delete(name);
  for (const k of keys) if (st.memory.get(k)?.segment === name) st.memory.delete(k);
  removeSegment(st.dir, name);
}

/**
 * Removes a segment with one damaged entry: its other entries are kept in memory and go into
 * the next segment written (their bodies read now), the damaged one is parsed again.
 */
function healSegment(st: DiskState, name: string, damagedKey: string): void {
  st.stats.corrupt++;
  st.problems.push(`The facts cache segment ${headPath(st.dir, name)} had 1 corrupt entry; it was removed and that file is parsed again.`);
  for (const k of st.segmentKeys.get(name) ?? []) {
    const s = st.memory.get(k);
    if (k === damagedKey || s?.segment !== name) continue;
    const body = s.body();
    if (!body) return; // the body is bad too: dropped with its segment
    const own: Slot = { head: s.head, body: () => body, fromDisk: s.fromDisk };
    if (s.facts) own.facts = s.facts;
    st.memory.set(k, own);
    st.pending.set(k, own);
  }
  st.loadedSegments.delete(name);
  st.segmentKeys.delete(name);
  removeSegment(st.dir, name);
}

async function loadSegment(st: DiskState, name: string): Promise<void> {
  const path = headPath(st.dir, name);
  let raw: Buffer;
  try {
    raw = await readFile(path);
  } catch {
    return; // merged away by another process meanwhile
  }
  st.loadedSegments.add(name);
  st.stats.segmentsRead++;
  const seg = parseSegmentHead(raw, st.version);
  if ('damaged' in seg) {
    st.stats.corrupt++;
    st.problems.push(`The facts cache segment ${path} was damaged (${seg.damaged}); it was removed and its files are parsed again.`);
    st.loadedSegments.delete(name);
    removeSegment(st.dir, name);
    return;
  }
  let fd: number;
  try {
    fd = openSync(bodyPath(st.dir, name), 'r');
  } catch {
    st.loadedSegments.delete(name);
    if (!(await stat(path).catch(() => undefined))) return; // merged away meanwhile
    st.stats.corrupt++;
    st.problems.push(`The facts cache segment ${path} had no body; it was removed and its files are parsed again.`);
    await unlink(path).catch(() => undefined);
    return;
  }
  const reader = bodyReader(seg, fd, {
    read: () => void st.stats.bodiesRead++,
    damaged: (why, onLookUp) =>
      dropSegment(
        st,
        name,
        seg.entries.map((x) => x[0]),
        why,
        onLookUp,
      ),
  });
  let bad = 0;
  let used = 0;
  const good: [string, Slot][] = [];
  for (const e of seg.entries) {
    const checked = checkedEntry(e);
    if (!checked) {
      bad++;
      continue;
    }
    const { key, head } = checked;
    const slot: Slot = { head, body: () => reader.read(e), bodyWhole: reader.whole, segment: name, fromDisk: true };
    good.push([key, slot]);
    if (!st.memory.has(key)) {
      st.memory.set(key, slot);
      used++;
    }
  }
  st.segmentKeys.set(
    name,
    good.map(([k]) => k),
  );
  // Nothing new in it (another process merged entries this one has): its body is never needed,
  // and an open descriptor would keep the file's space after that process deletes it.
  if (used === 0 && bad === 0) closeSync(fd);
  if (bad > 0) {
    // Heal: the good entries go into the next segment written, the damaged one goes away.
    st.stats.corrupt += bad;
    st.problems.push(
      `The facts cache segment ${path} had ${bad} corrupt entr${bad === 1 ? 'y' : 'ies'}; ${bad === 1 ? 'it was' : 'they were'} removed and parsed again.`,
    );
    for (const [k, s] of good) {
      const body = s.body();
      if (!body) break; // the body is bad too: dropped with its segment
      const own: Slot = { head: s.head, body: () => body, fromDisk: true };
      st.pending.set(k, own);
      if (st.memory.get(k) === s) st.memory.set(k, own);
    }
    if (st.loadedSegments.has(name)) {
      st.loadedSegments.delete(name);
      removeSegment(st.dir, name);
    }
  }
}

async function writeSegment(st: DiskState, entries: Iterable<[string, Slot]>): Promise<string | undefined> {
  const name = newSegmentName();
  try {
    const keys = await writeSegmentFiles(st.dir, name, st.version, entries);
    st.stats.writes++;
    st.loadedSegments.add(name);
    st.segmentKeys.set(name, keys);
    return name;
  } catch (e) {
    st.stats.writeErrors++;
    if (st.stats.writeErrors <= 3)
      st.problems.push(`Cannot write the facts cache (${e instanceof Error ? e.message : String(e)}); continuing without it.`);
    return undefined;
  }
}

/** The slot for a key, or undefined (a miss): drops what a checked or earlier use found damaged. */
function lookUp(st: StoreState, key: string, body: boolean | undefined): Slot | undefined {
  let slot = st.memory.get(key);
  // A body that is not whole drops its segment (and this slot with it), with a problem.
  if (body && slot?.bodyWhole && !slot.bodyWhole(true)) slot = undefined;
  if (slot?.facts && isDamaged(slot.facts)) {
    // Found damaged on use since (imports text that does not decode): the entry goes.
    st.memory.delete(key);
    if (slot.segment !== undefined && !st.dropped.has(slot.segment)) healSegment(st as DiskState, slot.segment, key);
    slot = undefined;
  }
  return slot;
}

/** Reads the segments in the directory this store has not read yet. */
async function loadFreshSegments(st: DiskState): Promise<void> {
  let names: string[];
  try {
    names = await readdir(st.dir);
  } catch {
    return;
  }
  const fresh = names
    .filter((n) => n.startsWith('seg-') && n.endsWith('.head.json'))
    .map((n) => n.slice(0, -'.head.json'.length))
    .filter((n) => !st.loadedSegments.has(n))
    .sort();
  await Promise.all(fresh.map((n) => loadSegment(st, n)));
}

/** Merges all segments but the largest into one, then deletes them (only those this store has read). */
async function mergeSegments(st: DiskState): Promise<void> {
  const { loadedSegments, segmentKeys } = st;
  const bySize = [...loadedSegments].sort((a, b) => (segmentKeys.get(b)?.length ?? 0) - (segmentKeys.get(a)?.length ?? 0));
  const old = bySize.slice(1);
  const keys = new Set(old.flatMap((n) => segmentKeys.get(n) ?? []));
  for (const k of segmentKeys.get(bySize[0]!) ?? []) keys.delete(k);
  const merged = await writeSegment(
    st,
    [...keys].flatMap((k) => {
      const slot = st.memory.get(k);
      return slot ? [[k, slot] as [string, Slot]] : [];
    }),
  );
  if (merged) {
    for (const n of old) {
      loadedSegments.delete(n);
      segmentKeys.delete(n);
      removeSegment(st.dir, n);
    }
    await removeOrphans(st.dir, await readdir(st.dir).catch(() => []));
  }
}

export function createFactsStore(options: FactsStoreOptions = {}): FactsStore {
  const version = factsVersion();
  const dir = options.cacheDir
    ? join(options.cacheDir, `facts-${version}-${options.variant ? `${options.variant}-` : ''}${LAYOUT}`)
    : undefined;
  const st: StoreState = {
    dir,
    version,
    memory: new Map(),
    pending: new Map(),
    loadedSegments: new Set(),
    dropped: new Set(),
    segmentKeys: new Map(),
    stats: { memoryHits: 0, diskHits: 0, misses: 0, corrupt: 0, writes: 0, writeErrors: 0, segmentsRead: 0, bodiesRead: 0 },
    problems: [],
  };
  const { stats, memory, pending } = st;
  let companion: FactsStore | undefined;
  let refreshing: Promise<void> | undefined;
  let swept = false;

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
        await loadFreshSegments(st as DiskState);
      })().finally(() => {
        refreshing = undefined;
      });
      return refreshing;
    },
    get(blob, language, options) {
      const slot = lookUp(st, `${blob}:${language}`, options?.body);
      if (!slot) {
        stats.misses++;
        return undefined;
      }
      if (slot.fromDisk) {
        slot.fromDisk = false;
        stats.diskHits++;
      } else stats.memoryHits++;
      const segment = slot.segment;
      slot.facts ??= unpackLazy(slot.head, slot.body, segment === undefined ? undefined : () => !st.dropped.has(segment));
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
        await writeSegment(st as DiskState, batch);
      }
      if (st.loadedSegments.size > MAX_SEGMENTS) await mergeSegments(st as DiskState);
    },
    takeProblems() {
      return st.problems.splice(0);
    },
    importsOnly() {
      if (options.variant === 'imports') return store;
      return (companion ??= createFactsStore({ ...options, variant: 'imports' }));
    },
  };
  return store;
}
