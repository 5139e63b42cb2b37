/**
 * The TCAS protocol: bands, escalation discipline, right of way, comparability, and (below) the
 * stateful advisory tracker and trigger dispatcher. Pure: time is always an argument.
 */
import type { Evidence, Precision, Problem } from './channel.js';
import { noisyOr } from './combine.js';
import { triggerSinkFailed } from './errors.js';
import type { Agent } from './model.js';
import type { Level, Link, Thresholds } from './scan-types.js';
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

// ---------------------------------------------------------------------------------------------
// Advisory tracker: closure rate, early escalation, hysteresis, events.

export interface TrackerOptions {
  readonly thresholds?: Thresholds;
  readonly escalation?: EscalationOptions;
  /** A pair must fall below `threshold − hysteresis` to be downgraded or cleared. Default 0.05. */
  readonly hysteresis?: number;
  /**
   * Early escalation: a clear pair within `earlyMargin` of τ_TA (default 0.1) whose risk is rising
   * so fast that it would cross τ_TA within `lookaheadMs` (default 5 min) is raised to traffic now.
   */
  readonly earlyMargin?: number;
  readonly lookaheadMs?: number;
}

export type AdvisoryEventType = 'raised' | 'changed' | 'cleared';

export interface AdvisoryEvent {
  readonly type: AdvisoryEventType;
  readonly a: string;
  readonly b: string;
  readonly level: Level;
  readonly previous: Level;
  readonly risk: number;
  /** Risk per second, from the previous sample of this pair; 0 on the first. */
  readonly closureRate: number;
  readonly time: number;
  readonly levelReason?: string;
  readonly evidence: readonly Evidence[];
}

export interface TrackedPair {
  readonly a: string;
  readonly b: string;
  readonly level: Level;
  readonly risk: number;
  readonly time: number;
  readonly closureRate: number;
  readonly levelReason?: string;
}

/** A sample of one pair: a `Link` of a scan is one. */
export type PairSample = Pick<Link, 'a' | 'b' | 'risk' | 'level' | 'evidence'> & Partial<Pick<Link, 'channels' | 'levelReason'>>;

export function pairKey(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

/**
 * Feed it successive samples (`update(scan.links, time)`); it returns what changed. Stateful but
 * pure: no clock, no timers.
 */
export class AdvisoryTracker {
  private readonly pairs = new Map<string, TrackedPair>();
  private thresholds: Thresholds;
  private readonly escalation: EscalationOptions;
  private readonly hysteresis: number;
  private readonly earlyMargin: number;
  private readonly lookaheadMs: number;

  constructor(options: TrackerOptions = {}) {
    this.thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
    this.escalation = options.escalation ?? DEFAULT_ESCALATION;
    this.hysteresis = options.hysteresis ?? 0.05;
    this.earlyMargin = options.earlyMargin ?? 0.1;
    this.lookaheadMs = options.lookaheadMs ?? 5 * 60_000;
  }

  /**
   * The thresholds of later updates (a configuration changed). Tracked levels are kept, so a pair
   * the new thresholds no longer hold is reported as changed or cleared by the next update.
   */
  setThresholds(thresholds: Thresholds): void {
    this.thresholds = thresholds;
  }

  /** Current state of a pair, if it has been seen. */
  get(a: string, b: string): TrackedPair | undefined {
    return this.pairs.get(pairKey(a, b));
  }

  /** Every pair currently above clear. */
  active(): TrackedPair[] {
    return [...this.pairs.values()].filter((p) => p.level !== 'clear');
  }

  /**
   * Updates with one scan's samples at `time` (ms). Pairs absent from `samples` are left as they
   * are unless `complete` is true (the samples are every pair of the scan), in which case active
   * pairs that disappeared are cleared.
   */
  update(samples: readonly PairSample[], time: number, options: { complete?: boolean } = {}): AdvisoryEvent[] {
    const events: AdvisoryEvent[] = [];
    const seen = new Set<string>();
    for (const sample of samples) {
      const key = pairKey(sample.a, sample.b);
      seen.add(key);
      const before = this.pairs.get(key);
      const next = this.step(before, sample, time);
      this.pairs.set(key, next);
      const previous = before?.level ?? 'clear';
      if (previous === next.level) continue;
      const type: AdvisoryEventType = previous === 'clear' ? 'raised' : next.level === 'clear' ? 'cleared' : 'changed';
      events.push({
        type,
        a: next.a,
        b: next.b,
        level: next.level,
        previous,
        risk: next.risk,
        closureRate: next.closureRate,
        time,
        evidence: sample.evidence,
        ...(next.levelReason !== undefined ? { levelReason: next.levelReason } : {}),
      });
    }
    if (options.complete) {
      for (const [key, pair] of this.pairs) {
        if (seen.has(key)) continue;
        this.pairs.delete(key);
        if (pair.level !== 'clear') {
          events.push({
            type: 'cleared',
            a: pair.a,
            b: pair.b,
            level: 'clear',
            previous: pair.level,
            risk: 0,
            closureRate: 0,
            time,
            levelReason: 'pair no longer present',
            evidence: [],
          });
        }
      }
    }
    return events;
  }

  private step(before: TrackedPair | undefined, sample: PairSample, time: number): TrackedPair {
    const [a, b] = sample.a < sample.b ? [sample.a, sample.b] : [sample.b, sample.a];
    const risk = Number.isFinite(sample.risk) ? sample.risk : 0;
    const dt = before ? (time - before.time) / 1000 : 0;
    const closureRate = before && dt > 0 ? (risk - before.risk) / dt : 0;
    let level: Level = sample.level;
    let levelReason = sample.levelReason;
    const t = this.thresholds;

    // Early escalation: clear, near τ_TA, and closing fast enough to cross it within the lookahead.
    if (
      level === 'clear' &&
      closureRate > 0 &&
      risk >= t.traffic - this.earlyMargin &&
      risk + closureRate * (this.lookaheadMs / 1000) >= t.traffic
    ) {
      level = 'traffic';
      levelReason = `escalated early: risk ${risk.toFixed(2)} closing at ${(closureRate * 60).toFixed(3)}/min, projected to reach τ_TA ${t.traffic} within ${Math.round(this.lookaheadMs / 1000)} s`;
    }

    // Hysteresis: a downgrade happens only once the risk relevant to the held level is clearly below it.
    if (before && levelRank(level) < levelRank(before.level) && level !== 'unknown' && before.level !== 'unknown') {
      const resolutionRisk = sample.channels ? levelRisks(sample.channels, this.escalation).resolutionRisk : risk;
      const margin = this.hysteresis;
      if (before.level === 'resolution' && resolutionRisk >= t.resolution - margin && !(levelReason ?? '').startsWith('capped')) {
        level = 'resolution';
        levelReason = `held at resolution by hysteresis: risk ${resolutionRisk.toFixed(2)} ≥ τ_RA − ${margin}`;
      } else if (before.level !== 'clear' && risk >= t.traffic - margin && level === 'clear') {
        level = 'traffic';
        levelReason = `held at traffic by hysteresis: risk ${risk.toFixed(2)} ≥ τ_TA − ${margin}`;
      }
    }
    return { a, b, level, risk, time, closureRate, ...(levelReason !== undefined ? { levelReason } : {}) };
  }
}

// ---------------------------------------------------------------------------------------------
// Triggers and the dispatcher.

export type TriggerType = 'transmit' | 'steer' | 'hold';

export interface Trigger {
  /** The agent that receives the message. */
  readonly to: string;
  /** The other agent of the pair (the one the message is about). */
  readonly from: string;
  readonly type: TriggerType;
  readonly level: Exclude<Level, 'clear' | 'unknown'>;
  readonly risk: number;
  readonly content: string;
  readonly evidence: readonly Evidence[];
}

export interface TriggerPair {
  readonly a: string;
  readonly b: string;
  readonly level: Level;
  readonly risk: number;
  readonly evidence: readonly Evidence[];
}

function where(evidence: readonly Evidence[]): string {
  const top = evidence[0];
  return top ? ` Strongest evidence: ${top.message}` : '';
}

/**
 * Messages for one pair: traffic → both transmit intent; resolution → the lower-priority agent
 * steers, the other holds. Clear and unknown pairs produce none.
 */
export function triggersFor(pair: TriggerPair, agents: ReadonlyMap<string, Agent> | Readonly<Record<string, Agent>>): Trigger[] {
  const lookup = (id: string): Agent | undefined => (agents instanceof Map ? agents.get(id) : (agents as Record<string, Agent>)[id]);
  const a = lookup(pair.a);
  const b = lookup(pair.b);
  if (!a || !b) return [];
  const label = (x: Agent): string => x.label || x.id;
  const risk = pair.risk;
  const ev = pair.evidence;
  if (pair.level === 'traffic') {
    const text = (other: Agent): string =>
      `Traffic: ${label(other)} is working close to you (risk ${risk.toFixed(2)}). Tell ${label(other)} what you are changing and why, and read what they send.${where(ev)}`;
    return [
      { to: a.id, from: b.id, type: 'transmit', level: 'traffic', risk, content: text(b), evidence: ev },
      { to: b.id, from: a.id, type: 'transmit', level: 'traffic', risk, content: text(a), evidence: ev },
    ];
  }
  if (pair.level === 'resolution') {
    const { hold, steer } = rightOfWay(a, b);
    return [
      {
        to: steer.id,
        from: hold.id,
        type: 'steer',
        level: 'resolution',
        risk,
        content: `Resolution: you and ${label(hold)} are about to collide (risk ${risk.toFixed(2)}). ${label(hold)} has right of way; steer away from the shared code or coordinate before continuing.${where(ev)}`,
        evidence: ev,
      },
      {
        to: hold.id,
        from: steer.id,
        type: 'hold',
        level: 'resolution',
        risk,
        content: `Resolution: ${label(steer)} is about to collide with you (risk ${risk.toFixed(2)}) and has been told to steer away. Hold course; do not widen your change into the shared code.${where(ev)}`,
        evidence: ev,
      },
    ];
  }
  return [];
}

/** Every trigger of a scan's advisories (traffic → transmit ×2, resolution → steer + hold). */
export function scanTriggers(result: { readonly agents: readonly Agent[]; readonly advisories: readonly TriggerPair[] }): Trigger[] {
  const agents = new Map(result.agents.map((x) => [x.id, x]));
  return result.advisories.flatMap((advisory) => triggersFor(advisory, agents));
}

export type TriggerSink = (trigger: Trigger) => void | Promise<void>;

export interface DispatcherOptions {
  readonly sink: TriggerSink;
  /** A pair at an unchanged level is re-notified at most once per cooldown. Default 10 min. */
  readonly cooldownMs?: number;
}

export interface DispatchOutcome {
  readonly sent: readonly Trigger[];
  readonly suppressed: readonly Trigger[];
  readonly problems: readonly Problem[];
}

/**
 * Hands triggers to a sink with a per-pair cooldown: the same pair at the same level is not
 * re-sent within `cooldownMs`; a change of level (an escalation) is sent at once.
 */
export class TriggerDispatcher {
  private readonly sink: TriggerSink;
  private readonly cooldownMs: number;
  private readonly last = new Map<string, { level: Level; time: number }>();

  constructor(options: DispatcherOptions) {
    this.sink = options.sink;
    this.cooldownMs = options.cooldownMs ?? 10 * 60_000;
  }

  async dispatch(triggers: readonly Trigger[], time: number): Promise<DispatchOutcome> {
    const sent: Trigger[] = [];
    const suppressed: Trigger[] = [];
    const problems: Problem[] = [];
    const decided = new Map<string, boolean>();
    for (const trigger of triggers) {
      const key = pairKey(trigger.to, trigger.from);
      let send = decided.get(key);
      if (send === undefined) {
        const prev = this.last.get(key);
        send = !prev || prev.level !== trigger.level || time - prev.time >= this.cooldownMs;
        decided.set(key, send);
        if (send) this.last.set(key, { level: trigger.level, time });
      }
      if (!send) {
        suppressed.push(trigger);
        continue;
      }
      try {
        await this.sink(trigger);
        sent.push(trigger);
      } catch (error) {
        problems.push(triggerSinkFailed(error));
      }
    }
    return { sent, suppressed, problems };
  }

  /** Forget a pair (e.g. after its advisory cleared) so the next advisory is sent at once. */
  reset(a: string, b: string): void {
    this.last.delete(pairKey(a, b));
  }
}
