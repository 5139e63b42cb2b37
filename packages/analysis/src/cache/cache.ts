/**
 * Facts cached by content: the key is the git blob id plus the language, under a directory
 * named by the facts version (queries + extractor + grammars), so a new version never reads old
 * entries. Lives under the repository's git common directory, shared by all its worktrees.
 *
 * Writes go to a temporary file then `rename` (atomic on one filesystem): concurrent writers of
 * one entry write the same bytes, the last rename wins, a reader never sees half a file. An entry
 * that does not parse or does not match its key is deleted and counted, and the file is parsed
 * again: a corrupt cache costs time, never correctness.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileFacts, Language } from '../facts.js';
import { factsVersion } from '../extract/queries.js';

const FORMAT = 'airspace-facts';

interface Entry {
  readonly format: typeof FORMAT;
  readonly version: string;
  readonly blob: string;
  readonly language: Language;
  readonly facts: FileFacts;
}

export interface CacheStats {
  memoryHits: number;
  diskHits: number;
  misses: number;
  corrupt: number;
  writes: number;
  writeErrors: number;
}

/** A facts store: an in-memory layer (per process) over an optional disk directory. */
export interface FactsStore {
  readonly dir?: string;
  readonly stats: CacheStats;
  get(blob: string, language: Language): Promise<FileFacts | undefined>;
  put(blob: string, language: Language, facts: FileFacts): Promise<void>;
  /** Problems met (corrupt entries, unwritable directory), drained by the index. */
  takeProblems(): string[];
}

export interface FactsStoreOptions {
  /** Cache root, e.g. `<git common dir>/airspace/cache`; omitted: memory only. */
  readonly cacheDir?: string;
  /** Entries kept in memory (default 200,000). */
  readonly memoryEntries?: number;
}

export function createFactsStore(options: FactsStoreOptions = {}): FactsStore {
  const version = factsVersion();
  const dir = options.cacheDir ? join(options.cacheDir, `facts-${version}`) : undefined;
  const limit = options.memoryEntries ?? 200_000;
  const memory = new Map<string, FileFacts>();
  const stats: CacheStats = { memoryHits: 0, diskHits: 0, misses: 0, corrupt: 0, writes: 0, writeErrors: 0 };
  const problems: string[] = [];
  const made = new Set<string>();

  const remember = (key: string, facts: FileFacts) => {
    if (memory.size >= limit) memory.delete(memory.keys().next().value as string);
    memory.set(key, facts);
  };
  const entryPath = (blob: string, language: Language) => join(dir!, blob.slice(0, 2), `${blob.slice(2)}.${language}.json`);

  return {
    ...(dir ? { dir } : {}),
    stats,
    async get(blob, language) {
      const key = `${blob}:${language}`;
      const hit = memory.get(key);
      if (hit) {
        stats.memoryHits++;
        return hit;
      }
      if (!dir || !/^[0-9a-f]{6,}$/.test(blob)) {
        stats.misses++;
        return undefined;
      }
      const path = entryPath(blob, language);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch {
        stats.misses++;
        return undefined;
      }
      const facts = decodeEntry(text, version, blob, language);
      if (!facts) {
        stats.corrupt++;
        stats.misses++;
        problems.push(`corrupt cache entry ${path} was removed and the file parsed again`);
        await unlink(path).catch(() => undefined);
        return undefined;
      }
      stats.diskHits++;
      remember(key, facts);
      return facts;
    },
    async put(blob, language, facts) {
      remember(`${blob}:${language}`, facts);
      if (!dir || !/^[0-9a-f]{6,}$/.test(blob)) return;
      const path = entryPath(blob, language);
      const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        const sub = join(dir, blob.slice(0, 2));
        if (!made.has(sub)) {
          await mkdir(sub, { recursive: true });
          made.add(sub);
        }
        const entry: Entry = { format: FORMAT, version, blob, language, facts };
        await writeFile(tmp, JSON.stringify(entry));
        await rename(tmp, path);
        stats.writes++;
      } catch (e) {
        stats.writeErrors++;
        if (stats.writeErrors <= 3) problems.push(`cannot write the facts cache (${e instanceof Error ? e.message : String(e)}); continuing without it`);
        await unlink(tmp).catch(() => undefined);
      }
    },
    takeProblems() {
      return problems.splice(0);
    },
  };
}

function decodeEntry(text: string, version: string, blob: string, language: Language): FileFacts | undefined {
  let entry: Partial<Entry>;
  try {
    entry = JSON.parse(text) as Partial<Entry>;
  } catch {
    return undefined;
  }
  if (!entry || entry.format !== FORMAT || entry.version !== version || entry.blob !== blob || entry.language !== language) return undefined;
  const f = entry.facts as Partial<FileFacts> | undefined;
  if (!f || f.language !== language || !Array.isArray(f.imports) || !Array.isArray(f.exports) || !Array.isArray(f.definitions) || !Array.isArray(f.references) || !Array.isArray(f.calls)) return undefined;
  return f as FileFacts;
}
