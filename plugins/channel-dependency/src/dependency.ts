/**
 * The dependency channel (seed eqs. 4–5) over the whole repository's import graph:
 *
 *   coupling(f, g) = γ^(d(f,g) − 1),  d = shortest directed import path from f to g or from g to f
 *   r_dep(a, b)    = max over f ∈ W_a, g ∈ W_b of  w_f · w_g · coupling(f, g)
 *
 * Paths run through files neither agent touched. `prepare` runs one multi-source relaxation per
 * agent and direction over that agent's view of the graph (its own imports count for it); a pair
 * is scored by looking b's files up in a's reach and a's files up in b's.
 */
import { defineChannel, missingService, type Agent, type Evidence, type FileEdit, type Problem } from '@airspace/core';
import { chainTo, reach, type Reach } from './reach.js';

/** What the channel reads from `ctx.services.importGraph` (structural; `@airspace/analysis` provides it). */
export interface ImportGraphView {
  importsOf(path: string): readonly string[];
  importersOf(path: string): readonly string[];
}

/** Per-agent views; agents without an overlay see `base`. */
export interface ImportGraphService {
  readonly base: ImportGraphView;
  forAgent(agentId: string): ImportGraphView;
}

/** A graphology directed graph is accepted as is. */
interface GraphologyLike {
  hasNode(node: string): boolean;
  outNeighbors(node: string): string[];
  inNeighbors(node: string): string[];
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
}

export const DEFAULT_DEPENDENCY_OPTIONS: DependencyOptions = {
  gamma: 0.7,
  maxDepth: 6,
  direction: 'directed',
  includeSharedFiles: false,
  maxEvidence: 3,
};

interface AgentReach {
  readonly files: ReadonlyMap<string, FileEdit>;
  /** From the agent's files along imports (what its files depend on). */
  readonly forward: Reach;
  /** From the agent's files against imports (what depends on its files); empty when undirected. */
  readonly backward: Reach;
}

export interface DependencyPrepared {
  readonly agents: ReadonlyMap<string, AgentReach>;
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
    };
    return { base: view, forAgent: () => view };
  }
  return undefined;
}

function weightOf(f: FileEdit): number {
  return Number.isFinite(f.weight) ? Math.min(1, Math.max(0, f.weight)) : 1;
}

export function dependencyChannel(options: Partial<DependencyOptions> = {}) {
  const defaults: DependencyOptions = { ...DEFAULT_DEPENDENCY_OPTIONS, ...options };
  return defineChannel<DependencyOptions, DependencyPrepared>({
    id: ID,
    defaultWeight: 0.9,
    meta: {
      description: 'Import-graph coupling γ^(d−1) between the files two agents change, through any files of the repository.',
      precision: 'file',
      docs: 'plugins/channel-dependency/README.md',
    },
    defaultOptions: defaults,
    requires: ['importGraph'],
    prepare(agents, ctx) {
      const o: DependencyOptions = { ...defaults, ...(ctx.options ?? {}) };
      const service = toImportGraphService(ctx.services.importGraph);
      const problems: Problem[] = [];
      const out = new Map<string, AgentReach>();
      if (!service) {
        problems.push(missingService(ID, 'importGraph'));
        return { agents: out, problems };
      }
      const gamma = Math.min(0.999, Math.max(0.001, o.gamma));
      for (const agent of agents) {
        const view = service.forAgent(agent.id);
        const files = new Map(agent.files.map((f) => [f.path, f]));
        const sources = agent.files.map((f) => ({ path: f.path, weight: weightOf(f) }));
        try {
          if (o.direction === 'undirected') {
            const both = (p: string) => [...view.importsOf(p), ...view.importersOf(p)];
            out.set(agent.id, { files, forward: reach(sources, both, gamma, o.maxDepth), backward: new Map() });
          } else {
            out.set(agent.id, {
              files,
              forward: reach(sources, (p) => view.importsOf(p), gamma, o.maxDepth),
              backward: reach(sources, (p) => view.importersOf(p), gamma, o.maxDepth),
            });
          }
        } catch (e) {
          problems.push({ code: 'GRAPH_FAILED', channel: ID, agent: agent.id, message: `Import graph of ${agent.id} could not be walked: ${e instanceof Error ? e.message : String(e)}` });
        }
      }
      return { agents: out, problems };
    },
    score(a, b, ctx) {
      const o: DependencyOptions = { ...defaults, ...(ctx.options ?? {}) };
      const prepared = ctx.prepared;
      const ra = prepared?.agents.get(a.id);
      const rb = prepared?.agents.get(b.id);
      const problems = prepared?.problems ?? [];
      if (!ra || !rb) return { risk: 0, evidence: [], problems: problems.length ? problems : [{ code: 'NOT_PREPARED', channel: ID, message: `No import reach for ${ra ? b.id : a.id}.` }] };

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
            const d = entry.depth;
            const fromFile = entry.source;
            const importer = mapName === 'forward' ? `${from.id}'s ${fromFile}` : `${to.id}'s ${path}`;
            const imported = mapName === 'forward' ? `${to.id}'s ${path}` : `${from.id}'s ${fromFile}`;
            const how = d === 1 ? 'imports' : `reaches through ${d} imports`;
            const sideFrom = { agent: from.id, path: fromFile };
            const sideTo = { agent: to.id, path };
            found.push({
              message: `${importer} ${how} ${imported}${d > 1 ? ` (${chain.join(' → ')})` : ''}.`,
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
