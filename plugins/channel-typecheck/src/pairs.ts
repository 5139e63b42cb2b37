/**
 * Which pairs the typecheck channel checks: pairs whose work can interact. Channels do not read
 * each other's results, so the test reads the same prepared data the dependency and symbols
 * channels read (`importGraph`, `symbols` services, when the front end supplies them):
 *
 *   - a source file (TypeScript/JavaScript, Python) both change;
 *   - one's changed file reaches the other's changed file through at most `importDepth` imports
 *     (in the importer's own view of the graph: its new files and imports count);
 *   - one changes a definition (signature, body, deletion) that the other's code reads.
 *
 * Without the import graph every pair that both change source files is a candidate (the
 * budget bounds the cost).
 */
import type { Agent, AgentPair, ImportGraphService, SymbolService } from '@airspace/core';
import { isPythonPath } from './pyright.js';

export const isSourcePath = (path: string): boolean =>
  (/\.(?:[mc]?tsx?|[mc]?jsx?)$/.test(path) && !path.includes('node_modules/')) || isPythonPath(path);

/** The source files an agent changes (both sides of a rename). */
export function changedSources(agent: Agent): Set<string> {
  const out = new Set<string>();
  for (const f of agent.files) {
    if (f.declared) continue;
    if (isSourcePath(f.path)) out.add(f.path);
    if (f.oldPath && isSourcePath(f.oldPath)) out.add(f.oldPath);
  }
  return out;
}

/** Files an agent's changed files reach through at most `depth` imports, in its own view. */
function reach(agent: Agent, changed: ReadonlySet<string>, graph: ImportGraphService, depth: number): Set<string> {
  const view = graph.forAgent(agent.id);
  const seen = new Set<string>(changed);
  let frontier = [...changed];
  for (let d = 0; d < depth && frontier.length > 0; d++) {
    const next: string[] = [];
    for (const p of frontier) for (const q of view.importsOf(p)) if (!seen.has(q)) (seen.add(q), next.push(q));
    frontier = next;
  }
  return seen;
}

export interface InteractionInput {
  readonly importGraph?: ImportGraphService;
  readonly symbols?: SymbolService;
  readonly importDepth: number;
}

/** The pairs of `agents` whose work can interact, each once (`[a.id, b.id]`, in the agents' order). */
export function interactingPairs(agents: readonly Agent[], input: InteractionInput): AgentPair[] {
  const changed = new Map(agents.map((a) => [a.id, changedSources(a)]));
  const reached = new Map<string, Set<string>>();
  const reads = new Map<string, Set<string>>();
  const writes = new Map<string, Set<string>>();
  for (const a of agents) {
    const mine = changed.get(a.id)!;
    if (input.importGraph && mine.size > 0) {
      try {
        reached.set(a.id, reach(a, mine, input.importGraph, input.importDepth));
      } catch {
        // A view that fails to answer leaves the pair to the other tests.
      }
    }
    if (input.symbols) {
      try {
        reads.set(a.id, new Set(input.symbols.reads(a).map((r) => r.symbol)));
        writes.set(
          a.id,
          new Set(
            input.symbols
              .writes(a)
              .filter((w) => w.change !== 'added')
              .map((w) => w.symbol),
          ),
        );
      } catch {
        // As above.
      }
    }
  }
  const meets = (x: ReadonlySet<string> | undefined, y: ReadonlySet<string> | undefined) => !!x && !!y && [...y].some((v) => x.has(v));
  const out: AgentPair[] = [];
  for (let i = 0; i < agents.length; i++) {
    for (let j = i + 1; j < agents.length; j++) {
      const a = agents[i]!;
      const b = agents[j]!;
      const ca = changed.get(a.id)!;
      const cb = changed.get(b.id)!;
      if (ca.size === 0 || cb.size === 0) continue;
      const interact = input.importGraph
        ? meets(ca, cb) ||
          meets(reached.get(a.id), cb) ||
          meets(reached.get(b.id), ca) ||
          meets(writes.get(a.id), reads.get(b.id)) ||
          meets(writes.get(b.id), reads.get(a.id))
        : true;
      if (interact) out.push([a.id, b.id]);
    }
  }
  return out;
}
