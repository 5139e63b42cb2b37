/**
 * The analysis services channels `require`: the base index of the scan base (facts cached by blob
 * id under `<git common dir>/airspace/cache`) and one overlay per agent (its changed files in its
 * own version). Kept warm between scans: the base index is rebuilt only when the base commit
 * moves, an agent's overlay only when its changed files' contents do.
 */
import { readFile } from 'node:fs/promises';
import type { Agent, AnyChannel, Problem } from '@airspace/core';
import {
  loadParser,
  baseView,
  createFactsStore,
  createSymbolService,
  defaultCacheDir,
  importGraphService,
  buildIndex,
  overlay,
  prestartParseWorkers,
  treeSnapshot,
  worktreeSnapshot,
  type AgentOverlay,
  type DefinitionFact,
  type AnalysisIndex,
  type FactsScope,
  type FactsStore,
  type IndexProgress,
  type IndexView,
  type OverlayChange,
} from '@airspace/analysis';
import { contentOf, fsPath, hasRawBytes, readWorktreeFile, type GitService } from '@airspace/git';

/** Services the analysis layer provides, by the names channels put in `requires`. */
export const ANALYSIS_SERVICES = ['importGraph', 'symbols'] as const;

/**
 * Tests only: `AIRSPACE_TEST_INDEX_DELAY_MS` delays every build of the base index by that many
 * milliseconds, so that a test can meet an index still warming up on a small repository. Not a
 * setting: nothing else reads it, and it is documented as a test knob only.
 */
function testIndexDelay(): Promise<void> {
  const ms = Number(process.env.AIRSPACE_TEST_INDEX_DELAY_MS);
  return ms > 0 ? new Promise((done) => setTimeout(done, ms)) : Promise.resolve();
}

/** Problem codes of the parser: none loaded (the channels needing facts not checked), or the wasm one used. */
export const PARSER_UNAVAILABLE = 'PARSER_UNAVAILABLE';
export const PARSER_WASM = 'PARSER_WASM';

/**
 * This process's parser, loaded once (`loadParser`, as `AIRSPACE_PARSER` says), as a scan
 * problem when it is not the native one: `PARSER_WASM` (a note: same facts, slower), or
 * `PARSER_UNAVAILABLE` with `unavailable`, the reason the channels needing facts are not checked.
 */
export async function parserProblem(
  channels: readonly AnyChannel[],
): Promise<{ readonly problem: Problem; readonly unavailable?: string } | undefined> {
  const status = await loadParser();
  if (status.kind === 'native') return undefined;
  if (status.kind === 'wasm')
    return {
      problem: {
        code: PARSER_WASM,
        message: `Parsing with tree-sitter's WebAssembly build: ${status.why}. Same facts, slower (docs/benchmarks.md).`,
      },
    };
  const names = channels
    .filter((c) => (c.requires ?? []).some((r) => (ANALYSIS_SERVICES as readonly string[]).includes(r)))
    .map((c) => c.id);
  return {
    problem: {
      code: PARSER_UNAVAILABLE,
      message: `No tree-sitter parser loaded (${status.why}): ${names.join(', ')} ${names.length === 1 ? 'was' : 'were'} not checked.`,
    },
    unavailable: `no tree-sitter parser loaded (${status.why})`,
  };
}

export interface AnalysisServices {
  /** Import graph views (dependency channel). */
  readonly importGraph: ReturnType<typeof importGraphService>;
  /** Per-agent symbol writes/reads and call graphs (symbols and call-graph channels). */
  readonly symbols: ReturnType<typeof createSymbolService>;
  /** The definitions of a file at the merge base (declared symbols are resolved with them). */
  readonly baseDefinitions: (path: string) => readonly DefinitionFact[] | undefined;
  readonly problems: readonly string[];
}

export interface AnalysisUpdateOptions {
  /**
   * Whether the symbols service will be used (default true): facts bodies are then checked when
   * read from the cache, so a damaged cache is parsed again rather than scoring from empty facts.
   */
  readonly bodies?: boolean;
}

/** The index's phases, then `overlays`: one per agent with changed files. */
export interface AnalysisProgress {
  readonly phase: IndexProgress['phase'] | 'overlays';
  readonly done: number;
  readonly total: number;
}

export interface AnalysisState {
  /**
   * Whether any facts are cached for the repository at `root` (on disk or in this state): false on
   * a repository never scanned, whose index takes seconds to build.
   */
  factsCached(root: string): Promise<boolean>;
  update(
    root: string,
    baseCommit: string,
    agents: readonly Agent[],
    git: GitService,
    onProgress?: (p: AnalysisProgress) => void,
    options?: AnalysisUpdateOptions,
  ): Promise<AnalysisServices>;
}

/** What an agent's overlay depends on: its changed paths and their contents. */
function overlayKey(agent: Agent): string {
  return agent.files
    .map((f) => `${f.status}:${f.oldPath ?? ''}:${f.path}:${f.newBlob ?? '?'}`)
    .sort()
    .join('\n');
}

function changesOf(
  agent: Agent,
  read: (blob: string) => Promise<Buffer>,
  worktreeRead: (path: string) => Promise<Buffer>,
): OverlayChange[] {
  const changes: OverlayChange[] = [];
  for (const f of agent.files) {
    if (f.status === 'renamed' && f.oldPath) changes.push({ path: f.oldPath, deleted: true });
    if (f.status === 'deleted') changes.push({ path: f.path, deleted: true });
    else if (f.newBlob) {
      const blob = f.newBlob;
      // An untracked file over the size limit has a blob id but no object: read from the work tree.
      const fallback = agent.worktree ? () => worktreeRead(f.path) : undefined;
      changes.push({ path: f.path, blobId: blob, read: () => (fallback ? read(blob).catch(fallback) : read(blob)) });
    } else if (agent.worktree) changes.push({ path: f.path, read: () => worktreeRead(f.path) });
  }
  return changes;
}

export interface AnalysisStateOptions {
  /** false: facts are kept in memory only, never written to the repository's facts cache. */
  readonly cacheDir?: false;
}

export function createAnalysisState(options: AnalysisStateOptions = {}): AnalysisState {
  let store: FactsStore | undefined;
  const storeFor = async (root: string) => createFactsStore(options.cacheDir === false ? {} : { cacheDir: await defaultCacheDir(root) });
  // The base view is kept with its index: the symbols service caches its call graph per view.
  let base: { commit: string; index: AnalysisIndex; view: IndexView } | undefined;
  const overlays = new Map<string, { key: string; overlay: AgentOverlay }>();

  return {
    async factsCached(root) {
      if (base) return true;
      store ??= await storeFor(root);
      await store.refresh();
      await store.importsOnly().refresh();
      return store.stats.segmentsRead > 0 || store.importsOnly().stats.segmentsRead > 0;
    },
    async update(root, baseCommit, agents, git, onProgress, options = {}) {
      store ??= await storeFor(root);
      const bodies = options.bodies ?? true;
      // Without the symbols service only the import graph's facts are extracted (half the parse).
      const facts = bodies ? 'all' : 'imports';
      if (base?.commit !== baseCommit || (bodies && base.index.factsScope === 'imports')) {
        await testIndexDelay();
        const snapshot = await treeSnapshot(root, baseCommit);
        const built = await buildIndex(snapshot, {
          store,
          bodies,
          facts,
          ...(base ? { previous: base.index } : {}),
          ...(onProgress ? { onProgress } : {}),
        });
        base = { commit: baseCommit, index: built, view: baseView(built) };
        overlays.clear();
      }
      const read = (blob: string): Promise<Buffer> => git.readObject(blob);
      const live = new Map<string, AgentOverlay>();
      let done = 0;
      for (const agent of agents) {
        onProgress?.({ phase: 'overlays', done: done++, total: agents.length });
        if (agent.files.length === 0) continue;
        const key = overlayKey(agent);
        let entry = overlays.get(agent.id);
        if (entry?.key !== key) {
          // A name that is not UTF-8 is read by its bytes; any other through the one work-tree file rule.
          const worktreeRead = async (path: string): Promise<Buffer> =>
            hasRawBytes(path)
              ? readFile(fsPath(agent.worktree ?? root, path))
              : contentOf(await readWorktreeFile(agent.worktree ?? root, path));
          entry = { key, overlay: await overlay(base.index, changesOf(agent, read, worktreeRead), { store, bodies }) };
          overlays.set(agent.id, entry);
        }
        live.set(agent.id, entry.overlay);
      }
      onProgress?.({ phase: 'overlays', done, total: agents.length });
      for (const id of overlays.keys()) if (!live.has(id)) overlays.delete(id);
      const view = base.view;
      return {
        importGraph: importGraphService(base.index, live),
        symbols: createSymbolService({ base: view, forAgent: (id) => live.get(id) ?? view }),
        baseDefinitions: (path) => view.facts(path)?.definitions,
        // The base index's problems, and those met since (overlays' cache look-ups).
        problems: [...base.index.problems, ...store.takeProblems(), ...(bodies ? [] : store.importsOnly().takeProblems())],
      };
    },
  };
}

/**
 * Indexes a worktree as it is on disk, with the repository's facts cache (`airspace graph`): the
 * import graph's facts only (`IndexOptions.facts`), unless `facts: 'all'`.
 */
export async function indexWorktree(
  dir: string,
  onProgress?: (p: IndexProgress) => void,
  options: { readonly facts?: FactsScope } = {},
): Promise<AnalysisIndex> {
  const store = createFactsStore({ cacheDir: await defaultCacheDir(dir) });
  const facts = options.facts ?? 'imports';
  // A cold cache (not one segment yet): the parse workers start while the worktree is listed.
  // Not for the import graph alone: the import scanner answers most files in this thread, and
  // workers start only if enough files are left to them (see `createParsePool`).
  const stores = facts === 'imports' ? [store, store.importsOnly()] : [store];
  await Promise.all(stores.map((s) => s.refresh()));
  if (facts !== 'imports' && stores.every((s) => s.stats.segmentsRead === 0)) prestartParseWorkers();
  return buildIndex(await worktreeSnapshot(dir), { store, facts, ...(onProgress ? { onProgress } : {}) });
}
