/**
 * The scanner the server drives, behind a small interface of its own so that the server can be
 * tested with a fake and embedded with any engine. The default is the repository's resident
 * engine (engine-scanner.ts), else `@airspace/scanner` (`createScanner(options)` →
 * `{ scan(overrides?, extra?), dispose() }`) in a worker thread of this process.
 */
import { Worker } from 'node:worker_threads';
import type { ScanResult, Thresholds } from '@airspace/core';
import type { IntentMap, IntentSpec, Overrides } from '@airspace/scanner';

/** Unsaved buffer texts (worktree → path → text) and declared intent, as the scanner takes them. */
export type { IntentSpec, Overrides };
/** Declared intent: agent id → the paths (and symbols) it is about to touch. */
export type Intents = IntentMap;

export interface ScanInput {
  readonly overrides?: Overrides;
  readonly intent?: Intents;
  /**
   * Worktrees that changed since the previous scan (absent: unknown, re-read everything). An
   * engine may re-read only these agents and keep the others from its previous scan.
   */
  readonly changed?: readonly string[];
  /**
   * For worktrees of `changed`, the repository-relative paths that changed, when known (saves,
   * file events); an engine may re-read just those. A worktree absent here changed in unknown ways.
   */
  readonly changedPaths?: Readonly<Record<string, readonly string[]>>;
}

export interface LspScannerOptions {
  /** Any directory inside the repository (the server passes the workspace folder's worktree). */
  readonly repo: string;
  readonly base?: string;
  readonly sources?: readonly string[];
  readonly weights?: Readonly<Record<string, number>>;
  readonly thresholds?: Partial<Thresholds>;
  /** An `airspace.config.json` to use instead of the one at the repository root. */
  readonly config?: string;
}

/** Where a scanner's scans run: the repository's resident engine, or this process. */
export type ScannerMode = { readonly kind: 'engine'; readonly pid: number } | { readonly kind: 'in-process'; readonly reason: string };

export interface LspScanner {
  scan(input?: ScanInput): Promise<ScanResult>;
  dispose(): void | Promise<void>;
  /** Where its scans run now (`airspace/engine`); unknown before the first scan. */
  mode?(): ScannerMode | undefined;
}

/** What the server gives a scanner it creates. */
export interface ScannerContext {
  readonly log: (message: string) => void;
  /**
   * Called when the scanner learns that the repository moved without being asked (the engine
   * tells its subscribers); while it does, the server follows no worktree itself.
   */
  readonly onChange?: (reason: string) => void;
}

export type CreateLspScanner = (options: LspScannerOptions, context?: ScannerContext) => LspScanner | Promise<LspScanner>;

/**
 * The worker-thread scanner. Every call is settled whatever happens to its worker: answered,
 * rejected when that worker fails, exits or is terminated, or rejected by `dispose()` — a call
 * left pending would hold the server's scan loop for good. `workerUrl` is for tests.
 */
export function createWorkerScanner(
  options: LspScannerOptions,
  workerUrl: URL = new URL('./engine-worker.js', import.meta.url),
): LspScanner {
  interface Pending {
    readonly resolve: (v: unknown) => void;
    readonly reject: (e: Error) => void;
  }
  let worker: Worker | undefined;
  let disposed = false;
  let nextId = 0;
  /** Pending calls per worker, so a worker that goes away rejects exactly its own calls. */
  const pending = new Map<Worker, Map<number, Pending>>();
  const failAll = (w: Worker, error: Error) => {
    const calls = pending.get(w);
    pending.delete(w);
    if (worker === w) worker = undefined;
    for (const p of calls?.values() ?? []) p.reject(error);
  };
  const start = (): Worker => {
    // The worker's stdout is ours to route: stdout belongs to the protocol.
    const w = new Worker(workerUrl, { workerData: { options }, stdout: true, stderr: true });
    pending.set(w, new Map());
    w.stdout.pipe(process.stderr);
    w.stderr.pipe(process.stderr);
    w.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const calls = pending.get(w);
      const p = calls?.get(m.id);
      calls?.delete(m.id);
      if (m.error !== undefined) p?.reject(new Error(m.error));
      else p?.resolve(m.result);
    });
    w.on('error', (e) => failAll(w, new Error(`the scanning engine failed: ${e.message}`)));
    w.on('exit', (code) => failAll(w, new Error(`the scanning engine stopped (exit ${code})`)));
    return w;
  };
  const call = (w: Worker, message: Record<string, unknown>): Promise<unknown> => {
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      const calls = pending.get(w);
      if (!calls) return reject(new Error('the scanning engine stopped'));
      calls.set(id, { resolve, reject });
      w.postMessage({ id, ...message });
    });
  };
  return {
    scan(input) {
      if (disposed) return Promise.reject(new Error('the scanner was disposed'));
      // A worker that died is replaced at the next call.
      worker ??= start();
      return call(worker, {
        type: 'scan',
        overrides: input?.overrides,
        extra: {
          ...(input?.intent ? { intent: input.intent } : {}),
          ...(input?.changed ? { only: input.changed } : {}),
          ...(input?.changedPaths ? { changedPaths: input.changedPaths } : {}),
        },
      }) as Promise<ScanResult>;
    },
    async dispose() {
      disposed = true;
      const w = worker;
      worker = undefined;
      if (!w) return;
      // Scans still running are abandoned now, not when (or if) the engine answers them.
      const calls = pending.get(w);
      for (const [id, p] of [...(calls?.entries() ?? [])]) {
        calls!.delete(id);
        p.reject(new Error('the scanner was disposed (settings or configuration changed)'));
      }
      await Promise.race([call(w, { type: 'dispose' }).catch(() => undefined), new Promise((r) => setTimeout(r, 5000).unref())]);
      failAll(w, new Error('the scanner was disposed'));
      await w.terminate();
    },
  };
}
