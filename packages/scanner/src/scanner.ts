/**
 * The one composition of the pipeline: agents (`@airspace/git`) → analysis services
 * (`@airspace/analysis`, see analysis.ts) → channels
 * (built-ins + config plugins, `@airspace/config`, set up in scan-setup.ts) → `scanAirspace`
 * (`@airspace/core`). The CLI, the LSP server and the view scan through here; eval and the trail
 * take their channel set and settings from scan-setup.ts, so they agree on what a scan is.
 *
 *   const scanner = createScanner({ repo: '.', onProgress });
 *   const result = await scanner.scan();                    // ScanResult, the JSON contract
 *   const again = await scanner.scan(overrides);            // warm: git objects and caches reused
 *   await scanner.dispose();
 */
import { basename, resolve } from 'node:path';
import {
  createPairCache,
  scanAirspace,
  unavailableService,
  type Agent,
  type AnyChannel,
  type Problem,
  type RecencyOptions,
  type ScanResult,
} from '@airspace/core';
import type { ChannelSet } from '@airspace/config';
import {
  indexEntryCount,
  loadAgents,
  openRepository,
  parseSourceSpec,
  patchAgent,
  worktreeAgentId,
  worktreeOverrides,
  coChangeService,
  CommitHistory,
  PastConflictHistory,
  pastConflictsService,
  type AgentSource,
  type GitService,
  type LoadAgentsOptions,
  type LoadAgentsResult,
  type RepositoryInfo,
} from '@airspace/git';
import { ANALYSIS_SERVICES, createAnalysisState, parserProblem, type AnalysisProgress } from './analysis.js';
import { loadScanSetup, scanOptionsOf, type ScanSetupOptions } from './scan-setup.js';
import { applyIntentMap, hasIntentSymbols, mergeIntent, probeAgent, resolveIntentSymbols, type IntentMap } from './intent.js';

export interface ScanProgress {
  /** `agents`: reading working sets; `index`: parsing files; `scan`: scoring pairs. */
  readonly phase: 'agents' | 'index' | 'scan';
  readonly done: number;
  readonly total: number;
  readonly message?: string;
}

/** Unsaved editor buffers: worktree directory → (path in it, relative or absolute → text). */
export type Overrides = NonNullable<LoadAgentsOptions['overrides']>;

/** A scanner's options: the scan setup's (config, calibration, weights, channels; not the built-ins, always all) and these. */
export interface ScannerOptions extends Omit<ScanSetupOptions, 'builtins'> {
  /** Any directory inside the repository (default: the current directory). */
  readonly repo?: string;
  /** Base ref agents are compared against (default: the config's `base`, else origin/HEAD, main, master). */
  readonly base?: string;
  /** Agent sources (`worktrees`, `branches`, `remote:PATTERN`, `json:FILE`, or parsed); default: the config's, else worktrees. */
  readonly sources?: readonly (AgentSource | string)[];
  /** Paths each agent is about to touch; see intent.ts for how they count. */
  readonly intent?: IntentMap;
  readonly overrides?: Overrides;
  readonly onProgress?: (progress: ScanProgress) => void;
  /** `published:<remote>` sources: reuse a fetch younger than this (default 30 s: an editor scanning per keystroke fetches at most that often). */
  readonly fetchIntervalMs?: number;
  /** Clock for recency weights and the result's timestamp (tests). */
  readonly now?: () => number;
}

const DEFAULT_FETCH_INTERVAL_MS = 30_000;

/** The agent is named by id, or by its worktree; an unknown one becomes a new agent named after the worktree's folder. */
export type Probe = ({ readonly agent: string } | { readonly worktree: string }) & { readonly intent: IntentMap[string] };

export interface ScanExtra {
  /**
   * Re-read only these agents (ids or worktree directories) and keep the others from the previous
   * scan — an editor after a keystroke in its own worktree. The first scan, and any scan after the
   * base moved, reads every agent.
   */
  readonly only?: readonly string[];
  /**
   * For agents in `only` (keyed the same way: id or worktree directory), the repository-relative
   * paths that changed since the previous scan, when the caller knows them (an editor's save, a
   * file watcher). Such an agent is patched — those paths read again, nothing else — instead of
   * snapshotting its whole work tree. A key that is absent means "unknown": a full read. The
   * caller promises that nothing else changed; HEAD is checked, and any doubt means a full read.
   */
  readonly changedPaths?: Readonly<Record<string, readonly string[]>>;
  /** Added to the scanner's intent for this scan. */
  readonly intent?: IntentMap;
  /**
   * Replace one agent's working set by exactly these intent entries (`airspace check`): the scan
   * then answers "would editing this collide?" rather than "does my current work collide?".
   */
  readonly probe?: Probe;
  /**
   * Answer within a moment (a check through the resident engine): when the index or the history
   * is not ready this many milliseconds after the scan started, score without the channels that
   * need them, say so (`WARMING_UP`), and let the work go on; a later scan gives the full answer.
   */
  readonly firstAnswerMs?: number;
}

/** Code of a partial answer: the channels that need the index or the history were not checked yet. */
export const WARMING_UP = 'WARMING_UP';

/**
 * How long after its start a check through the engine waits for the index and the history by
 * default (ms): reading the agents counts, so that its answer comes within 2 s.
 */
export const FIRST_ANSWER_WAIT_MS = 750;

/**
 * A repository never scanned with more files than this (its index's entries) builds its index
 * after the first answer; a smaller one within the first answer's wait.
 */
export const DEFER_INDEX_FILES = 1000;

/** Services that need the index or the mined history, not ready at once on a repository never scanned. */
const SLOW_SERVICES: readonly string[] = [...ANALYSIS_SERVICES, 'coChange', 'pastConflicts'];

/** `work`'s value, or undefined when it takes longer than `ms` (it goes on). */
async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((done) => (timer = setTimeout(() => done(undefined), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A partial answer's services and note: each of `slow` unavailable (its channels not checked, with
 * why), and the scan-level `WARMING_UP` problem naming those channels and the index's size.
 */
function warmingUp(
  channels: readonly AnyChannel[],
  slow: readonly string[],
  indexed: AnalysisProgress | undefined,
): { services: Record<string, unknown>; problem: Problem } {
  const waiting = channels.filter((c) => (c.requires ?? []).some((r) => slow.includes(r))).map((c) => c.id);
  const files = indexed && indexed.total > 0 ? ` (${indexed.total.toLocaleString('en')} files)` : '';
  const why = `the index is warming up${files}; the full answer comes once it is ready`;
  return {
    services: Object.fromEntries(slow.map((s) => [s, unavailableService(WARMING_UP, why)])),
    problem: {
      code: WARMING_UP,
      message: `partial: index warming up${files}; not checked yet: ${waiting.join(', ')}. Ask again in a moment for the full answer.`,
    },
  };
}

/**
 * git's verdict on a probed pair's real states, the one the merge channel would have scored: a
 * probe's pairs read the same part of the probability map as the scan's (`ScanOptions.gitMerge`).
 * Pairs without the probed agent are not shown by a check and are not merged for it.
 */
async function probeMergeVerdict(git: GitService, a: Agent, b: Agent): Promise<'clean' | 'conflict' | undefined> {
  if (!a.meta?.probe && !b.meta?.probe) return undefined;
  const outcome = await git.merge(a, b);
  if (outcome.error) return undefined;
  return outcome.clean || outcome.conflicts.length === 0 ? 'clean' : 'conflict';
}

/** What the last scan read: its agents, their git states and the base (`airspace order` merges them). */
export interface ScannedState {
  readonly agents: readonly Agent[];
  readonly git: GitService;
  readonly base: LoadAgentsResult['base'];
}

export interface Scanner {
  /** One scan; `overrides` replaces the scanner's unsaved buffers for this scan. */
  scan(overrides?: Overrides, extra?: ScanExtra): Promise<ScanResult>;
  /** The agents and git service of the last scan (until dispose); undefined before the first. */
  scanned?(): ScannedState | undefined;
  /**
   * Resolves once the index and history work queued so far has ended (at once when none is):
   * background work that would compete with it for the cores (a type-check) waits for it.
   */
  settled?(): Promise<void>;
  dispose(): Promise<void>;
}

interface Setup {
  readonly repository: RepositoryInfo;
  readonly set: ChannelSet;
  readonly base?: string;
  readonly sources?: AgentSource[];
  readonly recency: RecencyOptions;
}

async function setUp(options: ScannerOptions): Promise<Setup> {
  // Not a repository → GitSourceError NOT_A_REPOSITORY, before anything else.
  const repository = await openRepository(resolve(options.repo ?? process.cwd()));
  const { set, config, recency } = await loadScanSetup(repository, options);
  const base = options.base ?? config.base;
  const specs = options.sources ?? config.sources;
  const sources = specs?.map((s) => (typeof s === 'string' ? parseSourceSpec(s, process.cwd()) : s));
  return { repository, set, recency, ...(base !== undefined ? { base } : {}), ...(sources ? { sources } : {}) };
}

/** `run` queued after `before`; held until `release` when `hold` (a first answer scored first). */
function queueIndexWork<T>(before: Promise<void>, run: () => Promise<T>, hold: boolean): { work: Promise<T>; release: () => void } {
  let release = (): void => undefined;
  const held = hold ? new Promise<void>((go) => (release = go)) : undefined;
  const work = before.then(async () => {
    await held;
    return run();
  });
  return { work, release };
}

/** `score` once the channel set is ready; `release` after it, scored or failed. */
async function scoreWhenReady<T>(set: ChannelSet, release: () => void, score: () => Promise<T>): Promise<T> {
  try {
    await set.ready();
    return await score();
  } finally {
    release();
  }
}

type Loaded = LoadAgentsResult;

/** What a scanner keeps between scans. */
interface ScannerState {
  readonly options: ScannerOptions;
  readonly progress: (progress: ScanProgress) => void;
  setup: Promise<Setup> | undefined;
  git: GitService | undefined;
  previous: { agents: Agent[]; problems: Problem[]; base: Loaded['base']; repository: Loaded['repository'] } | undefined;
  readonly analysis: ReturnType<typeof createAnalysisState>;
  /** The previous scan's pair scores (the channel set is this scanner's for its whole life). */
  readonly pairCache: ReturnType<typeof createPairCache>;
  /** The repository's mined history (co-change), opened on the first scan that needs it. */
  history: Promise<CommitHistory> | undefined;
  /** The repository's past merges, re-merged (past conflicts), opened on the first scan that needs them. */
  pastMerges: Promise<PastConflictHistory> | undefined;
  disposed: boolean;
  /** The index and history work of the last scan: the next waits for it rather than doing it twice. */
  indexing: Promise<void>;
  /** The base commit and services of the last index and history work done: once warm, a scan waits for its own. */
  warmFor: string | undefined;
  /** The base index's last progress (its number of files, for a partial answer's note). */
  indexed: AnalysisProgress | undefined;
  /** The last result, and the intent and probe it was asked with. */
  last: { result: ScanResult; asked: string; partial: boolean } | undefined;
}

/**
 * A long-lived scanner (watch, LSP): repository, config and channels are resolved once, on the
 * first scan; git's scratch objects and caches are kept between scans.
 */
export function createScanner(options: ScannerOptions = {}): Scanner {
  const state: ScannerState = {
    options,
    progress: options.onProgress ?? (() => undefined),
    setup: undefined,
    git: undefined,
    previous: undefined,
    analysis: createAnalysisState(),
    pairCache: createPairCache(),
    history: undefined,
    pastMerges: undefined,
    disposed: false,
    indexing: Promise.resolve(),
    warmFor: undefined,
    indexed: undefined,
    last: undefined,
  };
  return {
    scan: (overrides, extra) => scanOnce(state, overrides, extra),
    scanned: () => (state.previous && state.git ? { agents: state.previous.agents, git: state.git, base: state.previous.base } : undefined),
    async settled() {
      // Work queued meanwhile (a scan during the wait) is waited for too.
      for (let work = state.indexing; ; work = state.indexing) {
        await work;
        if (work === state.indexing) return;
      }
    },
    async dispose() {
      state.disposed = true;
      state.git?.dispose();
      void state.pastMerges?.then(
        (p) => p.dispose(),
        () => undefined,
      );
      state.git = undefined;
      // Plugins' worker threads end with the scanner.
      const done = state.setup;
      state.setup = undefined;
      await done?.then(
        (s) => s.set.dispose(),
        () => undefined,
      );
    },
  };
}

/**
 * One scan, top to bottom: set up once; read (or patch) the agents; place intent and the probe;
 * provide the index and history (a first answer waits for them only so long); score the pairs.
 */
async function scanOnce(state: ScannerState, overrideBuffers?: Overrides, extra: ScanExtra = {}): Promise<ScanResult> {
  if (state.disposed) throw new Error('This scanner was disposed.');
  const startedAt = performance.now();
  // A failed setup (e.g. not a repository) is retried on the next scan rather than cached.
  state.setup ??= setUp(state.options).catch((error: unknown) => {
    state.setup = undefined;
    throw error;
  });
  const setup = await state.setup;
  const time = (state.options.now ?? Date.now)();
  state.progress({ phase: 'agents', done: 0, total: 1 });
  const overrides = overrideBuffers ?? state.options.overrides;
  const patch = await patchAgents(state, extra, overrides, time);
  // A patch that changed nothing (a file event echoing a save already read) scores nothing new.
  const askedFor = JSON.stringify([extra.intent ?? null, extra.probe ?? null]);
  if (patch?.unchanged && state.last?.asked === askedFor && !state.last.partial) return state.last.result;
  const intent = mergeIntent(state.options.intent, extra.intent);
  const loaded = keepUnread(state, patch ?? (await readAgents(state, setup, extra, overrides, intent, time)), extra);
  const place = agentPlacer(loaded, extra.probe, time);
  // Declared symbols count as their whole files until the analysis resolves them (below).
  const agents = await place(intent);
  const { channels, probeNotes } = probeChannels(setup.set, extra.probe);

  const needs = new Set(channels.flatMap((c) => c.requires ?? []));
  // No parser (neither native nor wasm loads): the channels that need facts are not checked.
  const parser = ANALYSIS_SERVICES.some((s) => needs.has(s)) ? await parserProblem(channels) : undefined;
  const services = await awaitServices(state, { setup, loaded, agents, place, intent, needs, parser, channels }, extra, startedAt);
  const problems: Problem[] = [...(parser ? [parser.problem] : []), ...services.problems];

  const pairs = (services.agents.length * (services.agents.length - 1)) / 2;
  state.progress({ phase: 'scan', done: 0, total: pairs, message: 'pairs' });
  // Scored (or failed): the index work held for this answer starts.
  const result = await scoreWhenReady(setup.set, services.release, () =>
    scanAirspace(
      services.agents,
      { channels, services: services.services, now: time, repository: { id: loaded.repository.id, root: loaded.repository.root } },
      {
        ...scanOptionsOf(setup.set),
        // Pairs of agents whose working sets did not change keep their scores while the base
        // commit (hence the base index) and the channel set stay; overlays follow the agents' blobs.
        reuse: state.pairCache,
        reuseKey: JSON.stringify({
          base: loaded.base.commit,
          repository: loaded.repository.id,
          probe: extra.probe !== undefined,
          analysis: services.services.importGraph !== undefined && !parser?.unavailable,
          // A partial answer's scores are not the full answer's.
          partial: services.partial,
        }),
        onProgress: (done, total) => state.progress({ phase: 'scan', done, total, message: 'pairs' }),
        // A probe left the merge channel out; its pairs' probabilities still read git's verdict on
        // the real states (cached by the pair of trees: what a scan merged, a check does not again).
        ...(extra.probe && setup.set.channels.some((c) => c.id === 'merge' && c.meta?.scoresGitState)
          ? { gitMerge: (a: Agent, b: Agent) => probeMergeVerdict(loaded.git, a, b) }
          : {}),
      },
    ),
  );
  state.progress({ phase: 'scan', done: pairs, total: pairs, message: 'pairs' });
  const full: ScanResult = {
    ...result,
    problems: [...setup.set.problems, ...loaded.problems, ...problems, ...probeNotes, ...result.problems],
  };
  // A channel's pending result (a pair still being checked) is partial too: not repeated.
  const pending = full.links.some((l) => l.channels.some((c) => c.pending));
  state.last = { result: full, asked: askedFor, partial: services.partial || pending };
  return full;
}

/**
 * The agents of `extra.only` patched with their known changed paths, the others kept from the
 * previous scan; undefined (read them with `loadAgents`) unless every one of them can be.
 */
async function patchAgents(
  state: ScannerState,
  extra: ScanExtra,
  overrides: Overrides | undefined,
  time: number,
): Promise<(Loaded & { unchanged: boolean }) | undefined> {
  const before = state.previous;
  const git = state.git;
  if (!extra.only?.length || !extra.changedPaths || !before || !git) return undefined;
  const { recency } = await state.setup!;
  const agents: Agent[] = [];
  let unchanged = true;
  for (const key of extra.only) {
    const agent = before.agents.find((a) => a.id === key || (a.worktree !== undefined && resolve(a.worktree) === resolve(key)));
    const paths = extra.changedPaths[key] ?? (agent ? extra.changedPaths[agent.id] : undefined);
    if (!agent?.worktree || !paths) return undefined;
    const own = overrides ? worktreeOverrides(overrides, agent.worktree) : undefined;
    const result = await patchAgent({ git, agent, paths, ...(own ? { overrides: own } : {}), now: time, recency });
    if (!('agent' in result)) return undefined;
    agents.push(result.agent);
    if (result.agent !== agent) unchanged = false;
  }
  // Agents whose working set became empty leave the scan, as after a full read, unless they declared intent.
  const declaring = new Set(Object.keys(mergeIntent(state.options.intent, extra.intent) ?? {}));
  const live = agents.filter((a) => a.files.length > 0 || (a.intent?.length ?? 0) > 0 || declaring.has(a.id));
  // Repository-wide problems, and those of the patched agents (not read again in full), stay.
  const problems = before.problems.filter((p) => p.agent === undefined || live.some((a) => a.id === p.agent));
  return { agents: live, base: before.base, repository: before.repository, problems, git, unchanged };
}

/** The agents read with `loadAgents` (only `extra.only`'s when asked). */
async function readAgents(
  state: ScannerState,
  setup: Setup,
  extra: ScanExtra,
  overrides: Overrides | undefined,
  intent: IntentMap | undefined,
  time: number,
): Promise<Loaded> {
  const { repository, base, sources, recency } = setup;
  const previous = state.previous;
  return loadAgents({
    repo: repository.root,
    ...(base !== undefined ? { base } : {}),
    ...(sources ? { sources } : {}),
    ...(overrides ? { overrides } : {}),
    recency,
    ...(state.git ? { git: state.git } : {}),
    fetchIntervalMs: state.options.fetchIntervalMs ?? DEFAULT_FETCH_INTERVAL_MS,
    ...(extra.only && previous ? { only: extra.only } : {}),
    // An agent that declared intent counts before its first edit.
    ...(intent ? { declaring: Object.keys(intent) } : {}),
    now: time,
    onProgress: (done, total) => state.progress({ phase: 'agents', done, total, message: 'reading agents' }),
  });
}

/**
 * The agents read (or patched), with the agents not read again kept from the previous scan and
 * their problems; remembered as this scan's agents.
 */
function keepUnread(state: ScannerState, loaded: Loaded, extra: ScanExtra): Loaded {
  const previous = state.previous;
  state.git = loaded.git;
  if (extra.only && previous && previous.base.commit === loaded.base.commit) {
    const named = new Set(extra.only.map((x) => resolve(x)));
    const reread = (a: Agent): boolean => extra.only!.includes(a.id) || (a.worktree !== undefined && named.has(resolve(a.worktree)));
    const fresh = new Set(loaded.agents.map((a) => a.id));
    loaded.agents.push(...previous.agents.filter((a) => !reread(a) && !fresh.has(a.id)));
    loaded.agents.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    // Problems of the agents kept from before stay; repository-wide ones come from this load.
    const rereadIds = new Set([...extra.only, ...previous.agents.filter(reread).map((a) => a.id)]);
    loaded.problems.push(...previous.problems.filter((p) => p.agent !== undefined && !rereadIds.has(p.agent)));
  }
  state.previous = { agents: [...loaded.agents], problems: [...loaded.problems], base: loaded.base, repository: loaded.repository };
  state.progress({ phase: 'agents', done: 1, total: 1, message: `${loaded.agents.length} agents` });
  return loaded;
}

type Place = (declared: IntentMap | undefined) => Promise<Agent[]>;

/** The agents with declared intent applied, and the probe (a check's edit) in place of its agent. */
function agentPlacer(loaded: Loaded, probe: Probe | undefined, time: number): Place {
  const template = { base: loaded.base.commit, repository: loaded.repository.id };
  return async (declared) => {
    const placed: Agent[] = applyIntentMap(loaded.agents, declared, template);
    if (!probe) return placed;
    const existing =
      'agent' in probe
        ? placed.find((a) => a.id === probe.agent)
        : placed.find((a) => a.worktree !== undefined && resolve(a.worktree) === resolve(probe.worktree));
    // A worktree with no work yet is named as loadAgents names worktrees (its branch, else its
    // folder, with git's `@n` for a clash).
    const listed = existing || 'agent' in probe ? undefined : await worktreeAgentId(probe.worktree, probe.worktree).catch(() => undefined);
    const id = existing?.id ?? ('agent' in probe ? probe.agent : (listed ?? basename(probe.worktree)));
    const who: Agent = existing ?? {
      id,
      label: id,
      startedAt: time,
      committedWork: 0,
      files: [],
      ...template,
      ...('worktree' in probe ? { worktree: probe.worktree } : {}),
    };
    return [...placed.filter((a) => a.id !== id), probeAgent(who, probe.intent)];
  };
}

/** A probe is an edit not yet made: channels that merge agents' real states cannot score it. */
function probeChannels(set: ChannelSet, probe: Probe | undefined): { channels: readonly AnyChannel[]; probeNotes: Problem[] } {
  if (!probe) return { channels: set.channels, probeNotes: [] };
  return {
    channels: set.channels.filter((c) => !c.meta?.scoresGitState),
    probeNotes: set.channels
      .filter((c) => c.meta?.scoresGitState)
      .map((c) => ({
        code: 'PROBE_WITHOUT_CHANNEL',
        channel: c.id,
        message: `The ${c.id} channel was left out of this check: it scores agents' real states and cannot score an edit not yet made; the overlap channel applies git's conflict rule to the probed lines.`,
      })),
  };
}

interface ServiceInput {
  readonly setup: Setup;
  readonly loaded: Loaded;
  readonly agents: Agent[];
  readonly place: Place;
  readonly intent: IntentMap | undefined;
  readonly needs: ReadonlySet<string>;
  readonly parser: Awaited<ReturnType<typeof parserProblem>>;
  readonly channels: readonly AnyChannel[];
}

interface Provided {
  readonly services: Record<string, unknown>;
  readonly problems: Problem[];
  readonly agents: Agent[];
}

/**
 * The scan's services. Index and history work runs one at a time; a first answer waits for it
 * only so long, and leaves it running: the next scan finds it done (or waits its turn behind it).
 */
async function awaitServices(
  state: ScannerState,
  input: ServiceInput,
  extra: ScanExtra,
  startedAt: number,
): Promise<Provided & { partial: boolean; release: () => void }> {
  const { loaded, needs, parser, channels } = input;
  const slow = SLOW_SERVICES.filter((s) => needs.has(s) && !(parser?.unavailable && (ANALYSIS_SERVICES as readonly string[]).includes(s)));
  const warmKey = JSON.stringify([loaded.base.commit, slow]);
  const cold = extra.firstAnswerMs !== undefined && slow.length > 0 && state.warmFor !== warmKey;
  // Never scanned (no facts cached) and large: the index cannot be ready within the wait, and
  // building it now would slow this answer (its parse threads take the cores): it starts once this
  // is scored. A small repository's index is ready within the wait: the first answer is whole.
  const deferred =
    cold &&
    needs.has('importGraph') &&
    (indexEntryCount(input.setup.repository.gitDir) ?? Infinity) > DEFER_INDEX_FILES &&
    !(await state.analysis.factsCached(input.setup.repository.root).catch(() => true));
  const { work, release } = queueIndexWork(
    state.indexing,
    async () => {
      const provided = await provideServices(state, input);
      state.warmFor = warmKey;
      return provided;
    },
    deferred,
  );
  state.indexing = work.then(
    () => undefined,
    () => undefined,
  );
  const provided = deferred ? undefined : cold ? await within(work, extra.firstAnswerMs! - (performance.now() - startedAt)) : await work;
  const services: Record<string, unknown> = { git: loaded.git, ...provided?.services };
  if (provided) return { services, problems: provided.problems, agents: provided.agents, partial: false, release };
  const warming = warmingUp(channels, slow, state.indexed);
  Object.assign(services, warming.services);
  return { services, problems: [warming.problem], agents: input.agents, partial: true, release };
}

/** The services that need the index or the history, with the problems met (and the agents placed again). */
async function provideServices(state: ScannerState, input: ServiceInput): Promise<Provided> {
  const services: Record<string, unknown> = {};
  const problems: Problem[] = [];
  const agents = await provideAnalysis(state, input, services, problems);
  await provideHistory(state, input, services, problems);
  return { services, problems, agents };
}

/** The index's services (import graph, symbols), and declared symbols resolved to their lines. */
async function provideAnalysis(
  state: ScannerState,
  input: ServiceInput,
  services: Record<string, unknown>,
  problems: Problem[],
): Promise<Agent[]> {
  const { loaded, needs, parser, intent, setup } = input;
  if (parser?.unavailable) {
    for (const s of ANALYSIS_SERVICES) services[s] = unavailableService(parser.problem.code, parser.unavailable);
    return input.agents;
  }
  if (!ANALYSIS_SERVICES.some((s) => needs.has(s))) return input.agents;
  try {
    const onIndex = (p: AnalysisProgress): void => {
      if (p.phase !== 'overlays') state.indexed = p;
      state.progress({ phase: 'index', done: p.done, total: p.total, message: p.phase });
    };
    const provided = await state.analysis.update(setup.repository.root, loaded.base.commit, input.agents, loaded.git, onIndex, {
      bodies: needs.has('symbols'),
    });
    services.importGraph = provided.importGraph;
    services.symbols = provided.symbols;
    let placed = input.agents;
    // Declared symbols → their definitions' lines at the merge base, so that the symbol
    // channels score that definition rather than the whole file (the overlays do not change:
    // they depend on the agents' files and contents, not on the lines declared in them).
    if (needs.has('symbols') && hasIntentSymbols(intent)) {
      const resolved = resolveIntentSymbols(intent!, (path) => provided.baseDefinitions(path));
      placed = await input.place(resolved.intent);
      problems.push(...resolved.problems);
    }
    for (const message of provided.problems) problems.push({ code: 'ANALYSIS_PROBLEM', message });
    return placed;
  } catch (error) {
    // Channels that need the index report MISSING_SERVICE and score 0; the scan goes on.
    problems.push({
      code: 'ANALYSIS_FAILED',
      message: `Analysis failed: ${error instanceof Error ? error.message : String(error)}; channels that need it scored 0.`,
    });
    return input.agents;
  }
}

/** The mined history's services (co-change, past conflicts), each as of an agent's merge base. */
async function provideHistory(
  state: ScannerState,
  input: ServiceInput,
  services: Record<string, unknown>,
  problems: Problem[],
): Promise<void> {
  const root = input.setup.repository.root;
  const baseCommit = input.loaded.base.commit;
  const openHistory = (): Promise<CommitHistory> =>
    (state.history ??= CommitHistory.open(root).catch((error: unknown) => {
      state.history = undefined;
      throw error;
    }));
  const failed = (what: string, channel: string, error: unknown): void => {
    problems.push({
      code: 'HISTORY_FAILED',
      message: `${what} could not be read: ${error instanceof Error ? error.message : String(error)}; the ${channel} channel scored 0.`,
    });
  };
  if (input.needs.has('coChange')) {
    try {
      // Each agent's history as of its merge base: what it started from, never later work.
      services.coChange = coChangeService(await openHistory(), (agent) => agent.base ?? baseCommit);
    } catch (error) {
      failed('The commit history', 'co-change', error);
    }
  }
  if (input.needs.has('pastConflicts')) {
    try {
      const opened = await openHistory();
      state.pastMerges ??= PastConflictHistory.open(opened, root).catch((error: unknown) => {
        state.pastMerges = undefined;
        throw error;
      });
      // Each agent's past merges as of its merge base, as for co-change.
      services.pastConflicts = pastConflictsService(await state.pastMerges, (agent) => agent.base ?? baseCommit);
    } catch (error) {
      failed('The past merges', 'past-conflicts', error);
    }
  }
}

/** One scan, then dispose. */
export async function scanRepository(options: ScannerOptions = {}, extra?: ScanExtra): Promise<ScanResult> {
  const scanner = createScanner(options);
  try {
    return await scanner.scan(undefined, extra);
  } finally {
    await scanner.dispose();
  }
}
