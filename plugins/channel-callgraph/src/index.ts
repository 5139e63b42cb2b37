/**
 * The call-graph channel: two agents editing functions near each other in the call graph.
 * Risk is γ^(d−1) in the call-graph distance d (direction-agnostic, caller ↔ callee) between a
 * function one agent edits and a function the other edits, capped at `maxDepth`; d = 0 (the same
 * function) counts as d = 1. One multi-source BFS per agent in `prepare`, over that agent's view of
 * the call graph (its own new calls included), so scoring a pair is a lookup.
 * File-level precision: a call chain alone raises at most a traffic advisory.
 */
import { defineChannel, type Agent, type CallStep, type Evidence, type SymbolService, type SymbolWrite } from '@airspace/core';

export interface CallGraphOptions {
  /** γ ∈ (0, 1): coupling lost per extra call. */
  readonly gamma: number;
  /** Calls followed at most. */
  readonly maxDepth: number;
}

export const DEFAULT_CALLGRAPH_OPTIONS: CallGraphOptions = { gamma: 0.5, maxDepth: 4 };

interface Reached {
  readonly depth: number;
  /** The step that reached this node, and the node it came from (undefined at a source). */
  readonly step?: CallStep;
  readonly from?: string;
}

interface AgentGraph {
  readonly edited: ReadonlyMap<string, { write: SymbolWrite; weight: number }>;
  readonly reached: ReadonlyMap<string, Reached>;
}

const FUNCTIONS = new Set(['function', 'method']);

function bfs(agent: Agent, service: SymbolService, sources: readonly string[], maxDepth: number): Map<string, Reached> {
  const reached = new Map<string, Reached>();
  let frontier: string[] = [];
  for (const s of sources) {
    if (!reached.has(s)) {
      reached.set(s, { depth: 0 });
      frontier.push(s);
    }
  }
  for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const node of frontier) {
      for (const step of service.callNeighbors(agent, node)) {
        if (reached.has(step.symbol)) continue;
        reached.set(step.symbol, { depth, step, from: node });
        next.push(step.symbol);
      }
    }
    frontier = next;
  }
  return reached;
}

const NAME = (symbol: string) => symbol.slice(symbol.lastIndexOf('#') + 1);

/** The chain from a source of the BFS to `target`, source first. */
function chainTo(reached: ReadonlyMap<string, Reached>, target: string): { symbols: string[]; steps: CallStep[] } {
  const symbols = [target];
  const steps: CallStep[] = [];
  for (let node = target, r = reached.get(node); r?.from !== undefined; node = r.from, r = reached.get(node)) {
    symbols.unshift(r.from);
    steps.unshift(r.step!);
  }
  return { symbols, steps };
}

export function callGraphChannel(options: Partial<CallGraphOptions> = {}) {
  const base: CallGraphOptions = { ...DEFAULT_CALLGRAPH_OPTIONS, ...options };
  return defineChannel<Partial<CallGraphOptions>, ReadonlyMap<string, AgentGraph>>({
    id: 'call-graph',
    defaultWeight: 0.6,
    meta: { description: 'γ^(d−1) in the call-graph distance between functions the two agents edit; evidence is the call chain.', precision: 'file' },
    defaultOptions: base,
    requires: ['symbols'],
    prepare(agents: readonly Agent[], ctx) {
      const o: CallGraphOptions = { ...base, ...(ctx.options as Partial<CallGraphOptions>) };
      const service = ctx.services['symbols'] as SymbolService;
      const graphs = new Map<string, AgentGraph>();
      for (const agent of agents) {
        try {
          const weights = new Map(agent.files.map((f) => [f.path, f.weight]));
          const edited = new Map<string, { write: SymbolWrite; weight: number }>();
          for (const w of service.writes(agent)) if (FUNCTIONS.has(w.kind)) edited.set(w.symbol, { write: w, weight: weights.get(w.path) ?? 1 });
          graphs.set(agent.id, { edited, reached: bfs(agent, service, [...edited.keys()], o.maxDepth) });
        } catch (error) {
          ctx.logger.warn(`call-graph: could not analyse ${agent.id}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      return graphs;
    },
    score(a, b, ctx) {
      const o: CallGraphOptions = { ...base, ...(ctx.options as Partial<CallGraphOptions>) };
      const ga = ctx.prepared.get(a.id);
      const gb = ctx.prepared.get(b.id);
      if (!ga || !gb) return { risk: 0, evidence: [] };
      let best: { risk: number; evidence: Evidence } | undefined;
      // From a's edited functions to b's (in a's view), and from b's to a's (in b's view).
      const look = (from: Agent, gf: AgentGraph, to: Agent, gt: AgentGraph, fromIsA: boolean) => {
        for (const [symbol, target] of gt.edited) {
          const r = gf.reached.get(symbol);
          if (!r) continue;
          const { symbols, steps } = chainTo(gf.reached, symbol);
          const source = gf.edited.get(symbols[0]!);
          if (!source) continue;
          const d = Math.max(1, r.depth);
          const risk = Math.pow(o.gamma, d - 1) * source.weight * target.weight;
          if (best && best.risk >= risk) continue;
          const hops = steps.map((s) => `${s.direction === 'calls' ? 'calls' : 'is called by'} ${NAME(s.symbol)} (${s.path}:${s.line})`).join(', which ');
          const message =
            r.depth === 0
              ? `${from.label} and ${to.label} both edit ${source.write.qualifiedName} (${source.write.path}).`
              : `${from.label} edits ${source.write.qualifiedName} (${source.write.path}), which ${hops}; ${to.label} edits ${target.write.qualifiedName} — ${r.depth} call${r.depth === 1 ? '' : 's'} apart.`;
          const fromSide = { agent: from.id, path: source.write.path, symbol: source.write.qualifiedName, ...(source.write.range ? { range: source.write.range } : {}) };
          const toSide = { agent: to.id, path: target.write.path, symbol: target.write.qualifiedName, ...(target.write.range ? { range: target.write.range } : {}) };
          best = {
            risk,
            evidence: { kind: 'call-chain', risk, message, chain: symbols.map(NAME), ...(fromIsA ? { a: fromSide, b: toSide } : { a: toSide, b: fromSide }) },
          };
        }
      };
      look(a, ga, b, gb, true);
      look(b, gb, a, ga, false);
      return best ? { risk: Math.min(1, best.risk), evidence: [best.evidence] } : { risk: 0, evidence: [] };
    },
  });
}

export default callGraphChannel;
