/**
 * The co-change channel: look-ahead from the repository's own history. Files that past commits
 * changed together (association rules over version history: support and confidence) extend each
 * agent's footprint forward — an agent that changes `src/a.ts` is near one that changes
 * `src/b.ts` if most commits that changed the one changed the other, before either touches the
 * other's file:
 *
 *   support(f, g)    = commits of the view that changed both f and g
 *   confidence(f, g) = support(f, g) / min(count(f), count(g))      the stronger direction
 *   coupled(f, g)    ⇔ f ≠ g ∧ support ≥ minSupport ∧ confidence ≥ minConfidence
 *   meeting strength = confidence(f, g)                              f ∈ a, g ∈ b coupled
 *                    = confidence(f, h) · confidence(g, h)           f ∈ a, g ∈ b both coupled to h (`indirect`)
 *   r_cochange       = min(maxRisk, 1 − Π (1 − strength))             over pairs of files (f, g)
 *
 * Each agent's history is `ctx.services.coChange.viewFor(agent)`: only commits before the moment
 * of observation (a live scan: the agent's merge base; a replay: the side's observed commit).
 * The same file on both sides is the overlap channel's business (its lines decide); a file f both
 * change still counts here with its partners g on the other side. Language-agnostic: any path git
 * records. Precision `file`. With `recency`, strengths are scaled by w_f · w_g.
 */
import {
  defineChannel,
  type Agent,
  type CoChangeView,
  type Evidence,
  type FileEdit,
  type OptionsSchema,
  type Problem,
  editWeight,
  clamp01,
} from '@airspace/core';

export interface CoChangeOptions {
  /** How many commits back from the agent's commit the history reaches (merges included). */
  readonly window: number;
  /** Commits changing more files than this are left out (mass renames, formatting, vendoring). */
  readonly maxFilesPerCommit: number;
  /** Commits that changed both files, at least. */
  readonly minSupport: number;
  /** support / count of either file (the agent's or its partner's), at least. */
  readonly minConfidence: number;
  /** Weigh each file by its recency weight w_f (default false: a file touched long ago still predicts its partners). */
  readonly recency: boolean;
  /** Also count two agents' files that are both coupled to a third file neither changed yet. */
  readonly indirect: boolean;
  /** The channel's risk never exceeds this (co-change is a likelihood, not a conflict). */
  readonly maxRisk: number;
  /** Evidence items per pair. */
  readonly maxEvidence: number;
}

export const DEFAULT_CO_CHANGE_OPTIONS: CoChangeOptions = {
  window: 3000,
  maxFilesPerCommit: 30,
  minSupport: 2,
  minConfidence: 0.5,
  recency: false,
  indirect: false,
  maxRisk: 0.9,
  maxEvidence: 3,
};

const ID = 'co-change';

/** One rule f → g of an agent's history: changing f predicts changing g. */
interface Rule {
  readonly from: string;
  readonly to: string;
  readonly support: number;
  /** Commits that changed `from`. */
  readonly count: number;
  readonly confidence: number;
  /** The file whose commits `count` counts (`from`, or `to` when that direction is the stronger). */
  readonly of: string;
  /** Recency weight of the agent's file `from`. */
  readonly weight: number;
}

interface PreparedAgent {
  readonly files: ReadonlyMap<string, FileEdit>;
  /** Strongest rule per predicted path (a path the agent does not change itself). */
  readonly predicted: ReadonlyMap<string, Rule>;
  /** Commits of the agent's history view that count as changes. */
  readonly window: number;
}

export interface CoChangePrepared {
  readonly agents: ReadonlyMap<string, PreparedAgent>;
  readonly options: CoChangeOptions;
  readonly problems: readonly Problem[];
}

/** The rules `ctx.options` are checked against (core's `resolveOptions`): a bad value keeps its default, with a problem. */
export const CO_CHANGE_OPTIONS_SCHEMA: OptionsSchema<CoChangeOptions> = {
  window: { type: 'number', integer: true, min: 1 },
  maxFilesPerCommit: { type: 'number', integer: true, min: 2 },
  minSupport: { type: 'number', integer: true, min: 1 },
  minConfidence: { type: 'number', min: 0, max: 1 },
  recency: { type: 'boolean' },
  indirect: { type: 'boolean' },
  maxRisk: { type: 'number', min: 0, max: 1 },
  maxEvidence: { type: 'number', integer: true, min: 1 },
};

/**
 * Rules from each of the agent's files f to the files g the history changes with it: support ≥
 * minSupport and the confidence of either direction (of f's commits, or of g's) ≥ minConfidence —
 * "changed together in at least half of the commits of either". The strongest rule per g.
 */
function prepareAgent(agent: Agent, view: CoChangeView, o: CoChangeOptions): PreparedAgent {
  const files = new Map<string, FileEdit>();
  for (const f of agent.files) {
    files.set(f.path, f);
    if (f.oldPath) files.set(f.oldPath, f);
  }
  const counts = new Map<string, number>();
  const countOf = (path: string): number => {
    let n = counts.get(path);
    if (n === undefined) counts.set(path, (n = view.count(path)));
    return n;
  };
  const predicted = new Map<string, Rule>();
  for (const [path, edit] of files) {
    const count = countOf(path);
    if (count < o.minSupport) continue;
    for (const { path: to, support } of view.partners(path, o.minSupport)) {
      const forward = support / count;
      const backward = support / Math.max(support, countOf(to));
      const confidence = Math.max(forward, backward);
      if (confidence < o.minConfidence) continue;
      const rule: Rule =
        forward >= backward
          ? { from: path, to, support, count, confidence, weight: o.recency ? editWeight(edit) : 1, of: path }
          : { from: path, to, support, count: countOf(to), confidence, weight: o.recency ? editWeight(edit) : 1, of: to };
      const best = predicted.get(to);
      if (
        !best ||
        rule.confidence * rule.weight > best.confidence * best.weight ||
        (rule.confidence * rule.weight === best.confidence * best.weight && rule.from < best.from)
      )
        predicted.set(to, rule);
    }
  }
  return { files, predicted, window: view.commits };
}

interface Meeting {
  readonly strength: number;
  readonly key: string;
  readonly evidence: Evidence;
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** "a.ts and b.ts changed together in 14 of 16 commits that changed a.ts". */
function ruleText(r: Rule): string {
  return `${r.from} and ${r.to} changed together in ${r.support} of the ${r.count} commits that changed ${r.of} (${pct(r.confidence)})`;
}

export function coChangeChannel() {
  return defineChannel({
    id: ID,
    // Measured on six public histories (docs/evaluation.md, "Co-change look-ahead"): with the
    // other shipped weights, every flag co-change adds at 0.05–0.1 on that corpus is a false one
    // (a pytest pair half-way, which then puts the combination's F1 below git's merge alone under
    // the "collided at any point" label); 0.03 changes no flag there. Its evidence is shown on
    // the pairs scored; a team that wants co-change alone to raise traffic sets 0.7 (flagged 4 of
    // 7 collisions git could not see yet, at 3.8× their base rate, but traffic precision on full
    // diffs fell to 0.06–0.26 on four of six).
    defaultWeight: 0.03,
    meta: {
      description:
        'Files the history changes together (support, confidence over recent commits before the observation) extend each agent’s footprint; footprints that meet are close.',
      precision: 'file',
    },
    defaultOptions: DEFAULT_CO_CHANGE_OPTIONS,
    optionsSchema: CO_CHANGE_OPTIONS_SCHEMA,
    requires: ['coChange'],
    async prepare(agents, ctx): Promise<CoChangePrepared> {
      const o = ctx.options;
      const problems: Problem[] = [];
      const out = new Map<string, PreparedAgent>();
      const service = ctx.services.coChange;
      for (const agent of agents) {
        if (agent.files.length === 0) continue;
        try {
          const view = await service.viewFor(agent, { window: o.window, maxFilesPerCommit: o.maxFilesPerCommit });
          if (view) out.set(agent.id, prepareAgent(agent, view, o));
        } catch (e) {
          problems.push({
            code: 'HISTORY_FAILED',
            channel: ID,
            agent: agent.id,
            message: `The history of ${agent.id} could not be read (no co-change look-ahead for it): ${e instanceof Error ? e.message : String(e)}`,
          });
        }
      }
      for (const message of service.takeProblems?.() ?? []) problems.push({ code: 'HISTORY_PROBLEM', channel: ID, message });
      return { agents: out, options: o, problems };
    },
    score(a, b, ctx) {
      const prepared = ctx.prepared;
      const o = prepared?.options ?? ctx.options;
      const problems = prepared?.problems ?? [];
      const pa = prepared?.agents.get(a.id);
      const pb = prepared?.agents.get(b.id);
      if (!pa || !pb) return { risk: 0, evidence: [], ...(problems.length ? { problems } : {}) };

      const meetings = new Map<string, Meeting>();
      const keep = (m: Meeting): void => {
        const best = meetings.get(m.key);
        if (!best || m.strength > best.strength) meetings.set(m.key, m);
      };
      // Direct: one agent's file is coupled to a different file the other changes.
      const direct = (from: PreparedAgent, fromAgent: Agent, to: PreparedAgent, toAgent: Agent, fromIsA: boolean): void => {
        for (const [path, edit] of to.files) {
          const rule = from.predicted.get(path);
          if (!rule) continue;
          const strength = rule.confidence * rule.weight * (o.recency ? editWeight(edit) : 1);
          const mine = { agent: fromAgent.id, path: rule.from };
          const theirs = { agent: toAgent.id, path };
          keep({
            strength,
            key: fromIsA ? `${rule.from}\0${path}` : `${path}\0${rule.from}`,
            evidence: {
              kind: 'co-change',
              message: `${ruleText(rule)}: ${fromAgent.label} changes ${rule.from}, ${toAgent.label} changes ${path}.`,
              risk: strength,
              ...(fromIsA ? { a: mine, b: theirs } : { a: theirs, b: mine }),
            },
          });
        }
      };
      direct(pa, a, pb, b, true);
      direct(pb, b, pa, a, false);
      if (o.indirect) {
        const [small, large, smallIsA] = pa.predicted.size <= pb.predicted.size ? [pa, pb, true] : [pb, pa, false];
        for (const [h, r1] of small.predicted) {
          const r2 = large.predicted.get(h);
          if (!r2 || pa.files.has(h) || pb.files.has(h)) continue;
          const [ra, rb] = smallIsA ? [r1, r2] : [r2, r1];
          const strength = ra.confidence * rb.confidence * ra.weight * rb.weight;
          keep({
            strength,
            key: `${ra.from}\0${rb.from}`,
            evidence: {
              kind: 'co-change-indirect',
              message: `Both may change ${h} next: ${ruleText(ra)}; ${ruleText(rb)}. ${a.label} changes ${ra.from}, ${b.label} changes ${rb.from}.`,
              risk: strength,
              a: { agent: a.id, path: ra.from },
              b: { agent: b.id, path: rb.from },
              chain: [ra.from, h, rb.from],
            },
          });
        }
      }
      if (meetings.size === 0) return { risk: 0, evidence: [], ...(problems.length ? { problems } : {}) };
      const ranked = [...meetings.values()].sort((x, y) => y.strength - x.strength || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
      let clear = 1;
      for (const m of ranked) clear *= 1 - clamp01(m.strength);
      const risk = Math.min(o.maxRisk, 1 - clear);
      if (!(risk > 0)) return { risk: 0, evidence: [], ...(problems.length ? { problems } : {}) };
      return { risk, evidence: ranked.slice(0, o.maxEvidence).map((m) => m.evidence), ...(problems.length ? { problems } : {}) };
    },
  });
}

/** @public What a config naming this package as a plugin loads (`docs/plugins.md`). */
export default coChangeChannel;
