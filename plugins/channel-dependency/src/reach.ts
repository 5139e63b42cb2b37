/**
 * Multi-source, depth-capped relaxation over an import graph: for every file within `maxDepth`
 * imports of an agent's files, the best `w_f · γ^(d−1) · Π k(e) · Π h(v)` over the agent's files f
 * and paths (k: the factor of each import edge's kind; h: the discount of each file passed
 * through, e.g. a hub), and that path. One run per agent and direction; scoring a pair is then a
 * lookup per file.
 *
 * Relaxation is by levels (d = 1, 2, …): a file is expanded again at a deeper level only when a
 * better value reaches it there, so with factors below 1 a longer path may win over a shorter one.
 *
 * The graph is numbered once per base graph (`GraphIndex`: compressed adjacency with each edge's
 * factor), so a run touches typed arrays, not strings. An agent whose view differs from the base
 * (its overlay: its changed files analysed in its own version) reads the files around its changed
 * files from its view (`SpecialNeighbours`) and everything else from the index.
 */

/** Neighbours of a file in one direction, with each step's factor. */
export interface Steps {
  readonly to: readonly number[];
  readonly factor: readonly number[];
}

/** File paths ⇄ numbers, shared by the indexes of one graph (new paths get the next number). */
export interface Numbering {
  readonly ids: Map<string, number>;
  readonly paths: string[];
}

/** The base graph in one direction, numbered: compressed adjacency and each file's pass-through factor. */
export interface GraphIndex {
  readonly num: Numbering;
  /** Files numbered from the base view (the compressed adjacency covers ids below this). */
  readonly baseCount: number;
  readonly start: Int32Array;
  readonly to: Int32Array;
  readonly factor: Float64Array;
  /** Factor of passing through each base file (1, or the hub discount). */
  readonly through: Float64Array;
}

export function idOf(num: Numbering, path: string): number {
  let id = num.ids.get(path);
  if (id === undefined) {
    id = num.paths.length;
    num.ids.set(path, id);
    num.paths.push(path);
  }
  return id;
}

/** Numbers `files` first (ids 0 … n−1, the base files). */
export function numbering(files: Iterable<string>): { num: Numbering; baseCount: number } {
  const num: Numbering = { ids: new Map(), paths: [] };
  for (const p of files) idOf(num, p);
  return { num, baseCount: num.paths.length };
}

/**
 * Stores, for each base file, its neighbours in order as `steps` gives them (the order decides
 * ties, as in a walk over the view itself) and the factor of passing through it.
 */
export function buildGraphIndex(
  num: Numbering,
  baseCount: number,
  steps: (path: string) => Steps | StepPaths,
  through: (path: string) => number,
): GraphIndex {
  const lists: Steps[] = [];
  let edges = 0;
  for (let i = 0; i < baseCount; i++) {
    const l = numbered(num, steps(num.paths[i]!));
    lists.push(l);
    edges += l.to.length;
  }
  const start = new Int32Array(baseCount + 1);
  const to = new Int32Array(edges);
  const factor = new Float64Array(edges);
  const pass = new Float64Array(baseCount);
  let k = 0;
  for (let i = 0; i < baseCount; i++) {
    start[i] = k;
    const l = lists[i]!;
    for (let e = 0; e < l.to.length; e++, k++) {
      to[k] = l.to[e]!;
      factor[k] = l.factor[e]!;
    }
    pass[i] = through(num.paths[i]!);
  }
  start[baseCount] = k;
  return { num, baseCount, start, to, factor, through: pass };
}

/** Neighbours by path, before numbering. */
export interface StepPaths {
  readonly paths: readonly string[];
  readonly factor: readonly number[];
}

export function numbered(num: Numbering, s: Steps | StepPaths): Steps {
  return 'paths' in s ? { to: s.paths.map((p) => idOf(num, p)), factor: s.factor } : s;
}

/** Neighbours of the files an agent's view gives differently from the index (undefined: the index's). */
export type SpecialNeighbours = (id: number) => Steps | undefined;

/**
 * One run's result. For each reached file (sorted by id): its best value; entry i is the best
 * entry of reached file i. Entries are kept only where a best path runs through them: a file and
 * a `link` — the predecessor's entry as it was when this path was found (a later, better path to
 * the predecessor does not change this entry's path), or `−source − 1` for a step from a source
 * (depth 1). Entries past the reached files (a superseded entry a best path still runs through)
 * name their file in `extra`. 16 bytes per reached file and 8 per extra entry, nothing per file
 * of the graph (a lookup is a binary search: a dense slot per file cost 40 KB per run on 10,000
 * files); depth, predecessor and source are read back along the links.
 */
export interface ReachLog {
  /** Reached files' ids, ascending (for inverted-index walks and lookups). */
  readonly reached: Int32Array;
  readonly value: Float64Array;
  /** Per entry (the reached files' best entries first). */
  readonly link: Int32Array;
  /** Files of the entries from `reached.length` on. */
  readonly extra: Int32Array;
}

class Grow {
  node = new Int32Array(4096);
  value = new Float64Array(4096);
  link = new Int32Array(4096);
  length = 0;
  push(node: number, value: number, link: number): number {
    if (this.length === this.node.length) {
      const n = this.length * 2;
      const node = new Int32Array(n);
      node.set(this.node);
      this.node = node;
      const value = new Float64Array(n);
      value.set(this.value);
      this.value = value;
      const l = new Int32Array(n);
      l.set(this.link);
      this.link = l;
    }
    const i = this.length++;
    this.node[i] = node;
    this.value[i] = value;
    this.link[i] = link;
    return i;
  }
}

const sharedLog = new Grow();

/** Best entry per file id during one run (−1: not reached); reset after each run. */
let scratch: Int32Array = new Int32Array(0);

function ensureScratch(size: number): void {
  if (scratch.length >= size) return;
  const next = new Int32Array(Math.max(size, scratch.length * 2)).fill(-1);
  next.set(scratch);
  scratch = next;
}

/** A growable list of frontier items: node, value, entry. */
class Frontier {
  node = new Int32Array(1024);
  value = new Float64Array(1024);
  entry = new Int32Array(1024);
  length = 0;
  push(node: number, value: number, entry: number): void {
    if (this.length === this.node.length) {
      const n = this.length * 2;
      const node2 = new Int32Array(n);
      node2.set(this.node);
      this.node = node2;
      const value2 = new Float64Array(n);
      value2.set(this.value);
      this.value = value2;
      const entry2 = new Int32Array(n);
      entry2.set(this.entry);
      this.entry = entry2;
    }
    const i = this.length++;
    this.node[i] = node;
    this.value[i] = value;
    this.entry[i] = entry;
  }
}

const renumbering = [new Int32Array(0), new Int32Array(0)];

/** Shared scratch array `which`, at least `size` long. */
function grownScratch(which: 0 | 1, size: number): Int32Array {
  if (renumbering[which]!.length < size) renumbering[which] = new Int32Array(Math.max(size, renumbering[which]!.length * 2));
  return renumbering[which]!;
}

/** The two frontiers every run uses (a run is synchronous), grown once. */
const sharedFrontiers = [new Frontier(), new Frontier()] as const;

/**
 * With `floor` > 0 a run keeps only values ≥ floor. Every factor is at most 1, so a value never
 * grows along a path: the entries ≥ floor (values, paths, the order they were made in) are then
 * exactly a full run's, and everything it leaves out is below the floor.
 */
export function reach(
  sources: readonly { id: number; weight: number }[],
  g: GraphIndex,
  gamma: number,
  maxDepth: number,
  special?: SpecialNeighbours,
  floor = 0,
): ReachLog {
  // `v < least` is `v <= 0` without a floor (every value is ≥ 0).
  const least = floor > 0 ? floor : Number.MIN_VALUE;
  ensureScratch(g.num.paths.length);
  // One growing log for every run (a run is synchronous): only what is kept is copied out.
  const log = sharedLog;
  log.length = 0;
  let touched = 0;
  let [frontier, next] = sharedFrontiers;
  frontier.length = 0;
  // Depth 1: direct neighbours of a source get its full weight (γ^0 = 1).
  for (const s of sources) frontier.push(s.id, s.weight / gamma, -1);
  const { start, to, factor, baseCount } = g;
  try {
    for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
      next.length = 0;
      for (let k = 0; k < frontier.length; k++) {
        const node = frontier.node[k]!;
        const own = special?.(node);
        // Beyond depth 1 the frontier's files are passed through on the way further (files new in
        // an agent's view are no hubs: hubs are counted in the base).
        const through = depth > 1 && node < baseCount ? g.through[node]! : 1;
        const value = frontier.value[k]! * gamma * through;
        if (value < least) continue;
        const entry = frontier.entry[k]!;
        // Two loops (the agent's own steps, or the index's) so each stays monomorphic.
        if (own) {
          const ownTo = own.to;
          const ownFactor = own.factor;
          for (let e = 0; e < ownTo.length; e++) {
            const n = ownTo[e]!;
            const v = value * ownFactor[e]!;
            if (v < least) continue;
            if (n >= scratch.length) ensureScratch(n + 1);
            const old = scratch[n]!;
            if (old >= 0 && log.value[old]! >= v) continue;
            if (old < 0) touched++;
            const made = log.push(n, v, entry >= 0 ? entry : -node - 1);
            scratch[n] = made;
            next.push(n, v, made);
          }
        } else if (node < baseCount) {
          const bestOf = scratch;
          for (let e = start[node]!, end = start[node + 1]!; e < end; e++) {
            const n = to[e]!;
            const v = value * factor[e]!;
            if (v < least) continue;
            const old = bestOf[n]!;
            if (old >= 0 && log.value[old]! >= v) continue;
            if (old < 0) touched++;
            const made = log.push(n, v, entry >= 0 ? entry : -node - 1);
            bestOf[n] = made;
            next.push(n, v, made);
          }
        }
      }
      [frontier, next] = [next, frontier];
    }
  } catch (e) {
    // A view that throws mid-walk: the shared best-entry scratch is cleared for the next run.
    for (let i = 0; i < log.length; i++) scratch[log.node[i]!] = -1;
    throw e;
  }
  // Sorted by id without a comparison sort: one pass over the ids (cheaper than sorting ~R log R).
  // Entries are renumbered: the best entry of reached file i becomes entry i, the other entries
  // a best path runs through follow in the order they were made; the rest are dropped.
  const reached = new Int32Array(touched);
  const value = new Float64Array(touched);
  // Scratch for the renumbering, grown once (a run's temporaries would otherwise be tens of KB
  // of array buffers per run, freed only when the collector runs).
  const bestRaw = grownScratch(0, touched);
  const keep = grownScratch(1, log.length).fill(-1, 0, log.length);
  let k = 0;
  const size = Math.min(scratch.length, g.num.paths.length);
  for (let id = 0; id < size && k < touched; id++) {
    const e = scratch[id]!;
    if (e < 0) continue;
    reached[k] = id;
    value[k] = log.value[e]!;
    bestRaw[k] = e;
    keep[e] = k++;
    scratch[id] = -1;
  }
  // Entries a best path runs through that are no file's best (−2 until numbered).
  for (let i = 0; i < touched; i++) {
    for (let e = log.link[bestRaw[i]!]!; e >= 0 && keep[e] === -1; e = log.link[e]!) keep[e] = -2;
  }
  let kept = touched;
  for (let e = 0; e < log.length; e++) if (keep[e] === -2) keep[e] = kept++;
  const extra = new Int32Array(kept - touched);
  const link = new Int32Array(kept);
  for (let e = 0; e < log.length; e++) {
    const at = keep[e]!;
    if (at < 0) continue;
    if (at >= touched) extra[at - touched] = log.node[e]!;
    const l = log.link[e]!;
    link[at] = l >= 0 ? keep[l]! : l;
  }
  return { reached, value, link, extra };
}

/** The index of file `id` among a run's reached files (its `value`, and its best entry), or −1. */
export function slotOf(r: ReachLog, id: number): number {
  const ids = r.reached;
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = ids[mid]!;
    if (at < id) lo = mid + 1;
    else if (at > id) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** The file (id) of an entry. */
function nodeOf(r: ReachLog, entry: number): number {
  const n = r.reached.length;
  return entry < n ? r.reached[entry]! : r.extra[entry - n]!;
}

/** Files of the best path from the source to the entry's file (inclusive). */
export function chainTo(r: ReachLog, entry: number, paths: readonly string[]): string[] {
  const chain = [paths[nodeOf(r, entry)]!];
  let at = entry;
  for (; r.link[at]! >= 0; at = r.link[at]!) chain.push(paths[nodeOf(r, r.link[at]!)]!);
  chain.push(paths[-r.link[at]! - 1]!);
  return chain.reverse();
}

/** The source file (id) of an entry's path. */
export function sourceOf(r: ReachLog, entry: number): number {
  let at = entry;
  while (r.link[at]! >= 0) at = r.link[at]!;
  return -r.link[at]! - 1;
}

/** The number of imports on an entry's path. */
export function depthOf(r: ReachLog, entry: number): number {
  let d = 1;
  for (let at = entry; r.link[at]! >= 0; at = r.link[at]!) d++;
  return d;
}
