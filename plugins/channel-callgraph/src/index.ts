/**
 * The call-graph channel: two agents editing functions linked by a chain of calls. Risk is
 * γ^(d−1) in the length d of a call chain that leaves one agent's edited function and reaches the
 * other's along calls only (f calls … calls g, in either agent's view), capped at `maxDepth`;
 * d = 0 (the same function) counts as d = 1. Never "both call X": two functions linked only
 * because both call one helper (an error class, `isPlainObject`) are not near — a chain may not
 * turn from callee to caller. One BFS per agent and direction in `prepare`, over that agent's
 * view of the call graph (its own new calls included), so scoring a pair is a lookup.
 * File-level precision: a call chain alone raises at most a traffic advisory.
 */
import {
  displayName,
  defineChannel,
  type Agent,
  type CallStep,
  type Evidence,
  type OptionsSchema,
  type SymbolService,
  type SymbolWrite,
} from '@airspace/core';

export interface CallGraphOptions {
  /** γ ∈ (0, 1): coupling lost per extra call. */
  readonly gamma: number;
  /** Calls followed at most. */
  readonly maxDepth: number;
}

export const DEFAULT_CALLGRAPH_OPTIONS: CallGraphOptions = { gamma: 0.5, maxDepth: 4 };

export const CALLGRAPH_OPTIONS_SCHEMA: OptionsSchema<CallGraphOptions> = {
  gamma: { type: 'number', above: 0, below: 1 },
  maxDepth: { type: 'number', integer: true, min: 1 },
};

interface Reached {
  readonly depth: number;
  /** The step that reached this node, and the node it came from (undefined at a source). */
  readonly step?: CallStep;
  readonly from?: string;
}

interface AgentGraph {
  readonly edited: ReadonlyMap<string, { write: SymbolWrite; weight: number }>;
  /** Functions the edited ones call, directly or through calls (`calls` steps only). */
  readonly callees: ReadonlyMap<string, Reached>;
  /** Functions that call the edited ones, directly or through calls (`called-by` steps only). */
  readonly callers: ReadonlyMap<string, Reached>;
}

const FUNCTIONS = new Set(['function', 'method']);

/** Breadth-first along steps of one direction only, so every chain found is a chain of calls. */
function bfs(
  agent: Agent,
  service: SymbolService,
  sources: readonly string[],
  maxDepth: number,
  direction: CallStep['direction'],
): Map<string, Reached> {
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
        if (step.direction !== direction || reached.has(step.symbol)) continue;
        reached.set(step.symbol, { depth, step, from: node });
        next.push(step.symbol);
      }
    }
    frontier = next;
  }
  return reached;
}

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

/** What an agent does to an edited function, naming both names of a rename (docs/channels.md, "Renames"). */
const edits = (w: SymbolWrite): string =>
  w.renamedTo ? `renames ${w.qualifiedName} → ${w.renamedTo.qualifiedName}` : `edits ${w.qualifiedName}`;

export function callGraphChannel() {
  return defineChannel({
    id: 'call-graph',
    // Fitted on six public histories (docs/evaluation.md, "Shipped defaults"): call chains between
    // changed functions foretold no textual conflict there; evidence is shown, it does not weigh.
    defaultWeight: 0,
    meta: {
      description: 'γ^(d−1) in the call-graph distance between functions the two agents edit; evidence is the call chain.',
      precision: 'file',
    },
    defaultOptions: DEFAULT_CALLGRAPH_OPTIONS,
    optionsSchema: CALLGRAPH_OPTIONS_SCHEMA,
    requires: ['symbols'],
    prepare(agents: readonly Agent[], ctx): ReadonlyMap<string, AgentGraph> {
      const o = ctx.options;
      const service = ctx.services.symbols;
      const graphs = new Map<string, AgentGraph>();
      for (const agent of agents) {
        try {
          const weights = new Map(agent.files.map((f) => [f.path, f.weight]));
          const edited = new Map<string, { write: SymbolWrite; weight: number }>();
          for (const w of service.writes(agent))
            if (FUNCTIONS.has(w.kind)) edited.set(w.symbol, { write: w, weight: weights.get(w.path) ?? 1 });
          const sources = [...edited.keys()];
          graphs.set(agent.id, {
            edited,
            callees: bfs(agent, service, sources, o.maxDepth, 'calls'),
            callers: bfs(agent, service, sources, o.maxDepth, 'called-by'),
          });
        } catch (error) {
          ctx.logger.warn(`call-graph: could not analyse ${agent.id}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      return graphs;
    },
    score(a, b, ctx) {
      const o = ctx.options;
      const ga = ctx.prepared.get(a.id);
      const gb = ctx.prepared.get(b.id);
      if (!ga || !gb) return { risk: 0, evidence: [] };
      let best: { risk: number; evidence: Evidence } | undefined;
      // From a's edited functions to b's (in a's view), and from b's to a's (in b's view), each
      // along calls (a's function calls … b's) and against them (b's function calls … a's).
      const look = (from: Agent, gf: AgentGraph, to: Agent, gt: AgentGraph, fromIsA: boolean, reached: ReadonlyMap<string, Reached>) => {
        for (const [symbol, target] of gt.edited) {
          const r = reached.get(symbol);
          if (!r) continue;
          const { symbols, steps } = chainTo(reached, symbol);
          const source = gf.edited.get(symbols[0]!);
          if (!source) continue;
          const d = Math.max(1, r.depth);
          const risk = Math.pow(o.gamma, d - 1) * source.weight * target.weight;
          if (best && best.risk >= risk) continue;
          const hops = steps
            .map((s) => `${s.direction === 'calls' ? 'calls' : 'is called by'} ${displayName(s.symbol)} (${s.path}:${s.line})`)
            .join(', which ');
          const renamed = source.write.renamedTo || target.write.renamedTo;
          const message =
            r.depth === 0 && !renamed
              ? `${from.label} and ${to.label} both edit ${source.write.qualifiedName} (${source.write.path}).`
              : r.depth === 0
                ? `${from.label} ${edits(source.write)} and ${to.label} ${edits(target.write)} (${source.write.path}).`
                : `${from.label} ${edits(source.write)} (${source.write.path}), which ${hops}; ${to.label} ${edits(target.write)} — ${r.depth} call${r.depth === 1 ? '' : 's'} apart.`;
          const fromSide = {
            agent: from.id,
            path: source.write.path,
            symbol: source.write.qualifiedName,
            ...(source.write.range ? { range: source.write.range } : {}),
          };
          const toSide = {
            agent: to.id,
            path: target.write.path,
            symbol: target.write.qualifiedName,
            ...(target.write.range ? { range: target.write.range } : {}),
          };
          best = {
            risk,
            // The chain in call order: caller first.
            evidence: {
              kind: 'call-chain',
              risk,
              message,
              chain: (steps[0]?.direction === 'called-by' ? [...symbols].reverse() : symbols).map(displayName),
              ...(fromIsA ? { a: fromSide, b: toSide } : { a: toSide, b: fromSide }),
            },
          };
        }
      };
      for (const direction of ['callees', 'callers'] as const) {
        look(a, ga, b, gb, true, ga[direction]);
        look(b, gb, a, ga, false, gb[direction]);
      }
      return best ? { risk: Math.min(1, best.risk), evidence: [best.evidence] } : { risk: 0, evidence: [] };
    },
  });
}

/** @public What a config naming this package as a plugin loads (`docs/plugins.md`). */
export default callGraphChannel;
