/**
 * The past-conflicts channel: look-ahead from the repository's own merges. A file that conflicted
 * in many of the past merges that touched it (a changelog, a version list, a registry every feature
 * appends to) is likely to conflict again when two agents both change it, even while their current
 * states still merge cleanly:
 *
 *   rate(f)         = conflicted(f) / (touched(f) + prior)    over the merges of the agent's view
 *   strength(f)     = max(rate_a(f), rate_b(f))                f changed by both, conflicted ≥ minConflicts
 *   r_pastConflicts = min(maxRisk, 1 − Π (1 − strength(f)))
 *
 * `touched(f)`: merges that brought changes to f (against their first parent) or conflicted in
 * it; `conflicted(f)`: of those, merges whose re-merge conflicted in f. Each agent's view is
 * `ctx.services.pastConflicts.viewFor(agent)`: only merges before the moment of observation (a
 * live scan: the agent's merge base; a replay: the side's observed commit). Whether the two
 * agents' current lines conflict is the overlap and merge channels' business; this channel says
 * how often that file's parallel edits ended in a conflict before. Precision `file`.
 */
import {
  clamp01,
  DEFAULT_PAST_CONFLICTS_VIEW,
  defineChannel,
  pairsSharingKeys,
  type Agent,
  type Evidence,
  type OptionsSchema,
  type PastConflictsView,
  type Problem,
  touchedPaths,
} from '@airspace/core';

export interface PastConflictsOptions {
  /** How many commits back from the agent's commit the merges are looked for (merges included). */
  readonly window: number;
  /** At most this many merges of the window, newest first. */
  readonly maxMerges: number;
  /** A file counts once it conflicted in at least this many past merges. */
  readonly minConflicts: number;
  /** Added to the merges that touched a file before dividing (few merges, a modest rate). */
  readonly prior: number;
  /** The channel's risk never exceeds this (a past rate is a likelihood, not a conflict). */
  readonly maxRisk: number;
  /** Evidence items per pair. */
  readonly maxEvidence: number;
}

export const DEFAULT_PAST_CONFLICTS_OPTIONS: PastConflictsOptions = {
  window: DEFAULT_PAST_CONFLICTS_VIEW.window,
  maxMerges: DEFAULT_PAST_CONFLICTS_VIEW.maxMerges,
  minConflicts: 2,
  prior: 1,
  maxRisk: 0.9,
  maxEvidence: 3,
};

const ID = 'past-conflicts';

export interface PastConflictsPrepared {
  /** Per agent: its paths (old paths of renames too) and its view of past merges (none: the other side's counts). */
  readonly agents: ReadonlyMap<string, { readonly paths: ReadonlySet<string>; readonly view?: PastConflictsView }>;
  readonly options: PastConflictsOptions;
  readonly problems: readonly Problem[];
}

/** The rules `ctx.options` are checked against (core's `resolveOptions`): a bad value keeps its default, with a problem. */
export const PAST_CONFLICTS_OPTIONS_SCHEMA: OptionsSchema<PastConflictsOptions> = {
  window: { type: 'number', integer: true, min: 1 },
  maxMerges: { type: 'number', integer: true, min: 1 },
  minConflicts: { type: 'number', integer: true, min: 1 },
  prior: { type: 'number', min: 0 },
  maxRisk: { type: 'number', min: 0, max: 1 },
  maxEvidence: { type: 'number', integer: true, min: 1 },
};

interface Finding {
  readonly path: string;
  readonly strength: number;
  readonly conflicted: number;
  readonly touched: number;
  /** The agent whose view the counts come from. */
  readonly viewOf: Agent;
}

export function pastConflictsChannel() {
  return defineChannel({
    id: ID,
    // Measured on six public histories (docs/evaluation.md, "Past conflicts"), by the co-change
    // rule: the largest weight of a grid (0 … 0.9) that adds no false traffic advisory on the full
    // diffs and keeps F1 at traffic of every repository, fraction (½, ¼) and label at least the
    // merge channel's alone (or the weights' without it). 0.5 adds one advisory there, a collision
    // git could not see yet; from 0.55 a pair that merged cleanly is flagged. Its risk is a past
    // rate (a few %–90%), so alone it raises traffic only for files that nearly always conflicted.
    defaultWeight: 0.5,
    meta: {
      description:
        'Files both agents change that conflicted in many of the past merges that touched them (merges before the observation, re-merged).',
      precision: 'file',
    },
    defaultOptions: DEFAULT_PAST_CONFLICTS_OPTIONS,
    optionsSchema: PAST_CONFLICTS_OPTIONS_SCHEMA,
    requires: ['pastConflicts'],
    async prepare(agents, ctx): Promise<PastConflictsPrepared> {
      const o = ctx.options;
      const problems: Problem[] = [];
      const out = new Map<string, { paths: ReadonlySet<string>; view?: PastConflictsView }>();
      const service = ctx.services.pastConflicts;
      for (const agent of agents) {
        if (agent.files.length === 0) continue;
        try {
          const view = await service.viewFor(agent, { window: o.window, maxMerges: o.maxMerges });
          out.set(agent.id, { paths: touchedPaths(agent), ...(view ? { view } : {}) });
        } catch (e) {
          out.set(agent.id, { paths: touchedPaths(agent) });
          problems.push({
            code: 'HISTORY_FAILED',
            channel: ID,
            agent: agent.id,
            message: `The past merges of ${agent.id} could not be read (no past-conflicts look-ahead for it): ${e instanceof Error ? e.message : String(e)}`,
          });
        }
      }
      for (const message of service.takeProblems?.() ?? []) problems.push({ code: 'HISTORY_PROBLEM', channel: ID, message });
      return { agents: out, options: o, problems };
    },
    candidates(agents, ctx, only) {
      // Only agents that change one path can score above 0: an inverted index path → agents
      // names those pairs, so a scan of many agents scores no other pair for this channel.
      const prepared = ctx.prepared?.agents;
      const pathsOfAgent = (agent: Agent): ReadonlySet<string> => prepared?.get(agent.id)?.paths ?? touchedPaths(agent);
      return pairsSharingKeys(agents, pathsOfAgent, only);
    },
    score(a, b, ctx) {
      const prepared = ctx.prepared;
      const o = prepared?.options ?? ctx.options;
      const problems = prepared?.problems ?? [];
      const pa = prepared?.agents.get(a.id);
      const pb = prepared?.agents.get(b.id);
      const none = { risk: 0, evidence: [], ...(problems.length ? { problems } : {}) };
      if (!pa || !pb) return none;
      const [small, large] = pa.paths.size <= pb.paths.size ? [pa, pb] : [pb, pa];
      const findings: Finding[] = [];
      for (const path of small.paths) {
        if (!large.paths.has(path)) continue;
        let best: Finding | undefined;
        for (const [view, viewOf] of [
          [pa.view, a],
          [pb.view, b],
        ] as const) {
          if (!view) continue;
          const conflicted = view.conflicted(path);
          if (conflicted < o.minConflicts) continue;
          const touched = Math.max(conflicted, view.touched(path));
          const strength = conflicted / (touched + o.prior);
          if (!best || strength > best.strength) best = { path, strength, conflicted, touched, viewOf };
        }
        if (best) findings.push(best);
      }
      if (findings.length === 0) return none;
      findings.sort((x, y) => y.strength - x.strength || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
      let clear = 1;
      for (const f of findings) clear *= 1 - clamp01(f.strength);
      const risk = Math.min(o.maxRisk, 1 - clear);
      if (!(risk > 0)) return none;
      const evidence: Evidence[] = findings.slice(0, o.maxEvidence).map((f) => ({
        kind: 'past-conflicts',
        message: `${f.path} conflicted in ${f.conflicted} of the ${f.touched} past merges that touched it (before ${f.viewOf.label}'s work); ${a.label} and ${b.label} both change it.`,
        risk: f.strength,
        a: { agent: a.id, path: f.path },
        b: { agent: b.id, path: f.path },
      }));
      return { risk, evidence, ...(problems.length ? { problems } : {}) };
    },
  });
}

/** @public What a config naming this package as a plugin loads (`docs/plugins.md`). */
export default pastConflictsChannel;
