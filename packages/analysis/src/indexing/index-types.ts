/**
 * The index's public shapes: files, skips, imports, the graph, progress and options.
 */
import type { DirectedGraph } from 'graphology';
import type { FactsStore } from '../cache/cache.js';
import type { FileFacts, ImportEdgeKind, ImportKind, Language } from '../facts.js';
import type { ResolvedImport, Resolver } from '../resolve/resolver.js';

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
