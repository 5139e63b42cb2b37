/**
 * The one composition of the pipeline: agents (`@airspace/git`) → analysis services → channels
 * (built-ins + config plugins, `@airspace/config`) → `scanAirspace` (`@airspace/core`). The CLI,
 * the LSP server and eval all scan through here, so they agree on what a scan is.
 *
 *   const scanner = await createScanner({ repo: '.', onProgress });
 *   const result = await scanner.scan();                    // ScanResult, the JSON contract
 *   const again = await scanner.scan({ overrides });        // warm: git objects and caches reused
 *   await scanner.dispose();
 */
import { basename, resolve } from 'node:path';
import { scanAirspace, type Agent, type AnyChannel, type RecencyOptions, type ScanResult } from '@airspace/core';
import { loadConfig, resolveChannelSet, type AirspaceConfig, type ChannelSet } from '@airspace/config';
import { loadAgents, openRepository, parseSourceSpec, type AgentSource, type GitService, type LoadAgentsOptions, type RepositoryInfo } from '@airspace/git';
import { BUILTIN_CHANNELS } from './channels.js';
import { applyIntentMap, type IntentMap } from './intent.js';

export interface ScanProgress {
  /** `agents`: reading working sets; `index`: parsing files; `scan`: scoring pairs. */
  readonly phase: 'agents' | 'index' | 'scan';
  readonly done: number;
  readonly total: number;
  readonly message?: string;
}

/** Unsaved editor buffers: worktree directory → (path in it, relative or absolute → text). */
export type Overrides = NonNullable<LoadAgentsOptions['overrides']>;

export interface ScannerOptions {
  /** Any directory inside the repository (default: the current directory). */
  readonly repo?: string;
  /** Base ref agents are compared against (default: the config's `base`, else origin/HEAD, main, master). */
  readonly base?: string;
  /** Agent sources (`worktrees`, `branches`, `remote:PATTERN`, `json:FILE`, or parsed); default: the config's, else worktrees. */
  readonly sources?: readonly (AgentSource | string)[];
  /**
   * Config file (`--config`); default: `airspace.config.*` at the repository root, if any. An
   * explicit file that cannot be read is an error (ScannerError UNREADABLE_CONFIG); an invalid
   * one is a problem and its valid parts still apply.
   */
  readonly configPath?: string;
  /** In-memory config instead of a file (eval, tests). */
  readonly config?: AirspaceConfig;
  /** Calibration file (`--calibration`), overriding the config's `calibration`. */
  readonly calibrationPath?: string;
  /** Paths each agent is about to touch; see intent.ts for how they count. */
  readonly intent?: IntentMap;
  readonly overrides?: Overrides;
  /** Extra channels after the built-ins (tests, plugins a front end loads itself). */
  readonly channels?: readonly AnyChannel[];
  readonly onProgress?: (progress: ScanProgress) => void;
  /** Clock for recency weights and the result's timestamp (tests). */
  readonly now?: () => number;
}

/** The agent is named by id, or by its worktree; an unknown one becomes a new agent named after the worktree's folder. */
export type Probe = ({ readonly agent: string } | { readonly worktree: string }) & { readonly intent: IntentMap[string] };

export interface ScanRequest {
  /** Replaces the scanner's overrides for this scan. */
  readonly overrides?: Overrides;
  /** Added to the scanner's intent for this scan. */
  readonly intent?: IntentMap;
  /**
   * Replace one agent's working set by exactly these intent entries (`airspace check`): the scan
   * then answers "would editing this collide?" rather than "does my current work collide?".
   */
  readonly probe?: Probe;
}

export interface Scanner {
  readonly repository: RepositoryInfo;
  scan(request?: ScanRequest): Promise<ScanResult>;
  dispose(): Promise<void>;
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

/** Config + calibration + built-ins → the channels, weights and thresholds of every scan. */
async function channelSet(root: string, options: ScannerOptions): Promise<{ set: ChannelSet; config: AirspaceConfig }> {
  const builtins = [...BUILTIN_CHANNELS.map((make) => ({ channel: make(), source: 'builtin' })), ...(options.channels ?? []).map((channel) => ({ channel, source: 'scanner option' }))];
  const loaded = options.config ? { config: options.config, dir: root, problems: [] } : await loadConfig({ repoRoot: root, ...(options.configPath ? { configPath: resolve(options.configPath) } : {}) });
  if (options.configPath) {
    const fatal = loaded.problems.find((p) => p.code === 'CONFIG_NOT_FOUND' || p.code === 'CONFIG_UNREADABLE');
    if (fatal) throw new ScannerError('UNREADABLE_CONFIG', fatal.message.replace(/; using defaults\.$/, '.'));
  }
  const set = await resolveChannelSet({ builtins, loaded, ...(options.calibrationPath ? { calibrationPath: resolve(options.calibrationPath) } : {}) });
  if (options.calibrationPath) {
    const fatal = set.problems.find((p) => p.code === 'CALIBRATION_UNREADABLE' || (p.code === 'CALIBRATION_INVALID' && p.channel === undefined));
    if (fatal) throw new ScannerError('UNREADABLE_CALIBRATION', fatal.message.replace(/; using configured weights\.$/, '.'));
  }
  return { set, config: loaded.config };
}

function mergeIntent(a?: IntentMap, b?: IntentMap): IntentMap | undefined {
  if (!a) return b;
  if (!b) return a;
  const out: Record<string, IntentMap[string]> = { ...a };
  for (const [id, specs] of Object.entries(b)) out[id] = [...(out[id] ?? []), ...specs];
  return out;
}

function recencyOf(config: AirspaceConfig): RecencyOptions | undefined {
  const r = config.recency;
  if (!r || (r.halfLifeHours === undefined && r.floor === undefined)) return undefined;
  return { halfLifeMs: (r.halfLifeHours ?? 24) * 3600_000, floor: r.floor ?? 0.3 };
}

export async function createScanner(options: ScannerOptions = {}): Promise<Scanner> {
  const now = options.now ?? Date.now;
  const progress = options.onProgress ?? (() => undefined);
  // Not a repository → GitSourceError NOT_A_REPOSITORY, before anything else.
  const repository = await openRepository(resolve(options.repo ?? process.cwd()));
  const { set, config } = await channelSet(repository.root, options);
  const base = options.base ?? config.base;
  const specs = options.sources ?? config.sources;
  const sources = specs?.map((s) => (typeof s === 'string' ? parseSourceSpec(s, process.cwd()) : s));
  const recency = recencyOf(config);
  let git: GitService | undefined;
  let disposed = false;

  const scan = async (request: ScanRequest = {}): Promise<ScanResult> => {
    if (disposed) throw new Error('This scanner was disposed.');
    const time = now();
    progress({ phase: 'agents', done: 0, total: 1 });
    const overrides = request.overrides ?? options.overrides;
    const loaded = await loadAgents({
      repo: repository.root,
      ...(base !== undefined ? { base } : {}),
      ...(sources ? { sources } : {}),
      ...(overrides ? { overrides } : {}),
      ...(recency ? { recency } : {}),
      ...(git ? { git } : {}),
      now: time,
    });
    git = loaded.git;
    progress({ phase: 'agents', done: 1, total: 1, message: `${loaded.agents.length} agents` });

    const template = { base: loaded.base.commit, repository: loaded.repository.id };
    let agents: Agent[] = applyIntentMap(loaded.agents, mergeIntent(options.intent, request.intent), template);
    if (request.probe) {
      const probe = request.probe;
      const existing = 'agent' in probe ? agents.find((a) => a.id === probe.agent) : agents.find((a) => a.worktree !== undefined && resolve(a.worktree) === resolve(probe.worktree));
      const id = existing?.id ?? ('agent' in probe ? probe.agent : basename(probe.worktree));
      const stripped: Agent = existing
        ? { ...existing, files: [], intent: [] }
        : { id, label: id, startedAt: time, committedWork: 0, files: [], ...template, ...('worktree' in probe ? { worktree: probe.worktree } : {}) };
      agents = [...agents.filter((a) => a.id !== id), ...applyIntentMap([stripped], { [id]: probe.intent })];
    }

    progress({ phase: 'scan', done: 0, total: 1 });
    const result = await scanAirspace(
      agents,
      { channels: set.channels, services: { git: loaded.git }, now: time, repository: { id: loaded.repository.id, root: loaded.repository.root } },
      {
        weights: set.weights,
        thresholds: set.thresholds,
        channelOptions: set.channelOptions,
        ...(set.resolutionPrecisions ? { escalation: { resolutionPrecisions: set.resolutionPrecisions } } : {}),
      },
    );
    progress({ phase: 'scan', done: 1, total: 1 });
    return { ...result, problems: [...set.problems, ...loaded.problems, ...result.problems] };
  };

  return {
    repository,
    scan,
    async dispose() {
      disposed = true;
      git?.dispose();
      git = undefined;
    },
  };
}

/** One scan, then dispose. */
export async function scanRepository(options: ScannerOptions = {}, request?: ScanRequest): Promise<ScanResult> {
  const scanner = await createScanner(options);
  try {
    return await scanner.scan(request);
  } finally {
    await scanner.dispose();
  }
}
