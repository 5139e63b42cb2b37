/**
 * Parse jobs in worker threads: at most `workers` threads for one call, each living until the
 * jobs run out, fed chunks of a few hundred kilobytes as it becomes idle (so the work stays
 * balanced and the grammars and queries are compiled once per thread). With `workers: 0` (or
 * when the compiled worker is not available, e.g. under a test runner reading `src/`) the jobs
 * run in this thread, chunk by chunk with a turn of the event loop between chunks (see
 * worker.ts for why that turn matters).
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FileFacts, Language } from '../facts.js';
import { treeCollector } from './collect.js';
import { extractFacts, sourceText } from './extract.js';
import { packFacts, unpackFacts } from '../cache/pack.js';
import type { WorkerJob, WorkerResult } from './worker.js';

export interface ParseJob {
  readonly language: Language;
  readonly content: Buffer;
}

export interface ParseOptions {
  /** Worker threads; 0 parses in this thread. Default: the number of cores (at most 8). */
  readonly workers?: number;
  /** Source bytes sent to a worker at a time (default 256 KiB). */
  readonly chunkBytes?: number;
  /** The worker script (default: `worker.js` beside this module); tests substitute their own. */
  readonly workerUrl?: URL;
  readonly onParsed?: (done: number) => void;
}

export type ParseOutcome = { readonly facts: FileFacts } | { readonly error: string };

export function defaultWorkers(): number {
  return Math.max(1, Math.min(8, availableParallelism()));
}

/** The compiled worker beside this module, or under `dist/` when running from `src/`. */
function workerUrl(): URL | undefined {
  const own = new URL('./worker.js', import.meta.url);
  if (existsSync(fileURLToPath(own))) return own;
  const path = fileURLToPath(own).replace(/([\\/])src([\\/]extract[\\/]worker\.js)$/, '$1dist$2');
  return existsSync(path) ? pathToFileURL(path) : undefined;
}

/** Consecutive jobs in chunks of about `bytes` source bytes. */
function chunksOf(jobs: readonly ParseJob[], bytes: number): WorkerJob[][] {
  const chunks: WorkerJob[][] = [];
  let current: WorkerJob[] = [];
  let size = 0;
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i]!;
    current.push({ id: i, language: job.language, content: job.content });
    size += job.content.length;
    if (size >= bytes) {
      chunks.push(current);
      current = [];
      size = 0;
    }
  }
  if (current.length) chunks.push(current);
  return chunks;
}

const MIN_CHUNK_BYTES = 16 * 1024;
const DEFAULT_CHUNK_BYTES = 256 * 1024;

export async function parseAll(jobs: readonly ParseJob[], options: ParseOptions = {}): Promise<ParseOutcome[]> {
  const out: ParseOutcome[] = new Array(jobs.length);
  let done = 0;
  const settle = (id: number, outcome: ParseOutcome) => {
    out[id] = outcome;
    options.onParsed?.(++done);
  };
  const workers = options.workers ?? defaultWorkers();
  const url = workers > 0 ? (options.workerUrl ?? workerUrl()) : undefined;
  const totalBytes = jobs.reduce((n, j) => n + j.content.length, 0);
  const chunkBytes = Math.max(MIN_CHUNK_BYTES, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const chunks = chunksOf(jobs, chunkBytes);

  // Small sets are parsed here: a thread costs more than a few files.
  if (!url || totalBytes < chunkBytes) {
    const collector = chunks.length > 1 ? treeCollector() : undefined;
    for (let c = 0; c < chunks.length; c++) {
      if (c > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      for (const job of chunks[c]!) {
        collector?.parsed(job.content.length);
        try {
          // Same form as from a worker: packed, references and calls decoded on use.
          settle(job.id, { facts: unpackFacts(packFacts(extractFacts(sourceText(jobs[job.id]!.content), job.language))) });
        } catch (e) {
          settle(job.id, { error: e instanceof Error ? e.message : String(e) });
        }
      }
    }
    return out;
  }

  // A chunk whose worker died is split into single files, each tried in a fresh worker, so
  // that one file that kills its thread (out of memory, a crash) fails alone.
  const queue = chunks;
  const lane = async (): Promise<void> => {
    let worker: Worker | undefined;
    try {
      while (queue.length) {
        const chunk = queue.shift()!;
        worker ??= new Worker(url);
        const died = await new Promise<string | undefined>((resolve) => {
          const w = worker!;
          const onMessage = (results: WorkerResult[]) => {
            for (const r of results) settle(r.id, 'packed' in r ? { facts: unpackFacts(r.packed) } : { error: r.error });
            cleanup();
            resolve(undefined);
          };
          const onError = (e: Error) => {
            cleanup();
            resolve(`parse worker failed: ${e.message}`);
          };
          const onExit = (code: number) => {
            cleanup();
            resolve(`parse worker exited with code ${code}`);
          };
          const cleanup = () => {
            w.off('message', onMessage);
            w.off('error', onError);
            w.off('exit', onExit);
          };
          w.on('message', onMessage);
          w.on('error', onError);
          w.on('exit', onExit);
          w.postMessage(chunk);
        });
        if (died === undefined) continue;
        void worker.terminate();
        worker = undefined;
        if (chunk.length > 1) queue.unshift(...chunk.map((job) => [job]));
        else settle(chunk[0]!.id, { error: died });
      }
    } finally {
      if (worker) await worker.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, chunks.length) }, lane));
  return out;
}
