/**
 * The TCAS protocol: bands, escalation discipline, right of way, comparability and a pair's key.
 * The stateful parts are `advisory-tracker.ts` (levels over time) and `triggers.ts` (messages to
 * agents). Pure: time is always an argument.
 */
import type { Precision } from './channel.js';
import { noisyOr } from './combine.js';
import type { Agent } from './model.js';
import type { Level, Thresholds } from './scan-types.js';
import { DEFAULT_THRESHOLDS } from './scan-types.js';

export type Band = 'clear' | 'traffic' | 'resolution';

const RANK: Record<Level, number> = { clear: 0, unknown: 1, traffic: 2, resolution: 3 };

/** Severity order clear < unknown < traffic < resolution. */
export function levelRank(level: Level): number {
  return RANK[level];
}

export function bandOf(risk: number, thresholds: Thresholds = DEFAULT_THRESHOLDS): Band {
  if (risk >= thresholds.resolution) return 'resolution';
  if (risk >= thresholds.traffic) return 'traffic';
  return 'clear';
}

export interface EscalationOptions {
  /**
   * Channels whose `meta.precision` is one of these may lift a pair to resolution. Default
   * `['line', 'symbol']`: a resolution advisory needs the noisy-OR of those channels alone to
   * reach τ_RA; file-level channels (tree, dependency, call-graph) can add up to at most traffic.
   * Pass `['line', 'symbol', 'file']` to let every channel escalate (the seed's behaviour).
   */
  readonly resolutionPrecisions?: readonly Precision[];
}

export const DEFAULT_ESCALATION: Required<EscalationOptions> = { resolutionPrecisions: ['line', 'symbol'] };

export interface WeightedChannel {
  readonly channel: string;
  readonly weighted: number;
  readonly precision: Precision;
  /**
   * ω_i times the part of r_i resting on evidence at the channel's precision, when less than
   * `weighted` (the rest is whole-file evidence and counts as file precision).
   */
  readonly weightedPrecise?: number;
}

/** ω_i · r_i of a channel's evidence that may escalate to resolution (0 for a disallowed precision). */
function escalating(c: WeightedChannel, allowed: readonly Precision[]): number {
  if (!allowed.includes(c.precision)) return 0;
  return c.weightedPrecise !== undefined ? Math.min(c.weighted, c.weightedPrecise) : c.weighted;
}

/** Risk of all channels, and of the evidence allowed to escalate to resolution. */
export function levelRisks(
  channels: readonly WeightedChannel[],
  escalation: EscalationOptions = DEFAULT_ESCALATION,
): { risk: number; resolutionRisk: number } {
  const allowed = escalation.resolutionPrecisions ?? DEFAULT_ESCALATION.resolutionPrecisions;
  return {
    risk: noisyOr(channels.map((c) => c.weighted)),
    resolutionRisk: noisyOr(channels.map((c) => escalating(c, allowed))),
  };
}

/** The band of a pair's risk after the escalation discipline, with the reason when capped. */
export function classifyRisk(
  channels: readonly WeightedChannel[],
  thresholds: Thresholds = DEFAULT_THRESHOLDS,
  escalation: EscalationOptions = DEFAULT_ESCALATION,
): { level: Band; levelReason?: string } {
  const { risk, resolutionRisk } = levelRisks(channels, escalation);
  const band = bandOf(risk, thresholds);
  if (band !== 'resolution' || resolutionRisk >= thresholds.resolution) return { level: band };
  const allowed = escalation.resolutionPrecisions ?? DEFAULT_ESCALATION.resolutionPrecisions;
  const from = channels
    .filter((c) => c.weighted > 0 && escalating(c, allowed) < c.weighted)
    .map((c) => (allowed.includes(c.precision) ? `${c.channel} (whole-file)` : c.channel));
  return {
    level: 'traffic',
    levelReason:
      `capped at traffic: risk ${risk.toFixed(2)} reaches τ_RA ${thresholds.resolution} only with ${from.join(', ') || 'coarse'} ` +
      `evidence; ${allowed.join('/')}-precise evidence gives ${resolutionRisk.toFixed(2)}`,
  };
}

/**
 * Right of way, deterministic: more committed work, then earlier start, then smaller id.
 * The agent with right of way holds course; the other steers away.
 */
export function rightOfWay(a: Agent, b: Agent): { hold: Agent; steer: Agent } {
  return comparePriority(a, b) <= 0 ? { hold: a, steer: b } : { hold: b, steer: a };
}

/** Negative when `a` has right of way over `b`. */
export function comparePriority(a: Agent, b: Agent): number {
  const work = num(b.committedWork) - num(a.committedWork);
  if (work !== 0) return work;
  const start = num(a.startedAt, Infinity) - num(b.startedAt, Infinity);
  if (start !== 0 && !Number.isNaN(start)) return start;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function num(value: number, fallback = 0): number {
  return Number.isFinite(value) ? value : fallback;
}

export interface Comparability {
  /** False when the agents cannot be compared at all (different repositories): do not score. */
  readonly comparable: boolean;
  /** Why the pair can only be `unknown` when it would otherwise be clear. */
  readonly reasons: readonly string[];
}

/**
 * Whether two agents' working sets can be compared.
 * - different `repository` ids (both known, or one differing from the scan's repository) →
 *   incomparable: line numbers of different repositories mean nothing to each other;
 * - an agent with `incomplete` reasons → unknown unless the known part already raises an advisory
 *   (missing data can hide risk, never remove it);
 * - exactly one agent with a `base` → unknown likewise: the other's ranges are in coordinates we
 *   cannot relate. Neither with a base (in-memory or JSON agents) is comparable; two different
 *   bases are comparable (a channel may re-base, e.g. through the git service).
 */
export function comparability(a: Agent, b: Agent, repositoryId?: string): Comparability {
  const repoA = a.repository ?? repositoryId;
  const repoB = b.repository ?? repositoryId;
  if (repoA !== undefined && repoB !== undefined && repoA !== repoB) {
    return { comparable: false, reasons: [`different repositories (${a.id}: ${repoA}, ${b.id}: ${repoB})`] };
  }
  const reasons: string[] = [];
  for (const agent of [a, b]) {
    if (agent.incomplete && agent.incomplete.length > 0) reasons.push(`${agent.id} is incomplete: ${agent.incomplete.join('; ')}`);
  }
  if ((a.base === undefined) !== (b.base === undefined)) {
    const missing = a.base === undefined ? a : b;
    reasons.push(`${missing.id} has no merge base while ${missing === a ? b.id : a.id} has one`);
  }
  return { comparable: true, reasons };
}

/** One key per unordered pair of agent ids: `pairKey(a, b) === pairKey(b, a)`. */
export function pairKey(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

/**
 * The pairs of agents that share at least one key (a path, say), each once, through an inverted
 * index key → agents: what a channel's `candidates` names when only agents sharing something can
 * score above 0. `only`: pairs with at least one of these agents.
 */
export function pairsSharingKeys<A extends { readonly id: string }>(
  agents: readonly A[],
  keysOf: (agent: A) => Iterable<string>,
  only?: ReadonlySet<string>,
): [string, string][] {
  const keys = new Map(agents.map((agent) => [agent.id, [...keysOf(agent)]]));
  const byKey = new Map<string, string[]>();
  for (const agent of agents) for (const key of keys.get(agent.id)!) (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(agent.id);
  const out: [string, string][] = [];
  const seen = new Set<string>();
  for (const agent of only ? agents.filter((x) => only.has(x.id)) : agents) {
    for (const key of keys.get(agent.id)!) {
      for (const other of byKey.get(key)!) {
        if (other === agent.id) continue;
        const pair = pairKey(agent.id, other);
        if (seen.has(pair)) continue;
        seen.add(pair);
        out.push([agent.id, other]);
      }
    }
  }
  return out;
}
