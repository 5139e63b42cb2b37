/**
 * Multi-source, depth-capped relaxation over an import graph: for every file within `maxDepth`
 * imports of an agent's files, the best `w_f · γ^(d−1) · Π k(e) · Π h(v)` over the agent's files f
 * and paths (k: the factor of each import edge's kind; h: the discount of each file passed
 * through, e.g. a hub), and that path. One run per agent and direction in `prepare`; scoring a
 * pair is then a lookup per file.
 *
 * Relaxation is by levels (d = 1, 2, …): a file is expanded again at a deeper level only when a
 * better value reaches it there, so with factors below 1 a longer path may win over a shorter one.
 */

export interface Neighbours {
  (path: string): readonly string[];
}

/** Factors of a path's steps; both default to 1 (every import counts fully, no file is discounted). */
export interface ReachFactors {
  /** Factor in [0, 1] of the step from `from` to its neighbour `to`. */
  edge?(from: string, to: string): number;
  /** Factor in [0, 1] of passing through `path` (never applied to a source or the end of a path). */
  through?(path: string): number;
}

export interface ReachEntry {
  /** max over sources and paths of w_f · γ^(d−1) · Π factors. */
  readonly value: number;
  readonly depth: number;
  /** The previous file on the best path (the source at depth 1). */
  readonly pred: string;
  readonly source: string;
  /**
   * The predecessor's entry as it was when this path was found (undefined at depth 1): a later,
   * better path to the predecessor does not change this entry's path.
   */
  readonly prev?: ReachEntry;
}

export type Reach = ReadonlyMap<string, ReachEntry>;

export function reach(sources: readonly { path: string; weight: number }[], next: Neighbours, gamma: number, maxDepth: number, factors: ReachFactors = {}): Reach {
  const best = new Map<string, ReachEntry>();
  let frontier: { path: string; value: number; source: string; entry?: ReachEntry }[] = [];
  // Depth 1: direct neighbours of a source get its full weight (γ^0 = 1).
  for (const s of sources) frontier.push({ path: s.path, value: s.weight / gamma, source: s.path });
  for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
    const nextFrontier: typeof frontier = [];
    for (const node of frontier) {
      // Beyond depth 1 the frontier's files are passed through on the way further.
      const through = depth > 1 && factors.through ? factors.through(node.path) : 1;
      const value = node.value * gamma * through;
      if (value <= 0) continue;
      for (const n of next(node.path)) {
        const v = factors.edge ? value * factors.edge(node.path, n) : value;
        if (v <= 0) continue;
        const old = best.get(n);
        if (old && old.value >= v) continue;
        const entry: ReachEntry = { value: v, depth, pred: node.path, source: node.source, ...(node.entry ? { prev: node.entry } : {}) };
        best.set(n, entry);
        nextFrontier.push({ path: n, value: v, source: node.source, entry });
      }
    }
    frontier = nextFrontier;
  }
  return best;
}

/** Files of the best path from the source to `path` (inclusive). */
export function chainTo(r: Reach, path: string): string[] {
  const chain = [path];
  for (let at = r.get(path); at; at = at.prev) chain.push(at.pred);
  return chain.reverse();
}
