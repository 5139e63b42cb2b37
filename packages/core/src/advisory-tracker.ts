/**
 * The advisory tracker: successive scans of the same pairs in, events out — closure rate, early
 * escalation, hysteresis. Stateful but pure: no clock, no timers; time is always an argument.
 */
import type { Evidence } from './channel.js';
import type { Level, Link, Thresholds } from './scan-types.js';
import { DEFAULT_THRESHOLDS } from './scan-types.js';
import { DEFAULT_ESCALATION, levelRank, levelRisks, pairKey, type EscalationOptions } from './tcas.js';

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
