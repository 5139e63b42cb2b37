/**
 * The language server's scans through the repository's resident engine (`@airspace/engine`'s
 * `createEngineScans`), so that a repository has one engine whether an editor, agents' checks and
 * MCP servers ask it, or all of them: the server finds or starts it, holds it (an open editor
 * keeps it from its idle exit; it goes on serving agents after the editor leaves), and sends each
 * scan its unsaved buffers, declared intent and settings. The engine works out what changed
 * itself, so `changed` hints are not needed, and tells the server when something moved
 * (`onChange`), so the server runs no change tracker of its own meanwhile. When no engine can be had — disabled
 * (`AIRSPACE_ENGINE=off`), not startable, gone twice in a row — the scans run in this process's
 * worker thread instead (scanner.ts), with the same answers.
 */
import { resolve } from 'node:path';
import { createEngineScans, type EngineScansOptions } from '@airspace/engine/remote';
import {
  createWorkerScanner,
  type CreateLspScanner,
  type LspScanner,
  type ScanInput,
  type ScannerMode,
  type LspScannerOptions,
} from './lsp-scanner.js';

export interface EngineScannerOptions extends Pick<
  EngineScansOptions<ScanInput>,
  'ensure' | 'log' | 'scanTimeoutMs' | 'disabled' | 'onChange'
> {
  /** The in-process scanner used when there is no engine. */
  readonly fallback?: (options: LspScannerOptions) => LspScanner;
}

export interface EngineLspScanner extends LspScanner {
  mode(): ScannerMode | undefined;
}

export function createEngineScanner(options: LspScannerOptions, deps: EngineScannerOptions = {}): EngineLspScanner {
  const settings = {
    ...(options.base ? { base: options.base } : {}),
    ...(options.sources ? { sources: options.sources } : {}),
    ...(options.weights ? { weights: options.weights } : {}),
    ...(options.thresholds ? { thresholds: options.thresholds } : {}),
    ...(options.config ? { config: resolve(options.repo, options.config) } : {}),
  };
  const scans = createEngineScans<ScanInput>({
    cwd: options.repo,
    settings,
    inProcess: () => (deps.fallback ?? createWorkerScanner)(options),
    ...(deps.ensure ? { ensure: deps.ensure } : {}),
    ...(deps.log ? { log: deps.log } : {}),
    ...(deps.scanTimeoutMs !== undefined ? { scanTimeoutMs: deps.scanTimeoutMs } : {}),
    ...(deps.disabled !== undefined ? { disabled: deps.disabled } : {}),
    ...(deps.onChange ? { onChange: deps.onChange } : {}),
  });
  return {
    // The worker scanner (the fallback) also takes the change hints; the engine needs none.
    scan: (input) => scans.scan(input ?? {}),
    mode: () => scans.mode(),
    dispose: () => scans.dispose(),
  };
}

/** The server's default: the repository's engine, else `@airspace/scanner` in a worker thread. */
export const createDefaultScanner: CreateLspScanner = (options, context) =>
  createEngineScanner(options, {
    ...(context ? { log: context.log } : {}),
    ...(context?.onChange ? { onChange: (change) => context.onChange!(change.reason) } : {}),
  });
