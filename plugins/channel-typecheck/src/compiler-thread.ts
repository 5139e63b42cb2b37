/**
 * The TypeScript check in a thread of its own, for the resident engine: a long-lived worker
 * (`check-worker.ts`) keeps the compiler and its parsed files warm across checks and runs one
 * check at a time, so that a check of seconds never stops the engine from answering. This thread
 * sends a pair's four tree listings and the blob texts the worker has not been sent yet, and gets
 * the result back.
 *
 * A worker that fails (an exception, an exit, running out of memory) or does not answer within
 * the check's time limit plus a grace (it stops itself at the time limit between files; the grace
 * covers one file's check or parse that runs long) gives a `not-checked` result naming why, never
 * a clean one; the worker is then stopped, and the next check starts a new one.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CheckInput, CheckResult } from './check.js';
import { isCompilerInput, type BlobTexts } from './tree-fs.js';

/** What a check sends the compiler's thread: the check's input but the compiler and the texts. */
export type ThreadCheckInput = Omit<CheckInput, 'ts' | 'texts'>;

/** A message to the compiler's thread. */
export interface ToCompiler {
  readonly id: number;
  readonly input: ThreadCheckInput;
  /** Blob texts the thread was not sent yet: [blob id, text]. */
  readonly texts: readonly (readonly [string, string])[];
  /** Forget every text sent so far first (the bound below was reached). */
  readonly reset: boolean;
}

interface FromCompiler {
  readonly id: number;
  readonly result: CheckResult;
}

export interface CompilerThreadOptions {
  /** The worker's script (default: `check-worker.js` beside this module). */
  readonly script?: URL;
  /** Tests only: holds each check in the thread (see `check-worker.ts`). */
  readonly hold?: SharedArrayBuffer;
}

/** Texts sent to a thread at most before it is told to forget them all (about a few projects' worth). */
const MAX_SENT = 200_000;
/** Beyond its time limit, how long a check may run before its thread is stopped (at least). */
const MIN_GRACE_MS = 10_000;

/** The compiled worker beside this module, or under `dist/` when running from `src/` (tests). */
function workerUrl(): URL {
  const own = new URL('./check-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(own))) return own;
  return pathToFileURL(fileURLToPath(own).replace(/([\\/])src([\\/]check-worker\.js)$/, '$1dist$2'));
}

export class CompilerThread {
  private worker: Worker | undefined;
  /** Blob ids whose text the current worker has. */
  private sent = new Set<string>();
  private next = 0;
  /** The check in flight, if any. */
  private pending: { id: number; done: (result: CheckResult) => void } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Workers started (the first, and one after each failure). */
  started = 0;

  constructor(private readonly options: CompilerThreadOptions = {}) {}

  /** Checks a pair in the thread, after the checks queued before it; never rejects. */
  check(input: ThreadCheckInput, texts: BlobTexts, timeLimitMs: number): Promise<CheckResult> {
    const run = this.queue.then(() => this.checkNow(input, texts, timeLimitMs));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stops the worker (a later check starts a new one). */
  stop(): void {
    const worker = this.worker;
    this.worker = undefined;
    this.sent = new Set();
    this.pending?.done({ status: 'not-checked', reason: "the compiler's thread was stopped" });
    if (worker) void worker.terminate().catch(() => undefined);
  }

  private start(): Worker {
    const worker = new Worker(this.options.script ?? workerUrl(), {
      ...(this.options.hold ? { workerData: { hold: this.options.hold } } : {}),
      stdout: true,
      stderr: true,
    });
    // The compiler prints nothing of ours; whatever it prints is not the engine's output.
    worker.stdout.resume();
    worker.stderr.resume();
    worker.unref();
    this.started++;
    worker.on('message', (m: FromCompiler) => {
      if (this.pending?.id === m.id) this.pending.done(m.result);
    });
    worker.on('error', (error) => this.failed(worker, `the compiler's thread failed: ${error.message}`));
    worker.on('exit', (code) => this.failed(worker, `the compiler's thread ended (exit code ${code})`));
    return worker;
  }

  /** A worker that failed or ended: the check in flight is not checked, and the next check starts another. */
  private failed(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.sent = new Set();
    this.pending?.done({ status: 'not-checked', reason });
  }

  private checkNow(input: ThreadCheckInput, texts: BlobTexts, timeLimitMs: number): Promise<CheckResult> {
    const worker = (this.worker ??= this.start());
    let reset = false;
    if (this.sent.size >= MAX_SENT) ((this.sent = new Set()), (reset = true));
    const fresh: [string, string][] = [];
    for (const listing of [input.trees.merge, input.trees.a, input.trees.b, input.trees.base])
      for (const [path, id] of listing) {
        if (this.sent.has(id) || !isCompilerInput(path, false)) continue;
        const text = texts.get(id);
        if (text === undefined) continue;
        this.sent.add(id);
        fresh.push([id, text]);
      }
    const id = ++this.next;
    const graceMs = Math.max(MIN_GRACE_MS, timeLimitMs);
    const limitMs = Math.max(0, input.deadline - Date.now()) + graceMs;
    return new Promise<CheckResult>((resolve) => {
      const timer = setTimeout(() => {
        done({
          status: 'not-checked',
          reason: `time limit reached: the compiler did not answer within ${Math.round(limitMs)} ms, and its thread was stopped (a new one checks the next pair)`,
        });
        this.stop();
      }, limitMs);
      const done = (result: CheckResult): void => {
        if (this.pending?.id !== id) return;
        this.pending = undefined;
        clearTimeout(timer);
        worker.unref();
        resolve(result);
      };
      this.pending = { id, done };
      // Held by the process while it checks: an answer is awaited.
      worker.ref();
      const message: ToCompiler = { id, input, texts: fresh, reset };
      worker.postMessage(message);
    });
  }
}
