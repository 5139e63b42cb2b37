/**
 * Multi-source, depth-capped relaxation over an import graph: for every file within `maxDepth`
 * imports of an agent's files, the best `w_f · γ^(d−1)` over the agent's files f, and the path.
 * One run per agent and direction in `prepare`; scoring a pair is then a lookup per file.
 */

export interface Neighbours {
  (path: string): readonly string[];
}

export interface ReachEntry {
  /** max over sources of w_f · γ^(d−1). */
  readonly value: number;
  readonly depth: number;
  /** The previous file on the best path, undefined at depth 1 from the source. */
  readonly pred: string;
  readonly source: string;
}

export type Reach = ReadonlyMap<string, ReachEntry>;

export function reach(sources: readonly { path: string; weight: number }[], next: Neighbours, gamma: number, maxDepth: number): Reach {
  const best = new Map<string, ReachEntry>();
  let frontier: { path: string; value: number; source: string }[] = [];
  // Depth 1: direct neighbours of a source get its full weight (γ^0 = 1).
  for (const s of sources) frontier.push({ path: s.path, value: s.weight / gamma, source: s.path });
  for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
    const nextFrontier: { path: string; value: number; source: string }[] = [];
    for (const node of frontier) {
      const value = node.value * gamma;
      if (value <= 0) continue;
      for (const n of next(node.path)) {
        const old = best.get(n);
        if (old && old.value >= value) continue;
        best.set(n, { value, depth, pred: node.path, source: node.source });
        nextFrontier.push({ path: n, value, source: node.source });
      }
    }
    frontier = nextFrontier;
  }
  return best;
}

/** Files from the source to `path` (inclusive), following predecessors. */
export function chainTo(r: Reach, path: string): string[] {
  const chain = [path];
  const seen = new Set(chain);
  let at = r.get(path);
  while (at) {
    chain.push(at.pred);
    if (at.pred === at.source || seen.has(at.pred)) break;
    seen.add(at.pred);
    at = r.get(at.pred);
  }
  return chain.reverse();
}
