/**
 * Time budgets of channels within one scan (plugins get one; built-ins run untimed): each call is
 * cut at its per-call limit or at what is left of the channel's budget, and a channel once cut (or
 * once it throws `ChannelStopped`) is stopped for the rest of the scan.
 */
import type { Problem } from './channel.js';
import { ChannelStopped, channelOverBudget, channelTimedOut } from './errors.js';

/** How long one channel may take in one scan. */
export interface ChannelBudget {
  /** Total time of its `prepare` and `score` calls in one scan; beyond it, it scores 0. */
  readonly channelMs: number;
  /** Longest one call may take: a promise that never settles is cut here. */
  readonly callMs: number;
}

export function isChannelStopped(error: unknown): error is ChannelStopped {
  // By name too: a host may bundle its own copy of this module.
  return (
    error instanceof ChannelStopped ||
    (error instanceof Error && error.name === 'ChannelStopped' && typeof (error as { problem?: unknown }).problem === 'object')
  );
}

/**
 * A budgeted channel's clock for one scan. Each call is cut at the per-call limit or at what is
 * left of the budget, whichever comes first; a synchronous call cannot be cut, but once it has
 * spent the budget the channel is not called again. Stopping aborts `ctx.signal`.
 */
export class Timekeeper {
  private spent = 0;
  readonly controller = new AbortController();
  constructor(
    private readonly id: string,
    private readonly budget: ChannelBudget,
  ) {}

  async run<T>(call: () => T | PromiseLike<T>, agents?: [string, string]): Promise<T> {
    const left = this.budget.channelMs - this.spent;
    if (left <= 0) throw this.stop(channelOverBudget(this.id, this.budget.channelMs, agents));
    const byBudget = left < this.budget.callMs;
    const limit = Math.min(this.budget.callMs, left);
    const start = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const value = call();
      if (!isThenable<T>(value)) return value;
      return await new Promise<T>((resolve, reject) => {
        timer = setTimeout(
          () =>
            reject(
              this.stop(byBudget ? channelOverBudget(this.id, this.budget.channelMs, agents) : channelTimedOut(this.id, limit, agents)),
            ),
          limit,
        );
        value.then(resolve, reject);
      });
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      this.spent += performance.now() - start;
    }
  }

  private stop(problem: Problem): ChannelStopped {
    this.controller.abort(problem);
    return new ChannelStopped(problem);
  }
}

export function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
