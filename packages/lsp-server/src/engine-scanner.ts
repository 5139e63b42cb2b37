/**
 * The language server's scans through the repository's resident engine (`@airspace/engine`), so
 * that a repository has one engine whether an editor, agents' checks and MCP servers ask it, or
 * all of them: the server finds or starts it, holds it (an open editor keeps it from its idle
 * exit; it goes on serving agents after the editor leaves), and sends each scan its unsaved
 * buffers, declared intent and settings. The engine works out what changed itself (a stamp of
 * every worktree), so `changed` hints are not needed. When no engine can be had — disabled
 * (`AIRSPACE_ENGINE=off`), not startable, gone twice in a row — the scans run in this process's
 * worker thread instead (scanner.ts), with the same answers.
 */
import { resolve } from 'node:path';
import type { ScanResult } from '@airspace/core';
import { EngineRequestError, engineDisabled, ensureEngine, type EngineConnection, type EngineLookup } from '@airspace/engine/client';
import {
  createWorkerScanner,
  type CreateLspScanner,
  type LspScanner,
  type ScanInput,
  type ScannerMode,
  type ScannerOptions,
} from './scanner.js';

export interface EngineScannerOptions {
  /** Finds or starts the engine (tests pass their own). */
  readonly ensure?: (cwd: string) => Promise<EngineLookup>;
  /** The in-process scanner used when there is no engine. */
  readonly fallback?: (options: ScannerOptions) => LspScanner;
  readonly log?: (message: string) => void;
  /** How long one scan may take in the engine (a first scan indexes the repository). */
  readonly scanTimeoutMs?: number;
  /** Scan in this process only (default: `AIRSPACE_ENGINE=off`). */
  readonly disabled?: boolean;
}

export interface EngineLspScanner extends LspScanner {
  mode(): ScannerMode | undefined;
}

export function createEngineScanner(options: ScannerOptions, deps: EngineScannerOptions = {}): EngineLspScanner {
  const ensure = deps.ensure ?? ((cwd: string) => ensureEngine({ cwd, hold: true }));
  const log = deps.log ?? (() => undefined);
  const timeoutMs = deps.scanTimeoutMs ?? 15 * 60_000;
  const disabled = deps.disabled ?? engineDisabled();
  let connection: Promise<EngineConnection | undefined> | undefined;
  let fallback: LspScanner | undefined;
  let current: ScannerMode | undefined;
  let disposed = false;

  const inProcess = (reason: string): LspScanner => {
    if (!fallback) {
      log(`Scanning in this process: ${reason}.`);
      current = { kind: 'in-process', reason };
      fallback = (deps.fallback ?? createWorkerScanner)(options);
    }
    return fallback;
  };
  const connect = (): Promise<EngineConnection | undefined> =>
    (connection ??= ensure(options.repo).then(
      (found) => {
        if (!('connection' in found)) {
          inProcess(found.reason);
          return undefined;
        }
        if (disposed) {
          found.connection.close();
          return undefined;
        }
        current = { kind: 'engine', pid: found.connection.hello.pid };
        log(`Scanning through the repository's engine (pid ${found.connection.hello.pid}${found.started ? ', started now' : ''}).`);
        return found.connection;
      },
      (error: unknown) => {
        inProcess(error instanceof Error ? error.message : String(error));
        return undefined;
      },
    ));

  const settings = {
    ...(options.base ? { base: options.base } : {}),
    ...(options.sources ? { sources: options.sources } : {}),
    ...(options.weights ? { weights: options.weights } : {}),
    ...(options.thresholds ? { thresholds: options.thresholds } : {}),
    ...(options.config ? { config: resolve(options.repo, options.config) } : {}),
  };

  const viaEngine = async (input: ScanInput | undefined, attempt: number): Promise<ScanResult> => {
    const engine = await connect();
    if (!engine) return inProcess('no engine').scan(input);
    try {
      return await engine.request<ScanResult>(
        'editorScan',
        {
          cwd: options.repo,
          ...(input?.overrides && Object.keys(input.overrides).length ? { overrides: input.overrides } : {}),
          ...(input?.intent ? { intent: input.intent } : {}),
          ...(Object.keys(settings).length ? { settings } : {}),
        },
        timeoutMs,
      );
    } catch (error) {
      // The engine's answer about the request (a bad config, not a repository): a cold scan gives it too.
      if (error instanceof EngineRequestError) throw error;
      // The engine went away (stopped, killed, replaced): find or start the next one once.
      engine.close();
      connection = undefined;
      if (disposed) throw error;
      if (attempt > 0) return inProcess(`the engine failed twice (${error instanceof Error ? error.message : String(error)})`).scan(input);
      log(`The engine stopped answering (${error instanceof Error ? error.message : String(error)}); finding the next one.`);
      return viaEngine(input, attempt + 1);
    }
  };

  return {
    scan(input) {
      if (disposed) return Promise.reject(new Error('the scanner was disposed'));
      if (fallback) return fallback.scan(input);
      if (disabled) return inProcess('the engine is turned off (AIRSPACE_ENGINE)').scan(input);
      return viaEngine(input, 0);
    },
    mode: () => current,
    async dispose() {
      disposed = true;
      const engine = await connection?.catch(() => undefined);
      // Closing the connection lets the engine's idle time start (if no other editor holds it).
      engine?.close();
      await fallback?.dispose();
    },
  };
}

/** The server's default: the repository's engine, else `@airspace/scanner` in a worker thread. */
export const createDefaultScanner: CreateLspScanner = (options, context) =>
  createEngineScanner(options, context ? { log: context.log } : {});
