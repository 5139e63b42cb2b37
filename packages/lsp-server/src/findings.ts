/**
 * Pure: what a scan means for one agent ("self") — each piece of evidence that puts another agent
 * on one of self's lines, in today's coordinates, with the other side's location.
 */
import type { Advisory, Agent, Evidence, EvidenceSide, Level, Precision, Range, ScanResult, Thresholds } from '@airspace/core';
import { todayRange } from './lines.js';
import { DEFAULT_THRESHOLDS, classifyRisk, levelRank, pairKey } from '@airspace/core';

/**
 * What self does about one finding: steer or hold (resolution), transmit (traffic), nothing yet
 * (weak evidence of an advisory), or keep an eye on a pair forecast to collide later.
 */
export type Role = 'steer' | 'hold' | 'transmit' | 'weak' | 'unknown' | 'forecast';

export interface OtherSide {
  readonly agent: string;
  readonly label: string;
  readonly worktree?: string;
  readonly path?: string;
  /** Today's lines in the other agent's worktree. */
  readonly range?: Range;
  readonly baseRange?: Range;
  readonly symbol?: string;
}

export interface Finding {
  /** Key of the advisory (pair of agent ids, sorted), for acknowledgement. */
  readonly pair: string;
  readonly self: string;
  /** Self's repository-relative path. */
  readonly path: string;
  /** Today's lines in self's file (1-based inclusive; zero-width `[k+1, k]` for a point). */
  readonly range: Range;
  readonly selfSymbol?: string;
  readonly other: OtherSide;
  readonly channel: string;
  /**
   * This evidence's own level: the band of its weighted risk alone (file-precise channels capped
   * at traffic), never above the pair's. A weak item of a resolution pair stays weak (`clear`).
   */
  readonly level: Level;
  /** The pair's advisory level (clear for a forecast) and combined risk R (for the summary; never shown beside a channel). */
  readonly pairLevel: Level;
  readonly pairRisk: number;
  /** The pair's calibrated probability of colliding (`Advisory.probability`), when the scan gave one. */
  readonly pairProbability?: number;
  /** A forecast's finding (role `forecast`): the probability that the pair collides later (`Link.forecast`). */
  readonly forecastProbability?: number;
  /** This evidence's own risk r (the channel's where the item has none). */
  readonly channelRisk: number;
  /** ω · r: what this item alone contributes to the pair's noisy-OR. */
  readonly weighted: number;
  readonly role: Role;
  readonly evidence: Evidence;
  /** False for file-level evidence (no lines on self's side): it is shown on line 1. */
  readonly precise: boolean;
}

/** The pair's key is core's, re-exported for the server's modules. */
export { pairKey };

export { todayRange } from './lines.js';

/** The level one evidence item earns by itself, capped at its pair's. */
export function ownLevel(
  weighted: number,
  precision: Precision,
  pairLevel: Advisory['level'],
  thresholds: Thresholds = DEFAULT_THRESHOLDS,
): Level {
  if (pairLevel === 'unknown') return 'unknown';
  const { level } = classifyRisk([{ channel: '', weighted, precision }], thresholds);
  return levelRank(level) < levelRank(pairLevel) ? level : pairLevel;
}

function roleOf(advisory: Advisory, level: Level, self: string): Role {
  if (level === 'unknown') return 'unknown';
  if (level === 'clear') return 'weak';
  if (level === 'traffic') return 'transmit';
  if (advisory.steer === self) return 'steer';
  if (advisory.hold === self) return 'hold';
  return 'transmit';
}

/** Every finding of `self` in a scan: one per evidence item with a side on self's file. */
export function findingsFor(result: ScanResult, self: string): Finding[] {
  const agents = new Map(result.agents.map((a) => [a.id, a]));
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const advisory of result.advisories) {
    if (advisory.a !== self && advisory.b !== self) continue;
    const otherId = advisory.a === self ? advisory.b : advisory.a;
    const link = result.links.find((l) => pairKey(l.a, l.b) === pairKey(advisory.a, advisory.b));
    const items: { channel: string; channelRisk: number; weighted: number; precision: Precision; evidence: Evidence }[] = [];
    if (link) {
      for (const c of link.channels)
        for (const e of c.evidence)
          if (c.risk > 0)
            items.push({
              channel: c.channel,
              channelRisk: e.risk ?? c.risk,
              weighted: c.weight * (e.risk ?? c.risk),
              precision: c.precision,
              evidence: e,
            });
    } else {
      // No breakdown: the advisory's own evidence, each item as strong as the pair.
      for (const e of advisory.evidence)
        items.push({
          channel: e.kind ?? 'airspace',
          channelRisk: e.risk ?? advisory.risk,
          weighted: e.risk ?? advisory.risk,
          precision: 'line',
          evidence: e,
        });
    }
    const otherAgent = agents.get(otherId);
    for (const { channel, channelRisk, weighted, precision, evidence } of items) {
      const mine = evidence.a?.agent === self ? evidence.a : evidence.b?.agent === self ? evidence.b : undefined;
      if (!mine?.path) continue;
      const theirs = mine === evidence.a ? evidence.b : evidence.a;
      const range = todayRange(mine, agents.get(self)) ?? [1, 1];
      const other = otherSide(otherId, otherAgent, theirs);
      const key = [channel, mine.path, range.join(':'), other.path ?? '', other.range?.join(':') ?? '', evidence.message].join('|');
      if (seen.has(key)) continue;
      seen.add(key);
      const level = ownLevel(weighted, precision, advisory.level, result.thresholds);
      out.push({
        pair: pairKey(advisory.a, advisory.b),
        self,
        path: mine.path,
        range,
        ...(mine.symbol ? { selfSymbol: mine.symbol } : {}),
        other,
        channel,
        level,
        pairLevel: advisory.level,
        pairRisk: advisory.risk,
        ...(advisory.probability !== undefined ? { pairProbability: advisory.probability } : {}),
        channelRisk,
        weighted,
        role: roleOf(advisory, level, self),
        evidence,
        precise: !!(mine.range ?? mine.baseRange),
      });
    }
  }
  out.push(...forecastFindings(result, self, agents));
  // File-level evidence adds nothing where the same pair already has lines in the same file.
  const precise = new Set(out.filter((f) => f.precise).map((f) => `${f.pair}|${f.path}`));
  return out.filter((f) => f.precise || !precise.has(`${f.pair}|${f.path}`));
}

/** The other agent's side of an evidence item, as a finding shows it. */
function otherSide(otherId: string, otherAgent: Agent | undefined, theirs: EvidenceSide | undefined): OtherSide {
  return {
    agent: otherId,
    label: otherAgent?.label ?? otherId,
    ...(otherAgent?.worktree ? { worktree: otherAgent.worktree } : {}),
    ...(theirs?.path ? { path: theirs.path } : {}),
    ...(theirs ? withRange(theirs, otherAgent) : {}),
    ...(theirs?.baseRange ? { baseRange: theirs.baseRange } : {}),
    ...(theirs?.symbol ? { symbol: theirs.symbol } : {}),
  };
}

/**
 * The findings of self's forecast pairs (clear, git merges them cleanly, likely to collide later):
 * one per item of the forecast's evidence with a side on self's file, at information level.
 */
function forecastFindings(result: ScanResult, self: string, agents: ReadonlyMap<string, Agent>): Finding[] {
  const out: Finding[] = [];
  for (const link of result.links) {
    const forecast = link.forecast;
    if (!forecast || (link.a !== self && link.b !== self)) continue;
    const otherId = link.a === self ? link.b : link.a;
    const otherAgent = agents.get(otherId);
    for (const evidence of forecast.evidence) {
      const mine = evidence.a?.agent === self ? evidence.a : evidence.b?.agent === self ? evidence.b : undefined;
      if (!mine?.path) continue;
      const theirs = mine === evidence.a ? evidence.b : evidence.a;
      out.push({
        pair: pairKey(link.a, link.b),
        self,
        path: mine.path,
        range: todayRange(mine, agents.get(self)) ?? [1, 1],
        ...(mine.symbol ? { selfSymbol: mine.symbol } : {}),
        other: otherSide(otherId, otherAgent, theirs),
        // The signal behind the item (co-change, past-conflicts, shared-file, …).
        channel: evidence.kind ?? 'forecast',
        level: 'clear',
        pairLevel: link.level,
        pairRisk: link.risk,
        forecastProbability: forecast.probability,
        channelRisk: evidence.risk ?? forecast.probability,
        weighted: 0,
        role: 'forecast',
        evidence,
        precise: !!(mine.range ?? mine.baseRange),
      });
    }
  }
  return out;
}

function withRange(side: EvidenceSide, agent: Agent | undefined): { range?: Range } {
  const range = todayRange(side, agent);
  return range ? { range } : {};
}

/** The advisories that concern `self`, as a stable string for change detection. */
export function advisoriesKey(result: ScanResult, self: string | undefined): string {
  return JSON.stringify(
    result.advisories
      .filter((a) => self === undefined || a.a === self || a.b === self)
      .map((a) => [a.a, a.b, a.level, a.steer ?? '', Math.round(a.risk * 1000)]),
  );
}
