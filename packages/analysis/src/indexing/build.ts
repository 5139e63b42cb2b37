/**
 * The index: facts per file (from the cache or parsed once), module resolution, and the import
 * graph. Stages: list → look up facts by blob id → parse the misses in worker threads →
 * resolve → graph.
 */
import { createHash } from 'node:crypto';
import { mapLimit } from '@airspace/git';
import { DirectedGraph } from 'graphology';
import { createFactsStore, type FactsStore } from '../cache/cache.js';
import { importCount, isDamaged, isImportsOnly } from '../cache/pack.js';
import { loadResolutions, loadResolverMemo, saveResolutions } from '../cache/resolutions.js';
import { createParsePool, type ParseJob, type ParseOutcome } from '../extract/pool.js';
import { sourceSkip } from '../extract/source-file.js';
import {
  importEdgeKind,
  languageOf,
  type FileFacts,
  type ImportEdgeKind,
  type ImportFact,
  type ImportKind,
  type Language,
} from '../facts.js';
import {
  createResolver,
  isConfigFile,
  RESOLVER_VERSION,
  type ResolvedImport,
  type Resolution,
  type Resolver,
} from '../resolve/resolver.js';

export type { ResolvedImport } from '../resolve/resolver.js';
import { gitBlobId, type Snapshot, type SnapshotFile } from '../snapshot.js';

export interface IndexedFile {
  readonly path: string;
  readonly blobId: string;
  readonly language: Language;
  readonly facts: FileFacts;
  readonly imports: readonly ResolvedImport[];
}

export type SkipReason = 'binary' | 'too-large' | 'unreadable' | 'parse-failed' | 'vendored';

export interface SkippedFile {
  readonly path: string;
  readonly reason: SkipReason;
  readonly detail?: string;
}

export interface ExternalImport {
  readonly from: string;
  readonly specifier: string;
  readonly package: string;
  readonly line: number;
}

export interface UnresolvedImport {
  readonly from: string;
  readonly specifier: string;
  readonly reason: string;
  readonly line: number;
}

export interface FileNodeAttributes {
  readonly language?: Language;
  /** True when the file parsed with errors (facts are partial). */
  readonly partial?: boolean;
}

export interface ImportEdgeAttributes {
  /** Every import kind from the importer to this file, as written (`static`, `type`, …). */
  readonly kinds: ImportKind[];
  /** Every edge kind of those imports (`value`, `type-only`, `guarded`, `dynamic`, `re-export`). */
  readonly edgeKinds: ImportEdgeKind[];
  readonly lines: number[];
}

export type ImportGraph = DirectedGraph<FileNodeAttributes, ImportEdgeAttributes>;

export interface IndexStats {
  readonly files: number;
  readonly sourceFiles: number;
  readonly parsed: number;
  readonly fromCache: number;
  readonly hashed: number;
  readonly parseErrors: number;
  readonly ms: { readonly total: number; readonly facts: number; readonly parse: number; readonly resolve: number; readonly graph: number };
}

export interface AnalysisIndex {
  /** Source files (TypeScript, TSX, JavaScript, Python) that have facts, by path. */
  readonly files: ReadonlyMap<string, IndexedFile>;
  /** Every path of the snapshot. */
  readonly paths: ReadonlySet<string>;
  /**
   * The import graph (graphology): a node per source file and per other file an import resolves
   * to, edge importer → imported. Built on first access; `imports`/`importers` answer without it.
   */
  readonly graph: ImportGraph;
  /**
   * Adjacency of the import graph: files each file imports, and files importing each file (in
   * path order). The order of the maps' keys is not significant.
   */
  readonly imports: ReadonlyMap<string, readonly string[]>;
  readonly importers: ReadonlyMap<string, readonly string[]>;
  readonly external: readonly ExternalImport[];
  readonly unresolved: readonly UnresolvedImport[];
  readonly skipped: readonly SkippedFile[];
  /** Files with parse errors whose facts are partial (kept in the index). */
  readonly partial: readonly { readonly path: string; readonly errorCount: number; readonly errorLines: readonly number[] }[];
  /** Non-fatal problems (cache corruption, unwritable cache). */
  readonly problems: readonly string[];
  readonly resolver: Resolver;
  /** Identity of the resolver's inputs (paths + configuration contents). */
  readonly resolverKey: string;
  readonly store: FactsStore;
  /** What the facts hold (see `IndexOptions.facts`). */
  readonly factsScope: FactsScope;
  readonly stats: IndexStats;
}

export type IndexPhase = 'facts' | 'parse' | 'resolve' | 'graph' | 'done';

export interface IndexProgress {
  readonly phase: IndexPhase;
  readonly done: number;
  readonly total: number;
}

export interface IndexOptions {
  /** Cache directory (e.g. from `defaultCacheDir(repo)`); ignored when `store` is given. */
  readonly cacheDir?: string;
  /** A facts store kept across calls (long-lived processes keep one). */
  readonly store?: FactsStore;
  /** Parse workers (0 = in this thread). Default: cores, at most 8. */
  readonly workers?: number;
  /** Files larger than this are skipped (default 1 MiB). */
  readonly maxFileBytes?: number;
  /** A previous index of the same repository: its facts and resolutions are reused where inputs are unchanged. */
  readonly previous?: AnalysisIndex;
  /**
   * The facts' bodies (exports, definitions, references, calls) will be used, e.g. by the symbols
   * service: cached bodies are checked on look-up, so a damaged one is parsed again by this index
   * (with a problem) instead of reading as empty later. Off, a warm index reads heads only.
   */
  readonly bodies?: boolean;
  /**
   * `imports`: only what the import graph needs is extracted from files not cached (the imports
   * query alone, about half the parse cost), kept in the store's `importsOnly()` companion; a file
   * cached whole is used as it is. Such an index cannot serve definitions, references or calls
   * (reading them throws). Default `all`.
   */
  readonly facts?: FactsScope;
  readonly onProgress?: (progress: IndexProgress) => void;
}

export type FactsScope = 'all' | 'imports';

export const DEFAULT_MAX_FILE_BYTES = 1 << 20;

interface FactsJob {
  readonly file: SnapshotFile;
  readonly language: Language;
  blobId?: string;
  /** The file's bytes until parsed; cleared (set to undefined) to free them early. */
  content?: Buffer | undefined;
  facts?: FileFacts;
  skip?: SkippedFile;
}

/**
 * Facts for a set of files: reused from `previous`, the store (memory, then disk), or parsed.
 * Shared by `index` and `overlay`.
 */
export async function loadFacts(
  files: readonly { file: SnapshotFile; language: Language }[],
  store: FactsStore,
  options: Pick<IndexOptions, 'workers' | 'maxFileBytes' | 'previous' | 'bodies' | 'facts' | 'onProgress'> & {
    /** Called with each parsed file's facts as they arrive (before the last file is parsed). */
    readonly onParsed?: (job: FactsJob, facts: FileFacts) => void;
  },
): Promise<{ jobs: FactsJob[]; parsed: number; hashed: number; fromCache: number; parseErrors: number; parseMs: number }> {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const jobs: FactsJob[] = files.map(({ file, language }) => ({ file, language, ...(file.blobId ? { blobId: file.blobId } : {}) }));
  let hashed = 0;
  let fromCache = 0;
  let done = 0;
  const total = jobs.length;
  const readContent = async (job: FactsJob): Promise<boolean> => {
    try {
      job.content = await job.file.read();
      return true;
    } catch (e) {
      job.skip = { path: job.file.path, reason: 'unreadable', detail: e instanceof Error ? e.message : String(e) };
      return false;
    }
  };
  const importsOnly = options.facts === 'imports';
  const partStore = importsOnly ? store.importsOnly() : undefined;
  const lookUp = (job: FactsJob) => {
    const prev = options.previous?.files.get(job.file.path);
    const facts =
      prev &&
      prev.blobId === job.blobId &&
      prev.language === job.language &&
      !isDamaged(prev.facts) &&
      (importsOnly || !isImportsOnly(prev.facts))
        ? prev.facts
        : (store.get(job.blobId!, job.language, options.bodies ? { body: true } : undefined) ?? partStore?.get(job.blobId!, job.language));
    if (facts) {
      job.facts = facts;
      job.content = undefined;
      fromCache++;
      options.onProgress?.({ phase: 'facts', done: ++done, total });
    }
  };
  await Promise.all([store.refresh(), partStore?.refresh()]);
  // Files with a known blob id are looked up in one synchronous pass; only the others are read.
  const unknown: FactsJob[] = [];
  for (const job of jobs) {
    if (job.blobId) lookUp(job);
    else unknown.push(job);
  }
  await mapLimit(unknown, 64, async (job) => {
    if (!(await readContent(job))) return;
    job.blobId = gitBlobId(job.content!);
    hashed++;
    lookUp(job);
  });

  // The misses are handed to the parse pool as they come: a file on disk whose blob id is known
  // is read by its parsing thread; the others were read here (to hash them) or are read now.
  // Threads start on the first full chunk, while the rest is still being queued or read.
  const misses = jobs.filter((j) => !j.facts && !j.skip);
  const t0 = performance.now();
  const pool = createParsePool({
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    onParsed: () => options.onProgress?.({ phase: 'parse', done: ++done, total }),
  });
  const toParse: FactsJob[] = [];
  const outcomes: Promise<ParseOutcome>[] = [];
  const extract = importsOnly ? { importsOnly } : {};
  const parse = (job: FactsJob, parseJob: ParseJob): Promise<ParseOutcome> => {
    const outcome = pool.parse(parseJob);
    const onParsed = options.onParsed;
    if (!onParsed) return outcome;
    return outcome.then((o) => {
      if ('facts' in o) onParsed(job, o.facts);
      return o;
    });
  };
  try {
    const inMemory: FactsJob[] = [];
    for (const job of misses) {
      const diskPath = job.file.diskPath;
      if (job.content || !diskPath) {
        inMemory.push(job);
        continue;
      }
      toParse.push(job);
      outcomes.push(parse(job, { language: job.language, diskPath, maxBytes, ...extract }));
    }
    await mapLimit(inMemory, 32, async (job) => {
      if (!job.content && !(await readContent(job))) return;
      const c = job.content!;
      job.content = undefined; // the pool holds it until parsed
      const skip = sourceSkip(c, maxBytes);
      if (skip) {
        job.skip = { path: job.file.path, reason: skip.skip, ...(skip.detail !== undefined ? { detail: skip.detail } : {}) };
        return;
      }
      toParse.push(job);
      outcomes.push(parse(job, { language: job.language, content: c, ...extract }));
    });
  } finally {
    await pool.close();
  }
  const settled = await Promise.all(outcomes);
  const parseMs = performance.now() - t0;
  let parseErrors = 0;
  let skippedByReader = 0;
  toParse.forEach((job, i) => {
    const o = settled[i]!;
    if ('facts' in o) {
      job.facts = o.facts;
      (partStore ?? store).put(job.blobId!, job.language, o.facts);
    } else if ('skip' in o) {
      skippedByReader++;
      job.skip = { path: job.file.path, reason: o.skip, ...(o.detail !== undefined ? { detail: o.detail } : {}) };
    } else {
      parseErrors++;
      job.skip = { path: job.file.path, reason: 'parse-failed', detail: o.error };
    }
  });
  await Promise.all([store.flush(), partStore?.flush()]);
  return { jobs, parsed: toParse.length - parseErrors - skippedByReader, hashed, fromCache, parseErrors, parseMs };
}

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

/** Adds one import to the edge importer → target of a graph being built. */
export function addImportEdge(graph: ImportGraph, from: string, to: string, imp: ResolvedImport): void {
  if (graph.hasEdge(from, to)) {
    const attrs = graph.getEdgeAttributes(from, to);
    if (!attrs.kinds.includes(imp.kind)) attrs.kinds.push(imp.kind);
    if (!attrs.edgeKinds.includes(imp.edge)) attrs.edgeKinds.push(imp.edge);
    attrs.lines.push(imp.line);
  } else graph.addDirectedEdge(from, to, { kinds: [imp.kind], edgeKinds: [imp.edge], lines: [imp.line] });
}

/** Edge kinds of the imports from `importer` (its resolved imports) to `imported`, each once. */
export function edgeKindsTo(importer: IndexedFile | undefined, imported: string): ImportEdgeKind[] {
  const out: ImportEdgeKind[] = [];
  for (const imp of importer?.imports ?? []) if (imp.targets.includes(imported) && !out.includes(imp.edge)) out.push(imp.edge);
  return out;
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

/** Index a snapshot. Never throws on bad files: they are reported in `skipped` or `partial`. */
const withoutPrevious = ({ previous: _previous, ...rest }: IndexOptions): IndexOptions => rest;

export async function index(snapshot: Snapshot, given: IndexOptions = {}): Promise<AnalysisIndex> {
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
  const all = [...snapshot.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const paths = all.map((f) => f.path);
  const skipped: SkippedFile[] = [];
  const sources: { file: SnapshotFile; language: Language }[] = [];
  for (const file of all) {
    const language = languageOf(file.path);
    if (!language) continue;
    if (/(^|\/)node_modules\//.test(file.path)) {
      skipped.push({ path: file.path, reason: 'vendored' });
      continue;
    }
    sources.push({ file, language });
  }

  // Resolution needs the file set and the configuration only: it is set up while facts load,
  // so that each parsed file's imports are resolved as its facts arrive, while the workers parse.
  const pathSet = new Set(paths);
  const resolution = readConfigs(all, previousState).then(async ({ configs, blobs: configBlobs }) => {
    // Reuse the previous index's resolutions, or the persisted ones, when the file set and
    // configuration are unchanged.
    const resolverKey = resolverKeyOf(paths, configBlobs);
    const previous = options.previous?.resolverKey === resolverKey ? options.previous : undefined;
    // Files added or deleted, configuration unchanged: the previous resolver carries over every
    // resolution that probed none of those paths, so files resolve again mostly from its memo.
    const shifted =
      !previous && options.previous && previousState && sameEntries(configBlobs, previousState.configBlobs) ? options.previous : undefined;
    const persisted = !previous && !shifted && store.dir ? await loadResolutions(store.dir, resolverKey) : undefined;
    // A previous index whose resolutions came from disk has a resolver that resolved little
    // itself: the memo saved with those resolutions stands in for it.
    const shiftedMemo =
      shifted && previousState!.resolvedFromDisk && store.dir ? await loadResolverMemo(store.dir, shifted.resolverKey) : undefined;
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
  });
  // Handled here so that a failure while facts load is not an unhandled rejection; awaited below.
  resolution.catch(() => undefined);
  type Resolving = Awaited<typeof resolution>;
  let freshlyResolved = 0;
  let fromDisk = false;
  const resolved = new Map<string, readonly ResolvedImport[]>();
  /** A file's resolved imports: the previous index's, the persisted ones, or resolved now (once). */
  const importsOf = (r: Resolving, path: string, blobId: string, language: Language, facts: FileFacts): readonly ResolvedImport[] => {
    let imports = resolved.get(path);
    if (imports) return imports;
    const prev = r.previous?.files.get(path);
    if (prev && prev.blobId === blobId && prev.language === language) imports = prev.imports;
    else {
      const stored = r.persisted?.get(path, blobId, importCount(facts));
      if (stored) {
        imports = stored;
        fromDisk = true;
      } else {
        imports = resolveImports(path, facts, r.resolver);
        freshlyResolved++;
      }
    }
    resolved.set(path, imports);
    return imports;
  };
  const loaded = await loadFacts(sources, store, {
    ...options,
    onParsed: (job, facts) => {
      resolution.then((r) => importsOf(r, job.file.path, job.blobId!, job.language, facts)).catch(() => undefined);
    },
  });
  const tFacts = performance.now();
  const r = await resolution;
  const { configBlobs, resolverKey, previous, resolver } = r;
  const files = new Map<string, IndexedFile>();
  const partial: AnalysisIndex['partial'][number][] = [];
  const blobs = new Map<string, string | undefined>();
  let resolvedCount = 0;
  if (previous) fromDisk ||= previousState!.resolvedFromDisk;
  for (const job of loaded.jobs) {
    const path = job.file.path;
    blobs.set(path, job.blobId);
    if (job.skip) {
      skipped.push(job.skip);
      continue;
    }
    const facts = job.facts!;
    const blobId = job.blobId!;
    const imports = importsOf(r, path, blobId, job.language, facts);
    files.set(path, { path, blobId, language: job.language, facts, imports });
    if (facts.partial) partial.push({ path, errorCount: facts.errorCount, errorLines: facts.errorLines });
    options.onProgress?.({ phase: 'resolve', done: ++resolvedCount, total: loaded.jobs.length });
  }
  if (freshlyResolved > 0 && store.dir)
    await saveResolutions(store.dir, resolverKey, files.values(), fromDisk ? undefined : resolver.memoEntries());
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
    problems: problemsOf(store, factsScope),
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
    resolvedFromDisk: fromDisk,
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
 * The fast path of `index` with a previous index when the file set and the configuration files
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
  if (snapshot.files.length !== prev.paths.size) return undefined;
  const candidates: { file: SnapshotFile; language: Language }[] = [];
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
  const loaded = await loadFacts(candidates, store, { ...options, previous: prev });
  const tFacts = performance.now();

  const files = new Map(prev.files);
  const blobs = new Map(state.blobs);
  const changed: string[] = [];
  const newSkips = new Map<string, SkippedFile>();
  let reordered = false;
  for (const job of loaded.jobs) {
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
    files.set(path, {
      path,
      blobId: job.blobId!,
      language: job.language,
      facts: job.facts!,
      imports: resolveImports(path, job.facts!, prev.resolver),
    });
    changed.push(path);
  }
  const sortedFiles = reordered ? new Map([...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) : files;
  const tResolve = performance.now();

  // Patch the adjacency: each changed file's out-edges, and its place in its targets' importers.
  const imports = new Map(prev.imports);
  const importers = new Map(prev.importers);
  for (const path of changed) {
    const old = prev.imports.get(path) ?? [];
    const f = sortedFiles.get(path);
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
  // Lists in path order: replace each changed file's run of entries.
  let external = prev.external;
  let unresolved = prev.unresolved;
  let partial = prev.partial;
  for (const path of changed) {
    const f = sortedFiles.get(path);
    const { external: ext, unresolved: unres } = importOutcomes(f ? [f] : []);
    external = replaceRun(external, path, ext);
    unresolved = replaceRun(unresolved, path, unres);
    partial = replaceRun(partial, path, f?.facts.partial ? [{ path, errorCount: f.facts.errorCount, errorLines: f.facts.errorLines }] : []);
  }
  const skipped = [
    ...prev.skipped.filter((s) => !newSkips.has(s.path) && !(changed.includes(s.path) && sortedFiles.has(s.path))),
    ...newSkips.values(),
  ];
  skipped.sort((a, b) => (a.path < b.path ? -1 : 1));
  const tGraph = performance.now();
  options.onProgress?.({ phase: 'done', done: sortedFiles.size, total: sortedFiles.size });
  const result = assemble({
    files: sortedFiles,
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
      fromCache: sortedFiles.size - loaded.parsed,
      hashed: loaded.hashed,
      parseErrors: loaded.parseErrors,
      ms: { total: tGraph - t0, facts: tFacts - t0, parse: loaded.parseMs, resolve: tResolve - tFacts, graph: tGraph - tResolve },
    },
  });
  states.set(result, { ...state, blobs });
  return result;
}

/** Distinct targets of a file's imports, in order. */
function targetsOf(f: IndexedFile): string[] {
  const out: string[] = [];
  for (const imp of f.imports) for (const t of imp.targets) if (!out.includes(t)) out.push(t);
  return out;
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

function importOutcomes(files: Iterable<IndexedFile>): { external: ExternalImport[]; unresolved: UnresolvedImport[] } {
  const external: ExternalImport[] = [];
  const unresolved: UnresolvedImport[] = [];
  for (const f of files)
    for (const imp of f.imports) {
      if (imp.external !== undefined) external.push({ from: f.path, specifier: imp.specifier, package: imp.external, line: imp.line });
      else if (imp.unresolved !== undefined)
        unresolved.push({ from: f.path, specifier: imp.specifier, reason: imp.unresolved, line: imp.line });
    }
  return { external, unresolved };
}

/** Adjacency lists of the import graph, and the external and unresolved imports. */
export function adjacency(files: ReadonlyMap<string, IndexedFile>): {
  imports: Map<string, string[]>;
  importers: Map<string, string[]>;
  external: ExternalImport[];
  unresolved: UnresolvedImport[];
} {
  const imports = new Map<string, string[]>();
  const importers = new Map<string, string[]>();
  for (const f of files.values()) {
    const out = targetsOf(f);
    if (out.length === 0) continue;
    imports.set(f.path, out);
    for (const t of out) {
      const list = importers.get(t);
      if (list) list.push(f.path);
      else importers.set(t, [f.path]);
    }
  }
  const { external, unresolved } = importOutcomes(files.values());
  return { imports, importers, external, unresolved };
}

/** The import graph of indexed files; also lists external and unresolved imports. */
export function buildImportGraph(files: ReadonlyMap<string, IndexedFile>): {
  graph: ImportGraph;
  external: ExternalImport[];
  unresolved: UnresolvedImport[];
} {
  const graph: ImportGraph = new DirectedGraph<FileNodeAttributes, ImportEdgeAttributes>({ multi: false, allowSelfLoops: true });
  for (const f of files.values())
    graph.addNode(f.path, f.facts.partial ? { language: f.language, partial: true } : { language: f.language });
  for (const f of files.values()) {
    for (const imp of f.imports) {
      for (const t of imp.targets) {
        if (!graph.hasNode(t)) graph.addNode(t, {});
        addImportEdge(graph, f.path, t, imp);
      }
    }
  }
  return { graph, ...importOutcomes(files.values()) };
}
