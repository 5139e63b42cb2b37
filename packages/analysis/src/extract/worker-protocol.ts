/** The messages between the parse pool (`pool.ts`) and its workers (`worker.ts`). */
import type { Language } from '../facts.js';
import type { PackedFacts } from '../cache/pack.js';

/** Pool → worker: a chunk of these. */
export interface WorkerJob {
  readonly id: number;
  readonly language: Language;
  readonly content: Uint8Array;
  /** Extract what the import graph needs only (`ExtractOptions.importsOnly`). */
  readonly importsOnly?: boolean;
}

/** Worker → pool, per chunk. Facts travel packed: flat arrays clone far cheaper than object graphs. */
export type WorkerResult = { readonly id: number; readonly packed: PackedFacts } | { readonly id: number; readonly error: string };

/** Worker → pool, once its modules have loaded: a worker that dies before this failed to start. */
export const WORKER_READY = 'ready';
