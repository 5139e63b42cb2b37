/**
 * The tree channel: seed eq. 6, a soft prior for files that sit close in the directory tree.
 *
 *   treeDistance(f, g) = ((depth_f − L) + (depth_g − L)) / (depth_f + depth_g)
 *   r_tree             = max over f ∈ a, g ∈ b of  w_f · w_g · (1 − treeDistance(f, g))
 *
 * where depth is the number of path segments (`src/a.ts` has depth 2) and L the number of
 * leading segments f and g share (so the same file has distance 0, two files in one directory
 * `src/` have 0.5, files with no common directory have 1). The recency weights w_f, w_g make a
 * stale file count less, as in the other channels (seed eqs. 3, 5).
 *
 * `prepare` builds one trie per agent, keeping at each directory the heaviest file per depth
 * below it, so a pair costs O(|files of a| · depth · distinct depths), not O(|a| · |b|).
 */
import { defineChannel, type Agent, type FileEdit } from '@airspace/core';

export interface TreeOptions {
  /** Ignore pairs whose best closeness (1 − treeDistance) is below this (noise floor). Default 0. */
  readonly minCloseness: number;
}

export const DEFAULT_TREE_OPTIONS: TreeOptions = { minCloseness: 0 };

interface Best {
  readonly weight: number;
  readonly path: string;
}

interface TrieNode {
  readonly children: Map<string, TrieNode>;
  /** depth of a file below this node → the heaviest such file. */
  readonly below: Map<number, Best>;
}

const newNode = (): TrieNode => ({ children: new Map(), below: new Map() });

function segments(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0 && s !== '.');
}

function weightOf(f: FileEdit): number {
  return Number.isFinite(f.weight) ? Math.min(1, Math.max(0, f.weight)) : 1;
}

export function buildTrie(files: readonly FileEdit[]): TrieNode {
  const root = newNode();
  for (const f of files) {
    const parts = segments(f.path);
    const depth = parts.length;
    if (depth === 0) continue;
    const best = { weight: weightOf(f), path: f.path };
    let node = root;
    const keep = (n: TrieNode): void => {
      const current = n.below.get(depth);
      if (!current || best.weight > current.weight || (best.weight === current.weight && best.path < current.path)) n.below.set(depth, best);
    };
    keep(node);
    for (const part of parts) {
      let next = node.children.get(part);
      if (!next) node.children.set(part, (next = newNode()));
      node = next;
      keep(node);
    }
  }
  return root;
}

/** 1 − treeDistance, exactly as seed eq. 6. */
export function treeCloseness(f: string, g: string): number {
  const x = segments(f);
  const y = segments(g);
  if (x.length + y.length === 0) return 0;
  let shared = 0;
  while (shared < x.length && shared < y.length && x[shared] === y[shared]) shared++;
  return (2 * shared) / (x.length + y.length);
}

interface Closest {
  readonly score: number;
  readonly closeness: number;
  readonly a: string;
  readonly b: string;
}

interface SplitFile {
  readonly path: string;
  readonly parts: readonly string[];
  readonly weight: number;
}

interface PreparedAgent {
  readonly trie: TrieNode;
  readonly files: readonly SplitFile[];
}

function prepareAgent(agent: Agent): PreparedAgent {
  return { trie: buildTrie(agent.files), files: agent.files.map((f) => ({ path: f.path, parts: segments(f.path), weight: weightOf(f) })) };
}

/** The closest (weighted) pair of paths between a's files and b's trie. */
function closest(filesA: readonly SplitFile[], trieB: TrieNode): Closest | undefined {
  let best: Closest | undefined;
  for (const f of filesA) {
    const parts = f.parts;
    const wf = f.weight;
    let node = trieB;
    // At shared depth L, every file g below the node shares at least L segments with f; the exact
    // value for g is reached at its deepest shared node, so the maximum over levels is exact.
    for (let L = 1; L <= parts.length; L++) {
      const next = node.children.get(parts[L - 1]!);
      if (!next) break;
      node = next;
      for (const [depth, g] of node.below) {
        const closeness = (2 * L) / (parts.length + depth);
        const score = wf * g.weight * closeness;
        if (!best || score > best.score || (score === best.score && (f.path < best.a || (f.path === best.a && g.path < best.b)))) {
          best = { score, closeness, a: f.path, b: g.path };
        }
      }
    }
  }
  return best;
}

function commonDirectory(a: string, b: string): string {
  const x = segments(a);
  const y = segments(b);
  const out: string[] = [];
  for (let i = 0; i < Math.min(x.length, y.length) && x[i] === y[i]; i++) out.push(x[i]!);
  return out.join('/');
}

export function treeChannel(options: Partial<TreeOptions> = {}) {
  return defineChannel<TreeOptions, ReadonlyMap<string, PreparedAgent>>({
    id: 'tree',
    defaultWeight: 0.25,
    meta: { description: 'Files two agents touch that sit close in the directory tree (seed eq. 6): a soft prior.', precision: 'file' },
    defaultOptions: { ...DEFAULT_TREE_OPTIONS, ...options },
    prepare(agents: readonly Agent[]) {
      return new Map(agents.map((agent) => [agent.id, prepareAgent(agent)]));
    },
    score(a, b, ctx) {
      const opts: TreeOptions = { ...DEFAULT_TREE_OPTIONS, ...(ctx.options ?? {}) };
      // Search from the agent with fewer files into the other's trie; the result is symmetric.
      const [from, to] = a.files.length <= b.files.length ? [a, b] : [b, a];
      const source = ctx.prepared?.get(from.id) ?? prepareAgent(from);
      const target = ctx.prepared?.get(to.id) ?? prepareAgent(to);
      const hit = closest(source.files, target.trie);
      if (!hit || hit.score <= 0 || hit.closeness < opts.minCloseness) return { risk: 0, evidence: [] };
      const [pathA, pathB] = from === a ? [hit.a, hit.b] : [hit.b, hit.a];
      const shared = commonDirectory(pathA, pathB);
      const what = pathA === pathB ? `both touch ${pathA}` : `${a.id}'s ${pathA} and ${b.id}'s ${pathB} share the directory ${shared}/`;
      return {
        risk: hit.score,
        evidence: [{
          kind: 'tree',
          risk: hit.score,
          a: { agent: a.id, path: pathA },
          b: { agent: b.id, path: pathB },
          message: `${what} (tree distance ${(1 - hit.closeness).toFixed(2)}).`,
        }],
      };
    },
  });
}

export default treeChannel();
