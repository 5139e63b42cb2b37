/**
 * Scoring one pair: each channel's part (`score`, or its cheap `risk` with evidence deferred until
 * the pair is reported), the noisy-OR of the parts and its TCAS level under the escalation
 * discipline, and the link's evidence (strongest first across channels).
 */
import type { ChannelScore, Evidence, Overrule, Precision, Problem } from './channel.js';
import { noisyOr } from './combine.js';
import { channelThrew, missingEvidence, riskOutOfRange } from './errors.js';
import type { Agent } from './model.js';
import { isChannelStopped, isThenable } from './scan-budget.js';
import type { ActiveChannel, SkippedChannel } from './scan-channels.js';
import type { ChannelBreakdown, Level, Thresholds } from './scan-types.js';
import type { EscalationOptions, WeightedChannel } from './tcas.js';
import { bandOf, classifyRisk } from './tcas.js';

export const EMPTY: readonly Evidence[] = Object.freeze([]) as readonly Evidence[];
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A channel's part of a pair while it is scored: `deferred` (risk without evidence), `quiet` (its problem is already recorded). */
export type Part = Mutable<ChannelBreakdown> & { deferred?: boolean; quiet?: boolean };

export function plainPart(c: Part): ChannelBreakdown {
  const { deferred: _deferred, quiet: _quiet, ...rest } = c;
  return rest;
}

/** Whether a pair can be compared, and if not (or only partly), why. */
export interface Comparable {
  readonly comparable: boolean;
  readonly reasons: readonly string[];
}

/** What turns a pair's risk into a level. */
export interface LevelRules {
  readonly thresholds: Thresholds;
  readonly escalation: EscalationOptions;
  /** Precisions that may raise a resolution advisory on their own. */
  readonly allowed: ReadonlySet<Precision>;
}

/** One channel's part of a pair: `score` (with evidence) or `risk` (evidence deferred). */
export async function callChannel(entry: ActiveChannel, a: Agent, b: Agent, withEvidence: boolean): Promise<Part> {
  // Already recorded once: not logged again for each pair.
  if (entry.stopped)
    return {
      channel: entry.channel.id,
      weight: entry.weight,
      risk: 0,
      weighted: 0,
      precision: entry.precision,
      evidence: EMPTY,
      problems: [entry.stopped],
      quiet: true,
    };
  const cheap = !withEvidence && entry.channel.risk !== undefined;
  let result: unknown;
  let pairProblems: Problem[] | undefined; // allocated only when something goes wrong
  try {
    const call = cheap ? () => entry.channel.risk!(a, b, entry.ctx) : () => entry.channel.score(a, b, entry.ctx);
    if (entry.clock) result = await entry.clock.run(call, [a.id, b.id]);
    else {
      result = call();
      if (isThenable<ChannelScore>(result)) result = await result;
    }
  } catch (error) {
    if (isChannelStopped(error)) entry.stopped = error.problem;
    (pairProblems ??= []).push(isChannelStopped(error) ? error.problem : channelThrew(entry.channel.id, error, [a.id, b.id]));
    result = undefined;
  }
  let risk = 0;
  let precisePart: number | undefined;
  let evidence: readonly Evidence[] = EMPTY;
  let overrules: readonly Overrule[] | undefined;
  let pending = false;
  if (result !== undefined) {
    const r = result as Partial<ChannelScore> | null;
    const value = r?.risk;
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || value > 1) {
      (pairProblems ??= []).push(riskOutOfRange(entry.channel.id, value, [a.id, b.id]));
    } else {
      evidence = Array.isArray(r!.evidence) ? r!.evidence : EMPTY;
      // A risk nobody can point at is not acted on: a problem, and it counts as 0.
      if (value > 0 && evidence.length === 0 && !cheap) (pairProblems ??= []).push(missingEvidence(entry.channel.id, value, [a.id, b.id]));
      else risk = value;
      const precise = r!.preciseRisk;
      if (typeof precise === 'number' && precise >= 0 && precise < risk) precisePart = precise;
    }
    if (Array.isArray(r?.problems) && r!.problems.length > 0) {
      for (const p of r!.problems) (pairProblems ??= []).push(p.channel ? p : { ...p, channel: entry.channel.id });
    }
    if (Array.isArray(r?.overrules) && r!.overrules.length > 0) overrules = r!.overrules;
    pending = r?.pending === true;
  }
  const part: Part = {
    channel: entry.channel.id,
    weight: entry.weight,
    risk,
    weighted: entry.weight * risk,
    precision: entry.precision,
    ...(precisePart !== undefined ? { preciseRisk: precisePart } : {}),
    evidence,
    ...(overrules ? { overrules } : {}),
    ...(pending ? { pending: true as const } : {}),
  };
  if (pairProblems) part.problems = pairProblems;
  if (cheap && risk > 0 && evidence.length === 0) part.deferred = true;
  return part;
}

/**
 * The overrule that silences `c` for the pair, if any: another part names `c`'s channel and every
 * item of `c`'s evidence is of a kind it overrules (a part without evidence is never overruled).
 */
function overruleOf(c: ChannelBreakdown, breakdown: readonly ChannelBreakdown[]): Overrule | undefined {
  if (c.evidence.length === 0 || c.weighted === 0) return undefined;
  for (const other of breakdown) {
    if (other === c || !other.overrules) continue;
    for (const o of other.overrules) {
      if (o.channel === c.channel && c.evidence.every((e) => e.kind !== undefined && o.kinds.includes(e.kind))) return o;
    }
  }
  return undefined;
}

/**
 * The pair's risk and level: the noisy-OR over every channel, and over the channels allowed to
 * escalate to resolution (with the precise part of their risk).
 *
 * **Overrule rule**: a part overruled by another channel's result (`ChannelScore.overrules`: the
 * typecheck channel checked the pair's merge and found no new error; the symbols channel's
 * finding is a signature or body read) keeps its risk in R, but counts as file-level evidence
 * for escalation: alone it raises traffic at most, and the level's reason says why.
 */
export function classifyPair(
  breakdown: readonly ChannelBreakdown[],
  comparable: Comparable,
  rules: LevelRules,
): { risk: number; level: Level; levelReason?: string } {
  const { thresholds, escalation, allowed } = rules;
  const overruled: { channel: string; reason: string }[] = [];
  const escalating: number[] = [];
  for (const c of breakdown) {
    const o = c.weighted > 0 && breakdown.some((x) => x.overrules) ? overruleOf(c, breakdown) : undefined;
    if (o) overruled.push({ channel: c.channel, reason: o.reason });
    else if (allowed.has(c.precision)) escalating.push(c.preciseRisk !== undefined ? c.weight * c.preciseRisk : c.weighted);
  }
  const risk = noisyOr(breakdown.map((c) => c.weighted));
  const preciseRisk = noisyOr(escalating);
  let level: Level;
  let levelReason: string | undefined;
  if (!comparable.comparable) {
    level = 'unknown';
    levelReason = comparable.reasons.join('; ');
  } else {
    level = bandOf(risk, thresholds);
    if (level === 'resolution' && preciseRisk < thresholds.resolution) {
      const silenced = new Set(overruled.map((o) => o.channel));
      const classified = classifyRisk(
        breakdown.map((c) => (silenced.has(c.channel) ? { ...weightedOf(c), weightedPrecise: 0 } : weightedOf(c))),
        thresholds,
        escalation,
      );
      level = classified.level;
      levelReason = classified.levelReason;
      if (overruled.length > 0 && level !== 'resolution') {
        const why = overruled.map((o) => `${o.channel} overruled: ${o.reason}`).join('; ');
        levelReason = levelReason ? `${why}; ${levelReason}` : why;
      }
    }
    if (comparable.reasons.length > 0) {
      // Missing data can hide risk, never remove it: such a pair is never clear. Nor does
      // file-level evidence raise an advisory for it (an incomplete agent's files are whole
      // fallbacks): only line- or symbol-precise evidence does; otherwise it is unknown.
      const why = comparable.reasons.join('; ');
      if (level === 'clear' || preciseRisk < thresholds.traffic) {
        const coarse = level !== 'clear' ? `; file-level evidence alone (risk ${risk.toFixed(2)}) raises no advisory for it` : '';
        level = 'unknown';
        levelReason = `${why}${coarse}`;
      } else {
        levelReason = levelReason ? `${levelReason}; ${why}` : why;
      }
    }
  }
  return { risk, level, ...(levelReason !== undefined ? { levelReason } : {}) };
}

/**
 * Every channel's part of a pair that was not kept from the previous scan: 0 where a sparse
 * channel did not name it, a skipped channel's problem, and, once the pair is known to be
 * reported, the evidence of parts whose `risk` deferred it.
 */
export async function scorePair(
  a: Agent,
  b: Agent,
  key: number,
  comparable: Comparable,
  channels: {
    readonly active: readonly ActiveChannel[];
    readonly sparse: readonly (Set<number> | undefined)[];
    readonly skipped: readonly SkippedChannel[];
  },
  how: { readonly withEvidence: boolean; readonly evidenceMinRisk: number; readonly rules: LevelRules },
): Promise<Part[]> {
  const { active, sparse, skipped } = channels;
  const parts: Part[] = [];
  if (comparable.comparable) {
    for (let c = 0; c < active.length; c++) {
      const entry = active[c]!;
      const set = sparse[c];
      if (set && !set.has(key)) {
        parts.push({ channel: entry.channel.id, weight: entry.weight, risk: 0, weighted: 0, precision: entry.precision, evidence: EMPTY });
        continue;
      }
      // With no evidence floor every pair with a risk gets its evidence: `score` at once, not
      // `risk` and then `score` (a channel's `risk` is its `score`'s, without evidence).
      parts.push(await callChannel(entry, a, b, how.withEvidence));
    }
  }
  for (const s of skipped) {
    parts.push({
      channel: s.channel.id,
      weight: s.weight,
      risk: 0,
      weighted: 0,
      precision: s.precision,
      evidence: [],
      problems: [s.problem],
      quiet: true,
    });
  }
  const classified = classifyPair(parts, comparable, how.rules);
  // Evidence for the pairs that are reported: an advisory, or a link worth showing.
  if (parts.some((p) => p.deferred) && (classified.level !== 'clear' || (classified.risk > 0 && classified.risk >= how.evidenceMinRisk))) {
    for (let c = 0; c < parts.length; c++) {
      if (!parts[c]!.deferred) continue;
      parts[c] = await callChannel(
        active.find((x) => x.channel.id === parts[c]!.channel)!,
        a,
        b,
        true,
      );
    }
  }
  return parts;
}

/**
 * A link's evidence: the one channel's that has any, else the strongest `maxEvidence` items
 * across channels; and whether a channel's risk came without its evidence (deferred).
 */
export function linkEvidence(
  breakdown: readonly ChannelBreakdown[],
  maxEvidence: number,
): { evidence: readonly Evidence[]; deferredEvidence: boolean } {
  let evidence: readonly Evidence[] = EMPTY;
  let withEvidence = 0;
  let deferredEvidence = false;
  for (const c of breakdown) {
    if (c.evidence.length > 0) (withEvidence++, (evidence = c.evidence));
    else if (c.risk > 0) deferredEvidence = true;
  }
  if (withEvidence > 1 || evidence.length > maxEvidence) {
    const ranked: { e: Evidence; s: number }[] = [];
    for (const c of breakdown) for (const e of c.evidence) ranked.push({ e, s: strength(e, c.risk, c.weight) });
    ranked.sort((x, y) => y.s - x.s);
    evidence = ranked.slice(0, maxEvidence).map((x) => x.e);
  }
  return { evidence, deferredEvidence };
}

function weightedOf(c: ChannelBreakdown): WeightedChannel {
  return {
    channel: c.channel,
    weighted: c.weighted,
    precision: c.precision,
    ...(c.preciseRisk !== undefined ? { weightedPrecise: c.weight * c.preciseRisk } : {}),
  };
}

function strength(e: Evidence, fallback: number, weight: number): number {
  return (typeof e.risk === 'number' && Number.isFinite(e.risk) ? e.risk : fallback) * weight;
}
