/**
 * A parse worker: parses the chunks of files its pool sends, one message each, and posts their
 * facts back. A job without content names a file on disk, which the worker reads itself.
 *
 * Each chunk is handled in one turn of the event loop and the worker then returns to the loop.
 * That return is what frees memory: the native trees are released by finalizers that Node runs
 * only between turns, so a thread parsing file after file without returning kept every tree it
 * had made. It also collects garbage every megabyte of source (see `collect.ts`).
 *
 * The parser (native, else WebAssembly: `parser-backend.ts`) is loaded before the worker says it
 * is ready. A WebAssembly module's memory grows to the largest tree it held and is not given
 * back; like native memory, it goes when the pool ends the thread.
 */
import { parentPort } from 'node:worker_threads';
import { packFacts } from '../cache/pack.js';
import { treeCollector } from './collect.js';
import { extractFacts, sourceText } from './extract.js';
import { dropNodeCache } from './matches.js';
import { loadParser } from './parser-backend.js';
import { readSource } from './source-file.js';
import { extractOptions, WORKER_READY, type WorkerJob, type WorkerResult } from './worker-protocol.js';

const collector = treeCollector();
dropNodeCache();
// Never rejects: without a parser each job fails with why (the scanner reports it once, first).
await loadParser();

parentPort!.on('message', (jobs: WorkerJob[]) => {
  const results: WorkerResult[] = [];
  let bytes = 0;
  for (const job of jobs) {
    try {
      const read = job.content ? { content: job.content } : readSource(job.diskPath!, job.maxBytes ?? Infinity);
      if (!('content' in read)) {
        results.push({ id: job.id, ...read });
        continue;
      }
      bytes += read.content.length;
      results.push({
        id: job.id,
        packed: packFacts(extractFacts(sourceText(read.content), job.language, extractOptions(job))),
      });
    } catch (e) {
      results.push({ id: job.id, error: e instanceof Error ? e.message : String(e) });
    }
  }
  parentPort!.postMessage(results);
  collector.parsed(bytes);
});
parentPort!.postMessage(WORKER_READY);
