/**
 * INTERIM until `@airspace/core` exports `scanAirspace`: the subset the trail uses (prepare once,
 * score each pair, noisy-OR, TCAS bands), with core's signature so the switch is one import.
 */
import type { Agent, AnyChannel, ChannelBreakdown, Level, Link, Thresholds } from '@airspace/core';
import { DEFAULT_THRESHOLDS } from '@airspace/core';

export type ChannelEntry = AnyChannel | ((options?: unknown) => AnyChannel);

export async function scanAirspace(
  agents: readonly Agent[],
  context: { channels: readonly ChannelEntry[]; services?: Record<string, unknown>; now?: number },
  options: { weights?: Readonly<Record<string, number>>; thresholds?: Partial<Thresholds>; edges?: unknown } = {},
): Promise<{ links: Link[] }> {
  const thresholds = { ...DEFAULT_THRESHOLDS, ...(options.thresholds ?? {}) };
  const now = context.now ?? Date.now();
  const logger = { debug() {}, info() {}, warn() {} };
  const services = context.services ?? {};
  const channels = context.channels.map((c) => (typeof c === 'function' ? c() : c));
  const ordered = [...agents].sort((x, y) => (x.id < y.id ? -1 : 1));
  const prepared = new Map<AnyChannel, unknown>();
  for (const channel of channels) {
    const ctx = { options: channel.defaultOptions, now, logger, services };
    prepared.set(channel, channel.prepare ? await channel.prepare(ordered, ctx) : undefined);
  }
  const links: Link[] = [];
  for (let i = 0; i < ordered.length; i++) {
    for (let j = i + 1; j < ordered.length; j++) {
      const a = ordered[i]!;
      const b = ordered[j]!;
      const breakdown: ChannelBreakdown[] = [];
      for (const channel of channels) {
        const weight = options.weights?.[channel.id] ?? channel.defaultWeight;
        const score = await channel.score(a, b, { options: channel.defaultOptions, now, logger, services, prepared: prepared.get(channel) });
        breakdown.push({ channel: channel.id, weight, risk: score.risk, weighted: weight * score.risk, precision: channel.meta?.precision ?? 'file', evidence: score.evidence });
      }
      const risk = 1 - breakdown.reduce((p, c) => p * (1 - c.weighted), 1);
      const level: Level = risk >= thresholds.resolution ? 'resolution' : risk >= thresholds.traffic ? 'traffic' : 'clear';
      links.push({ a: a.id, b: b.id, risk, distance: 1 - risk, level, channels: breakdown, evidence: breakdown.flatMap((c) => c.evidence) });
    }
  }
  return { links };
}
