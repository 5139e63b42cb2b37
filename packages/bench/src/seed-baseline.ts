/**
 * BASELINE, not Airspace: the original design's algorithm (the plain equations 2–6 of docs/model.md), kept
 * only so the scan benchmark measures, in the same run and on the same agents, what the seed's way
 * of scoring costs. For every pair of agents and every pair of their touched files it runs one
 * breadth-first search between the two files over the undirected import graph (eq. 4:
 * γ^(d−1), 0 if unreachable) and compares every path pair for the tree channel (eq. 6) and every
 * shared file for overlap (eq. 3). The graph is held as integer adjacency lists, so what is
 * measured is the algorithm, not a slow data structure.
 */
import type { Agent } from '@airspace/core';
import type { GraphEdges } from './scan-graph.js';

export interface SeedPairScore {
  readonly a: string;
  readonly b: string;
  readonly overlap: number;
  readonly dependency: number;
  readonly tree: number;
  /** Noisy-OR (eq. 2) with the weights given. */
  readonly risk: number;
}

export function seedScan(
  agents: readonly Agent[],
  graph: GraphEdges,
  weights = { overlap: 1, dependency: 0.006, tree: 0.007 },
  gamma = 0.7,
): SeedPairScore[] {
  const id = new Map(graph.files.map((f, i) => [f, i]));
  const adjacency: number[][] = graph.files.map(() => []);
  for (const [from, to] of graph.edges) {
    const x = id.get(from);
    const y = id.get(to);
    if (x === undefined || y === undefined) continue;
    adjacency[x]!.push(y);
    adjacency[y]!.push(x);
  }
  const seen = new Int32Array(graph.files.length).fill(-1);
  const queue = new Int32Array(graph.files.length);
  let stamp = 0;
  /** Import distance between two files (one BFS from `from`, stopped when `to` is found), or Infinity. */
  const distance = (from: number, to: number): number => {
    if (from === to) return 0;
    stamp++;
    let head = 0;
    let tail = 0;
    queue[tail++] = from;
    seen[from] = stamp;
    let levelEnd = tail;
    let depth = 0;
    while (head < tail) {
      if (head === levelEnd) {
        depth++;
        levelEnd = tail;
      }
      const node = queue[head++]!;
      for (const n of adjacency[node]!) {
        if (seen[n] === stamp) continue;
        if (n === to) return depth + 1;
        seen[n] = stamp;
        queue[tail++] = n;
      }
    }
    return Infinity;
  };
  const out: SeedPairScore[] = [];
  for (let i = 0; i < agents.length; i++) {
    for (let j = i + 1; j < agents.length; j++) {
      const a = agents[i]!;
      const b = agents[j]!;
      let overlap = 0;
      let dependency = 0;
      let closest = 1;
      for (const f of a.files) {
        for (const g of b.files) {
          const w = f.weight * g.weight;
          if (f.path === g.path) overlap = Math.max(overlap, w * lineOverlap(f.baseRanges, g.baseRanges));
          const x = id.get(f.path);
          const y = id.get(g.path);
          if (x !== undefined && y !== undefined && x !== y) {
            const d = distance(x, y);
            if (d < Infinity) dependency = Math.max(dependency, w * Math.pow(gamma, d - 1));
          }
          closest = Math.min(closest, treeDistance(f.path, g.path));
        }
      }
      const tree = 1 - closest;
      const risk = 1 - (1 - weights.overlap * overlap) * (1 - weights.dependency * dependency) * (1 - weights.tree * tree);
      out.push({ a: a.id, b: b.id, overlap, dependency, tree, risk });
    }
  }
  return out;
}

type Ranges = Agent['files'][number]['baseRanges'];

function lineOverlap(x: Ranges, y: Ranges): number {
  if (x === 'whole' || y === 'whole') return 1;
  const size = (rs: readonly (readonly [number, number])[]) => rs.reduce((n, [s, e]) => n + Math.max(0, e - s + 1), 0);
  let shared = 0;
  for (const [s, e] of x) for (const [t, u] of y) shared += Math.max(0, Math.min(e, u) - Math.max(s, t) + 1);
  const least = Math.min(size(x), size(y));
  return least > 0 ? Math.min(1, shared / least) : 0;
}

function treeDistance(f: string, g: string): number {
  const x = f.split('/');
  const y = g.split('/');
  let shared = 0;
  while (shared < x.length && shared < y.length && x[shared] === y[shared]) shared++;
  return (x.length - shared + (y.length - shared)) / (x.length + y.length);
}
