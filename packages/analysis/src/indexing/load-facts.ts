/**
 * Facts for a snapshot: from the cache by blob id, the misses parsed in worker threads.
 */
import { mapLimit } from '@airspace/git';
import type { FactsStore } from '../cache/cache.js';
import { isDamaged, isImportsOnly } from '../cache/pack.js';
import { createParsePool, type ParseJob, type ParseOutcome } from '../extract/pool.js';
import { sourceSkip } from '../extract/source-file.js';
import type { FileFacts, Language } from '../facts.js';
import { gitBlobId, type SnapshotFile } from '../snapshot.js';
import { DEFAULT_MAX_FILE_BYTES, type IndexOptions, type SkippedFile } from './index-types.js';

interface FactsJob {
  readonly file: SnapshotFile;
  readonly language: Language;
  blobId?: string;
  /** The file's bytes until parsed; cleared (set to undefined) to free them early. */
  content?: Buffer | undefined;
  facts?: FileFacts;
  skip?: SkippedFile;
}

/**
 * Facts for a set of files: reused from `previous`, the store (memory, then disk), or parsed.
 * Shared by `buildIndex` and `overlay`.
 */
export async function loadFacts(
  files: readonly { file: SnapshotFile; language: Language }[],
  store: FactsStore,
  options: Pick<IndexOptions, 'workers' | 'maxFileBytes' | 'previous' | 'bodies' | 'facts' | 'onProgress'> & {
    /** Called with each parsed file's facts as they arrive (before the last file is parsed). */
    readonly onParsed?: (job: FactsJob, facts: FileFacts) => void;
  },
): Promise<{ jobs: FactsJob[]; parsed: number; hashed: number; fromCache: number; parseErrors: number; parseMs: number }> {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const jobs: FactsJob[] = files.map(({ file, language }) => ({ file, language, ...(file.blobId ? { blobId: file.blobId } : {}) }));
  let hashed = 0;
  let fromCache = 0;
  let done = 0;
  const total = jobs.length;
  const importsOnly = options.facts === 'imports';
  const partStore = importsOnly ? store.importsOnly() : undefined;
  const lookUp = (job: FactsJob) => {
    const prev = options.previous?.files.get(job.file.path);
    const facts =
      prev &&
      prev.blobId === job.blobId &&
      prev.language === job.language &&
      !isDamaged(prev.facts) &&
      (importsOnly || !isImportsOnly(prev.facts))
        ? prev.facts
        : (store.get(job.blobId!, job.language, options.bodies ? { body: true } : undefined) ?? partStore?.get(job.blobId!, job.language));
    if (facts) {
      job.facts = facts;
      job.content = undefined;
      fromCache++;
      options.onProgress?.({ phase: 'facts', done: ++done, total });
    }
  };
  await Promise.all([store.refresh(), partStore?.refresh()]);
  // Files with a known blob id are looked up in one synchronous pass; only the others are read.
  const unknown: FactsJob[] = [];
  for (const job of jobs) {
    if (job.blobId) lookUp(job);
    else unknown.push(job);
  }
  await mapLimit(unknown, 64, async (job) => {
    if (!(await readContent(job))) return;
    job.blobId = gitBlobId(job.content!);
    hashed++;
    lookUp(job);
  });

  // The misses are handed to the parse pool as they come: a file on disk whose blob id is known
  // is read by its parsing thread; the others were read here (to hash them) or are read now.
  // Threads start on the first full chunk, while the rest is still being queued or read.
  const misses = jobs.filter((j) => !j.facts && !j.skip);
  const t0 = performance.now();
  const pool = createParsePool({
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    onParsed: () => options.onProgress?.({ phase: 'parse', done: ++done, total }),
  });
  const toParse: FactsJob[] = [];
  const outcomes: Promise<ParseOutcome>[] = [];
  const extract = importsOnly ? { importsOnly } : {};
  const parse = (job: FactsJob, parseJob: ParseJob): Promise<ParseOutcome> => {
    const outcome = pool.parse(parseJob);
    const onParsed = options.onParsed;
    if (!onParsed) return outcome;
    return outcome.then((o) => {
      if ('facts' in o) onParsed(job, o.facts);
      return o;
    });
  };
  try {
    const inMemory: FactsJob[] = [];
    for (const job of misses) {
      const diskPath = job.file.diskPath;
      if (job.content || !diskPath) {
        inMemory.push(job);
        continue;
      }
      toParse.push(job);
      outcomes.push(parse(job, { language: job.language, diskPath, maxBytes, ...extract }));
    }
    await mapLimit(inMemory, 32, async (job) => {
      if (!job.content && !(await readContent(job))) return;
      const c = job.content!;
      job.content = undefined; // the pool holds it until parsed
      const skip = sourceSkip(c, maxBytes);
      if (skip) {
        job.skip = { path: job.file.path, reason: skip.skip, ...(skip.detail !== undefined ? { detail: skip.detail } : {}) };
        return;
      }
      toParse.push(job);
      outcomes.push(parse(job, { language: job.language, content: c, ...extract }));
    });
  } finally {
    await pool.close();
  }
  const settled = await Promise.all(outcomes);
  const parseMs = performance.now() - t0;
  const { parseErrors, skippedByReader } = settle(toParse, settled, partStore ?? store);
  await Promise.all([store.flush(), partStore?.flush()]);
  return { jobs, parsed: toParse.length - parseErrors - skippedByReader, hashed, fromCache, parseErrors, parseMs };
}

/** Each parsed job's facts (stored), or why it was skipped: counts of parse errors and reader skips. */
function settle(
  toParse: readonly FactsJob[],
  settled: readonly ParseOutcome[],
  store: FactsStore,
): { parseErrors: number; skippedByReader: number } {
  let parseErrors = 0;
  let skippedByReader = 0;
  toParse.forEach((job, i) => {
    const o = settled[i]!;
    if ('facts' in o) {
      job.facts = o.facts;
      store.put(job.blobId!, job.language, o.facts);
    } else if ('skip' in o) {
      skippedByReader++;
      job.skip = { path: job.file.path, reason: o.skip, ...(o.detail !== undefined ? { detail: o.detail } : {}) };
    } else {
      parseErrors++;
      job.skip = { path: job.file.path, reason: 'parse-failed', detail: o.error };
    }
  });
  return { parseErrors, skippedByReader };
}

/** Reads a job's bytes, or marks it skipped as unreadable. */
async function readContent(job: FactsJob): Promise<boolean> {
  try {
    job.content = await job.file.read();
    return true;
  } catch (e) {
    job.skip = { path: job.file.path, reason: 'unreadable', detail: e instanceof Error ? e.message : String(e) };
    return false;
  }
}
