/**
 * The index: facts per file (from the cache or parsed once), module resolution, and the import
 * graph. Stages: list → look up facts by blob id → parse the misses in worker threads →
 * resolve → graph.
 */
import { createHash } from 'node:crypto';
import { mapLimit } from '@airspace/git';
import { createFactsStore, type FactsStore } from '../cache/cache.js';
import { importCount, isDamaged } from '../cache/pack.js';
import { loadResolutions, loadResolverMemo, saveResolutions } from '../cache/resolutions.js';
import { importEdgeKind, languageOf, type FileFacts, type ImportFact, type Language } from '../facts.js';
import {
  createResolver,
  isConfigFile,
  RESOLVER_VERSION,
  type ResolvedImport,
  type Resolution,
  type Resolver,
} from '../resolve/resolver.js';
import { gitBlobId, type Snapshot, type SnapshotFile } from '../snapshot.js';
import {
  DEFAULT_MAX_FILE_BYTES,
  type AnalysisIndex,
  type FactsScope,
  type IndexOptions,
  type IndexedFile,
  type SkippedFile,
  type ImportGraph,
} from './index-types.js';
import { loadFacts } from './load-facts.js';
import { adjacency, buildImportGraph, importOutcomes, targetsOf } from './import-graph.js';

export type { ResolvedImport } from '../resolve/resolver.js';
export * from './index-types.js';
export { loadFacts } from './load-facts.js';
export { addImportEdge, adjacency, buildImportGraph, edgeKindsTo } from './import-graph.js';

/**
 * Text and blob id of the configuration files among `files`. A file whose blob id is the one
 * `previous` read is not read again.
 */
async function readConfigs(
  files: readonly SnapshotFile[],
  previous: IndexState | undefined,
): Promise<{ configs: Map<string, string>; blobs: Map<string, string> }> {
  const configs = new Map<string, string>();
  const blobs = new Map<string, string>();
  await mapLimit(
    files.filter((f) => isConfigFile(f.path)),
    32,
    async (f) => {
      const known = f.blobId !== undefined && previous?.configBlobs.get(f.path) === f.blobId ? previous.configs.get(f.path) : undefined;
      if (known !== undefined) {
        configs.set(f.path, known);
        blobs.set(f.path, f.blobId!);
        return;
      }
      try {
        const buf = await f.read();
        if (buf.length <= DEFAULT_MAX_FILE_BYTES) {
          configs.set(f.path, buf.toString('utf8'));
          blobs.set(f.path, f.blobId ?? gitBlobId(buf));
        }
      } catch {
        // An unreadable configuration file resolves as if absent.
      }
    },
  );
  return { configs, blobs };
}

function sameEntries<K, V>(a: ReadonlyMap<K, V>, b: ReadonlyMap<K, V>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

function resolverKeyOf(paths: readonly string[], configBlobs: ReadonlyMap<string, string>): string {
  const h = createHash('sha1').update(`resolver ${RESOLVER_VERSION}\n`);
  for (const p of paths) h.update(p).update('\0');
  h.update('\n');
  for (const p of [...configBlobs.keys()].sort()) h.update(`${p}:${configBlobs.get(p)!}`).update('\0');
  return h.digest('hex');
}

/** Resolves the imports of one file's facts. */
export function resolveImports(path: string, facts: FileFacts, resolver: Resolver): ResolvedImport[] {
  return facts.imports.map((imp) => withOutcome(imp, resolver.resolve(path, imp)));
}

function withOutcome(imp: ImportFact, r: Resolution): ResolvedImport {
  const { specifier, kind, line } = imp;
  const edge = importEdgeKind(imp);
  if (r.status === 'resolved') return { specifier, kind, edge, line, targets: r.targets, via: r.via };
  if (r.status === 'external') return { specifier, kind, edge, line, targets: [], external: r.package };
  return { specifier, kind, edge, line, targets: [], unresolved: r.reason };
}

/** What an index keeps for the next one (not part of its public shape). */
interface IndexState {
  /** Blob id of every source file, indexed or skipped (undefined: unreadable); vendored files are not in it. */
  readonly blobs: ReadonlyMap<string, string | undefined>;
  /** Every configuration file path of the snapshot, and the blob id and text of those read. */
  readonly configPaths: ReadonlySet<string>;
  readonly configBlobs: ReadonlyMap<string, string>;
  readonly configs: ReadonlyMap<string, string>;
  /** Whether some resolutions came from disk, so that the resolver's memo lacks them. */
  readonly resolvedFromDisk: boolean;
}

const states = new WeakMap<AnalysisIndex, IndexState>();

const withoutPrevious = ({ previous: _previous, ...rest }: IndexOptions): IndexOptions => rest;

type Source = { file: SnapshotFile; language: Language };

/** The snapshot's files in path order, the source files among them, and the vendored ones skipped. */
function listSources(snapshot: Snapshot): { all: SnapshotFile[]; paths: string[]; sources: Source[]; skipped: SkippedFile[] } {
  const all = [...snapshot.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const skipped: SkippedFile[] = [];
  const sources: Source[] = [];
  for (const file of all) {
    const language = languageOf(file.path);
    if (!language) continue;
    if (/(^|\/)node_modules\//.test(file.path)) {
      skipped.push({ path: file.path, reason: 'vendored' });
      continue;
    }
    sources.push({ file, language });
  }
  return { all, paths: all.map((f) => f.path), sources, skipped };
}

/**
 * The resolver for a file set and its configuration: the previous index's when both are
 * unchanged, the persisted resolutions' key, or one carried over from the previous resolver when
 * files were only added or deleted (it keeps every resolution that probed none of those paths).
 */
async function setUpResolution(
  all: readonly SnapshotFile[],
  paths: readonly string[],
  pathSet: ReadonlySet<string>,
  store: FactsStore,
  options: IndexOptions,
  previousState: IndexState | undefined,
  onDamaged: (path: string, why: string) => void,
) {
  const { configs, blobs: configBlobs } = await readConfigs(all, previousState);
  const resolverKey = resolverKeyOf(paths, configBlobs);
  const previous = options.previous?.resolverKey === resolverKey ? options.previous : undefined;
  const shifted =
    !previous && options.previous && previousState && sameEntries(configBlobs, previousState.configBlobs) ? options.previous : undefined;
  const persisted = !previous && !shifted && store.dir ? await loadResolutions(store.dir, resolverKey, onDamaged) : undefined;
  // A previous index whose resolutions came from disk has a resolver that resolved little
  // itself: the memo saved with those resolutions stands in for it.
  const shiftedMemo =
    shifted && previousState!.resolvedFromDisk && store.dir ? await loadResolverMemo(store.dir, shifted.resolverKey, onDamaged) : undefined;
  const shiftedResolver =
    shifted && (shiftedMemo ? createResolver({ files: shifted.paths, configs, memo: shiftedMemo }) : shifted.resolver);
  const resolver =
    previous?.resolver ??
    (shiftedResolver
      ? shiftedResolver.withFiles(
          paths.filter((p) => !shifted.paths.has(p)),
          [...shifted.paths].filter((p) => !pathSet.has(p)),
        )
      : createResolver({ files: pathSet, configs }));
  return { configs, configBlobs, resolverKey, previous, persisted, resolver };
}

type Resolving = Awaited<ReturnType<typeof setUpResolution>>;

/** Each file's resolved imports, found once: the previous index's, the persisted ones, or resolved now. */
function createImportsLookup() {
  const resolved = new Map<string, readonly ResolvedImport[]>();
  const counts = { fresh: 0, fromDisk: false };
  const importsOf = (r: Resolving, path: string, blobId: string, language: Language, facts: FileFacts): readonly ResolvedImport[] => {
    let imports = resolved.get(path);
    if (imports) return imports;
    const prev = r.previous?.files.get(path);
    if (prev && prev.blobId === blobId && prev.language === language) imports = prev.imports;
    else {
      const stored = r.persisted?.get(path, blobId, importCount(facts));
      if (stored) {
        imports = stored;
        counts.fromDisk = true;
      } else {
        imports = resolveImports(path, facts, r.resolver);
        counts.fresh++;
      }
    }
    resolved.set(path, imports);
    return imports;
  };
  return { importsOf, counts };
}

/** The indexed files of the loaded jobs (the others skipped), with their imports and blob ids. */
function collectFiles(
  jobs: Awaited<ReturnType<typeof loadFacts>>['jobs'],
  importsOf: (path: string, blobId: string, language: Language, facts: FileFacts) => readonly ResolvedImport[],
  skipped: SkippedFile[],
  onProgress: IndexOptions['onProgress'],
) {
  const files = new Map<string, IndexedFile>();
  const partial: AnalysisIndex['partial'][number][] = [];
  const blobs = new Map<string, string | undefined>();
  let done = 0;
  for (const job of jobs) {
    const path = job.file.path;
    blobs.set(path, job.blobId);
    if (job.skip) {
      skipped.push(job.skip);
      continue;
    }
    const facts = job.facts!;
    const blobId = job.blobId!;
    files.set(path, { path, blobId, language: job.language, facts, imports: importsOf(path, blobId, job.language, facts) });
    if (facts.partial) partial.push({ path, errorCount: facts.errorCount, errorLines: facts.errorLines });
    onProgress?.({ phase: 'resolve', done: ++done, total: jobs.length });
  }
  return { files, partial, blobs };
}

/** Index a snapshot. Never throws on bad files: they are reported in `skipped` or `partial`. */
export async function buildIndex(snapshot: Snapshot, given: IndexOptions = {}): Promise<AnalysisIndex> {
  const t0 = performance.now();
  const factsScope: FactsScope = given.facts ?? 'all';
  // An imports-only index cannot stand in for whole facts: the whole ones are parsed anew.
  const options = given.previous && given.previous.factsScope === 'imports' && factsScope === 'all' ? withoutPrevious(given) : given;
  const previousState = options.previous ? states.get(options.previous) : undefined;
  if (options.previous && previousState) {
    const fast = await reindex(snapshot, options.previous, previousState, options, t0);
    if (fast) return fast;
  }
  const store = options.store ?? options.previous?.store ?? createFactsStore(options.cacheDir ? { cacheDir: options.cacheDir } : {});
  const { all, paths, sources, skipped } = listSources(snapshot);

  // Resolution needs the file set and the configuration only: it is set up while facts load,
  // so that each parsed file's imports are resolved as its facts arrive, while the workers parse.
  const pathSet = new Set(paths);
  // Persisted resolutions or memo that failed their checksum: resolved again, and said so.
  const cacheProblems: string[] = [];
  const onDamaged = (path: string, why: string) =>
    void cacheProblems.push(`The resolutions cache file ${path} was damaged (${why}); it was ignored and the imports resolved again.`);
  const resolution = setUpResolution(all, paths, pathSet, store, options, previousState, onDamaged);
  // Handled here so that a failure while facts load is not an unhandled rejection; awaited below.
  resolution.catch(() => undefined);
  const { importsOf, counts } = createImportsLookup();
  const loaded = await loadFacts(sources, store, {
    ...options,
    onParsed: (job, facts) => {
      resolution.then((r) => importsOf(r, job.file.path, job.blobId!, job.language, facts)).catch(() => undefined);
    },
  });
  const tFacts = performance.now();
  const r = await resolution;
  const { configBlobs, resolverKey, previous, resolver } = r;
  if (previous) counts.fromDisk ||= previousState!.resolvedFromDisk;
  const { files, partial, blobs } = collectFiles(loaded.jobs, (...args) => importsOf(r, ...args), skipped, options.onProgress);
  if (counts.fresh > 0 && store.dir)
    await saveResolutions(store.dir, resolverKey, files.values(), counts.fromDisk ? undefined : resolver.memoEntries());
  const tResolve = performance.now();

  const { imports, importers, external, unresolved } = adjacency(files);
  const tGraph = performance.now();
  options.onProgress?.({ phase: 'done', done: files.size, total: files.size });
  skipped.sort((a, b) => (a.path < b.path ? -1 : 1));
  const result = assemble({
    files,
    paths: pathSet,
    imports,
    importers,
    external,
    unresolved,
    skipped,
    partial,
    problems: [...cacheProblems, ...problemsOf(store, factsScope)],
    factsScope,
    resolver,
    resolverKey,
    store,
    stats: {
      files: all.length,
      sourceFiles: sources.length,
      parsed: loaded.parsed,
      fromCache: loaded.fromCache,
      hashed: loaded.hashed,
      parseErrors: loaded.parseErrors,
      ms: { total: tGraph - t0, facts: tFacts - t0, parse: loaded.parseMs, resolve: tResolve - tFacts, graph: tGraph - tResolve },
    },
  });
  states.set(result, {
    blobs,
    configPaths: new Set(paths.filter(isConfigFile)),
    configBlobs,
    configs: r.configs,
    resolvedFromDisk: counts.fromDisk,
  });
  return result;
}

/** An index object with its graph built on first access. */
function problemsOf(store: FactsStore, scope: FactsScope): string[] {
  return scope === 'imports' ? [...store.takeProblems(), ...store.importsOnly().takeProblems()] : store.takeProblems();
}

function assemble(parts: Omit<AnalysisIndex, 'graph'>): AnalysisIndex {
  let graph: ImportGraph | undefined;
  return {
    ...parts,
    get graph() {
      graph ??= buildImportGraph(parts.files).graph;
      return graph;
    },
  };
}

/**
 * The source files whose facts must be loaded again (blob changed, or damaged facts), when the
 * file set and the configuration files are unchanged; undefined when they are not.
 */
async function changedSources(snapshot: Snapshot, prev: AnalysisIndex, state: IndexState): Promise<Source[] | undefined> {
  if (snapshot.files.length !== prev.paths.size) return undefined;
  const candidates: Source[] = [];
  const configCandidates: SnapshotFile[] = [];
  for (const f of snapshot.files) {
    const blob = state.blobs.get(f.path);
    if (blob !== undefined || state.blobs.has(f.path)) {
      if (f.blobId === undefined || f.blobId !== blob) candidates.push({ file: f, language: languageOf(f.path)! });
      else {
        const facts = prev.files.get(f.path)?.facts;
        if (facts && isDamaged(facts)) candidates.push({ file: f, language: languageOf(f.path)! });
      }
    } else if (!prev.paths.has(f.path)) return undefined;
    else if (state.configPaths.has(f.path) && (f.blobId === undefined || f.blobId !== state.configBlobs.get(f.path)))
      configCandidates.push(f);
  }
  for (const f of configCandidates) {
    let blob: string | undefined;
    try {
      const buf = await f.read();
      blob = buf.length <= DEFAULT_MAX_FILE_BYTES ? gitBlobId(buf) : undefined;
    } catch {
      blob = undefined;
    }
    if (blob !== state.configBlobs.get(f.path)) return undefined;
  }
  return candidates;
}

/** The previous index's files with the reloaded jobs applied: the paths whose analysis changed, and new skips. */
function applyReloaded(jobs: Awaited<ReturnType<typeof loadFacts>>['jobs'], prev: AnalysisIndex, state: IndexState) {
  const files = new Map(prev.files);
  const blobs = new Map(state.blobs);
  const changed: string[] = [];
  const newSkips = new Map<string, SkippedFile>();
  let reordered = false;
  for (const job of jobs) {
    const path = job.file.path;
    const before = prev.files.get(path);
    if (job.skip) {
      if (!before && state.blobs.get(path) === job.blobId && job.blobId !== undefined) continue; // still skipped, same content
      newSkips.set(path, job.skip);
      blobs.set(path, job.blobId);
      if (files.delete(path)) changed.push(path);
      continue;
    }
    if (before && before.blobId === job.blobId && before.language === job.language && before.facts === job.facts) continue; // hashed: unchanged
    blobs.set(path, job.blobId);
    if (!before) reordered = true;
    const facts = job.facts!;
    files.set(path, { path, blobId: job.blobId!, language: job.language, facts, imports: resolveImports(path, facts, prev.resolver) });
    changed.push(path);
  }
  const sortedFiles = reordered ? new Map([...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) : files;
  return { files: sortedFiles, blobs, changed, newSkips };
}

/** The previous adjacency patched: each changed file's out-edges, and its place in its targets' importers. */
function patchAdjacency(prev: AnalysisIndex, changed: readonly string[], files: ReadonlyMap<string, IndexedFile>) {
  const imports = new Map(prev.imports);
  const importers = new Map(prev.importers);
  for (const path of changed) {
    const old = prev.imports.get(path) ?? [];
    const f = files.get(path);
    const now = f ? targetsOf(f) : [];
    if (now.length > 0) imports.set(path, now);
    else imports.delete(path);
    for (const t of old) {
      if (now.includes(t)) continue;
      const list = (importers.get(t) ?? []).filter((p) => p !== path);
      if (list.length > 0) importers.set(t, list);
      else importers.delete(t);
    }
    for (const t of now) {
      if (old.includes(t)) continue;
      const list = [...(importers.get(t) ?? [])];
      let at = list.findIndex((p) => p > path);
      if (at < 0) at = list.length;
      list.splice(at, 0, path);
      importers.set(t, list);
    }
  }
  return { imports, importers };
}

/** The previous index's lists in path order, each changed file's run of entries replaced. */
function patchLists(
  prev: AnalysisIndex,
  changed: readonly string[],
  files: ReadonlyMap<string, IndexedFile>,
  newSkips: ReadonlyMap<string, SkippedFile>,
) {
  let external = prev.external;
  let unresolved = prev.unresolved;
  let partial = prev.partial;
  for (const path of changed) {
    const f = files.get(path);
    const { external: ext, unresolved: unres } = importOutcomes(f ? [f] : []);
    external = replaceRun(external, path, ext);
    unresolved = replaceRun(unresolved, path, unres);
    partial = replaceRun(partial, path, f?.facts.partial ? [{ path, errorCount: f.facts.errorCount, errorLines: f.facts.errorLines }] : []);
  }
  const skipped = [
    ...prev.skipped.filter((s) => !newSkips.has(s.path) && !(changed.includes(s.path) && files.has(s.path))),
    ...newSkips.values(),
  ];
  skipped.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { external, unresolved, partial, skipped };
}

/**
 * The fast path of `buildIndex` with a previous index when the file set and the configuration files
 * are unchanged (an edit, a commit touching a few files): one pass compares blob ids, only the
 * changed files get facts and resolutions, and the adjacency is patched rather than rebuilt.
 * Undefined when it does not apply (the full path then runs, still reusing `previous`).
 */
async function reindex(
  snapshot: Snapshot,
  prev: AnalysisIndex,
  state: IndexState,
  options: IndexOptions,
  t0: number,
): Promise<AnalysisIndex | undefined> {
  const store = options.store ?? prev.store;
  const factsScope: FactsScope = options.facts ?? 'all';
  const candidates = await changedSources(snapshot, prev, state);
  if (!candidates) return undefined;
  const loaded = await loadFacts(candidates, store, { ...options, previous: prev });
  const tFacts = performance.now();
  const { files, blobs, changed, newSkips } = applyReloaded(loaded.jobs, prev, state);
  const tResolve = performance.now();
  const { imports, importers } = patchAdjacency(prev, changed, files);
  const { external, unresolved, partial, skipped } = patchLists(prev, changed, files, newSkips);
  const tGraph = performance.now();
  options.onProgress?.({ phase: 'done', done: files.size, total: files.size });
  const result = assemble({
    files,
    paths: prev.paths,
    imports,
    importers,
    external,
    unresolved,
    skipped,
    partial,
    problems: problemsOf(store, factsScope),
    factsScope,
    resolver: prev.resolver,
    resolverKey: prev.resolverKey,
    store,
    stats: {
      files: snapshot.files.length,
      sourceFiles: prev.stats.sourceFiles,
      parsed: loaded.parsed,
      fromCache: files.size - loaded.parsed,
      hashed: loaded.hashed,
      parseErrors: loaded.parseErrors,
      ms: { total: tGraph - t0, facts: tFacts - t0, parse: loaded.parseMs, resolve: tResolve - tFacts, graph: tGraph - tResolve },
    },
  });
  states.set(result, { ...state, blobs });
  return result;
}

/** `list` (sorted by path, grouped) with the entries of `path` replaced by `entries`. */
function replaceRun<T extends { readonly from: string } | { readonly path: string }>(
  list: readonly T[],
  path: string,
  entries: readonly T[],
): readonly T[] {
  const key = (x: T) => ('from' in x ? x.from : x.path);
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(list[mid]!) < path) lo = mid + 1;
    else hi = mid;
  }
  let end = lo;
  while (end < list.length && key(list[end]!) === path) end++;
  if (end === lo && entries.length === 0) return list;
  return [...list.slice(0, lo), ...entries, ...list.slice(end)];
}
