/**
 * A scan's channels, ready to score: each one's weight (clamped, with a problem), its required
 * services checked against their contracts, its options checked against its schema and merged
 * over its defaults, its budget's clock, and what its `prepare` built — once per scan. A channel
 * whose service is missing or whose `prepare` fails is skipped: it scores 0 with its problem.
 */
import type { AnyChannel, ChannelContext, Logger, Precision, Problem, ScoreContext } from './channel.js';
import { channelThrew, invalidWeight, serviceProblem } from './errors.js';
import type { Agent } from './model.js';
import { resolveOptions } from './options.js';
import { isChannelStopped, Timekeeper, type ChannelBudget } from './scan-budget.js';
import { deepFreeze, type ProblemLog } from './scan-input.js';
import { type ServiceName, type Services, type ServicesOf } from './services.js';

/** A channel that scores in this scan. */
export interface ActiveChannel {
  readonly channel: AnyChannel;
  readonly weight: number;
  readonly precision: Precision;
  readonly ctx: ScoreContext<unknown, unknown>;
  readonly clock?: Timekeeper;
  /** Set when the channel was stopped in this scan; it scores 0 for every later pair. */
  stopped?: Problem;
}

/** A channel that does not score in this scan (a service missing, `prepare` failed), and why. */
export interface SkippedChannel {
  readonly channel: AnyChannel;
  readonly weight: number;
  readonly precision: Precision;
  readonly problem: Problem;
}

export interface ChannelSetup {
  readonly weights?: Readonly<Record<string, number>>;
  readonly channelOptions?: Readonly<Record<string, unknown>>;
  readonly budgets?: Readonly<Record<string, ChannelBudget>>;
  readonly services: Readonly<Partial<Services>>;
  readonly now: number;
  readonly logger: Logger;
  readonly repository?: { readonly id: string; readonly root?: string };
}

/** Weighs, checks and prepares each channel over `agents` (frozen, sorted by id). */
export async function prepareChannels(
  channels: readonly AnyChannel[],
  agents: readonly Agent[],
  setup: ChannelSetup,
  problems: ProblemLog,
): Promise<{ weights: Record<string, number>; active: ActiveChannel[]; skipped: SkippedChannel[] }> {
  const services: Readonly<Record<string, unknown>> = setup.services;
  const weights: Record<string, number> = {};
  const active: ActiveChannel[] = [];
  const skipped: SkippedChannel[] = [];
  for (const channel of channels) {
    const raw = setup.weights?.[channel.id] ?? channel.defaultWeight;
    const weight =
      typeof raw === 'number' && raw >= 0 && raw <= 1
        ? raw
        : Number.isNaN(raw) || typeof raw !== 'number'
          ? 0
          : Math.min(1, Math.max(0, raw));
    if (weight !== raw) problems.add(invalidWeight(channel.id, raw, weight));
    weights[channel.id] = weight;
    const precision: Precision = channel.meta?.precision ?? 'file';
    // The services it requires, checked against their contracts here so no channel needs a guard.
    let unserved: Problem | undefined;
    for (const name of channel.requires ?? []) {
      unserved = serviceProblem(channel.id, name, services[name]);
      if (unserved !== undefined) break;
    }
    if (unserved !== undefined) {
      problems.add(unserved);
      skipped.push({ channel, weight, precision, problem: unserved });
      continue;
    }
    const resolved = resolveOptions(channel.id, channel.defaultOptions, channel.optionsSchema, setup.channelOptions?.[channel.id]);
    for (const p of resolved.problems) problems.add(p);
    const budget = setup.budgets?.[channel.id];
    const clock = budget ? new Timekeeper(channel.id, budget) : undefined;
    const base: ChannelContext<unknown, ServiceName> = {
      options: deepFreeze(resolved.options),
      now: setup.now,
      logger: setup.logger,
      // Each required service was checked above; the others are the front end's, as supplied.
      services: services as ServicesOf<ServiceName>,
      ...(setup.repository ? { repository: setup.repository } : {}),
      ...(clock ? { signal: clock.controller.signal } : {}),
    };
    let prepared: unknown;
    try {
      const prepare = channel.prepare?.bind(channel);
      prepared = prepare ? await (clock ? clock.run(() => prepare(agents, base)) : prepare(agents, base)) : undefined;
    } catch (error) {
      const problem = isChannelStopped(error) ? error.problem : channelThrew(channel.id, error);
      problems.add(problem);
      skipped.push({ channel, weight, precision, problem });
      continue;
    }
    active.push({ channel, weight, precision, ctx: { ...base, prepared }, ...(clock ? { clock } : {}) });
  }
  return { weights, active, skipped };
}
