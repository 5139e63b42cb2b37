/**
 * A parse worker: parses the chunks of files its pool sends, one message each, and posts their
 * facts back.
 *
 * Each chunk is handled in one turn of the event loop and the worker then returns to the loop.
 * That return is what frees memory: the native trees are released by finalizers that Node runs
 * only between turns, so a thread parsing file after file without returning kept every tree it
 * had made. It also collects garbage every megabyte of source (see `collect.ts`).
 */
import { parentPort } from 'node:worker_threads';
import { packFacts } from '../cache/pack.js';
import { treeCollector } from './collect.js';
import { extractFacts, sourceText } from './extract.js';
import { dropNodeCache } from './matches.js';
import { WORKER_READY, type WorkerJob, type WorkerResult } from './worker-protocol.js';

const collector = treeCollector();
dropNodeCache();

parentPort!.on('message', (jobs: WorkerJob[]) => {
  const results: WorkerResult[] = [];
  for (const job of jobs) {
    try {
      results.push({
        id: job.id,
        packed: packFacts(extractFacts(sourceText(job.content), job.language, job.importsOnly ? { importsOnly: true } : {})),
      });
    } catch (e) {
      results.push({ id: job.id, error: e instanceof Error ? e.message : String(e) });
    }
  }
  parentPort!.postMessage(results);
  for (const job of jobs) collector.parsed(job.content.length);
});
parentPort!.postMessage(WORKER_READY);
