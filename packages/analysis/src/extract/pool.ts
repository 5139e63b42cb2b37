/**
 * Parse jobs in worker threads: at most `workers` threads per pool, each living until the pool
 * closes, fed chunks of a few hundred kilobytes as it becomes idle (so the work stays balanced
 * and the grammars and queries are compiled once per thread). Messages: `worker-protocol.ts`.
 * Imports-only jobs are first tried by the import scanner in this thread; only the files it
 * declines go to workers (see `createParsePool`). With `workers: 0` (or
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
import { scanImportFacts } from './import-scanner.js';
import { loadParser } from './parser-backend.js';
import { markImportsOnly, packFacts, unpackFacts } from '../cache/pack.js';
import { readSource, type SourceSkip } from './source-file.js';
import { extractOptions, WORKER_READY, type WorkerJob, type WorkerResult } from './worker-protocol.js';

export interface ParseJob {
  readonly language: Language;
  /**
   * The file's bytes; or none, and `diskPath`: the parsing thread reads the file itself (so
   * that reading costs the calling thread nothing), skipping it when larger than `maxBytes` or
   * binary (outcome `skip`).
   */
  readonly content?: Buffer;
  readonly diskPath?: string;
  readonly maxBytes?: number;
  /** Extract what the import graph needs only (`ExtractOptions.importsOnly`). */
  readonly importsOnly?: boolean;
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

export type ParseOutcome = { readonly facts: FileFacts } | { readonly error: string } | SourceSkip;

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

const MIN_CHUNK_BYTES = 16 * 1024;
const DEFAULT_CHUNK_BYTES = 256 * 1024;
/** What a job read by its parsing thread counts for in a chunk (its size is not known here): a typical source file. */
const DISK_JOB_BYTES = 8 * 1024;
/** How long this thread scans imports-only jobs (`scanImportFacts`) before a turn of the event loop. */
const SCAN_SLICE_MS = 10;

/**
 * Jobs are queued as they come (while the caller still reads files) and sent to the workers in
 * chunks of about `chunkBytes`; threads start with the first full chunk, so a set smaller than
 * one chunk is parsed in this thread on `close`.
 */
export interface ParsePool {
  /** Queues a job; the promise settles with its outcome (never rejects). */
  parse(job: ParseJob): Promise<ParseOutcome>;
  /** Sends what is queued and waits for every outcome; then the threads exit. */
  close(): Promise<void>;
}

type Settle = (id: number, outcome: ParseOutcome) => void;

/** A thread of the pool; `worker` is started on its first chunk (and again after it dies). */
interface Lane {
  worker: Worker | undefined;
  /** Whether the worker has said it loaded (see `WORKER_READY`). */
  ready: boolean;
  busy: boolean;
}

/** The message for a job; its content is held only until its chunk is answered (or, in this thread, parsed). */
function workerJob(id: number, job: ParseJob, content: Uint8Array | undefined, declined: boolean): WorkerJob {
  return {
    id,
    language: job.language,
    ...(content ? { content } : { diskPath: job.diskPath!, ...(job.maxBytes !== undefined ? { maxBytes: job.maxBytes } : {}) }),
    ...(job.importsOnly ? { importsOnly: true } : {}),
    // parsed without trying the scanner again
    ...(declined ? { parse: true } : {}),
  };
}

/** This thread: chunk by chunk, with a turn of the event loop between chunks. */
async function parseHere(jobs: readonly WorkerJob[], chunkBytes: number, settle: Settle): Promise<void> {
  // This thread's parser (a WebAssembly one loads asynchronously); never rejects.
  if (jobs.length) await loadParser();
  const collector = jobs.length > 1 ? treeCollector() : undefined;
  let sinceTurn = 0;
  for (const job of jobs) {
    if (sinceTurn >= chunkBytes) {
      sinceTurn = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    try {
      const read = job.content ? { content: job.content } : readSource(job.diskPath!, job.maxBytes ?? Infinity);
      if (!('content' in read)) {
        settle(job.id, read);
        continue;
      }
      sinceTurn += read.content.length;
      collector?.parsed(read.content.length);
      // Same form as from a worker: packed, references and calls decoded on use.
      settle(job.id, {
        facts: unpackFacts(packFacts(extractFacts(sourceText(read.content), job.language, extractOptions(job)))),
      });
    } catch (e) {
      settle(job.id, { error: e instanceof Error ? e.message : String(e) });
    }
  }
}

/** One imports-only job through the import scanner; a file it declines is queued for a parse. */
function scanOne(
  id: number,
  job: ParseJob,
  settle: Settle,
  enqueue: (id: number, job: ParseJob, content: Uint8Array, declined: boolean) => void,
): void {
  const read = job.content ? { content: job.content } : readSource(job.diskPath!, job.maxBytes ?? Infinity);
  if (!('content' in read)) return settle(id, read);
  const facts = scanImportFacts(sourceText(read.content), job.language);
  if (!facts) return enqueue(id, job, read.content, true);
  markImportsOnly(facts);
  // Same form as from a worker: packed, references and calls decoded on use.
  settle(id, { facts: unpackFacts(packFacts(facts)) });
}

/**
 * Starts the lane's worker (a spare one if there is), with the listeners for while it has no chunk:
 * a worker that died there must not be sent the next one (`diedIdle`); during a chunk, `send`'s
 * own listeners decide.
 */
function startLaneWorker(lane: Lane, url: URL, diedIdle: (why: string) => void): void {
  const spare = takeSpare(url);
  const w = spare?.worker ?? new Worker(url);
  lane.worker = w;
  lane.ready = spare?.ready ?? false;
  let failure: string | undefined;
  w.on('message', (message: unknown) => {
    if (message === WORKER_READY) lane.ready = true;
  });
  w.on('error', (e: Error) => {
    failure = `parse worker failed: ${e.message}`;
  });
  w.on('exit', (code: number) => {
    if (lane.worker !== w || lane.busy) return;
    lane.worker = undefined;
    diedIdle(failure ?? `parse worker exited with code ${code}`);
  });
}

/**
 * Imports-only jobs wait here for the import scanner (`import-scanner.ts`), which answers most
 * files faster than a worker could be started and handed them (its start, the JIT warming up
 * again in each thread, the hand-off of facts: see docs/benchmarks.md). This thread scans them
 * in slices between turns of the event loop, so that it stays responsive (an engine indexing
 * keeps answering its clients); files the scanner declines go to the workers' parse.
 */
function createScanQueue(scan: (id: number, job: ParseJob) => void, settle: Settle) {
  const toScan: { id: number; job: ParseJob }[] = [];
  let scanAt = 0;
  let scanning = false;
  let scanned: (() => void) | undefined;
  /** Scans for about `SCAN_SLICE_MS`, then yields to the event loop. */
  const scanSome = () => {
    const until = performance.now() + SCAN_SLICE_MS;
    while (scanAt < toScan.length && performance.now() < until) {
      const { id, job } = toScan[scanAt]!;
      toScan[scanAt++] = undefined as never;
      try {
        scan(id, job);
      } catch (e) {
        settle(id, { error: e instanceof Error ? e.message : String(e) });
      }
    }
    if (scanAt < toScan.length) {
      setImmediate(scanSome);
      return;
    }
    toScan.length = 0;
    scanAt = 0;
    scanning = false;
    scanned?.();
    scanned = undefined;
  };
  return {
    push(id: number, job: ParseJob): void {
      toScan.push({ id, job });
      if (!scanning) {
        scanning = true;
        setImmediate(scanSome);
      }
    },
    /** Settles when every job pushed has been scanned; undefined when none is waiting. */
    whenScanned(): Promise<void> | undefined {
      return scanning ? new Promise<void>((resolve) => (scanned = resolve)) : undefined;
    },
  };
}

export function createParsePool(options: ParseOptions = {}): ParsePool {
  const workers = options.workers ?? defaultWorkers();
  const url = workers > 0 ? (options.workerUrl ?? workerUrl()) : undefined;
  const chunkBytes = Math.max(MIN_CHUNK_BYTES, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const answers: ((outcome: ParseOutcome) => void)[] = [];
  let done = 0;
  const settle = (id: number, outcome: ParseOutcome) => {
    const answer = answers[id]!;
    answers[id] = () => undefined;
    options.onParsed?.(++done);
    answer(outcome);
  };

  let current: WorkerJob[] = [];
  let currentBytes = 0;
  const lanes = createLanes(workers, url, settle);
  const cut = () => {
    if (current.length) lanes.queue.push(current);
    current = [];
    currentBytes = 0;
  };

  let threadsStarted = false;

  /** Queues a job for the workers (or this thread's parse at `close`); `declined` by the import scanner already. */
  const enqueue = (id: number, job: ParseJob, content: Uint8Array | undefined, declined = false) => {
    const broken = lanes.broken();
    if (broken) return settle(id, { error: broken });
    // Held only until its chunk is answered (or, in this thread, parsed).
    current.push(workerJob(id, job, content, declined));
    currentBytes += content?.length ?? DISK_JOB_BYTES;
    if (url && currentBytes >= chunkBytes) {
      threadsStarted = true;
      cut();
      lanes.pump();
    }
  };

  // Imports-only jobs go to the import scanner first (`createScanQueue`).
  const scans = createScanQueue((id, job) => scanOne(id, job, settle, enqueue), settle);

  return {
    parse(job) {
      const id = answers.length;
      const outcome = new Promise<ParseOutcome>((resolve) => answers.push(resolve));
      const broken = lanes.broken();
      if (broken) {
        settle(id, { error: broken });
        return outcome;
      }
      if (!job.importsOnly) enqueue(id, job, job.content);
      else scans.push(id, job);
      return outcome;
    },
    async close() {
      try {
        const scanning = scans.whenScanned();
        if (scanning) await scanning;
        // No threads, or less than a chunk in all (a thread costs more than these few files).
        if (!threadsStarted) {
          const here = current;
          current = [];
          await parseHere(here, chunkBytes, settle);
          return;
        }
        cut();
        await lanes.whenIdle();
      } finally {
        await lanes.terminate();
      }
    },
  };
}

/**
 * The worker threads of a pool: chunks queued, each sent to a free lane (at most `workers` lanes,
 * each with its worker), their results given to `settle`.
 *
 * A chunk whose worker died is split into single files, each tried in a fresh worker, so
 * that one file that kills its thread (out of memory, a crash) fails alone. A worker that dies
 * before it has loaded says nothing about the files: its chunk is sent again, and after two
 * such deaths every file left fails with that reason (rather than one thread start per file).
 */
function createLanes(workers: number, url: URL | undefined, settle: (id: number, outcome: ParseOutcome) => void) {
  const queue: WorkerJob[][] = [];
  const lanes: Lane[] = [];
  let pending = 0; // chunks sent and not answered
  let idle: (() => void) | undefined;
  let startFailures = 0;
  let broken: string | undefined;

  const send = (lane: Lane, chunk: WorkerJob[]) => {
    lane.busy = true;
    pending++;
    if (!lane.worker) startWorker(lane);
    const w = lane.worker!;
    const finish = (died?: string) => {
      w.off('message', onMessage);
      w.off('error', onError);
      w.off('exit', onExit);
      if (died !== undefined) {
        void w.terminate();
        lane.worker = undefined;
        startFailed(lane, died);
        if (broken) {
          for (const c of [chunk, ...queue.splice(0)]) for (const job of c) settle(job.id, { error: broken });
        } else if (!lane.ready) queue.unshift(chunk);
        else if (chunk.length > 1) queue.unshift(...chunk.map((job) => [job]));
        else settle(chunk[0]!.id, { error: died });
      }
      lane.busy = false;
      pending--;
      pump();
    };
    const onMessage = (message: WorkerResult[] | typeof WORKER_READY) => {
      if (message === WORKER_READY) return;
      for (const r of message) settle(r.id, outcomeOf(r));
      finish();
    };
    const onError = (e: Error) => finish(`parse worker failed: ${e.message}`);
    const onExit = (code: number) => finish(`parse worker exited with code ${code}`);
    w.on('message', onMessage);
    w.on('error', onError);
    w.on('exit', onExit);
    w.postMessage(chunk);
  };
  const startFailed = (lane: Lane, why: string) => {
    if (!lane.ready && ++startFailures >= 2) broken ??= `parse workers cannot start: ${why}`;
  };
  const startWorker = (lane: Lane) =>
    startLaneWorker(lane, url!, (why) => {
      startFailed(lane, why);
      pump();
    });
  const pump = () => {
    if (broken) for (const c of queue.splice(0)) for (const job of c) settle(job.id, { error: broken });
    while (queue.length) {
      let lane = lanes.find((l) => !l.busy);
      if (!lane && lanes.length < workers) lanes.push((lane = { worker: undefined, ready: false, busy: false }));
      if (!lane) break;
      send(lane, queue.shift()!);
    }
    if (pending === 0 && queue.length === 0) idle?.();
  };

  return {
    /** Chunks waiting for a lane. */
    queue,
    /** Sends queued chunks to free lanes (starting lanes up to `workers`). */
    pump,
    /** Why the workers cannot start, once two died before loading. */
    broken: (): string | undefined => broken,
    /** Settles when every chunk queued has been answered. */
    whenIdle: (): Promise<void> =>
      new Promise<void>((resolve) => {
        idle = resolve;
        pump();
      }),
    async terminate(): Promise<void> {
      await Promise.all(lanes.map((l) => l.worker?.terminate()));
      lanes.length = 0;
    },
  };
}

function outcomeOf(r: WorkerResult): ParseOutcome {
  if ('packed' in r) return { facts: unpackFacts(r.packed) };
  if ('skip' in r) return r.detail !== undefined ? { skip: r.skip, detail: r.detail } : { skip: r.skip };
  return { error: r.error };
}

/** Workers started ahead of any pool (`prestartParseWorkers`), until a pool takes them. */
interface Spare {
  readonly worker: Worker;
  readonly url: string;
  ready: boolean;
  readonly onMessage: (message: unknown) => void;
  readonly onGone: () => void;
}
const spares: Spare[] = [];

/** How long a prestarted worker waits for a pool before it is ended. */
export const SPARE_WORKER_MS = 10_000;

/**
 * Starts parse workers before a pool needs them, so their start (Node, the modules, the grammars:
 * about 0.1 s of CPU each) overlaps what the caller does first, e.g. listing the worktree. The
 * next pool with the same worker script takes them; any not taken within `SPARE_WORKER_MS` are
 * ended. Call it only when parsing is likely (a cold cache): a worker nobody takes costs its
 * start on the other cores. Returns the thread ids of the workers waiting.
 */
export function prestartParseWorkers(options: Pick<ParseOptions, 'workers' | 'workerUrl'> = {}): number[] {
  const url = options.workerUrl ?? workerUrl();
  const count = Math.max(0, options.workers ?? defaultWorkers());
  if (!url) return [];
  while (spares.filter((s) => s.url === url.href).length < count) {
    const worker = new Worker(url);
    // Waiting alone, a spare keeps no process alive.
    worker.unref();
    const spare: Spare = {
      worker,
      url: url.href,
      ready: false,
      onMessage: (message) => {
        if (message === WORKER_READY) spare.ready = true;
      },
      onGone: () => {
        const at = spares.indexOf(spare);
        if (at >= 0) spares.splice(at, 1);
      },
    };
    worker.on('message', spare.onMessage);
    worker.on('error', spare.onGone);
    worker.on('exit', spare.onGone);
    spares.push(spare);
    setTimeout(() => {
      if (spares.includes(spare)) {
        spare.onGone();
        void worker.terminate();
      }
    }, SPARE_WORKER_MS).unref();
  }
  return spares.filter((s) => s.url === url.href).map((s) => s.worker.threadId);
}

/** A waiting worker of this script, handed over to a pool (its listeners are the pool's from now on). */
function takeSpare(url: URL): Spare | undefined {
  const at = spares.findIndex((s) => s.url === url.href);
  if (at < 0) return undefined;
  const [spare] = spares.splice(at, 1);
  const w = spare!.worker;
  w.off('message', spare!.onMessage);
  w.off('error', spare!.onGone);
  w.off('exit', spare!.onGone);
  w.ref();
  return spare;
}

/** Parses `jobs` (see `createParsePool`); outcomes in the order of the jobs. */
export async function parseAll(jobs: readonly ParseJob[], options: ParseOptions = {}): Promise<ParseOutcome[]> {
  const pool = createParsePool(options);
  const outcomes = jobs.map((job) => pool.parse(job));
  await pool.close();
  return Promise.all(outcomes);
}
