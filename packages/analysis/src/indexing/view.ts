/**
 * Read access to an import graph, for the dependency channel and front ends: the base index and
 * an agent's overlay (its changed files analysed in its own version) answer the same questions.
 */
import { DirectedGraph } from 'graphology';
import type { ImportGraphService as ChannelImportGraphService, ImportGraphView as ChannelImportGraphView } from '@airspace/core';
import type { FileFacts, ImportEdgeKind } from '../facts.js';
import { languageOf } from '../facts.js';
import type { SnapshotFile } from '../snapshot.js';
import type { FactsStore } from '../cache/cache.js';
import {
  addImportEdge,
  edgeKindsTo,
  loadFacts,
  resolveImports,
  type AnalysisIndex,
  type FileNodeAttributes,
  type ImportEdgeAttributes,
  type ImportGraph,
  type IndexedFile,
  type SkippedFile,
} from './build.js';

/** Core's `ImportGraphView` (what `ctx.services.importGraph` gives channels), with every answer this index has. */
export interface ImportGraphView extends ChannelImportGraphView {
  hasFile(path: string): boolean;
  /** Files that `path` imports (edge path → target). */
  importsOf(path: string): readonly string[];
  /** Files that import `path`. */
  importersOf(path: string): readonly string[];
  /** Edge kinds of the imports from `importer` to `imported` (empty when it does not import it). */
  importKinds(importer: string, imported: string): readonly ImportEdgeKind[];
  /** Every indexed file of this view (for statistics over the repository, e.g. hub files). */
  filePaths(): Iterable<string>;
}

export interface IndexView extends ImportGraphView {
  readonly index: AnalysisIndex;
  file(path: string): IndexedFile | undefined;
  facts(path: string): FileFacts | undefined;
  /** A graphology graph of this view (built on demand; the base view returns the index's graph). */
  graph(): ImportGraph;
}

export function baseView(index: AnalysisIndex): IndexView {
  return {
    index,
    hasFile: (p) => index.files.has(p) || index.importers.has(p),
    importsOf: (p) => index.imports.get(p) ?? [],
    importersOf: (p) => index.importers.get(p) ?? [],
    importKinds: (from, to) => edgeKindsTo(index.files.get(from), to),
    file: (p) => index.files.get(p),
    facts: (p) => index.files.get(p)?.facts,
    filePaths: () => index.files.keys(),
    graph: () => index.graph,
  };
}

export interface OverlayChange {
  readonly path: string;
  /** The file is deleted in the agent's version. */
  readonly deleted?: boolean;
  readonly blobId?: string;
  readonly read?: () => Promise<Buffer> | Buffer;
}

export interface AgentOverlay extends IndexView {
  /** Files whose analysis differs from the base (changed, added or deleted). */
  readonly changed: ReadonlySet<string>;
  readonly skipped: readonly SkippedFile[];
}

export interface OverlayOptions {
  readonly workers?: number;
  readonly maxFileBytes?: number;
  /** As in `IndexOptions`: check cached bodies on look-up. */
  readonly bodies?: boolean;
  readonly store?: FactsStore;
}

/**
 * An agent's view: its changed files analysed in its own version (facts from the cache by blob
 * id, or parsed), imports resolved against its own file set; everything else is the base index,
 * not re-indexed. Configuration files changed by the agent are not re-read (the base's apply).
 */
export async function overlay(
  index: AnalysisIndex,
  changes: readonly OverlayChange[],
  options: OverlayOptions = {},
): Promise<AgentOverlay> {
  const added = changes.filter((c) => !c.deleted && !index.paths.has(c.path)).map((c) => c.path);
  const removed = changes.filter((c) => c.deleted && index.paths.has(c.path)).map((c) => c.path);
  const resolver = index.resolver.withFiles(added, removed);
  const sources = changes
    .filter((c) => !c.deleted && c.read && languageOf(c.path))
    .map((c) => ({
      file: { path: c.path, ...(c.blobId ? { blobId: c.blobId } : {}), read: c.read! } satisfies SnapshotFile,
      language: languageOf(c.path)!,
    }));
  // The agent's files get what the base's have (see `IndexOptions.facts`).
  const loaded = await loadFacts(sources, options.store ?? index.store, { ...options, facts: index.factsScope });
  const own = new Map<string, IndexedFile | null>();
  const skipped: SkippedFile[] = [];
  for (const c of changes) if (c.deleted) own.set(c.path, null);
  for (const job of loaded.jobs) {
    if (job.skip) {
      skipped.push(job.skip);
      continue;
    }
    const path = job.file.path;
    own.set(path, {
      path,
      blobId: job.blobId!,
      language: job.language,
      facts: job.facts!,
      imports: resolveImports(path, job.facts!, resolver),
    });
  }
  // Changed non-source files (or unparseable ones) keep their base analysis.
  return overlayView(index, own, skipped);
}

function overlayView(index: AnalysisIndex, own: ReadonlyMap<string, IndexedFile | null>, skipped: readonly SkippedFile[]): AgentOverlay {
  const base = baseView(index);
  const importersAdded = new Map<string, string[]>();
  for (const [path, f] of own) {
    if (!f) continue;
    for (const imp of f.imports)
      for (const t of imp.targets) {
        const list = importersAdded.get(t) ?? [];
        if (!list.includes(path)) list.push(path);
        importersAdded.set(t, list);
      }
  }
  let materialized: ImportGraph | undefined;
  const view: AgentOverlay = {
    index,
    changed: new Set(own.keys()),
    skipped,
    hasFile: (p) => (own.has(p) ? own.get(p) !== null : base.hasFile(p) || importersAdded.has(p)),
    importsOf(p) {
      if (own.has(p)) {
        const f = own.get(p);
        return f ? [...new Set(f.imports.flatMap((i) => i.targets))].filter((t) => own.get(t) !== null) : [];
      }
      return base.importsOf(p).filter((t) => own.get(t) !== null);
    },
    importersOf(p) {
      if (own.get(p) === null) return [];
      const fromBase = base.importersOf(p).filter((i) => !own.has(i));
      const added = importersAdded.get(p);
      return added ? [...new Set([...fromBase, ...added])] : fromBase;
    },
    importKinds: (from, to) => (own.get(to) === null ? [] : edgeKindsTo(view.file(from), to)),
    file: (p) => (own.has(p) ? (own.get(p) ?? undefined) : base.file(p)),
    facts: (p) => (own.has(p) ? own.get(p)?.facts : base.facts(p)),
    *filePaths() {
      for (const p of index.files.keys()) if (!own.has(p)) yield p;
      for (const [p, f] of own) if (f) yield p;
    },
    graph() {
      if (materialized) return materialized;
      const g: ImportGraph = new DirectedGraph<FileNodeAttributes, ImportEdgeAttributes>({ multi: false, allowSelfLoops: true });
      for (const p of view.filePaths()) {
        const f = view.file(p)!;
        g.mergeNode(p, f.facts.partial ? { language: f.language, partial: true } : { language: f.language });
        for (const imp of f.imports)
          for (const t of imp.targets) {
            if (own.get(t) === null) continue;
            g.mergeNode(t);
            addImportEdge(g, p, t, imp);
          }
      }
      materialized = g;
      return g;
    },
  };
  return view;
}

/**
 * What the scanner puts in `ctx.services.importGraph` for the dependency channel: the base
 * view and, per agent id, that agent's overlay (agents without one see the base).
 */
export interface ImportGraphService extends ChannelImportGraphService {
  readonly base: ImportGraphView;
  forAgent(agentId: string): ImportGraphView;
}

const baseViews = new WeakMap<AnalysisIndex, IndexView>();

export function importGraphService(index: AnalysisIndex, overlays: ReadonlyMap<string, ImportGraphView> = new Map()): ImportGraphService {
  // One base view per index: consumers keep per-graph work (the dependency channel numbers the
  // graph once) keyed by it while the scan base stays.
  let base = baseViews.get(index);
  if (!base) baseViews.set(index, (base = baseView(index)));
  return { base, forAgent: (id) => overlays.get(id) ?? base };
}
