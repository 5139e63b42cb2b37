/**
 * The `symbols` service the symbols and call-graph channels read (`ctx.services.symbols`):
 * per agent, the symbols it writes and reads, and its view of the function-level call graph
 * (caller → callee), where its changed files are analysed in its own version.
 *
 * The base call graph is built once per base view; an agent's graph is the base graph with the
 * edges out of its changed files replaced by theirs, answered lazily (no copy per agent).
 */
import { parseSymbolId, type Agent, type CallStep, type SymbolRead, type SymbolService, type SymbolWrite } from '@airspace/core';
import type { IndexView } from '../indexing/view.js';
import { createSymbolResolver, symbolId, type SymbolResolver } from './resolve.js';
import { agentReads, agentWrites } from './working-set.js';

export interface SymbolServiceInput {
  readonly base: IndexView;
  /** The agent's view (its overlay); agents without one see the base. */
  forAgent(agentId: string): IndexView;
}

interface Adjacency {
  readonly out: Map<string, CallStep[]>;
  readonly in: Map<string, CallStep[]>;
}

/** The module-level pseudo function of a file: calls made at the top level. */
export function moduleSymbol(path: string): string {
  return symbolId(path, '<module>');
}

/** The file of a symbol id (undefined for a malformed one: see `parseSymbolId`). */
export function symbolPath(symbol: string): string | undefined {
  return parseSymbolId(symbol)?.path;
}

function addEdge(adj: Adjacency, from: string, to: string, path: string, line: number): void {
  if (from === to) return;
  const out = adj.out.get(from) ?? [];
  if (out.some((s) => s.symbol === to)) return;
  out.push({ symbol: to, direction: 'calls', path, line });
  adj.out.set(from, out);
  const inn = adj.in.get(to) ?? [];
  inn.push({ symbol: from, direction: 'called-by', path, line });
  adj.in.set(to, inn);
}

/** Call edges out of the given files, resolved with high confidence only. */
function callEdges(
  view: IndexView,
  resolver: SymbolResolver,
  paths: Iterable<string>,
  adj: Adjacency = { out: new Map(), in: new Map() },
): Adjacency {
  for (const path of paths) {
    const facts = view.facts(path);
    if (!facts) continue;
    for (const call of facts.calls) {
      const targets = resolver.resolve(path, call).filter((r) => r.confidence === 'high');
      for (const t of targets) {
        if (t.symbol.kind !== 'function' && t.symbol.kind !== 'method' && t.symbol.kind !== 'class' && t.symbol.kind !== 'variable')
          continue;
        const caller = call.caller === '<module>' ? moduleSymbol(path) : symbolId(path, call.caller);
        addEdge(adj, caller, t.symbol.id, path, call.line);
      }
    }
  }
  return adj;
}

const baseGraphs = new WeakMap<IndexView, { resolver: SymbolResolver; adjacency: Adjacency }>();

function baseGraph(base: IndexView): { resolver: SymbolResolver; adjacency: Adjacency } {
  let g = baseGraphs.get(base);
  if (!g) {
    const resolver = createSymbolResolver(base);
    g = { resolver, adjacency: callEdges(base, resolver, base.filePaths()) };
    baseGraphs.set(base, g);
  }
  return g;
}

export function createSymbolService(input: SymbolServiceInput): SymbolService {
  const perAgent = new Map<
    string,
    { writes?: SymbolWrite[]; reads?: SymbolRead[]; resolver?: SymbolResolver; own?: Adjacency; changed?: Set<string> }
  >();
  const state = (agent: Agent) => {
    let s = perAgent.get(agent.id);
    if (!s) perAgent.set(agent.id, (s = {}));
    return s;
  };
  const resolverOf = (agent: Agent): SymbolResolver => {
    const s = state(agent);
    const view = input.forAgent(agent.id);
    s.resolver ??= view === input.base ? baseGraph(input.base).resolver : createSymbolResolver(view);
    return s.resolver;
  };

  return {
    writes(agent) {
      const s = state(agent);
      s.writes ??= agentWrites(agent, input.forAgent(agent.id), input.base);
      return s.writes;
    },
    reads(agent) {
      const s = state(agent);
      s.reads ??= agentReads(agent, input.forAgent(agent.id), resolverOf(agent));
      return s.reads;
    },
    callNeighbors(agent, symbol) {
      const s = state(agent);
      const base = baseGraph(input.base).adjacency;
      if (!s.changed) {
        s.changed = new Set(agent.files.flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path])));
        s.own = callEdges(
          input.forAgent(agent.id),
          resolverOf(agent),
          agent.files.filter((f) => f.status !== 'deleted').map((f) => f.path),
        );
      }
      const changed = s.changed;
      const own = s.own!;
      const inChanged = (s: string) => changed.has(symbolPath(s) ?? '');
      const out = inChanged(symbol) ? (own.out.get(symbol) ?? []) : (base.out.get(symbol) ?? []);
      const inBase = (base.in.get(symbol) ?? []).filter((step) => !inChanged(step.symbol));
      return [...out, ...inBase, ...(own.in.get(symbol) ?? [])];
    },
  };
}
