/**
 * The tree channel: model eq. 6 (docs/model.md), a soft prior for files that sit close in the directory tree.
 *
 *   treeDistance(f, g) = ((depth_f − L) + (depth_g − L)) / (depth_f + depth_g)
 *   r_tree             = max over f ∈ a, g ∈ b of  w_f · w_g · (1 − treeDistance(f, g))
 *
 * where depth is the number of path segments (`src/a.ts` has depth 2) and L the number of
 * leading segments f and g share (so the same file has distance 0, two files in one directory
 * `src/` have 0.5, files with no common directory have 1). The recency weights w_f, w_g make a
 * stale file count less, as in the other channels (model eqs. 3, 5).
 *
 * `prepare` builds one trie per agent, keeping at each directory the heaviest file per depth
 * below it, so a pair costs O(|files of a| · depth · distinct depths), not O(|a| · |b|).
 *
 * Sparsity: any two agents whose files share a top directory score above 0, so this channel names
 * no candidate pairs (no `candidates` hook) — it is dense. With its weight (0.007) it is a *light*
 * channel for the scan: scored on every pair another channel names, while a pair that only light
 * channels could score is left out as clear (its combined risk is at most 1 − Π(1 − ω) over the
 * light channels, below τ_TA; `docs/plugins.md`). That bound is the floor below which its risk is
 * treated as 0, and it cannot change any level.
 */
import { defineChannel, workingSetKey, type Agent, type FileEdit, type OptionsSchema, editWeight } from '@airspace/core';

export interface TreeOptions {
  /** Ignore pairs whose best closeness (1 − treeDistance) is below this (noise floor). Default 0. */
  readonly minCloseness: number;
}

export const DEFAULT_TREE_OPTIONS: TreeOptions = { minCloseness: 0 };

export const TREE_OPTIONS_SCHEMA: OptionsSchema<TreeOptions> = { minCloseness: { type: 'number', min: 0, max: 1 } };

interface Best {
  readonly weight: number;
  readonly path: string;
}

interface TrieNode {
  readonly children: Map<string, TrieNode>;
  /** Per depth of the files below this node, the heaviest such file (a short array, not a Map: iterating it allocates nothing). */
  readonly below: BestAtDepth[];
}

interface BestAtDepth {
  readonly depth: number;
  best: Best;
}

const newNode = (): TrieNode => ({ children: new Map(), below: [] });

function segments(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0 && s !== '.');
}

export function buildTrie(files: readonly FileEdit[]): TrieNode {
  const root = newNode();
  for (const f of files) {
    const parts = segments(f.path);
    const depth = parts.length;
    if (depth === 0) continue;
    const best = { weight: editWeight(f), path: f.path };
    let node = root;
    const keep = (n: TrieNode): void => {
      const slot = n.below.find((b) => b.depth === depth);
      if (!slot) n.below.push({ depth, best });
      else if (best.weight > slot.best.weight || (best.weight === slot.best.weight && best.path < slot.best.path)) slot.best = best;
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

/** 1 − treeDistance, exactly as model eq. 6. */
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
  readonly name: string;
  readonly weight: number;
}

/** An agent's files of one directory: they share every level of the walk but the last. */
interface DirectoryGroup {
  readonly dir: readonly string[];
  /** The heaviest file of the directory stands for all of them above the file level. */
  readonly heaviest: SplitFile;
  readonly files: readonly SplitFile[];
}

interface PreparedAgent {
  readonly trie: TrieNode;
  readonly groups: readonly DirectoryGroup[];
}

function prepareAgent(agent: Agent): PreparedAgent {
  const byDir = new Map<string, { dir: string[]; files: SplitFile[] }>();
  for (const f of agent.files) {
    const parts = segments(f.path);
    if (parts.length === 0) continue;
    const dir = parts.slice(0, -1);
    const key = dir.join('/');
    let group = byDir.get(key);
    if (!group) byDir.set(key, (group = { dir, files: [] }));
    group.files.push({ path: f.path, name: parts[parts.length - 1]!, weight: editWeight(f) });
  }
  const groups = [...byDir.values()].map(({ dir, files }) => ({
    dir,
    files,
    heaviest: files.reduce((x, y) => (y.weight > x.weight || (y.weight === x.weight && y.path < x.path) ? y : x)),
  }));
  return { trie: buildTrie(agent.files), groups };
}

/**
 * The closest (weighted) pair of paths between a's files and b's trie. At shared depth L, every
 * file g below the trie node shares at least L segments with f; the exact value for g is reached
 * at its deepest shared node, so the maximum over levels is exact. Above the file level all files
 * of one directory walk the same nodes, so only the heaviest of them is tried there.
 */
function closest(groups: readonly DirectoryGroup[], trieB: TrieNode): Closest | undefined {
  let bestScore = -1;
  let bestCloseness = 0;
  let bestA = '';
  let bestB = '';
  const consider = (f: SplitFile, depthF: number, L: number, node: TrieNode): void => {
    for (let k = 0; k < node.below.length; k++) {
      const { depth, best: g } = node.below[k]!;
      const closeness = (2 * L) / (depthF + depth);
      const score = f.weight * g.weight * closeness;
      if (score > bestScore || (score === bestScore && (f.path < bestA || (f.path === bestA && g.path < bestB)))) {
        bestScore = score;
        bestCloseness = closeness;
        bestA = f.path;
        bestB = g.path;
      }
    }
  };
  for (const group of groups) {
    const depthF = group.dir.length + 1;
    let node: TrieNode | undefined = trieB;
    for (let L = 1; L <= group.dir.length; L++) {
      node = node.children.get(group.dir[L - 1]!);
      if (!node) break;
      consider(group.heaviest, depthF, L, node);
    }
    if (!node) continue;
    for (const f of group.files) {
      const leaf = node.children.get(f.name);
      if (leaf) consider(f, depthF, depthF, leaf);
    }
  }
  return bestScore < 0 ? undefined : { score: bestScore, closeness: bestCloseness, a: bestA, b: bestB };
}

/** The longest directory prefix of two paths (no trailing slash), without splitting them. */
function commonDirectory(a: string, b: string): string {
  let i = 0;
  let lastSlash = -1;
  while (i < a.length && i < b.length && a[i] === b[i]) {
    if (a[i] === '/') lastSlash = i;
    i++;
  }
  return lastSlash < 0 ? '' : a.slice(0, lastSlash);
}

export function treeChannel() {
  const kept = new Map<string, { key: string; prepared: PreparedAgent }>();
  return defineChannel({
    id: 'tree',
    // Fitted on six public histories (docs/evaluation.md, "Shipped defaults"): nearness in the tree
    // alone foretold almost no textual conflict.
    defaultWeight: 0.007,
    meta: { description: 'Files two agents touch that sit close in the directory tree (model eq. 6): a soft prior.', precision: 'file' },
    defaultOptions: DEFAULT_TREE_OPTIONS,
    optionsSchema: TREE_OPTIONS_SCHEMA,
    prepare(agents: readonly Agent[]): ReadonlyMap<string, PreparedAgent> {
      // An agent's trie is kept while its working set stays (a rescan rebuilds only the changed agents').
      const out = new Map<string, PreparedAgent>();
      for (const agent of agents) {
        const key = workingSetKey(agent);
        let known = kept.get(agent.id);
        if (known?.key !== key) kept.set(agent.id, (known = { key, prepared: prepareAgent(agent) }));
        out.set(agent.id, known.prepared);
      }
      for (const id of kept.keys()) if (!out.has(id)) kept.delete(id);
      return out;
    },
    score(a, b, ctx) {
      const opts = ctx.options;
      // Search from the agent with fewer files into the other's trie; the result is symmetric.
      const [from, to] = a.files.length <= b.files.length ? [a, b] : [b, a];
      const source = ctx.prepared?.get(from.id) ?? prepareAgent(from);
      const target = ctx.prepared?.get(to.id) ?? prepareAgent(to);
      const hit = closest(source.groups, target.trie);
      if (!hit || hit.score <= 0 || hit.closeness < opts.minCloseness) return { risk: 0, evidence: [] };
      const [pathA, pathB] = from === a ? [hit.a, hit.b] : [hit.b, hit.a];
      const shared = commonDirectory(pathA, pathB);
      const what = pathA === pathB ? `both touch ${pathA}` : `${a.id}'s ${pathA} and ${b.id}'s ${pathB} share the directory ${shared}/`;
      return {
        risk: hit.score,
        evidence: [
          {
            kind: 'tree',
            risk: hit.score,
            a: { agent: a.id, path: pathA },
            b: { agent: b.id, path: pathB },
            message: `${what} (tree distance ${(1 - hit.closeness).toFixed(2)}).`,
          },
        ],
      };
    },
  });
}

export default treeChannel();
