/**
 * A recycled parse worker: parses one batch, posts the facts, and exits, so that the native
 * parser's memory (never given back while a thread lives) goes with the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Language } from '../facts.js';
import { packFacts, type PackedFacts } from '../cache/pack.js';
import { extractFacts } from './extract.js';

export interface WorkerJob {
  readonly id: number;
  readonly language: Language;
  readonly content: Uint8Array;
}

/** Facts travel packed: flat arrays clone far cheaper than object graphs. */
export type WorkerResult = { readonly id: number; readonly packed: PackedFacts } | { readonly id: number; readonly error: string };

const decoder = new TextDecoder('utf-8');
const jobs = (workerData as { jobs: WorkerJob[] }).jobs;
let results: WorkerResult[] = [];
// Results go back in chunks so that the parent can report progress.
for (const job of jobs) {
  try {
    results.push({ id: job.id, packed: packFacts(extractFacts(decoder.decode(job.content), job.language)) });
  } catch (e) {
    results.push({ id: job.id, error: e instanceof Error ? e.message : String(e) });
  }
  if (results.length >= 100) {
    parentPort!.postMessage(results);
    results = [];
  }
}
parentPort!.postMessage(results);
parentPort!.close();
