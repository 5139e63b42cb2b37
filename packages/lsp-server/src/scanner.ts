/**
 * The scanner the server drives, behind a small interface of its own so that the server can be
 * tested with a fake and embedded with any engine. The default engine is `@airspace/scanner`
 * (`createScanner(options)` → `{ scan(overrides?, extra?), dispose() }`) in a worker thread.
 */
import { Worker } from 'node:worker_threads';
import type { ScanResult, Thresholds } from '@airspace/core';

/** Unsaved buffer texts: worktree directory → repository-relative path → text. */
export type Overrides = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** Declared intent: agent id → repository-relative paths it is about to touch. */
export type Intents = Readonly<Record<string, readonly string[]>>;

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

export interface ScannerOptions {
  /** Any directory inside the repository (the server passes the workspace folder's worktree). */
  readonly repo: string;
  readonly base?: string;
  readonly sources?: readonly string[];
  readonly weights?: Readonly<Record<string, number>>;
  readonly thresholds?: Partial<Thresholds>;
  /** An `airspace.config.json` to use instead of the one at the repository root. */
  readonly config?: string;
}

export interface LspScanner {
  scan(input?: ScanInput): Promise<ScanResult>;
  dispose(): void | Promise<void>;
}

export type CreateLspScanner = (options: ScannerOptions) => LspScanner | Promise<LspScanner>;

/** Runs `@airspace/scanner` in a worker thread (engine-worker.ts) and talks to it by messages. */
export const createDefaultScanner: CreateLspScanner = (options) => {
  const engineOptions = {
    repo: options.repo,
    ...(options.base ? { base: options.base } : {}),
    ...(options.sources ? { sources: options.sources } : {}),
    ...(options.config ? { config: options.config } : {}),
    ...(options.weights ? { weights: options.weights } : {}),
    ...(options.thresholds ? { thresholds: options.thresholds } : {}),
  };
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const failAll = (error: Error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    worker = undefined;
  };
  const start = (): Worker => {
    // The worker's stdout is ours to route: stdout belongs to the protocol.
    const w = new Worker(new URL('./engine-worker.js', import.meta.url), { workerData: { options: engineOptions }, stdout: true, stderr: true });
    w.stdout.pipe(process.stderr);
    w.stderr.pipe(process.stderr);
    w.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.error !== undefined) p?.reject(new Error(m.error));
      else p?.resolve(m.result);
    });
    w.on('error', (e) => failAll(new Error(`the scanning engine failed: ${e.message}`)));
    w.on('exit', (code) => {
      if (worker === w) failAll(new Error(`the scanning engine stopped (exit ${code})`));
    });
    return w;
  };
  const call = (message: Record<string, unknown>): Promise<unknown> => {
    // A worker that died is replaced at the next call.
    worker ??= start();
    const id = ++nextId;
    const w = worker;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      w.postMessage({ id, ...message });
    });
  };
  return {
    scan: (input) =>
      call({ type: 'scan', overrides: input?.overrides, extra: { ...(input?.intent ? { intent: input.intent } : {}), ...(input?.changed ? { only: input.changed } : {}), ...(input?.changedPaths ? { changedPaths: input.changedPaths } : {}) } }) as Promise<ScanResult>,
    async dispose() {
      const w = worker;
      if (!w) return;
      await Promise.race([call({ type: 'dispose' }).catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
      worker = undefined;
      await w.terminate();
    },
  };
};
