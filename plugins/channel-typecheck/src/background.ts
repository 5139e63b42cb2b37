/**
 * Type-checks in the background, for the resident engine. While a process has a listener
 * (`checkInBackground`), a scan that meets a pair whose merge has no cached result starts the
 * check here and answers at once: the pair is "still being checked" (`pending`) and keeps what
 * the other channels say. When the check ends, its result is cached by the pair's trees and
 * every listener is told, so that the engine scans again (the result is then read from the cache)
 * and tells its clients. Checks run one at a time, each bounded by its time limit, not by a scan's
 * budget; the TypeScript compiler runs in a thread of its own (`compiler-thread.ts`), so the
 * engine answers while it works. A check waits until every listener is `ready` (the engine: its
 * scanners' indexes have settled), so that it does not compete with the index for the cores.
 * Without a listener (`--no-engine`, tests of the channel), a scan checks its pairs itself, in
 * its own thread, bounded by its budget.
 */
import type { CheckResult } from './check.js';
import { CompilerThread, type CompilerThreadOptions } from './compiler-thread.js';

export interface BackgroundChecks {
  /** Called after each background check ended (its result is in the cache). */
  readonly onChecked: () => void;
  /** Resolves when checks may start (the engine: once its scanners' index work has settled). */
  readonly ready?: () => Promise<void>;
  /** The compiler's thread (the first listener's that gives one; tests hold it or make it fail). */
  readonly thread?: CompilerThreadOptions;
}

const listeners = new Set<BackgroundChecks>();
/** Checks queued or running, by the cache key of the pair's trees. */
const jobs = new Map<string, Promise<void>>();
let queue: Promise<void> = Promise.resolve();
let thread: CompilerThread | undefined;

/** Checks of this process run in the background from now on, until the returned function is called. */
export function checkInBackground(options: BackgroundChecks): () => void {
  listeners.add(options);
  return () => {
    listeners.delete(options);
    // The last listener gone: its compiler's thread ends (a later listener starts another).
    if (listeners.size === 0) (thread?.stop(), (thread = undefined));
  };
}

/** Whether checks run in the background (someone listens). */
export const inBackground = (): boolean => listeners.size > 0;

/** Whether the check of these trees is queued or running. */
export const beingChecked = (key: string): boolean => jobs.has(key);

/** The compiler's thread of the background checks (started on first use). */
export function compilerThread(): CompilerThread {
  thread ??= new CompilerThread([...listeners].find((l) => l.thread)?.thread);
  return thread;
}

/**
 * Queues the check of `key` (once): `run` runs it (after every listener is ready) and gives its
 * result; `store` keeps the result. Listeners are told when it ends.
 */
export function startCheck(key: string, run: () => Promise<CheckResult>, store: (result: CheckResult) => void): void {
  if (jobs.has(key)) return;
  const job = queue
    .then(async () => {
      await Promise.all([...listeners].map((l) => l.ready?.().catch(() => undefined)));
      let result: CheckResult;
      try {
        result = await run();
      } catch (error) {
        result = { status: 'not-checked', reason: `the check failed: ${error instanceof Error ? error.message : String(error)}` };
      }
      store(result);
    })
    .finally(() => {
      jobs.delete(key);
      for (const l of [...listeners]) l.onChecked();
    });
  jobs.set(key, job);
  queue = job.catch(() => undefined);
}
