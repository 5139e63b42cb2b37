/**
 * Type-checks in the background, for the resident engine. While a process has a listener
 * (`checkInBackground`), a scan that meets a pair whose merge has no cached result starts the
 * check here and answers at once: the pair is "still being checked" (`pending`) and keeps what
 * the other channels say. When the check ends, its result is cached by the pair's trees and
 * every listener is told, so that the engine scans again (the result is then read from the cache)
 * and tells its clients. Checks run one at a time, each bounded by its time limit, not by a scan's
 * budget. Without a listener (`--no-engine`, tests of the channel), a scan checks its pairs
 * itself, bounded by its budget.
 */
import type { CheckResult } from './check.js';

export interface BackgroundChecks {
  /** Called after each background check ended (its result is in the cache). */
  readonly onChecked: () => void;
  /**
   * Runs one check (default: on a later turn of the event loop, so that the scan that started it
   * answers first). A test can hold it back, to see the answers given meanwhile.
   */
  readonly run?: (check: () => CheckResult) => Promise<CheckResult>;
}

const listeners = new Set<BackgroundChecks>();
/** Checks queued or running, by the cache key of the pair's trees. */
const jobs = new Map<string, Promise<void>>();
let queue: Promise<void> = Promise.resolve();

/** Checks of this process run in the background from now on, until the returned function is called. */
export function checkInBackground(options: BackgroundChecks): () => void {
  listeners.add(options);
  return () => void listeners.delete(options);
}

/** Whether checks run in the background (someone listens). */
export const inBackground = (): boolean => listeners.size > 0;

/** Whether the check of these trees is queued or running. */
export const beingChecked = (key: string): boolean => jobs.has(key);

const onNextTurn = (check: () => CheckResult): Promise<CheckResult> =>
  new Promise((resolve, reject) =>
    setImmediate(() => {
      try {
        resolve(check());
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    }),
  );

/**
 * Queues the check of `key` (once): `prepare` reads what the check needs (blob texts) and gives
 * the check to run, or a result at once; `store` keeps the result. Listeners are told when it ends.
 */
export function startCheck(
  key: string,
  prepare: () => Promise<(() => CheckResult) | CheckResult>,
  store: (result: CheckResult) => void,
): void {
  if (jobs.has(key)) return;
  const run = [...listeners].find((l) => l.run)?.run ?? onNextTurn;
  const job = queue
    .then(async () => {
      let result: CheckResult;
      try {
        const prepared = await prepare();
        result = typeof prepared === 'function' ? await run(prepared) : prepared;
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
