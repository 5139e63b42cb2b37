/**
 * Intent: paths an agent is about to touch (look-ahead), and the probe of `airspace check`.
 *
 * How intent counts: each entry becomes an edit of that file in the agent's working set, with
 * weight 1 (it is about now). Without lines it is a **whole-file** edit, so it overlaps fully
 * with any change another agent makes to the file and reaches every channel (tree, dependency,
 * merge) like a real edit. With lines (in the agent's current coordinates, mapped to base
 * coordinates through the agent's hunks of that file) it adds those lines. Declared paths are also
 * listed in `agent.intent`, and declared edits are marked `declared`: channels score them as
 * look-ahead (file-level evidence at most, evidence saying "declared"), and what the agent really
 * changed in the same file (its hunks) still counts at its own precision.
 *
 * Intent comes from the scanner's `intent` option, a scan's `extra.intent` (the LSP's
 * `declareIntent`) and an orchestrator's observations (`agent.intent` as loaded). An agent that
 * declared intent is an agent from the start, before any edit: `loadAgents` keeps it (its
 * `declaring` option) although its working set is empty.
 */
import { unionRanges, type Agent, type FileEdit, type Problem, type Range } from '@airspace/core';
import { baseToCurrent, currentToBase } from '@airspace/git';

export interface IntentEntry {
  /** Repository-relative path, forward slashes. */
  readonly path: string;
  /** Lines about to change, in the agent's current coordinates; absent = the whole file. */
  readonly lines?: Range;
  /**
   * A definition of the file about to change (`Parser.parse`, or a name defined once in the
   * file): the scanner resolves it to its lines at the merge base (`resolveIntentSymbols`), so
   * the symbol channels score that definition, not the whole file. Unresolved, the whole file.
   */
  readonly symbol?: string;
  /** Lines about to change in merge-base coordinates (a resolved symbol's definition). */
  readonly baseLines?: Range;
}

export type IntentSpec = string | IntentEntry;

/** Intent per agent id. */
export type IntentMap = Readonly<Record<string, readonly IntentSpec[]>>;

export function normalizeIntent(spec: IntentSpec): IntentEntry {
  const entry = typeof spec === 'string' ? { path: spec } : spec;
  return { ...entry, path: entry.path.replace(/\\/g, '/').replace(/^\.\//, '') };
}

/** Adds intent entries to one agent's working set. Pure. */
export function applyIntent(agent: Agent, specs: readonly IntentSpec[]): Agent {
  if (specs.length === 0) return agent;
  const files = new Map<string, FileEdit>(agent.files.map((f) => [f.path, f]));
  for (const entry of specs.map(normalizeIntent)) {
    const existing = files.get(entry.path);
    if (!entry.lines && !entry.baseLines) {
      files.set(entry.path, {
        ...(existing ?? { path: entry.path, status: 'modified' as const }),
        weight: 1,
        baseRanges: 'whole',
        newRanges: 'whole',
        declared: true,
      });
      continue;
    }
    const base = entry.baseLines ?? (existing?.hunks ? currentToBase(existing.hunks, entry.lines!) : entry.lines!);
    const current = entry.lines ?? (existing?.hunks ? baseToCurrent(existing.hunks, base) : base);
    const baseRanges = existing?.baseRanges === 'whole' ? 'whole' : unionRanges(existing?.baseRanges ?? [], [base]);
    const newRanges = existing?.newRanges === 'whole' ? 'whole' : unionRanges(existing?.newRanges ?? [], [current]);
    files.set(entry.path, {
      ...(existing ?? { path: entry.path, status: 'modified' as const }),
      weight: 1,
      baseRanges,
      newRanges,
      declared: true,
    });
  }
  const intent = [...new Set([...(agent.intent ?? []), ...specs].map((s) => normalizeIntent(s).path))];
  return { ...agent, files: [...files.values()], intent };
}

/** Two intent maps as one: an agent's entries from both, `a`'s first (the scanner's own, then a scan's or a request's). */
export function mergeIntent(a?: IntentMap, b?: IntentMap): IntentMap | undefined {
  if (!a) return b;
  if (!b) return a;
  const out: Record<string, IntentMap[string]> = { ...a };
  for (const [id, specs] of Object.entries(b)) out[id] = [...(out[id] ?? []), ...specs];
  return out;
}

/**
 * Applies each agent's own declared intent (`agent.intent`, e.g. from observations) and an intent
 * map to a set of agents; ids of the map not among them become new agents with only their intent.
 */
export function applyIntentMap(agents: readonly Agent[], intent: IntentMap | undefined, template: Partial<Agent> = {}): Agent[] {
  const out = agents.map((a) => applyIntent(a, [...(a.intent ?? []), ...(intent?.[a.id] ?? [])]));
  for (const [id, specs] of Object.entries(intent ?? {})) {
    if (agents.some((a) => a.id === id)) continue;
    out.push(applyIntent({ startedAt: Date.now(), committedWork: 0, ...template, id, label: id, files: [] }, specs));
  }
  return out;
}

/**
 * The agent `airspace check` asks about: its working set becomes exactly the probed edits, for
 * every channel. Lines are in the agent's current file and are mapped to base lines through its
 * real hunks of that file (then dropped: they are not the probed edit); a path without lines, a
 * file the agent added, or one it edits without line information is a whole-file edit. Weight 1
 * (the edit is about to happen). `meta.probe` marks it for services that read an agent's real
 * state (the git service's re-basing); channels that can only score real states are left out of
 * probes by the scanner.
 */
export function probeAgent(agent: Agent, specs: readonly IntentSpec[]): Agent {
  const real = new Map(agent.files.map((f) => [f.path, f]));
  const files = new Map<string, FileEdit>();
  for (const entry of specs.map(normalizeIntent)) {
    const own = real.get(entry.path);
    const status = own?.status === 'added' || own?.status === 'renamed' ? own.status : 'modified';
    const identity = { path: entry.path, ...(own?.oldPath ? { oldPath: own.oldPath } : {}), status, weight: 1 } as const;
    const before = files.get(entry.path);
    if (!entry.lines || status === 'added' || own?.baseRanges === 'whole' || before?.baseRanges === 'whole') {
      files.set(entry.path, { ...identity, baseRanges: 'whole', newRanges: 'whole' });
      continue;
    }
    const base = own?.hunks ? currentToBase(own.hunks, entry.lines) : entry.lines;
    const priorBase: readonly Range[] = before ? before.baseRanges : [];
    const priorNew: readonly Range[] = before && before.newRanges !== 'whole' ? before.newRanges : [];
    files.set(entry.path, { ...identity, baseRanges: unionRanges(priorBase, [base]), newRanges: unionRanges(priorNew, [entry.lines]) });
  }
  const intent = [...new Set(specs.map((s) => normalizeIntent(s).path))];
  return { ...agent, files: [...files.values()], intent, meta: { ...agent.meta, probe: true } };
}

/** A definition as the analysis facts give it (the fields symbol resolution reads). */
export interface IntentDefinition {
  readonly name: string;
  readonly qualifiedName: string;
  readonly startLine: number;
  readonly endLine: number;
}

/** Whether any agent's intent names a symbol still to resolve. */
export function hasIntentSymbols(intent: IntentMap | undefined): boolean {
  return Object.values(intent ?? {}).some((specs) => specs.some((s) => typeof s !== 'string' && s.symbol && !s.lines && !s.baseLines));
}

/**
 * Declared symbols → their definitions' lines at the merge base (`definitions(path)`: the base's
 * facts of a file, undefined when it has none). A symbol is a qualified name (`Parser.parse`) or
 * a name defined once in the file. One that is not found counts as its whole file, with a problem
 * saying so. Pure.
 */
export function resolveIntentSymbols(
  intent: IntentMap,
  definitions: (path: string) => readonly IntentDefinition[] | undefined,
): { intent: IntentMap; problems: Problem[] } {
  const problems: Problem[] = [];
  const out: Record<string, IntentSpec[]> = {};
  for (const [agent, specs] of Object.entries(intent)) {
    out[agent] = specs.map((spec) => {
      if (typeof spec === 'string' || !spec.symbol || spec.lines || spec.baseLines) return spec;
      const entry = normalizeIntent(spec);
      const symbol = spec.symbol;
      const defs = definitions(entry.path) ?? [];
      const exact = defs.filter((d) => d.qualifiedName === symbol);
      const named = exact.length > 0 ? exact : defs.filter((d) => d.name === symbol);
      const found = named.length > 0 ? named : undefined;
      if (!found) {
        problems.push({
          code: 'INTENT_SYMBOL_NOT_FOUND',
          agent,
          path: entry.path,
          message: `${agent} declared ${entry.path}#${symbol}, but the merge base defines no ${symbol} in ${entry.path}; the whole file counts.`,
        });
        return { path: entry.path };
      }
      // A name defined more than once (overloads, a redeclaration): from the first to the last.
      const start = Math.min(...found.map((d) => d.startLine));
      const end = Math.max(...found.map((d) => d.endLine));
      return { path: entry.path, symbol, baseLines: [start, end] as Range };
    });
  }
  return { intent: out, problems };
}
