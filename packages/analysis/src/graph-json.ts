/**
 * The JSON of `airspace graph --json`: the whole import graph with repository-relative paths,
 * for people and for comparison with other tools. Sorted, so equal repositories give equal JSON.
 */
import { IMPORT_EDGE_KINDS, type ImportEdgeKind } from './facts.js';
import { edgeKindsTo, type AnalysisIndex } from './indexing/build.js';

export interface GraphJson {
  readonly version: 1;
  /** Every indexed source file. */
  readonly files: readonly string[];
  /** Import edges `[importer, imported]`. */
  readonly edges: readonly (readonly [string, string])[];
  /**
   * The kinds of each edge, by position (`edgeKinds[i]` belongs to `edges[i]`): `value`,
   * `type-only`, `guarded`, `dynamic`, `re-export`, each once, in that order. Kept beside `edges`
   * so that consumers of `[from, to]` pairs read the graph as before.
   */
  readonly edgeKinds: readonly (readonly ImportEdgeKind[])[];
  readonly external: readonly { readonly from: string; readonly specifier: string; readonly package: string; readonly line: number }[];
  readonly unresolved: readonly { readonly from: string; readonly specifier: string; readonly reason: string; readonly line: number }[];
  readonly skipped: readonly { readonly path: string; readonly reason: string; readonly detail?: string }[];
  /** Files that parsed with errors; their facts are what did parse. */
  readonly partial: readonly { readonly path: string; readonly errorLines: readonly number[] }[];
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function graphJson(index: AnalysisIndex): GraphJson {
  const edges: [string, string][] = [];
  for (const [from, tos] of index.imports) for (const to of tos) edges.push([from, to]);
  edges.sort((x, y) => byPath(x[0], y[0]) || byPath(x[1], y[1]));
  const rank = (k: ImportEdgeKind) => IMPORT_EDGE_KINDS.indexOf(k);
  const edgeKinds = edges.map(([from, to]) => edgeKindsTo(index.files.get(from), to).sort((x, y) => rank(x) - rank(y)));
  const order = <T extends { from: string; line: number }>(list: readonly T[]) =>
    [...list].sort((a, b) => byPath(a.from, b.from) || a.line - b.line);
  return {
    version: 1,
    files: [...index.files.keys()].sort(byPath),
    edges,
    edgeKinds,
    external: order(index.external),
    unresolved: order(index.unresolved),
    skipped: index.skipped.map((s) => ({ path: s.path, reason: s.reason, ...(s.detail ? { detail: s.detail } : {}) })),
    partial: index.partial.map((p) => ({ path: p.path, errorLines: p.errorLines })),
  };
}
