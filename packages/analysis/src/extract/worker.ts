/**
 * A parse worker: parses the chunks of files its pool sends, one message each, and posts their
 * facts back.
 *
 * Each chunk is handled in one turn of the event loop and the worker then returns to the loop.
 * That return is what frees memory: the native trees are released by finalizers that Node runs
 * only between turns, so a thread parsing file after file without returning kept every tree it
 * had made (about 80 bytes of native memory per byte of source). The finalizers run only once
 * the garbage collector has found the trees unreachable, and V8 does not see the native memory
 * behind them, so the worker also collects after every few megabytes of source.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
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

/** Source bytes parsed between two collections: bounds the native memory of dead trees. */
const COLLECT_EVERY_BYTES = 1 << 20;

/** The garbage collector as a function (a context made after `--expose-gc` has `gc`), if the runtime allows it. */
function collector(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

const collect = collector();
let sinceCollect = 0;

parentPort!.on('message', (jobs: WorkerJob[]) => {
  const results: WorkerResult[] = [];
  for (const job of jobs) {
    try {
      results.push({ id: job.id, packed: packFacts(extractFacts(decoder.decode(job.content), job.language)) });
    } catch (e) {
      results.push({ id: job.id, error: e instanceof Error ? e.message : String(e) });
    }
  }
  parentPort!.postMessage(results);
  for (const job of jobs) sinceCollect += job.content.length;
  if (collect && sinceCollect >= COLLECT_EVERY_BYTES) {
    sinceCollect = 0;
    collect();
  }
});
