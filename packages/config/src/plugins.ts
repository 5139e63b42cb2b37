/**
 * Loading channel plugins named in the config. A plugin module default-exports a channel object,
 * a factory `() => channel` (called once), or an array of either. A plugin that is missing, throws on
 * import or exports something else is a problem naming the plugin; the other channels go on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { validateChannel, type AnyChannel, type Problem } from '@airspace/core';
import { PluginHost } from './plugin-host.js';

/**
 * Where a channel's code runs. `worker`: its own thread (plugin-host.ts), the default for config
 * plugins, services reached through service-bridge.ts; `in-process`: built-ins (and plugins when
 * a caller asks, as the benchmark does).
 */
export type Isolation = 'worker' | 'in-process';

/** A channel with where it came from: `builtin`, a file path or a package name. */
export interface LoadedChannel {
  readonly channel: AnyChannel;
  readonly source: string;
  readonly isolation?: Isolation;
}

export interface PluginLoadResult {
  readonly channels: LoadedChannel[];
  readonly problems: Problem[];
  /**
   * Waits for threads restarted after an exit or a stopped call to load, so that a scan does
   * not charge their start to a channel's time budget.
   */
  ready(): Promise<void>;
  /** Ends the plugins' threads. */
  dispose(): Promise<void>;
}

export interface LoadPluginsOptions {
  /** Default `worker`; `in-process` loads every plugin into this thread (benchmarks). */
  readonly isolation?: Isolation;
  /** Where plugins' stdout and stderr go; default the process's stderr. */
  readonly output?: NodeJS.WritableStream;
  readonly loadTimeoutMs?: number;
  readonly maxHeapMb?: number;
}

/** Resolves a plugin specifier from the config's directory: a path, or a package in node_modules. */
export function resolvePlugin(specifier: string, fromDir: string): string {
  if (specifier.startsWith('.') || isAbsolute(specifier)) {
    const path = resolve(fromDir, specifier);
    if (!existsSync(path)) throw new Error(`file ${path} does not exist`);
    return path;
  }
  try {
    return createRequire(join(fromDir, 'airspace.config.json')).resolve(specifier);
  } catch {
    // ESM-only packages (exports with only "import") are invisible to require.resolve.
    return resolveEsmPackage(specifier, fromDir);
  }
}

function resolveEsmPackage(specifier: string, fromDir: string): string {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  const subpath = '.' + specifier.slice(name.length);
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const pkgDir = join(dir, 'node_modules', name);
    const manifest = join(pkgDir, 'package.json');
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: unknown; main?: string };
      const target = exportTarget(pkg.exports, subpath) ?? (subpath === '.' ? (pkg.main ?? 'index.js') : subpath);
      return join(pkgDir, target);
    }
    if (dirname(dir) === dir) throw new Error(`package "${name}" is not installed (looked in node_modules from ${fromDir} upwards)`);
  }
}

function exportTarget(exports: unknown, subpath: string): string | undefined {
  if (exports === undefined || exports === null) return undefined;
  if (typeof exports === 'string') return subpath === '.' ? exports : undefined;
  if (typeof exports !== 'object') return undefined;
  const map = exports as Record<string, unknown>;
  const entry = Object.keys(map).some((k) => k.startsWith('.')) ? map[subpath] : subpath === '.' ? map : undefined;
  return conditionTarget(entry);
}

function conditionTarget(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (typeof entry !== 'object' || entry === null) return undefined;
  const map = entry as Record<string, unknown>;
  for (const condition of ['import', 'node', 'default']) {
    const found = conditionTarget(map[condition]);
    if (found) return found;
  }
  return undefined;
}

function pluginProblem(code: string, source: string, message: string): Problem {
  return { code, message: `Plugin ${source}: ${message}` };
}

/**
 * Turns a module's default export into channels. A factory is called once, with no arguments:
 * options reach a channel only as `ctx.options` (the config's `channels.<id>.options`, checked
 * against its `optionsSchema` by the scan), so plugins and built-ins take them the same way.
 */
export function instantiate(exported: unknown, source: string): Omit<PluginLoadResult, 'dispose' | 'ready'> {
  const channels: LoadedChannel[] = [];
  const problems: Problem[] = [];
  const items = Array.isArray(exported) ? exported : [exported];
  if (items.length === 0) problems.push(pluginProblem('INVALID_CHANNEL', source, 'exports an empty array'));
  for (const item of items) {
    let value: unknown = item;
    try {
      if (typeof item === 'function') value = (item as () => unknown)();
    } catch (error) {
      problems.push(pluginProblem('PLUGIN_THREW', source, `its factory threw: ${error instanceof Error ? error.message : String(error)}`));
      continue;
    }
    const invalid = validateChannel(value, `Plugin ${source}`);
    if (invalid.length > 0) problems.push(...invalid);
    else channels.push({ channel: value as AnyChannel, source });
  }
  return { channels, problems };
}

/** Imports one plugin into this thread. */
async function loadInProcess(specifier: string, path: string): Promise<Omit<PluginLoadResult, 'dispose' | 'ready'>> {
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (error) {
    return {
      channels: [],
      problems: [
        pluginProblem('PLUGIN_NOT_LOADED', specifier, `could not be loaded: ${error instanceof Error ? error.message : String(error)}`),
      ],
    };
  }
  if (module.default === undefined) {
    return {
      channels: [],
      problems: [pluginProblem('INVALID_CHANNEL', specifier, 'has no default export (export a channel, a factory, or an array of them)')],
    };
  }
  const result = instantiate(module.default, specifier);
  return { channels: result.channels.map((c) => ({ ...c, isolation: 'in-process' as const })), problems: result.problems };
}

/** Imports every plugin named in the config, in order, each in its own worker thread (see plugin-host.ts). */
export async function loadPlugins(
  specifiers: readonly string[],
  fromDir: string,
  options: LoadPluginsOptions = {},
): Promise<PluginLoadResult> {
  const channels: LoadedChannel[] = [];
  const problems: Problem[] = [];
  const hosts: PluginHost[] = [];
  for (const specifier of specifiers) {
    let path: string;
    try {
      path = resolvePlugin(specifier, fromDir);
    } catch (error) {
      problems.push(
        pluginProblem('PLUGIN_NOT_LOADED', specifier, `could not be loaded: ${error instanceof Error ? error.message : String(error)}`),
      );
      continue;
    }
    if (options.isolation === 'in-process') {
      const result = await loadInProcess(specifier, path);
      channels.push(...result.channels);
      problems.push(...result.problems);
      continue;
    }
    const host = new PluginHost({
      specifier,
      path,
      ...(options.output ? { output: options.output } : {}),
      ...(options.loadTimeoutMs ? { loadTimeoutMs: options.loadTimeoutMs } : {}),
      ...(options.maxHeapMb ? { maxHeapMb: options.maxHeapMb } : {}),
    });
    const loaded = await host.start();
    problems.push(...loaded.problems);
    if (loaded.channels.length === 0) {
      await host.dispose();
      continue;
    }
    hosts.push(host);
    channels.push(...host.channels(loaded.channels).map((channel) => ({ channel, source: specifier, isolation: 'worker' as const })));
  }
  return {
    channels,
    problems,
    async ready() {
      await Promise.all(hosts.map((h) => h.ready()));
    },
    async dispose() {
      await Promise.all(hosts.map((h) => h.dispose()));
    },
  };
}
