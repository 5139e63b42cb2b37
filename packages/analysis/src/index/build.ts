/**
 * The index: facts per file (from the cache or parsed once), module resolution, and the import
 * graph. Stages: list → look up facts by blob id → parse the misses in recycled workers →
 * resolve → graph.
 */
import { createHash } from 'node:crypto';
import { DirectedGraph } from 'graphology';
import { createFactsStore, type FactsStore } from '../cache/cache.js';
import { parseAll } from '../extract/pool.js';
import { languageOf, type FileFacts, type ImportKind, type Language } from '../facts.js';
import { createResolver, isConfigFile, type Resolver, type ResolvedVia } from '../resolve/resolver.js';
import { gitBlobId, type Snapshot, type SnapshotFile } from '../snapshot.js';

export interface ResolvedImport {
  readonly specifier: string;
  readonly kind: ImportKind;
  readonly line: number;
  /** Repository files this import resolves to (several for `from pkg import a, b` submodules). */
  readonly targets: readonly string[];
  readonly via?: ResolvedVia;
  /** Package name of an external import (`react`, `@scope/pkg`, `node:fs`, Python `numpy`). */
  readonly external?: string;
  /** Why an import that should be in the repository was not found. */
  readonly unresolved?: string;
}

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
  /** Every import kind from the importer to this file (`static`, `type`, …). */
  readonly kinds: ImportKind[];
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
  /** Adjacency of the import graph: files each file imports, and files importing each file. */
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
  readonly onProgress?: (progress: IndexProgress) => void;
}

export const DEFAULT_MAX_FILE_BYTES = 1 << 20;

/** Runs `fn` over `items` with at most `limit` promises in flight. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return out;
}

function isBinary(buf: Buffer): boolean {
  const n = Math.min(buf.length, 8000);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

interface FactsJob {
  readonly file: SnapshotFile;
  readonly language: Language;
  blobId?: string;
  content?: Buffer;
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
  options: Pick<IndexOptions, 'workers' | 'maxFileBytes' | 'previous' | 'onProgress'>,
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
  await store.refresh();
  await mapLimit(jobs, 64, async (job) => {
    if (!job.blobId) {
      if (!(await readContent(job))) return;
      job.blobId = gitBlobId(job.content!);
      hashed++;
    }
    const prev = options.previous?.files.get(job.file.path);
    const facts = prev && prev.blobId === job.blobId && prev.language === job.language ? prev.facts : await store.get(job.blobId, job.language);
    if (facts) {
      job.facts = facts;
      job.content = undefined;
      fromCache++;
      options.onProgress?.({ phase: 'facts', done: ++done, total });
    }
  });

  const misses = jobs.filter((j) => !j.facts && !j.skip);
  await mapLimit(misses, 32, async (job) => {
    if (!job.content && !(await readContent(job))) return;
    const c = job.content!;
    if (c.length > maxBytes) job.skip = { path: job.file.path, reason: 'too-large', detail: `${c.length} bytes > ${maxBytes}` };
    else if (isBinary(c)) job.skip = { path: job.file.path, reason: 'binary' };
    if (job.skip) job.content = undefined;
  });
  const toParse = misses.filter((j) => !j.skip);
  const t0 = performance.now();
  const outcomes = await parseAll(
    toParse.map((j) => ({ language: j.language, content: j.content! })),
    { ...(options.workers !== undefined ? { workers: options.workers } : {}), onParsed: () => options.onProgress?.({ phase: 'parse', done: ++done, total }) },
  );
  const parseMs = performance.now() - t0;
  let parseErrors = 0;
  toParse.forEach((job, i) => {
    const o = outcomes[i]!;
    job.content = undefined;
    if ('facts' in o) {
      job.facts = o.facts;
      store.put(job.blobId!, job.language, o.facts);
    } else {
      parseErrors++;
      job.skip = { path: job.file.path, reason: 'parse-failed', detail: o.error };
    }
  });
  await store.flush();
  return { jobs, parsed: toParse.length - parseErrors, hashed, fromCache, parseErrors, parseMs };
}

async function readConfigs(files: readonly SnapshotFile[]): Promise<Map<string, string>> {
  const configs = new Map<string, string>();
  await mapLimit(
    files.filter((f) => isConfigFile(f.path)),
    32,
    async (f) => {
      try {
        const buf = await f.read();
        if (buf.length <= DEFAULT_MAX_FILE_BYTES) configs.set(f.path, buf.toString('utf8'));
      } catch {
        // An unreadable configuration file resolves as if absent.
      }
    },
  );
  return configs;
}

function resolverKeyOf(paths: readonly string[], configBlobs: readonly string[]): string {
  const h = createHash('sha1');
  for (const p of paths) h.update(p).update('\0');
  h.update('\n');
  for (const c of configBlobs) h.update(c).update('\0');
  return h.digest('hex');
}

/** Resolves the imports of one file's facts. */
export function resolveImports(path: string, facts: FileFacts, resolver: Resolver): ResolvedImport[] {
  return facts.imports.map((imp) => {
    const r = resolver.resolve(path, imp);
    const base = { specifier: imp.specifier, kind: imp.kind, line: imp.line };
    if (r.status === 'resolved') return { ...base, targets: r.targets, via: r.via };
    if (r.status === 'external') return { ...base, targets: [], external: r.package };
    return { ...base, targets: [], unresolved: r.reason };
  });
}

/** Index a snapshot. Never throws on bad files: they are reported in `skipped` or `partial`. */
export async function index(snapshot: Snapshot, options: IndexOptions = {}): Promise<AnalysisIndex> {
  const t0 = performance.now();
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

  const [loaded, configs] = await Promise.all([loadFacts(sources, store, options), readConfigs(all)]);
  const tFacts = performance.now();

  // Resolution: reuse the previous index's when the file set and configuration are unchanged.
  const configBlobs = [...configs.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, text]) => `${p}:${gitBlobId(text)}`);
  const resolverKey = resolverKeyOf(paths, configBlobs);
  const previous = options.previous?.resolverKey === resolverKey ? options.previous : undefined;
  const resolver = previous?.resolver ?? createResolver({ files: new Set(paths), configs });
  const files = new Map<string, IndexedFile>();
  const partial: AnalysisIndex['partial'][number][] = [];
  let resolvedCount = 0;
  for (const job of loaded.jobs) {
    if (job.skip) {
      skipped.push(job.skip);
      continue;
    }
    const path = job.file.path;
    const facts = job.facts!;
    const prev = previous?.files.get(path);
    const imports = prev && prev.blobId === job.blobId && prev.language === job.language ? prev.imports : resolveImports(path, facts, resolver);
    files.set(path, { path, blobId: job.blobId!, language: job.language, facts, imports });
    if (facts.partial) partial.push({ path, errorCount: facts.errorCount, errorLines: facts.errorLines });
    options.onProgress?.({ phase: 'resolve', done: ++resolvedCount, total: loaded.jobs.length });
  }
  const tResolve = performance.now();

  const { imports, importers, external, unresolved } = adjacency(files);
  let graph: ImportGraph | undefined;
  const tGraph = performance.now();
  options.onProgress?.({ phase: 'done', done: files.size, total: files.size });
  skipped.sort((a, b) => (a.path < b.path ? -1 : 1));
  return {
    files,
    paths: new Set(paths),
    get graph() {
      graph ??= buildImportGraph(files).graph;
      return graph;
    },
    imports,
    importers,
    external,
    unresolved,
    skipped,
    partial,
    problems: store.takeProblems(),
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
  };
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
  const external: ExternalImport[] = [];
  const unresolved: UnresolvedImport[] = [];
  for (const f of files.values()) {
    let out: string[] | undefined;
    for (const imp of f.imports) {
      if (imp.external !== undefined) external.push({ from: f.path, specifier: imp.specifier, package: imp.external, line: imp.line });
      else if (imp.unresolved !== undefined) unresolved.push({ from: f.path, specifier: imp.specifier, reason: imp.unresolved, line: imp.line });
      for (const t of imp.targets) {
        out ??= [];
        if (out.includes(t)) continue;
        out.push(t);
        const list = importers.get(t);
        if (list) list.push(f.path);
        else importers.set(t, [f.path]);
      }
    }
    if (out) imports.set(f.path, out);
  }
  return { imports, importers, external, unresolved };
}

/** The import graph of indexed files; also lists external and unresolved imports. */
export function buildImportGraph(
  files: ReadonlyMap<string, IndexedFile>,
): { graph: ImportGraph; external: ExternalImport[]; unresolved: UnresolvedImport[] } {
  const graph: ImportGraph = new DirectedGraph<FileNodeAttributes, ImportEdgeAttributes>({ multi: false, allowSelfLoops: true });
  const external: ExternalImport[] = [];
  const unresolved: UnresolvedImport[] = [];
  for (const f of files.values()) graph.addNode(f.path, f.facts.partial ? { language: f.language, partial: true } : { language: f.language });
  for (const f of files.values()) {
    for (const imp of f.imports) {
      if (imp.external !== undefined) external.push({ from: f.path, specifier: imp.specifier, package: imp.external, line: imp.line });
      else if (imp.unresolved !== undefined) unresolved.push({ from: f.path, specifier: imp.specifier, reason: imp.unresolved, line: imp.line });
      for (const t of imp.targets) {
        if (!graph.hasNode(t)) graph.addNode(t, {});
        const attrs = graph.hasEdge(f.path, t) ? graph.getEdgeAttributes(f.path, t) : undefined;
        if (attrs) {
          if (!attrs.kinds.includes(imp.kind)) attrs.kinds.push(imp.kind);
          attrs.lines.push(imp.line);
        } else graph.addDirectedEdge(f.path, t, { kinds: [imp.kind], lines: [imp.line] });
      }
    }
  }
  return { graph, external, unresolved };
}
