/**
 * The dependency channel (model eqs. 4–5, docs/model.md) over the whole repository's import graph:
 *
 *   coupling(f, g) = γ^(d(f,g) − 1) · Π k(e) · Π h(v)   over the best directed import path f → g or g → f
 *   r_dep(a, b)    = max over f ∈ W_a, g ∈ W_b of  w_f · w_g · coupling(f, g)
 *
 * k(e) weighs each import by its kind (a type-only or `TYPE_CHECKING` import couples less than a
 * value import) and h(v) discounts a path through a hub file (very high fan-in or fan-out), so
 * that a shared types or context file does not put every file of a library near every other.
 *
 * Paths run through files neither agent touched. Each agent gets one multi-source relaxation per
 * direction over its view of the graph (its own imports count for it), made when a pair first
 * needs it and kept while its working set and view stay; a pair is scored by looking b's files up
 * in a's reach and a's files up in b's (`risk`), evidence built only for the items kept (`score`).
 */
import {
  defineChannel,
  IMPORT_EDGE_KINDS,
  workingSetKey,
  type Agent,
  type Evidence,
  type FileEdit,
  type ImportEdgeKind,
  type ImportGraphService,
  type ImportGraphView,
  type OptionsSchema,
  type Problem,
  editWeight,
} from '@airspace/core';
import {
  buildGraphIndex,
  chainTo,
  depthOf,
  slotOf,
  sourceOf,
  idOf,
  numbered,
  numbering,
  reach,
  type GraphIndex,
  type Numbering,
  type ReachLog,
  type SpecialNeighbours,
  type StepPaths,
  type Steps,
} from './reach.js';

// The import graph's contract (`ctx.services.importGraph`) is core's, as every service's.
export { IMPORT_EDGE_KINDS, type ImportEdgeKind, type ImportGraphService, type ImportGraphView } from '@airspace/core';

export interface DependencyOptions {
  /** γ ∈ (0, 1): coupling decay per extra import. */
  readonly gamma: number;
  /** Paths longer than this many imports are ignored. */
  readonly maxDepth: number;
  /** `directed`: a shortest path in either direction, never mixing; `undirected`: any mix of edges. */
  readonly direction: 'directed' | 'undirected';
  /** Also score files that both agents changed (default false: the overlap channel owns them). */
  readonly includeSharedFiles: boolean;
  /** At most this many evidence items per pair. */
  readonly maxEvidence: number;
  /**
   * Factor in [0, 1] of each import kind along a path; an edge made of several imports counts
   * with its strongest kind. Kinds left out keep their default.
   */
  readonly kindWeights: Readonly<Partial<Record<ImportEdgeKind, number>>>;
  /**
   * Hub files: a file whose number of importers (or of imports) is at least this quantile of the
   * repository's files, and at least `hubMinDegree`. 0.99: the top percentile.
   */
  readonly hubPercentile: number;
  /** A file with fewer importers and fewer imports than this is never a hub, however small the repository. */
  readonly hubMinDegree: number;
  /** Factor in [0, 1] of a path passing through a hub (1: no discount). A hub at either end is not discounted. */
  readonly hubFactor: number;
}

export const DEFAULT_KIND_WEIGHTS: Readonly<Record<ImportEdgeKind, number>> = {
  value: 1,
  're-export': 1,
  dynamic: 0.6,
  'type-only': 0.25,
  guarded: 0.25,
};

export const DEFAULT_DEPENDENCY_OPTIONS: DependencyOptions = {
  gamma: 0.7,
  maxDepth: 6,
  direction: 'directed',
  includeSharedFiles: false,
  maxEvidence: 3,
  kindWeights: DEFAULT_KIND_WEIGHTS,
  hubPercentile: 0.99,
  hubMinDegree: 20,
  hubFactor: 0.3,
};

/** Options as the channel uses them: every kind weighted. */
interface ResolvedOptions extends DependencyOptions {
  readonly kindWeights: Readonly<Record<ImportEdgeKind, number>>;
}

/** The rules `ctx.options` are checked against (core's `resolveOptions`): a bad value keeps its default, with a problem. */
export const DEPENDENCY_OPTIONS_SCHEMA: OptionsSchema<DependencyOptions> = {
  gamma: { type: 'number', above: 0, below: 1 },
  maxDepth: { type: 'number', integer: true, min: 1 },
  direction: { type: 'string', values: ['directed', 'undirected'] },
  includeSharedFiles: { type: 'boolean' },
  maxEvidence: { type: 'number', integer: true, min: 1 },
  kindWeights: { type: 'record', keys: IMPORT_EDGE_KINDS, value: { type: 'number', min: 0, max: 1 } },
  hubPercentile: { type: 'number', above: 0, max: 1 },
  hubMinDegree: { type: 'number', integer: true, min: 1 },
  hubFactor: { type: 'number', min: 0, max: 1 },
};

/** Options as the channel uses them: every kind weighted (the defaults weigh each, and options merge key by key). */
function resolved(options: DependencyOptions): ResolvedOptions {
  return { ...options, kindWeights: { ...DEFAULT_KIND_WEIGHTS, ...options.kindWeights } };
}

/** One agent's reach: built on first use (a pair that needs it), kept while its working set and view stay. */
interface AgentReach {
  readonly files: ReadonlyMap<string, FileEdit>;
  /** The agent's view of the graph (its reach is walked in it; evidence reads kinds from it). */
  readonly view: ImportGraphView;
  /** The agent's files that the graph numbers, with their ids. */
  readonly numbered: readonly { readonly id: number; readonly path: string; readonly edit: FileEdit }[];
  readonly key: string;
  readonly graph: PreparedGraph;
  /** From the agent's files along imports (what its files depend on); in `undirected`, along both. */
  forward?: ReachLog;
  /** From the agent's files against imports (what depends on its files); absent when undirected. */
  backward?: ReachLog;
  /** The runs hold every file whose value is at least this (0: every file reached). */
  floor?: number;
  failed?: Problem;
}

/** A hub file and its degrees. */
interface Hub {
  readonly importers: number;
  readonly imports: number;
}

/** The base graph numbered once (kept while the base view and the options that shape it stay). */
interface PreparedGraph {
  readonly base: ImportGraphView;
  readonly key: string;
  readonly num: Numbering;
  readonly hubs: ReadonlyMap<string, Hub>;
  readonly forward: GraphIndex;
  /** Against imports; the undirected index when `direction` is undirected. */
  readonly backward?: GraphIndex;
  readonly problems: readonly Problem[];
}

export interface DependencyPrepared {
  readonly agents: ReadonlyMap<string, AgentReach>;
  /** Hub files of the repository (the base view), by path. */
  readonly hubs: ReadonlyMap<string, Hub>;
  readonly options: ResolvedOptions;
  readonly problems: readonly Problem[];
}

const ID = 'dependency';

/** The factor of an edge made of imports of these kinds: its strongest kind's (unknown kinds and none count as value). */
function kindFactor(kinds: readonly string[], weights: Readonly<Record<ImportEdgeKind, number>>): number {
  if (kinds.length === 0) return weights.value;
  let best = 0;
  for (const k of kinds) best = Math.max(best, weights[k as ImportEdgeKind] ?? weights.value);
  return best;
}

/** The kind that gives an edge its factor (the strongest), for evidence. */
function strongestKind(kinds: readonly string[], weights: Readonly<Record<ImportEdgeKind, number>>): string {
  let best = 'value';
  let factor = -1;
  for (const k of kinds.length ? kinds : ['value']) {
    const f = weights[k as ImportEdgeKind] ?? weights.value;
    if (f > factor) [best, factor] = [k, f];
  }
  return best;
}

/** The q-quantile (nearest rank) of ascending `sorted`. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Infinity;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * Hub files of the repository: importers (or imports) at least the `hubPercentile` quantile
 * over all files and at least `hubMinDegree`. Counted in the base view, the repository every
 * agent started from.
 */
export function findHubs(
  view: ImportGraphView,
  o: Pick<DependencyOptions, 'hubPercentile' | 'hubMinDegree' | 'hubFactor'>,
): Map<string, Hub> {
  const hubs = new Map<string, Hub>();
  if (!view.filePaths || o.hubFactor >= 1) return hubs;
  const degrees: { path: string; importers: number; imports: number }[] = [];
  for (const path of view.filePaths())
    degrees.push({ path, importers: view.importersOf(path).length, imports: view.importsOf(path).length });
  const inCut = Math.max(
    o.hubMinDegree,
    quantile(
      degrees.map((d) => d.importers).sort((x, y) => x - y),
      o.hubPercentile,
    ),
  );
  const outCut = Math.max(
    o.hubMinDegree,
    quantile(
      degrees.map((d) => d.imports).sort((x, y) => x - y),
      o.hubPercentile,
    ),
  );
  for (const d of degrees)
    if (d.importers >= inCut || d.imports >= outCut) hubs.set(d.path, { importers: d.importers, imports: d.imports });
  return hubs;
}

/** A step's neighbours and factors in one of the walks, read from a view. */
function viewSteps(view: ImportGraphView, path: string, walk: 'forward' | 'backward' | 'undirected', o: ResolvedOptions): StepPaths {
  const kinds = (importer: string, imported: string) => kindFactor(view.importKinds?.(importer, imported) ?? [], o.kindWeights);
  if (walk === 'forward') {
    const paths = view.importsOf(path);
    return { paths, factor: paths.map((t) => kinds(path, t)) };
  }
  if (walk === 'backward') {
    const paths = view.importersOf(path);
    return { paths, factor: paths.map((i) => kinds(i, path)) };
  }
  const imports = view.importsOf(path);
  const paths = [...imports, ...view.importersOf(path)];
  return {
    paths,
    factor: paths.map((y) => Math.max(imports.includes(y) ? kinds(path, y) : 0, view.importsOf(y).includes(path) ? kinds(y, path) : 0)),
  };
}

/** Base graphs already numbered, by base view (a scanner keeps its base view while the base commit stays). */
const graphs = new WeakMap<object, PreparedGraph>();

function prepareGraph(base: ImportGraphView, o: ResolvedOptions): PreparedGraph {
  const key = JSON.stringify([o.direction, o.kindWeights, o.hubPercentile, o.hubMinDegree, o.hubFactor]);
  const known = graphs.get(base);
  if (known && known.key === key) return known;
  const problems: Problem[] = [];
  let hubs = new Map<string, Hub>();
  try {
    hubs = findHubs(base, o);
  } catch (e) {
    problems.push({
      code: 'GRAPH_FAILED',
      channel: ID,
      message: `Hub files could not be counted (no hub discount): ${e instanceof Error ? e.message : String(e)}`,
    });
  }
  const through = (p: string) => (hubs.has(p) ? o.hubFactor : 1);
  // Without a file list nothing is numbered up front: every agent reads its steps from its view.
  const { num, baseCount } = numbering(base.filePaths ? base.filePaths() : []);
  const walk = o.direction === 'undirected' ? 'undirected' : 'forward';
  const forward = buildGraphIndex(num, baseCount, (p) => viewSteps(base, p, walk, o), through);
  const backward =
    o.direction === 'undirected' ? undefined : buildGraphIndex(num, baseCount, (p) => viewSteps(base, p, 'backward', o), through);
  const prepared: PreparedGraph = { base, key, num, hubs, forward, ...(backward ? { backward } : {}), problems };
  graphs.set(base, prepared);
  return prepared;
}

/**
 * The files an agent's view may answer differently from the base: with an overlay's `changed`
 * set, those files and their neighbours in either view (an import from or to a changed file);
 * without one, every file.
 */
function specialOf(
  view: ImportGraphView,
  graph: PreparedGraph,
  walk: 'forward' | 'backward' | 'undirected',
  o: ResolvedOptions,
): SpecialNeighbours {
  const memo = new Map<number, Steps>();
  const steps = (id: number): Steps => {
    let s = memo.get(id);
    if (!s) memo.set(id, (s = numbered(graph.num, viewSteps(view, graph.num.paths[id]!, walk, o))));
    return s;
  };
  // Files the base's file list did not name (or every file, without one) are read from the view.
  const base = graph.forward.baseCount;
  if (view === graph.base) return (id) => (id >= base ? steps(id) : undefined);
  const changed = (view as { changed?: unknown }).changed;
  if (!(changed instanceof Set)) return steps;
  const around = new Set<number>();
  for (const c of changed as Set<string>) {
    if (typeof c !== 'string') continue;
    for (const p of [c, ...graph.base.importsOf(c), ...graph.base.importersOf(c), ...view.importsOf(c), ...view.importersOf(c)])
      around.add(idOf(graph.num, p));
  }
  return (id) => (around.has(id) || id >= base ? steps(id) : undefined);
}

/**
 * A pair is first scored on runs that keep only values of at least `FIRST_FLOOR`. A value never
 * grows along a path (every factor is at most 1), so such a run holds exactly the entries ≥ the
 * floor of a full run, with the same values, paths and order; a pair's risk (or its kept evidence)
 * found there at or above the floor is the full run's. A pair whose answer lies below it is
 * scored again on full runs. Pairs worth scoring share a path and reach each other strongly (at
 * 100 and 300 agents on the generated repository, ≤ 0.2% of them fall below 0.1), and a run cut
 * at 0.1 walks about a third as far.
 */
const FIRST_FLOOR = 0.1;

/** The first floor, or 0 when some factor exceeds 1 (options given in code are not range-checked). */
function firstFloor(o: ResolvedOptions): number {
  return o.gamma < 1 && o.hubFactor <= 1 && Object.values(o.kindWeights).every((w) => w <= 1) ? FIRST_FLOOR : 0;
}

/** The agent's runs, made on first use, holding at least every value ≥ `floor` (0: full). */
function runsOf(r: AgentReach, o: ResolvedOptions, floor: number): { forward?: ReachLog; backward?: ReachLog } {
  if (r.failed || (r.forward && r.floor! <= floor)) return r;
  try {
    const sources = r.numbered.map((f) => ({ id: f.id, weight: editWeight(f.edit) }));
    const g = r.graph;
    if (o.direction === 'undirected') {
      r.forward = reach(sources, g.forward, o.gamma, o.maxDepth, specialOf(r.view, g, 'undirected', o), floor);
    } else {
      r.forward = reach(sources, g.forward, o.gamma, o.maxDepth, specialOf(r.view, g, 'forward', o), floor);
      r.backward = reach(sources, g.backward!, o.gamma, o.maxDepth, specialOf(r.view, g, 'backward', o), floor);
    }
    r.floor = floor;
  } catch (e) {
    r.failed = {
      code: 'GRAPH_FAILED',
      channel: ID,
      message: `Import graph of an agent could not be walked: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
  return r;
}

/** One way a file of `to` lies in the reach of `from` (before any evidence text is built). */
interface Hit {
  readonly risk: number;
  readonly swap: boolean;
  readonly path: string;
  readonly backward: boolean;
  readonly entry: number;
  readonly log: ReachLog;
  readonly from: Agent;
  readonly to: Agent;
  readonly fromReach: AgentReach;
}

/** The strongest `value · w` over files of `to` in `from`'s reach: `risk` without building hits. */
function strongest(fromReach: AgentReach, toReach: AgentReach, o: ResolvedOptions, floor: number): number {
  const runs = runsOf(fromReach, o, floor);
  let risk = 0;
  for (const log of [runs.forward, runs.backward]) {
    if (!log) continue;
    const { value } = log;
    for (const f of toReach.numbered) {
      const k = slotOf(log, f.id);
      if (k < 0) continue;
      if (!o.includeSharedFiles && fromReach.files.has(f.path)) continue;
      const r = value[k]! * editWeight(f.edit);
      if (r > risk) risk = r;
    }
  }
  return risk;
}

/** A pair's hits, gathered without objects (a pair may have hundreds; `maxEvidence` are kept). */
class HitBuffer {
  risk = new Float64Array(256);
  entry = new Int32Array(256);
  /** Index of the file in the other agent's `numbered`. */
  file = new Int32Array(256);
  /** Which run: 0, 1 (a's forward, backward), 2, 3 (b's). */
  run = new Int32Array(256);
  /** Imports on the hit's path, −1 until needed (only ties in risk need it). */
  depth = new Int32Array(256);
  taken = new Uint8Array(256);
  length = 0;
  push(risk: number, entry: number, file: number, run: number): void {
    if (this.length === this.risk.length) {
      const n = this.length * 2;
      const grow = <T extends Float64Array | Int32Array | Uint8Array>(old: T, made: T): T => (made.set(old), made);
      this.risk = grow(this.risk, new Float64Array(n));
      this.entry = grow(this.entry, new Int32Array(n));
      this.file = grow(this.file, new Int32Array(n));
      this.run = grow(this.run, new Int32Array(n));
      this.depth = grow(this.depth, new Int32Array(n));
      this.taken = grow(this.taken, new Uint8Array(n));
    }
    const i = this.length++;
    this.risk[i] = risk;
    this.entry[i] = entry;
    this.file[i] = file;
    this.run[i] = run;
    this.depth[i] = -1;
    this.taken[i] = 0;
  }
}

/** One buffer for every pair (scoring a pair is synchronous). */
const hits = new HitBuffer();

/**
 * Every file of `to` in `from`'s reach (forward, then backward), in the order evidence was always
 * ranked, into `hits` (runs numbered from `base`).
 */
function gatherHits(
  fromReach: AgentReach,
  toReach: AgentReach,
  forward: ReachLog | undefined,
  backward: ReachLog | undefined,
  base: number,
  o: ResolvedOptions,
): void {
  const numbered = toReach.numbered;
  for (let fi = 0; fi < numbered.length; fi++) {
    const f = numbered[fi]!;
    if (!o.includeSharedFiles && fromReach.files.has(f.path)) continue;
    for (let d = 0; d < 2; d++) {
      const log = d === 0 ? forward : backward;
      if (!log) continue;
      const slot = slotOf(log, f.id);
      if (slot < 0) continue;
      const risk = log.value[slot]! * editWeight(f.edit);
      if (risk <= 0) continue;
      hits.push(risk, slot, fi, base + d);
    }
  }
}

export function dependencyChannel() {
  /** Each agent's runs, kept between scans by this channel object (see `prepare`). */
  const reaches = new Map<string, AgentReach>();
  return defineChannel({
    id: ID,
    // Fitted on six public histories (docs/evaluation.md, "Shipped defaults"): import reach alone
    // foretold almost no textual conflict, so its evidence is shown but hardly weighs.
    defaultWeight: 0.006,
    meta: {
      description:
        'Import-graph coupling γ^(d−1) between the files two agents change, through any files of the repository, weighed by import kind; paths through hub files discounted.',
      precision: 'file',
      docs: 'plugins/channel-dependency/README.md',
    },
    defaultOptions: DEFAULT_DEPENDENCY_OPTIONS,
    optionsSchema: DEPENDENCY_OPTIONS_SCHEMA,
    requires: ['importGraph'],
    prepare(agents, ctx): DependencyPrepared {
      return prepareReaches(agents, resolved(ctx.options), ctx.services.importGraph, reaches);
    },
    candidates(agents, ctx, only) {
      return candidatePairs(agents, ctx.prepared, only);
    },
    risk(a, b, ctx) {
      const prepared = ctx.prepared;
      const ra = prepared?.agents.get(a.id);
      const rb = prepared?.agents.get(b.id);
      const problems = reachProblems(prepared, ra, rb);
      if (!ra || !rb) return { risk: 0, problems: problems.length ? problems : [notPrepared(ra ? b : a)] };
      const o = prepared.options;
      const first = firstFloor(o);
      let risk = Math.max(strongest(ra, rb, o, first), strongest(rb, ra, o, first));
      if (risk < first) risk = Math.max(strongest(ra, rb, o, 0), strongest(rb, ra, o, 0));
      return { risk: Math.min(1, risk), ...(problems.length ? { problems } : {}) };
    },
    score(a, b, ctx) {
      const prepared = ctx.prepared;
      const ra = prepared?.agents.get(a.id);
      const rb = prepared?.agents.get(b.id);
      if (!ra || !rb) {
        const problems = reachProblems(prepared, ra, rb);
        return { risk: 0, evidence: [], problems: problems.length ? problems : [notPrepared(ra ? b : a)] };
      }
      const o = prepared.options;
      // Exact on cut runs when every kept item is at or above the floor and none is missing
      // (a hit the cut runs lack is below the floor, so it sorts after all of them).
      const first = firstFloor(o);
      let picked = pickHits(a, b, ra, rb, o, first);
      if (first > 0 && (picked.kept.length < Math.max(1, o.maxEvidence) || picked.kept[picked.kept.length - 1]!.risk < first))
        picked = pickHits(a, b, ra, rb, o, 0);
      // After the walks: a walk that failed leaves its problem on its reach.
      const problems = reachProblems(prepared, ra, rb);
      const { count, kept } = picked;
      if (count === 0) return problems.length ? { risk: 0, evidence: [], problems } : { risk: 0, evidence: [] };
      const evidence = kept.map((h) => hitEvidence(h, ra.graph.num.paths, prepared.hubs, o));
      const risk = Math.min(1, kept[0]!.risk);
      return { risk, evidence, ...(problems.length ? { problems } : {}) };
    },
  });
}

/** The problems a pair carries: the preparation's and each side's failed walk. */
function reachProblems(prepared: DependencyPrepared | undefined, ra: AgentReach | undefined, rb: AgentReach | undefined): Problem[] {
  return [...(prepared?.problems ?? []), ...(ra?.failed ? [ra.failed] : []), ...(rb?.failed ? [rb.failed] : [])];
}

const notPrepared = (agent: Agent): Problem => ({ code: 'NOT_PREPARED', channel: ID, message: `No import reach for ${agent.id}.` });

/**
 * The base graph prepared once, and each agent's reach (kept in `reaches` while the agent's
 * working set, its view and the base graph stay; dropped for agents no longer scanned).
 */
function prepareReaches(
  agents: readonly Agent[],
  o: ResolvedOptions,
  service: ImportGraphService,
  reaches: Map<string, AgentReach>,
): DependencyPrepared {
  const problems: Problem[] = [];
  const out = new Map<string, AgentReach>();
  let graph: PreparedGraph;
  try {
    graph = prepareGraph(service.base, o);
  } catch (e) {
    problems.push({
      code: 'GRAPH_FAILED',
      channel: ID,
      message: `The import graph could not be read: ${e instanceof Error ? e.message : String(e)}`,
    });
    return { agents: out, hubs: new Map(), options: o, problems };
  }
  problems.push(...graph.problems);
  for (const agent of agents) {
    try {
      const view = service.forAgent(agent.id);
      const key = workingSetKey(agent);
      const known = reaches.get(agent.id);
      // An agent's runs are kept while its working set, its view and the base graph stay.
      if (known && known.key === key && known.view === view && known.graph === graph) {
        out.set(agent.id, known);
        continue;
      }
      const files = new Map(agent.files.map((f) => [f.path, f]));
      const numbered = [...files.values()].map((edit) => ({ id: idOf(graph.num, edit.path), path: edit.path, edit }));
      const r: AgentReach = { files, view, numbered, key, graph };
      reaches.set(agent.id, r);
      out.set(agent.id, r);
    } catch (e) {
      problems.push({
        code: 'GRAPH_FAILED',
        channel: ID,
        agent: agent.id,
        message: `Import graph of ${agent.id} could not be walked: ${e instanceof Error ? e.message : String(e)}`,
      });
    }
  }
  for (const id of reaches.keys()) if (!out.has(id)) reaches.delete(id);
  return { agents: out, hubs: graph.hubs, options: o, problems };
}

/**
 * The pairs worth scoring, through an inverted index: file id → the agents that change it; each
 * agent's reach is looked up in it once, so a pair that reaches nothing of the other is never
 * named. With `only`, just the pairs with one of those agents.
 */
function candidatePairs(agents: readonly Agent[], prepared: DependencyPrepared, only: ReadonlySet<string> | undefined): [string, string][] {
  const o = prepared.options;
  const byFile = new Map<number, AgentReach[]>();
  const index = (r: AgentReach) => {
    for (const f of r.numbered) (byFile.get(f.id) ?? byFile.set(f.id, []).get(f.id)!).push(r);
  };
  const all = agents.map((a) => prepared.agents.get(a.id)).filter((r): r is AgentReach => r !== undefined);
  const idOfReach = new Map(agents.map((a) => [prepared.agents.get(a.id), a.id] as const));
  const named = (ids: ReadonlySet<string> | undefined) => all.filter((r) => !ids || ids.has(idOfReach.get(r)!));
  const pairs = new Set<string>();
  const out: [string, string][] = [];
  const look = (froms: readonly AgentReach[]) => {
    for (const r of froms) {
      const runs = runsOf(r, o, 0);
      const me = idOfReach.get(r)!;
      for (const log of [runs.forward, runs.backward]) {
        if (!log) continue;
        for (let k = 0; k < log.reached.length; k++) {
          const others = byFile.get(log.reached[k]!);
          if (!others) continue;
          for (const other of others) {
            if (other === r) continue;
            const you = idOfReach.get(other)!;
            const key = me < you ? `${me}\u0000${you}` : `${you}\u0000${me}`;
            if (pairs.has(key)) continue;
            pairs.add(key);
            out.push([me, you]);
          }
        }
      }
    }
  };
  if (!only) {
    for (const r of all) index(r);
    look(all);
  } else {
    // Pairs with a changed agent: its reach against everyone's files, everyone's reach against its files.
    for (const r of all) index(r);
    look(named(only));
    byFile.clear();
    for (const r of named(only)) index(r);
    look(all);
  }
  return out;
}

/**
 * The kept hits: strongest first, shorter chains first (a chain of d imports has d + 1 files),
 * then in gathering order; one item per pair of files; at most maxEvidence items, chains at most
 * maxDepth imports long. Picked one by one (as a stable sort by that order would give them)
 * without sorting every hit.
 */
function pickHits(a: Agent, b: Agent, ra: AgentReach, rb: AgentReach, o: ResolvedOptions, floor: number): { count: number; kept: Hit[] } {
  const kept: Hit[] = [];
  const runsA = runsOf(ra, o, floor);
  const runsB = runsOf(rb, o, floor);
  const logs = [runsA.forward, runsA.backward, runsB.forward, runsB.backward] as const;
  hits.length = 0;
  gatherHits(ra, rb, logs[0], logs[1], 0, o);
  gatherHits(rb, ra, logs[2], logs[3], 2, o);
  const n = hits.length;
  const depth = (i: number) => (hits.depth[i]! >= 0 ? hits.depth[i]! : (hits.depth[i] = depthOf(logs[hits.run[i]!]!, hits.entry[i]!)));
  const seen = new Set<string>();
  const limit = Math.max(1, o.maxEvidence);
  while (kept.length < limit) {
    let best = -1;
    for (let i = 0; i < n; i++) {
      if (hits.taken[i]) continue;
      if (best < 0 || hits.risk[i]! > hits.risk[best]! || (hits.risk[i] === hits.risk[best] && depth(i) < depth(best))) best = i;
    }
    if (best < 0) break;
    hits.taken[best] = 1;
    const run = hits.run[best]!;
    const swap = run >= 2;
    const [from, to, fromReach, toReach] = swap ? [b, a, rb, ra] : [a, b, ra, rb];
    const log = logs[run]!;
    const entry = hits.entry[best]!;
    const path = toReach.numbered[hits.file[best]!]!.path;
    const fromFile = ra.graph.num.paths[sourceOf(log, entry)]!;
    const key = swap ? `${path}|${fromFile}` : `${fromFile}|${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push({ risk: hits.risk[best]!, swap, path, backward: run % 2 === 1, entry, log, from, to, fromReach });
  }
  return { count: n, kept };
}

/** `x → y (type-only) → z`: each file after an import that is not a plain value import names its kind. */
function describeChain(view: ImportGraphView, chain: readonly string[], o: ResolvedOptions): { text: string; kinds: string[] } {
  const parts = [chain[0]!];
  const kindsOf: string[] = [];
  for (let i = 1; i < chain.length; i++) {
    const [x, y] = [chain[i - 1]!, chain[i]!];
    const kinds = view.importKinds?.(x, y) ?? [];
    const kind = strongestKind(kinds.length || o.direction === 'directed' ? kinds : (view.importKinds?.(y, x) ?? []), o.kindWeights);
    kindsOf.push(kind);
    parts.push(kind === 'value' ? y : `${y} (${kind})`);
  }
  return { text: parts.join(' → '), kinds: kindsOf };
}

/** A sentence per hub the chain passes through (its ends excepted). */
function hubNote(chain: readonly string[], hubs: ReadonlyMap<string, Hub>, o: ResolvedOptions): string {
  const passed = chain.slice(1, -1).filter((p) => hubs.has(p));
  return passed
    .map((p) => {
      const h = hubs.get(p)!;
      return ` ${p} is a hub (${h.importers} importers, ${h.imports} imports): the path through it is discounted ×${o.hubFactor}.`;
    })
    .join('');
}

/** The evidence of one hit: built only for the hits that are kept. */
function hitEvidence(h: Hit, paths: readonly string[], hubs: ReadonlyMap<string, Hub>, o: ResolvedOptions): Evidence {
  const walk = chainTo(h.log, h.entry, paths); // from's file … to's file
  // Chains are reported in import direction (importer first).
  const chain = h.backward ? [...walk].reverse() : walk;
  const d = chain.length - 1;
  const fromFile = paths[sourceOf(h.log, h.entry)]!;
  const importer = !h.backward ? `${h.from.id}'s ${fromFile}` : `${h.to.id}'s ${h.path}`;
  const imported = !h.backward ? `${h.to.id}'s ${h.path}` : `${h.from.id}'s ${fromFile}`;
  const { text, kinds } = describeChain(h.fromReach.view, chain, o);
  const how = d === 1 ? 'imports' : `reaches through ${d} imports`;
  const detail = d > 1 ? ` (${text})` : kinds[0] && kinds[0] !== 'value' ? ` (${kinds[0]})` : '';
  const sideFrom = { agent: h.from.id, path: fromFile };
  const sideTo = { agent: h.to.id, path: h.path };
  return {
    message: `${importer} ${how} ${imported}${detail}.${hubNote(chain, hubs, o)}`,
    kind: d === 1 ? 'direct-import' : 'import-chain',
    risk: h.risk,
    chain,
    a: h.swap ? sideTo : sideFrom,
    b: h.swap ? sideFrom : sideTo,
    confidence: 'high',
  };
}

export const dependency = dependencyChannel();
/** @public What a config naming this package as a plugin loads (`docs/plugins.md`). */
export default dependency;
