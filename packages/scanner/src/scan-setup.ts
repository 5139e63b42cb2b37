/**
 * How a scan is set up from a repository's config: which config applies (this worktree's, else the
 * main worktree's), the channel set (built-ins + config plugins, weights config > calibration >
 * default, thresholds, budgets: @airspace/config), the recency of committed work, and the options
 * `scanAirspace` gets from them. One composition: the scanner, eval and the trail take their
 * channels and settings from here rather than composing their own.
 */
import { basename, dirname, resolve } from 'node:path';
import type { AnyChannel, Problem, RecencyOptions, ScanOptions, Thresholds } from '@airspace/core';
import {
  configCandidates,
  filesSignature,
  loadConfig,
  locateConfig,
  recencyOptions,
  resolveChannelSet,
  type AirspaceConfig,
  type ChannelSet,
  type Isolation,
  type LoadedChannel,
} from '@airspace/config';
import { openRepository, parseWorktreeList, runGit, type RepositoryInfo } from '@airspace/git';
import { BUILTIN_CHANNELS } from './channels.js';

/** What a scan's setup depends on besides the repository (`ScannerOptions` extends it). */
export interface ScanSetupOptions {
  /**
   * Config file (`--config`), or a config object (eval, tests); default: `airspace.config.*` at
   * the repository root, if any. An explicit file that cannot be read is an error (ScannerError
   * UNREADABLE_CONFIG); an invalid one is a problem and its valid parts still apply.
   */
  readonly config?: string | AirspaceConfig;
  /** Calibration file (`--calibration`, written by `airspace eval --fit`), overriding the config's. */
  readonly calibration?: string;
  /** Weights by channel id, over everything else (a front end's own settings). */
  readonly weights?: Readonly<Record<string, number>>;
  readonly thresholds?: Partial<Thresholds>;
  /** The channels before the config's plugins; default the built-ins (`BUILTIN_CHANNELS`). */
  readonly builtins?: readonly LoadedChannel[];
  /** Extra channels after the built-ins (tests, plugins a front end loads itself). */
  readonly channels?: readonly AnyChannel[];
  /**
   * Where config plugins run: `worker` (default; each module in its own thread, see
   * @airspace/config's plugin-host.ts) or `in-process` (benchmarks; no containment of exit or stdout).
   */
  readonly pluginIsolation?: Isolation;
}

export interface ScanSetup {
  readonly set: ChannelSet;
  readonly config: AirspaceConfig;
  /** The config's recency (half-life, floor, grace), core's defaults where it says nothing. */
  readonly recency: RecencyOptions;
}

export class ScannerError extends Error {
  constructor(
    readonly code: 'UNREADABLE_CONFIG' | 'UNREADABLE_CALIBRATION',
    message: string,
  ) {
    super(message);
    this.name = 'ScannerError';
  }
}

/** The built-in channels as loaded channels (`source: 'builtin'`); with `ids`, those, in that order. */
export function builtinChannels(ids?: readonly string[]): LoadedChannel[] {
  const all = BUILTIN_CHANNELS.map((make) => ({ channel: make(), source: 'builtin' }));
  if (!ids) return all;
  return ids.map((id) => {
    const found = all.find((c) => c.channel.id === id);
    if (!found) throw new Error(`No built-in channel "${id}".`);
    return found;
  });
}

/** The recency of committed work a scan applies: the config's, core's defaults where it says nothing. */
export function scanRecency(config: AirspaceConfig): RecencyOptions {
  return recencyOptions(config);
}

/** What `scanAirspace` takes from a channel set: weights, thresholds, options, budgets, escalation, forecast. */
export function scanOptionsOf(
  set: ChannelSet,
): Pick<ScanOptions, 'weights' | 'thresholds' | 'channelOptions' | 'budgets' | 'probability' | 'forecast'> &
  Pick<ScanOptions, 'escalation'> {
  return {
    weights: set.weights,
    thresholds: set.thresholds,
    ...(set.probability ? { probability: set.probability } : {}),
    forecast: set.forecast,
    channelOptions: set.channelOptions,
    budgets: set.budgets,
    ...(set.resolutionPrecisions ? { escalation: { resolutionPrecisions: set.resolutionPrecisions } } : {}),
  };
}

/**
 * Config + calibration + built-ins → the channel set and recency of every scan of `repository`.
 * An explicit config or calibration file that cannot be read, and a config module that hangs or
 * calls `process.exit`, is a `ScannerError`; an invalid one is a problem in `set.problems` and its
 * valid parts apply.
 */
export async function loadScanSetup(repository: RepositoryInfo, options: ScanSetupOptions = {}): Promise<ScanSetup> {
  const where = await configLocation(repository);
  const root = where.root;
  const builtins = [
    ...(options.builtins ?? builtinChannels()),
    ...(options.channels ?? []).map((channel) => ({ channel, source: 'scanner option' })),
  ];
  const configPath = typeof options.config === 'string' ? resolve(options.config) : undefined;
  const found =
    typeof options.config === 'object'
      ? { config: options.config, dir: root, problems: [] }
      : await loadConfig({ repoRoot: root, ...(configPath ? { configPath } : {}) });
  // Which of two different configs applies is said, never silent (only when none was named).
  const loaded =
    options.config === undefined && where.problems.length ? { ...found, problems: [...where.problems, ...found.problems] } : found;
  // A config module that hangs or exits is never quietly replaced by defaults: its scan could
  // then say "clear" where the config meant otherwise.
  const fatal = loaded.problems.find(
    (p) =>
      p.code === 'CONFIG_TIMEOUT' ||
      p.code === 'CONFIG_EXITED' ||
      (configPath !== undefined && (p.code === 'CONFIG_NOT_FOUND' || p.code === 'CONFIG_UNREADABLE')),
  );
  if (fatal) throw new ScannerError('UNREADABLE_CONFIG', fatal.message.replace(/; using defaults\.$/, '.'));
  const set = await resolveChannelSet({
    builtins,
    loaded,
    ...(options.calibration ? { calibrationPath: resolve(options.calibration) } : {}),
    ...(options.pluginIsolation ? { plugins: { isolation: options.pluginIsolation } } : {}),
  });
  if (options.calibration) {
    const fatal = set.problems.find(
      (p) => p.code === 'CALIBRATION_UNREADABLE' || (p.code === 'CALIBRATION_INVALID' && p.channel === undefined),
    );
    if (fatal) await set.dispose();
    if (fatal) throw new ScannerError('UNREADABLE_CALIBRATION', fatal.message.replace(/; using configured weights\.$/, '.'));
  }
  // A front end's own weights and thresholds win over config and calibration.
  const weights = { ...set.weights };
  for (const [id, w] of Object.entries(options.weights ?? {})) if (id in weights) weights[id] = w;
  const note = set.probability ? undefined : shippedMapForOtherWeights(builtins, set.listing, weights);
  return {
    set: {
      ...set,
      weights,
      thresholds: { ...set.thresholds, ...(options.thresholds ?? {}) },
      ...(note ? { problems: [...set.problems, note] } : {}),
    },
    config: loaded.config,
    recency: scanRecency(loaded.config),
  };
}

/**
 * The note that the shipped probability map (`DEFAULT_PROBABILITY_MAP`, fitted on the built-ins'
 * default weights, all enabled) reads the risk of other weights, when the weights in use differ:
 * a built-in weighed otherwise (config, calibration without a map of its own, a front end's
 * setting) or turned off. The map is still used; the note names the command that fits one.
 */
export function shippedMapForOtherWeights(
  builtins: readonly LoadedChannel[],
  listing: ChannelSet['listing'],
  weights: Readonly<Record<string, number>>,
): Problem | undefined {
  const defaults = new Map(builtins.filter((b) => b.source === 'builtin').map((b) => [b.channel.id, b.channel.defaultWeight]));
  const other: string[] = [];
  for (const c of listing) {
    const fitted = defaults.get(c.id);
    if (fitted === undefined || c.source !== 'builtin') continue;
    const used = c.enabled ? (weights[c.id] ?? c.weight) : 0;
    if (used !== fitted) other.push(`${c.id} ${c.enabled ? used : 'off'}, default ${fitted}`);
  }
  if (other.length === 0) return undefined;
  const shown = other.length > 4 ? [...other.slice(0, 4), `${other.length - 4} more`] : other;
  return {
    code: 'PROBABILITY_MAP_WEIGHTS',
    message:
      `Note: these channel weights differ from the default ones the shipped probability map was fitted on (${shown.join('; ')}), ` +
      "and the probabilities of colliding still come from that map; `airspace eval --repo … --config FILE --fit-probability collided` fits a map for these weights (name the file it writes as the config's `calibration`).",
  };
}

type ConfigLocation = ReturnType<typeof locateConfig>;

/**
 * Where the config is looked for: this worktree's root, else the repository's main worktree (the
 * first of git's worktree list, whatever its git directory is called), with a note when the
 * worktree's own config hides a different one there.
 */
export async function configLocation(repository: RepositoryInfo): Promise<ConfigLocation> {
  return locateConfig(repository.root, await mainWorktree(repository));
}

async function mainWorktree(repository: RepositoryInfo): Promise<string | undefined> {
  if (repository.bare) return undefined;
  const listed = await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: repository.root }).then(parseWorktreeList, () => []);
  const first = listed[0];
  return first && !first.bare ? first.dir : basename(repository.commonDir) === '.git' ? dirname(repository.commonDir) : undefined;
}

/**
 * Watches the config files a scanner with these options reads, or would read once created:
 * `changed()` says whether one was created, edited or removed since the last call, and a
 * long-running front end (`watch`, `view`) then starts a new scanner, so the new config applies
 * without a restart.
 */
export async function watchConfigFiles(
  options: { readonly repo?: string; readonly config?: string | AirspaceConfig } = {},
): Promise<{ readonly files: readonly string[]; changed(): boolean }> {
  let files: string[] = [];
  if (typeof options.config === 'string') files = [resolve(options.config)];
  else if (options.config === undefined) {
    const repository = await openRepository(resolve(options.repo ?? process.cwd()));
    files = configCandidates(repository.root, await mainWorktree(repository));
  }
  let last = filesSignature(files);
  return {
    files,
    changed() {
      const now = filesSignature(files);
      if (now === last) return false;
      last = now;
      return true;
    },
  };
}

/** The channels a scan of this repository would use, loaded or not (for `airspace channels`). */
export async function describeChannels(
  options: ScanSetupOptions & { readonly repo?: string } = {},
): Promise<Pick<ChannelSet, 'listing' | 'thresholds' | 'problems'>> {
  const repository = await openRepository(resolve(options.repo ?? process.cwd()));
  const { set } = await loadScanSetup(repository, options);
  await set.dispose();
  return { listing: set.listing, thresholds: set.thresholds, problems: set.problems };
}

/** The base ref `airspace.config.*` names for this repository, if any (publish records it). */
export async function configuredBase(repo: string): Promise<string | undefined> {
  const repository = await openRepository(resolve(repo));
  return (await loadConfig({ repoRoot: (await configLocation(repository)).root })).config.base;
}
