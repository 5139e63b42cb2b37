/**
 * The dependency channel (seed eqs. 4–5) over the whole repository's import graph:
 *
 *   coupling(f, g) = γ^(d(f,g) − 1) · Π k(e) · Π h(v)   over the best directed import path f → g or g → f
 *   r_dep(a, b)    = max over f ∈ W_a, g ∈ W_b of  w_f · w_g · coupling(f, g)
 *
 * k(e) weighs each import by its kind (a type-only or `TYPE_CHECKING` import couples less than a
 * value import) and h(v) discounts a path through a hub file (very high fan-in or fan-out), so
 * that a shared types or context file does not put every file of a library near every other.
 *
 * Paths run through files neither agent touched. `prepare` runs one multi-source relaxation per
 * agent and direction over that agent's view of the graph (its own imports count for it); a pair
 * is scored by looking b's files up in a's reach and a's files up in b's.
 */
import { defineChannel, missingService, type Agent, type Evidence, type FileEdit, type Problem } from '@airspace/core';
import { chainTo, reach, type Reach } from './reach.js';

/** What an import means for coupling, as `@airspace/analysis` derives it from the import's syntax. */
export type ImportEdgeKind = 'value' | 'type-only' | 'guarded' | 'dynamic' | 're-export';

export const IMPORT_EDGE_KINDS: readonly ImportEdgeKind[] = ['value', 'type-only', 'guarded', 'dynamic', 're-export'];

/** What the channel reads from `ctx.services.importGraph` (structural; `@airspace/analysis` provides it). */
export interface ImportGraphView {
  importsOf(path: string): readonly string[];
  importersOf(path: string): readonly string[];
  /** Kinds of the imports from `importer` to `imported`; without it (or empty) an import counts as `value`. */
  importKinds?(importer: string, imported: string): readonly string[];
  /** Every file of the graph; without it no file counts as a hub. */
  filePaths?(): Iterable<string>;
}

/** Per-agent views; agents without an overlay see `base`. */
export interface ImportGraphService {
  readonly base: ImportGraphView;
  forAgent(agentId: string): ImportGraphView;
}

/** A graphology directed graph is accepted as is (edge attribute `edgeKinds`, when present, gives the kinds). */
interface GraphologyLike {
  hasNode(node: string): boolean;
  outNeighbors(node: string): string[];
  inNeighbors(node: string): string[];
  nodes?(): string[];
  hasEdge?(source: string, target: string): boolean;
  getEdgeAttributes?(source: string, target: string): { edgeKinds?: unknown };
}

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

/**
 * Checks options (from a config file: anything may come in). Each bad value is a problem naming
 * it and falls back to its default; the channel goes on.
 */
export function resolveDependencyOptions(raw: unknown, defaults: DependencyOptions = DEFAULT_DEPENDENCY_OPTIONS): { options: ResolvedOptions; problems: Problem[] } {
  const problems: Problem[] = [];
  const given = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  if (raw !== undefined && raw !== null && typeof raw !== 'object') problems.push(invalidOption('options', raw, 'an object'));
  const pick = <T>(key: keyof DependencyOptions, ok: (v: unknown) => boolean, expected: string): T => {
    const v = given[key];
    if (v === undefined) return defaults[key] as T;
    if (ok(v)) return v as T;
    problems.push(invalidOption(key, v, expected));
    return defaults[key] as T;
  };
  const unit = (v: unknown) => typeof v === 'number' && v >= 0 && v <= 1;
  const kindWeights: Record<ImportEdgeKind, number> = { ...DEFAULT_KIND_WEIGHTS, ...defaults.kindWeights };
  const kw = given['kindWeights'];
  if (kw !== undefined) {
    if (!kw || typeof kw !== 'object' || Array.isArray(kw)) problems.push(invalidOption('kindWeights', kw, `an object of ${IMPORT_EDGE_KINDS.join(', ')} → number in [0, 1]`));
    else
      for (const [k, v] of Object.entries(kw as Record<string, unknown>)) {
        if (!(IMPORT_EDGE_KINDS as readonly string[]).includes(k)) problems.push(invalidOption(`kindWeights.${k}`, v, `one of the kinds ${IMPORT_EDGE_KINDS.join(', ')}`));
        else if (!unit(v)) problems.push(invalidOption(`kindWeights.${k}`, v, 'a number in [0, 1]'));
        else kindWeights[k as ImportEdgeKind] = v as number;
      }
  }
  const options: ResolvedOptions = {
    gamma: pick('gamma', (v) => typeof v === 'number' && v > 0 && v < 1, 'a number in (0, 1)'),
    maxDepth: pick('maxDepth', (v) => Number.isInteger(v) && (v as number) >= 1, 'an integer ≥ 1'),
    direction: pick('direction', (v) => v === 'directed' || v === 'undirected', '"directed" or "undirected"'),
    includeSharedFiles: pick('includeSharedFiles', (v) => typeof v === 'boolean', 'true or false'),
    maxEvidence: pick('maxEvidence', (v) => Number.isInteger(v) && (v as number) >= 1, 'an integer ≥ 1'),
    kindWeights,
    hubPercentile: pick('hubPercentile', (v) => typeof v === 'number' && v > 0 && v <= 1, 'a number in (0, 1]'),
    hubMinDegree: pick('hubMinDegree', (v) => Number.isInteger(v) && (v as number) >= 1, 'an integer ≥ 1'),
    hubFactor: pick('hubFactor', unit, 'a number in [0, 1]'),
  };
  return { options, problems };
}

function invalidOption(key: string, value: unknown, expected: string): Problem {
  return { code: 'INVALID_OPTION', channel: ID, message: `Option ${key} of the dependency channel is ${JSON.stringify(value) ?? String(value)}, not ${expected}; its default is used.` };
}

interface AgentReach {
  readonly files: ReadonlyMap<string, FileEdit>;
  /** The agent's view of the graph (its reach was walked in it; evidence reads kinds from it). */
  readonly view: ImportGraphView;
  /** From the agent's files along imports (what its files depend on). */
  readonly forward: Reach;
  /** From the agent's files against imports (what depends on its files); empty when undirected. */
  readonly backward: Reach;
}

/** A hub file and its degrees. */
interface Hub {
  readonly importers: number;
  readonly imports: number;
}

export interface DependencyPrepared {
  readonly agents: ReadonlyMap<string, AgentReach>;
  /** Hub files of the repository (the base view), by path. */
  readonly hubs: ReadonlyMap<string, Hub>;
  readonly options: ResolvedOptions;
  readonly problems: readonly Problem[];
}

const ID = 'dependency';

export function toImportGraphService(value: unknown): ImportGraphService | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Partial<ImportGraphService & ImportGraphView & GraphologyLike>;
  if (typeof v.forAgent === 'function' && v.base) return v as ImportGraphService;
  if (typeof v.importsOf === 'function' && typeof v.importersOf === 'function') {
    const view = v as ImportGraphView;
    return { base: view, forAgent: () => view };
  }
  if (typeof v.outNeighbors === 'function' && typeof v.inNeighbors === 'function' && typeof v.hasNode === 'function') {
    const g = v as GraphologyLike;
    const view: ImportGraphView = {
      importsOf: (p) => (g.hasNode(p) ? g.outNeighbors(p) : []),
      importersOf: (p) => (g.hasNode(p) ? g.inNeighbors(p) : []),
      importKinds(from, to) {
        if (!g.hasEdge?.(from, to) || !g.getEdgeAttributes) return [];
        const kinds = g.getEdgeAttributes(from, to).edgeKinds;
        return Array.isArray(kinds) ? kinds.filter((k): k is string => typeof k === 'string') : [];
      },
      ...(typeof g.nodes === 'function' ? { filePaths: () => g.nodes!() } : {}),
    };
    return { base: view, forAgent: () => view };
  }
  return undefined;
}

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
export function findHubs(view: ImportGraphView, o: Pick<DependencyOptions, 'hubPercentile' | 'hubMinDegree' | 'hubFactor'>): Map<string, Hub> {
  const hubs = new Map<string, Hub>();
  if (!view.filePaths || o.hubFactor >= 1) return hubs;
  const degrees: { path: string; importers: number; imports: number }[] = [];
  for (const path of view.filePaths()) degrees.push({ path, importers: view.importersOf(path).length, imports: view.importsOf(path).length });
  const inCut = Math.max(o.hubMinDegree, quantile(degrees.map((d) => d.importers).sort((x, y) => x - y), o.hubPercentile));
  const outCut = Math.max(o.hubMinDegree, quantile(degrees.map((d) => d.imports).sort((x, y) => x - y), o.hubPercentile));
  for (const d of degrees) if (d.importers >= inCut || d.imports >= outCut) hubs.set(d.path, { importers: d.importers, imports: d.imports });
  return hubs;
}

function weightOf(f: FileEdit): number {
  return Number.isFinite(f.weight) ? Math.min(1, Math.max(0, f.weight)) : 1;
}

export function dependencyChannel(options: Partial<DependencyOptions> = {}) {
  const defaults: DependencyOptions = { ...DEFAULT_DEPENDENCY_OPTIONS, ...options, kindWeights: { ...DEFAULT_KIND_WEIGHTS, ...(options.kindWeights ?? {}) } };
  return defineChannel<DependencyOptions, DependencyPrepared>({
    id: ID,
    // Fitted on six public histories (docs/evaluation.md, "Shipped defaults"): import reach alone
    // foretold almost no textual conflict, so its evidence is shown but hardly weighs.
    defaultWeight: 0.006,
    meta: {
      description: 'Import-graph coupling γ^(d−1) between the files two agents change, through any files of the repository, weighed by import kind; paths through hub files discounted.',
      precision: 'file',
      docs: 'plugins/channel-dependency/README.md',
    },
    defaultOptions: defaults,
    requires: ['importGraph'],
    prepare(agents, ctx) {
      const { options: o, problems } = resolveDependencyOptions(ctx.options, defaults);
      const service = toImportGraphService(ctx.services.importGraph);
      const out = new Map<string, AgentReach>();
      if (!service) {
        problems.push(missingService(ID, 'importGraph'));
        return { agents: out, hubs: new Map(), options: o, problems };
      }
      let hubs = new Map<string, Hub>();
      try {
        hubs = findHubs(service.base, o);
      } catch (e) {
        problems.push({ code: 'GRAPH_FAILED', channel: ID, message: `Hub files could not be counted (no hub discount): ${e instanceof Error ? e.message : String(e)}` });
      }
      const through = hubs.size > 0 ? (p: string) => (hubs.has(p) ? o.hubFactor : 1) : undefined;
      for (const agent of agents) {
        const view = service.forAgent(agent.id);
        const files = new Map(agent.files.map((f) => [f.path, f]));
        const sources = agent.files.map((f) => ({ path: f.path, weight: weightOf(f) }));
        const kinds = (importer: string, imported: string) => kindFactor(view.importKinds?.(importer, imported) ?? [], o.kindWeights);
        try {
          if (o.direction === 'undirected') {
            const both = (p: string) => [...view.importsOf(p), ...view.importersOf(p)];
            const edge = (x: string, y: string) => Math.max(view.importsOf(x).includes(y) ? kinds(x, y) : 0, view.importsOf(y).includes(x) ? kinds(y, x) : 0);
            out.set(agent.id, { files, view, forward: reach(sources, both, o.gamma, o.maxDepth, { edge, ...(through ? { through } : {}) }), backward: new Map() });
          } else {
            out.set(agent.id, {
              files,
              view,
              forward: reach(sources, (p) => view.importsOf(p), o.gamma, o.maxDepth, { edge: kinds, ...(through ? { through } : {}) }),
              backward: reach(sources, (p) => view.importersOf(p), o.gamma, o.maxDepth, { edge: (imported, importer) => kinds(importer, imported), ...(through ? { through } : {}) }),
            });
          }
        } catch (e) {
          problems.push({ code: 'GRAPH_FAILED', channel: ID, agent: agent.id, message: `Import graph of ${agent.id} could not be walked: ${e instanceof Error ? e.message : String(e)}` });
        }
      }
      return { agents: out, hubs, options: o, problems };
    },
    score(a, b, ctx) {
      const prepared = ctx.prepared;
      const o = prepared?.options ?? resolveDependencyOptions(ctx.options, defaults).options;
      const ra = prepared?.agents.get(a.id);
      const rb = prepared?.agents.get(b.id);
      const problems = prepared?.problems ?? [];
      if (!ra || !rb) return { risk: 0, evidence: [], problems: problems.length ? problems : [{ code: 'NOT_PREPARED', channel: ID, message: `No import reach for ${ra ? b.id : a.id}.` }] };
      const hubs = prepared.hubs;

      /** `x → y (type-only) → z`: each file after an import that is not a plain value import names its kind. */
      const describe = (view: ImportGraphView, chain: readonly string[]) => {
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
      };
      const hubNote = (chain: readonly string[]) => {
        const passed = chain.slice(1, -1).filter((p) => hubs.has(p));
        return passed
          .map((p) => {
            const h = hubs.get(p)!;
            return ` ${p} is a hub (${h.importers} importers, ${h.imports} imports): the path through it is discounted ×${o.hubFactor}.`;
          })
          .join('');
      };

      const found: Evidence[] = [];
      const consider = (from: Agent, fromReach: AgentReach, to: Agent, toReach: AgentReach, swap: boolean) => {
        for (const [path, edit] of toReach.files) {
          if (!o.includeSharedFiles && fromReach.files.has(path)) continue;
          for (const [mapName, map] of [['forward', fromReach.forward], ['backward', fromReach.backward]] as const) {
            const entry = map.get(path);
            if (!entry) continue;
            const risk = entry.value * weightOf(edit);
            if (risk <= 0) continue;
            const walk = chainTo(map, path); // from's file … to's file
            // Chains are reported in import direction (importer first).
            const chain = mapName === 'forward' ? walk : [...walk].reverse();
            const d = chain.length - 1;
            const fromFile = entry.source;
            const importer = mapName === 'forward' ? `${from.id}'s ${fromFile}` : `${to.id}'s ${path}`;
            const imported = mapName === 'forward' ? `${to.id}'s ${path}` : `${from.id}'s ${fromFile}`;
            const { text, kinds } = describe(fromReach.view, chain);
            const how = d === 1 ? 'imports' : `reaches through ${d} imports`;
            const detail = d > 1 ? ` (${text})` : kinds[0] && kinds[0] !== 'value' ? ` (${kinds[0]})` : '';
            const sideFrom = { agent: from.id, path: fromFile };
            const sideTo = { agent: to.id, path };
            found.push({
              message: `${importer} ${how} ${imported}${detail}.${hubNote(chain)}`,
              kind: d === 1 ? 'direct-import' : 'import-chain',
              risk,
              chain,
              a: swap ? sideTo : sideFrom,
              b: swap ? sideFrom : sideTo,
              confidence: 'high',
            });
          }
        }
      };
      consider(a, ra, b, rb, false);
      consider(b, rb, a, ra, true);
      if (found.length === 0) return problems.length ? { risk: 0, evidence: [], problems } : { risk: 0, evidence: [] };
      found.sort((x, y) => (y.risk ?? 0) - (x.risk ?? 0) || (x.chain?.length ?? 0) - (y.chain?.length ?? 0));
      const seen = new Set<string>();
      const evidence = found.filter((e) => {
        const key = `${e.a?.path}|${e.b?.path}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      const risk = Math.min(1, evidence[0]!.risk ?? 0);
      return { risk, evidence: evidence.slice(0, Math.max(1, o.maxEvidence)), ...(problems.length ? { problems } : {}) };
    },
  });
}

export const dependency = dependencyChannel();
export default dependency;
