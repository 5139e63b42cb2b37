/** The messages between the parse pool (`pool.ts`) and its workers (`worker.ts`). */
import type { Language } from '../facts.js';
import type { PackedFacts } from '../cache/pack.js';
import type { SourceSkip } from './source-file.js';
import type { ExtractOptions } from './extract.js';

/** Pool → worker: a chunk of these. */
export interface WorkerJob {
  readonly id: number;
  readonly language: Language;
  /** The file's bytes, or (without them) where the worker reads the file itself. */
  readonly content?: Uint8Array;
  readonly diskPath?: string;
  /** A file read from `diskPath` larger than this is skipped. */
  readonly maxBytes?: number;
  /** Extract what the import graph needs only (`ExtractOptions.importsOnly`). */
  readonly importsOnly?: boolean;
  /** The import scanner declined the file already: parse it (`ExtractOptions.parse`). */
  readonly parse?: boolean;
}

/** Worker → pool, per chunk. Facts travel packed: flat arrays clone far cheaper than object graphs. */
export type WorkerResult =
  | { readonly id: number; readonly packed: PackedFacts }
  | { readonly id: number; readonly error: string }
  | ({ readonly id: number } & SourceSkip);

/** Worker → pool, once its modules have loaded: a worker that dies before this failed to start. */
export const WORKER_READY = 'ready';

/** How a job is extracted, in a worker or in the pool's own thread. */
export function extractOptions(job: WorkerJob): ExtractOptions {
  if (!job.importsOnly) return {};
  return job.parse ? { importsOnly: true, parse: true } : { importsOnly: true };
}
