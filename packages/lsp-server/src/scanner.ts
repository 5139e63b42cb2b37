/**
 * The scanner the server drives, behind a small interface of its own so that the server can be
 * tested with a fake and embedded with any engine. The default engine is `@airspace/scanner`
 * (`createScanner(options)` → `{ scan(overrides?), dispose() }`), loaded lazily.
 */
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

/** The module name of the default engine; a variable so the build does not require it. */
const ENGINE = '@airspace/scanner';

interface EngineScanner {
  scan(overrides?: Overrides, extra?: { intent?: Intents; only?: readonly string[] }): Promise<ScanResult>;
  dispose(): void | Promise<void>;
}

interface EngineModule {
  createScanner(options: Record<string, unknown>):
    | EngineScanner
    | Promise<EngineScanner>;
}

/** Loads `@airspace/scanner` and adapts it; rejects with a clear message when it is not installed. */
export const createDefaultScanner: CreateLspScanner = async (options) => {
  let engine: EngineModule;
  try {
    engine = (await import(ENGINE)) as EngineModule;
  } catch (error) {
    throw new Error(`The scanning engine ${ENGINE} could not be loaded (${error instanceof Error ? error.message : String(error)}); no advisories will be shown.`);
  }
  const scanner = await engine.createScanner({
    repo: options.repo,
    ...(options.base ? { base: options.base } : {}),
    ...(options.sources ? { sources: options.sources } : {}),
    ...(options.config ? { config: options.config } : {}),
    ...(options.weights ? { weights: options.weights } : {}),
    ...(options.thresholds ? { thresholds: options.thresholds } : {}),
  });
  return {
    scan: (input) => scanner.scan(input?.overrides, { ...(input?.intent ? { intent: input.intent } : {}), ...(input?.changed ? { only: input.changed } : {}) }),
    dispose: () => scanner.dispose(),
  };
};
