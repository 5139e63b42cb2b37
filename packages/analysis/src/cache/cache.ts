/**
 * Facts cached by content: the key is the git blob id plus the language, in a directory named by
 * the facts version (queries + extractor + grammars), so a new version never reads old entries.
 * It lives under the repository's git common directory and is shared by all its worktrees.
 *
 * On disk it is a log of segments (`seg-*.json`), each a batch of entries written by one index
 * run: a warm start reads a few files instead of one per source file. A segment is written to a
 * temporary file and renamed (atomic on one filesystem), so readers never see half of one and
 * concurrent writers never clash (each writes its own). When segments pile up they are merged
 * into one; only segments this process has read are deleted, so nothing written meanwhile is
 * lost. A segment or entry that does not decode is removed and counted, and the affected files are
 * parsed again: a corrupt cache costs time, never correctness.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileFacts, Language } from '../facts.js';
import { factsVersion } from '../extract/queries.js';
import { packedOf, packFacts, unpackFacts, validPacked, type PackedFacts } from './pack.js';

const FORMAT = 'airspace-facts-segment';
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
}

/** A facts store: an in-memory layer (per process) over an optional disk directory. */
export interface FactsStore {
  readonly dir?: string;
  readonly stats: CacheStats;
  /** Reads segments written since the last call (other processes, other worktrees). */
  refresh(): Promise<void>;
  get(blob: string, language: Language): Promise<FileFacts | undefined>;
  put(blob: string, language: Language, facts: FileFacts): void;
  /** Writes the entries put since the last flush as one segment (and merges segments when many). */
  flush(): Promise<void>;
  /** Problems met (corrupt entries, unwritable directory), drained by the index. */
  takeProblems(): string[];
}

export interface FactsStoreOptions {
  /** Cache root, e.g. `<git common dir>/airspace/cache`; omitted: memory only. */
  readonly cacheDir?: string;
}

interface Slot {
  readonly packed: PackedFacts;
  facts?: FileFacts;
  /** Loaded from disk (counts as a disk hit the first time it is used). */
  fromDisk: boolean;
}

const isBlob = (blob: string) => /^[0-9a-f]{6,64}$/.test(blob);

export function createFactsStore(options: FactsStoreOptions = {}): FactsStore {
  const version = factsVersion();
  const dir = options.cacheDir ? join(options.cacheDir, `facts-${version}`) : undefined;
  const memory = new Map<string, Slot>();
  const pending = new Map<string, PackedFacts>();
  const loadedSegments = new Set<string>();
  const stats: CacheStats = { memoryHits: 0, diskHits: 0, misses: 0, corrupt: 0, writes: 0, writeErrors: 0, segmentsRead: 0 };
  const problems: string[] = [];
  let refreshing: Promise<void> | undefined;

  const loadSegment = async (name: string): Promise<void> => {
    const path = join(dir!, name);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return; // merged away by another process meanwhile
    }
    loadedSegments.add(name);
    stats.segmentsRead++;
    let seg: { format?: unknown; version?: unknown; entries?: unknown };
    try {
      seg = JSON.parse(text) as typeof seg;
    } catch {
      seg = {};
    }
    if (seg.format !== FORMAT || seg.version !== version || !seg.entries || typeof seg.entries !== 'object') {
      stats.corrupt++;
      problems.push(`corrupt facts cache segment ${path} was removed; its files are parsed again`);
      loadedSegments.delete(name);
      await unlink(path).catch(() => undefined);
      return;
    }
    let bad = 0;
    const good: [string, PackedFacts][] = [];
    for (const [key, value] of Object.entries(seg.entries as Record<string, unknown>)) {
      const [blob, language] = key.split(':');
      const packed = validPacked(value);
      if (!blob || !isBlob(blob) || !packed || packed.l !== language) {
        bad++;
        continue;
      }
      good.push([key, packed]);
      if (!memory.has(key)) memory.set(key, { packed, fromDisk: true });
    }
    if (bad > 0) {
      // Heal: the good entries go into the next segment written, the damaged one goes away.
      stats.corrupt += bad;
      problems.push(`${bad} corrupt entr${bad === 1 ? 'y' : 'ies'} in facts cache segment ${path} removed; those files are parsed again`);
      for (const [k, v] of good) pending.set(k, v);
      loadedSegments.delete(name);
      await unlink(path).catch(() => undefined);
    }
  };

  const writeSegment = async (entries: Iterable<[string, PackedFacts]>): Promise<string | undefined> => {
    const name = `seg-${Date.now().toString(36)}-${process.pid}-${randomBytes(4).toString('hex')}.json`;
    const path = join(dir!, name);
    const tmp = `${path}.tmp`;
    try {
      await mkdir(dir!, { recursive: true });
      const body: Record<string, PackedFacts> = {};
      for (const [k, v] of entries) body[k] = v;
      await writeFile(tmp, JSON.stringify({ format: FORMAT, version, entries: body }));
      await rename(tmp, path);
      stats.writes++;
      loadedSegments.add(name);
      return name;
    } catch (e) {
      stats.writeErrors++;
      if (stats.writeErrors <= 3) problems.push(`cannot write the facts cache (${e instanceof Error ? e.message : String(e)}); continuing without it`);
      await unlink(tmp).catch(() => undefined);
      return undefined;
    }
  };

  return {
    ...(dir ? { dir } : {}),
    stats,
    refresh() {
      if (!dir) return Promise.resolve();
      refreshing ??= (async () => {
        let names: string[];
        try {
          names = await readdir(dir);
        } catch {
          return;
        }
        const fresh = names.filter((n) => n.startsWith('seg-') && n.endsWith('.json') && !loadedSegments.has(n)).sort();
        await Promise.all(fresh.map(loadSegment));
      })().finally(() => {
        refreshing = undefined;
      });
      return refreshing;
    },
    async get(blob, language) {
      const key = `${blob}:${language}`;
      const slot = memory.get(key);
      if (!slot) {
        stats.misses++;
        return undefined;
      }
      if (slot.fromDisk) {
        slot.fromDisk = false;
        stats.diskHits++;
      } else stats.memoryHits++;
      slot.facts ??= unpackFacts(slot.packed);
      return slot.facts;
    },
    put(blob, language, facts) {
      const key = `${blob}:${language}`;
      // Keep only the packed form: the object form of references and calls is rebuilt on use.
      const packed = packedOf(facts) ?? packFacts(facts);
      memory.set(key, { packed, fromDisk: false });
      if (dir && isBlob(blob)) pending.set(key, packed);
    },
    async flush() {
      if (!dir) return;
      if (pending.size > 0) {
        const batch = [...pending];
        pending.clear();
        await writeSegment(batch);
      }
      if (loadedSegments.size > MAX_SEGMENTS) {
        const old = [...loadedSegments];
        const merged = await writeSegment([...memory].map(([k, s]) => [k, s.packed] as [string, PackedFacts]));
        if (merged) {
          for (const n of old) {
            loadedSegments.delete(n);
            await unlink(join(dir, n)).catch(() => undefined);
          }
        }
      }
    },
    takeProblems() {
      return problems.splice(0);
    },
  };
}
