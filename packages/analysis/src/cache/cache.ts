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

  const headFile = (name: string) => headPath(dir!, name);
  const bodyFile = (name: string) => bodyPath(dir!, name);

  /** Forgets a segment whose body is bad: its entries go, so their files are parsed again. */
  /** `onLookUp`: found by a checked look-up, so its files are parsed again now rather than by the next index. */
  const dropSegment = (name: string, keys: readonly string[], why: string, onLookUp = false) => {
    const files = keys.length === 1 ? '1 file' : `${keys.length} files`;
    stats.corrupt++;
    dropped.add(name);
    noteDamage();
    problems.push(
      onLookUp
        ? `The facts cache segment body ${bodyFile(name)} was damaged (${why}); it was removed and its ${files} ${keys.length === 1 ? 'was' : 'were'} parsed again.`
        : `The facts cache segment body ${bodyFile(name)} was damaged (${why}); it was removed and its ${files} lack references, calls and definitions until the next index parses them again.`,
    );
    loadedSegments.delete(name);
    segmentKeys.delete(name);
    for (const k of keys) if (memory.get(k)?.segment === name) memory.delete(k);
    removeSegment(dir!, name);
  };

  /**
   * Removes a segment with one damaged entry: its other entries are kept in memory and go into
   * the next segment written (their bodies read now), the damaged one is parsed again.
   */
  const healSegment = (name: string, damagedKey: string) => {
    stats.corrupt++;
    problems.push(`The facts cache segment ${headFile(name)} had 1 corrupt entry; it was removed and that file is parsed again.`);
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
    removeSegment(dir!, name);
  };

  const loadSegment = async (name: string): Promise<void> => {
    const path = headFile(name);
    let raw: Buffer;
    try {
      raw = await readFile(path);
    } catch {
      return; // merged away by another process meanwhile
    }
    loadedSegments.add(name);
    stats.segmentsRead++;
    const seg = parseSegmentHead(raw, version);
    if ('damaged' in seg) {
      stats.corrupt++;
      problems.push(`The facts cache segment ${path} was damaged (${seg.damaged}); it was removed and its files are parsed again.`);
      loadedSegments.delete(name);
      removeSegment(dir!, name);
      return;
    }
    let fd: number;
    try {
      fd = openSync(bodyFile(name), 'r');
    } catch {
      loadedSegments.delete(name);
      if (!(await stat(path).catch(() => undefined))) return; // merged away meanwhile
      stats.corrupt++;
      problems.push(`The facts cache segment ${path} had no body; it was removed and its files are parsed again.`);
      await unlink(path).catch(() => undefined);
      return;
    }
    const reader = bodyReader(seg, fd, {
      read: () => void stats.bodiesRead++,
      damaged: (why, onLookUp) =>
        dropSegment(
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
        removeSegment(dir!, name);
      }
    }
  };

  const writeSegment = async (entries: Iterable<[string, Slot]>): Promise<string | undefined> => {
    const name = newSegmentName();
    try {
      const keys = await writeSegmentFiles(dir!, name, version, entries);
      stats.writes++;
      loadedSegments.add(name);
      segmentKeys.set(name, keys);
      return name;
    } catch (e) {
      stats.writeErrors++;
      if (stats.writeErrors <= 3)
        problems.push(`Cannot write the facts cache (${e instanceof Error ? e.message : String(e)}); continuing without it.`);
      return undefined;
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
            removeSegment(dir, n);
          }
          await removeOrphans(dir, await readdir(dir).catch(() => []));
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
