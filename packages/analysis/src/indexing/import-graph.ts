/**
 * The import graph of indexed files: edges with their kinds, adjacency lists, and the external
 * and unresolved imports.
 */
import { DirectedGraph } from 'graphology';
import type { ImportEdgeKind } from '../facts.js';
import type { ResolvedImport } from '../resolve/resolver.js';
import type {
  ExternalImport,
  FileNodeAttributes,
  ImportEdgeAttributes,
  ImportGraph,
  IndexedFile,
  UnresolvedImport,
} from './index-types.js';

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

export function importOutcomes(files: Iterable<IndexedFile>): { external: ExternalImport[]; unresolved: UnresolvedImport[] } {
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

/** Distinct targets of a file's imports, in order. */
export function targetsOf(f: IndexedFile): string[] {
  const out: string[] = [];
  for (const imp of f.imports) for (const t of imp.targets) if (!out.includes(t)) out.push(t);
  return out;
}
