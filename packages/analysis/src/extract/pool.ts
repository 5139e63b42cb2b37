/**
 * Parse jobs in recycled worker threads: batches of a few megabytes, at most `workers` at a
 * time, each worker exiting after its batch (see worker.ts for why). With `workers: 0` (or when
 * the compiled worker is not available, e.g. under a test runner reading `src/`) the jobs run in
 * this thread.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FileFacts, Language } from '../facts.js';
import { extractFacts } from './extract.js';
import { packFacts, unpackFacts } from '../cache/pack.js';
import type { WorkerJob, WorkerResult } from './worker.js';

export interface ParseJob {
  readonly language: Language;
  readonly content: Buffer;
}

export interface ParseOptions {
  /** Worker threads; 0 parses in this thread. Default: the number of cores (at most 8). */
  readonly workers?: number;
  /** Bytes a worker parses before it is recycled (default 4 MiB). */
  readonly batchBytes?: number;
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

export async function parseAll(jobs: readonly ParseJob[], options: ParseOptions = {}): Promise<ParseOutcome[]> {
  const out: ParseOutcome[] = new Array(jobs.length);
  let done = 0;
  const workers = options.workers ?? defaultWorkers();
  const url = workers > 0 ? workerUrl() : undefined;
  const totalBytes = jobs.reduce((n, j) => n + j.content.length, 0);
  // Small sets are parsed here: a thread costs more than a few files, and leaks little.
  if (!url || totalBytes < 256 * 1024) {
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      try {
        // Same form as from a worker: packed, references and calls decoded on use.
        out[i] = { facts: unpackFacts(packFacts(extractFacts(job.content.toString('utf8'), job.language))) };
      } catch (e) {
        out[i] = { error: e instanceof Error ? e.message : String(e) };
      }
      options.onParsed?.(++done);
    }
    return out;
  }

  const batchBytes = Math.max(64 * 1024, Math.min(options.batchBytes ?? 4 << 20, Math.ceil(totalBytes / workers)));
  const batches: WorkerJob[][] = [];
  let current: WorkerJob[] = [];
  let size = 0;
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i]!;
    current.push({ id: i, language: job.language, content: job.content });
    size += job.content.length;
    if (size >= batchBytes) {
      batches.push(current);
      current = [];
      size = 0;
    }
  }
  if (current.length) batches.push(current);

  let next = 0;
  const runOne = async (): Promise<void> => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      await new Promise<void>((resolve) => {
        const worker = new Worker(url, { workerData: { jobs: batch } });
        let received = 0;
        worker.on('message', (results: WorkerResult[]) => {
          for (const r of results) {
            out[r.id] = 'packed' in r ? { facts: unpackFacts(r.packed) } : { error: r.error };
            received++;
            options.onParsed?.(++done);
          }
        });
        const finish = (why?: string) => {
          // A worker that died (out of memory, crash) fails only the jobs it had not answered.
          if (received < batch.length) {
            for (const j of batch) {
              if (out[j.id] === undefined) {
                out[j.id] = { error: why ?? 'parse worker exited early' };
                options.onParsed?.(++done);
              }
            }
          }
          resolve();
        };
        worker.on('error', (e) => finish(`parse worker failed: ${e.message}`));
        worker.on('exit', (code) => finish(code === 0 ? undefined : `parse worker exited with code ${code}`));
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, batches.length) }, runOne));
  return out;
}
