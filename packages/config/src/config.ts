/**
 * airspace.config.json: where it is found, how it is validated, what it means.
 * A broken config is a clear problem and a degraded result (built-in defaults), never a crash;
 * a config module runs in a thread of its own, so that it cannot end or wedge the process.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { readUserFile } from './user-file.js';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DEFAULT_RECENCY, type Problem, type RecencyOptions } from '@airspace/core';
import { Ajv, type ErrorObject } from 'ajv';
import type { ConfigWorkerReply } from './config-worker.js';

export interface ChannelSettings {
  readonly weight?: number;
  readonly enabled?: boolean;
  readonly options?: Readonly<Record<string, unknown>>;
  /** This plugin channel's time budget, over the config's `budget`. */
  readonly budget?: BudgetSettings;
}

/** Time budgets of plugin channels (built-ins are not timed). */
export interface BudgetSettings {
  /** Total time of one channel's calls in one scan; beyond it the channel scores 0. */
  readonly channelMs?: number;
  /** Longest one `prepare` or `score` call may take. */
  readonly callMs?: number;
}

export interface AirspaceConfig {
  readonly $schema?: string;
  readonly plugins?: readonly string[];
  readonly channels?: Readonly<Record<string, ChannelSettings>>;
  readonly thresholds?: { readonly traffic?: number; readonly resolution?: number };
  readonly base?: string;
  readonly sources?: readonly string[];
  readonly recency?: { readonly halfLifeHours?: number; readonly floor?: number; readonly graceHours?: number };
  readonly escalation?: { readonly resolutionPrecisions?: readonly ('line' | 'symbol' | 'file')[] };
  readonly calibration?: string;
  readonly budget?: BudgetSettings;
  /** The forecast of clear pairs (`forecast.ts` in core): off, or another threshold. */
  readonly forecast?: { readonly enabled?: boolean; readonly threshold?: number };
}

export interface LoadedConfig {
  readonly config: AirspaceConfig;
  /** Absolute path of the file read, if any. */
  readonly path?: string;
  /** Directory that relative plugin and calibration paths are resolved from. */
  readonly dir: string;
  readonly problems: readonly Problem[];
}

/** Names looked for at the repository root, in this order. */
export const CONFIG_FILE_NAMES = ['airspace.config.json', 'airspace.config.mjs', 'airspace.config.js', 'airspace.config.ts'] as const;

const require = createRequire(import.meta.url);
export const configSchema: object = require('../schema/airspace.config.schema.json');

let validator: (((data: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined;
function validate(data: unknown): ErrorObject[] {
  validator ??= new Ajv({ allErrors: true, strict: false }).compile(configSchema);
  return validator(data) ? [] : [...(validator.errors ?? [])];
}

function describe(error: ErrorObject): string {
  const at = error.instancePath || '(top level)';
  if (error.keyword === 'additionalProperties') return `${at}: unknown property "${String(error.params['additionalProperty'])}"`;
  return `${at}: ${error.message ?? 'is invalid'}`;
}

/** Checks a config value against the JSON Schema; returns one problem per violation. */
export function validateConfig(data: unknown, source = 'config'): Problem[] {
  return validate(data).map((e) => ({ code: 'INVALID_CONFIG', message: `${source} ${describe(e)}` }));
}

export function findConfig(repoRoot: string): string | undefined {
  for (const name of CONFIG_FILE_NAMES) {
    const candidate = resolve(repoRoot, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Where a repository's config is looked for from one of its worktrees: that worktree's root when
 * it holds one of CONFIG_FILE_NAMES (a branch may carry its own, and then it wins), else the
 * repository's main worktree, so that a config kept there (untracked, or not yet on this branch)
 * applies to every worktree instead of being silently ignored.
 */
export function configRootFor(worktreeRoot: string, mainWorktreeRoot?: string): string {
  return locateConfig(worktreeRoot, mainWorktreeRoot).root;
}

/**
 * `configRootFor`, and a note (`CONFIG_SHADOWED`) when the worktree's own config hides a main
 * worktree's config that says something else, so that the choice is never silent. Files that
 * differ only in layout (JSON with other spacing or key order, or another `$schema`) are the same.
 */
export function locateConfig(worktreeRoot: string, mainWorktreeRoot?: string): { readonly root: string; readonly problems: Problem[] } {
  const own = findConfig(worktreeRoot);
  const main =
    mainWorktreeRoot !== undefined && realOf(mainWorktreeRoot) !== realOf(worktreeRoot) ? findConfig(mainWorktreeRoot) : undefined;
  if (!own) return { root: main ? mainWorktreeRoot! : worktreeRoot, problems: [] };
  if (!main || sameConfig(own, main)) return { root: worktreeRoot, problems: [] };
  return {
    root: worktreeRoot,
    problems: [
      {
        code: 'CONFIG_SHADOWED',
        message: `Using this worktree's config ${own}; the main worktree's ${main} differs and does not apply here (a worktree's own config wins).`,
      },
    ],
  };
}

function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** JSON with keys sorted at every level, without the top-level `$schema` (it changes nothing). */
function canonicalJson(value: unknown, top = true): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, false)).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const keys = Object.keys(value)
    .filter((k) => !(top && k === '$schema'))
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k], false)}`).join(',')}}`;
}

function sameConfig(a: string, b: string): boolean {
  try {
    const x = readUserFile(a);
    const y = readUserFile(b);
    if (x === y) return true;
    if (a.endsWith('.json') && b.endsWith('.json')) return canonicalJson(JSON.parse(x)) === canonicalJson(JSON.parse(y));
  } catch {
    // One of them cannot be read or parsed: they differ (loading the one used reports why).
  }
  return false;
}

/**
 * The config files a scan from `worktreeRoot` may read — each of CONFIG_FILE_NAMES there and at
 * the main worktree, or only `explicit` (`--config`) — for long-running front ends that rescan
 * with a new config when one of them is created, edited or removed (`filesSignature`).
 */
export function configCandidates(worktreeRoot: string, mainWorktreeRoot?: string, explicit?: string): string[] {
  if (explicit !== undefined) return [resolve(worktreeRoot, explicit)];
  const roots = [...new Set([worktreeRoot, ...(mainWorktreeRoot !== undefined ? [mainWorktreeRoot] : [])])];
  return roots.flatMap((root) => CONFIG_FILE_NAMES.map((name) => resolve(root, name)));
}

/** Changes when one of `files` is created, edited or removed (size and modification time). */
export function filesSignature(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const st = statSync(file);
        return `${file}:${st.mtimeMs}:${st.size}`;
      } catch {
        return '';
      }
    })
    .join('\n');
}

/** The environment variable that sets how long a config module may take to load (ms). */
export const CONFIG_TIMEOUT_ENV = 'AIRSPACE_CONFIG_TIMEOUT_MS';
export const DEFAULT_CONFIG_TIMEOUT_MS = 5000;

/** `AIRSPACE_CONFIG_TIMEOUT_MS` when it is a positive number, else DEFAULT_CONFIG_TIMEOUT_MS. */
export function configTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env[CONFIG_TIMEOUT_ENV]);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_CONFIG_TIMEOUT_MS;
}

/**
 * Why a config module could not be read: `CONFIG_TIMEOUT` (it did not finish loading in time),
 * `CONFIG_EXITED` (it called `process.exit`), `CONFIG_UNREADABLE` (it threw, or is not there).
 */
export class ConfigLoadError extends Error {
  constructor(
    readonly code: 'CONFIG_TIMEOUT' | 'CONFIG_EXITED' | 'CONFIG_UNREADABLE',
    message: string,
  ) {
    super(message);
  }
}

/** The compiled worker beside this module, or under `dist/` when running from `src/` (tests). */
function configWorkerUrl(): URL {
  const own = new URL('./config-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(own))) return own;
  return pathToFileURL(fileURLToPath(own).replace(/([\\/])src([\\/]config-worker\.js)$/, '$1dist$2'));
}

/**
 * The default export of a config module, imported in a thread of its own (config-worker.ts), so
 * that the module's code cannot end or wedge this process: a module that calls `process.exit`
 * ends only its thread, and one that does not finish within `timeoutMs` (default
 * `configTimeoutMs()`) is stopped. Each call imports the module anew (an edited config is read
 * as it is now). Throws a ConfigLoadError naming the file.
 */
export function readConfigModule(path: string, options: { readonly timeoutMs?: number } = {}): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? configTimeoutMs();
  return new Promise((resolvePromise, reject) => {
    const worker = new Worker(configWorkerUrl(), {
      workerData: { path },
      resourceLimits: { maxOldGenerationSizeMb: 256 },
      stdout: true,
      stderr: true,
    });
    // The module's output is not ours to print on stdout.
    worker.stdout.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    worker.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
      // Timers the module left running would keep its thread, and so this process, alive.
      void worker.terminate();
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new ConfigLoadError(
              'CONFIG_TIMEOUT',
              `Config file ${path} did not finish loading within ${timeoutMs} ms (${CONFIG_TIMEOUT_ENV} sets the limit); it was stopped`,
            ),
          ),
        ),
      timeoutMs,
    );
    worker.on('message', (reply: ConfigWorkerReply) =>
      settle(() => (reply.ok ? resolvePromise(reply.value) : reject(new ConfigLoadError('CONFIG_UNREADABLE', reply.error)))),
    );
    worker.on('error', (error) => settle(() => reject(new ConfigLoadError('CONFIG_UNREADABLE', error.message))));
    worker.on('exit', (code) =>
      settle(() =>
        reject(new ConfigLoadError('CONFIG_EXITED', `Config file ${path} called process.exit(${code}) while loading; it was stopped`)),
      ),
    );
  });
}

async function readConfigFile(path: string, timeoutMs?: number): Promise<unknown> {
  if (path.endsWith('.json')) return JSON.parse(readUserFile(path));
  return readConfigModule(path, timeoutMs !== undefined ? { timeoutMs } : {});
}

/**
 * Loads the configuration: `configPath` when given (a missing file is then a problem), else the
 * first of CONFIG_FILE_NAMES at `repoRoot`, else the empty config. Invalid content yields the
 * valid subset's defaults plus problems; it never throws.
 */
export async function loadConfig(options: {
  repoRoot: string;
  configPath?: string;
  /** How long a config module may take to load; default `configTimeoutMs()`. */
  timeoutMs?: number;
}): Promise<LoadedConfig> {
  const path = options.configPath
    ? isAbsolute(options.configPath)
      ? options.configPath
      : resolve(options.repoRoot, options.configPath)
    : findConfig(options.repoRoot);
  if (!path) return { config: {}, dir: options.repoRoot, problems: [] };
  const dir = dirname(path);
  if (!existsSync(path)) {
    return { config: {}, dir, problems: [{ code: 'CONFIG_NOT_FOUND', message: `Config file ${path} does not exist; using defaults.` }] };
  }
  let data: unknown;
  try {
    data = await readConfigFile(path, options.timeoutMs);
  } catch (error) {
    if (error instanceof ConfigLoadError && error.code !== 'CONFIG_UNREADABLE')
      return { config: {}, path, dir, problems: [{ code: error.code, message: `${error.message}; using defaults.` }] };
    const why = error instanceof Error ? error.message : String(error);
    return { config: {}, path, dir, problems: [{ code: 'CONFIG_UNREADABLE', message: `Could not read ${path}: ${why}; using defaults.` }] };
  }
  const problems = validateConfig(data, path);
  if (problems.length === 0) return { config: data as AirspaceConfig, path, dir, problems };
  return { config: salvage(data), path, dir, problems };
}

/** Keeps the top-level sections that are valid on their own, so one typo does not drop all settings. */
function salvage(data: unknown): AirspaceConfig {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (validate({ [key]: value }).length === 0) kept[key] = value;
  }
  return kept as AirspaceConfig;
}

/** The config's `recency` (hours) as core's RecencyOptions (ms), core's defaults where absent. */
export function recencyOptions(config: AirspaceConfig): RecencyOptions {
  const r = config.recency;
  return {
    halfLifeMs: r?.halfLifeHours !== undefined ? r.halfLifeHours * 3_600_000 : DEFAULT_RECENCY.halfLifeMs,
    floor: r?.floor ?? DEFAULT_RECENCY.floor,
    graceMs: r?.graceHours !== undefined ? r.graceHours * 3_600_000 : (DEFAULT_RECENCY.graceMs ?? 0),
  };
}
