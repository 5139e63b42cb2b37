/**
 * Triggers: the messages a pair's level asks of its agents (traffic → both transmit intent;
 * resolution → one steers, the other holds), and the dispatcher that sends them with a per-pair
 * cooldown. Pure but for the sinks it is given; time is always an argument.
 */
import type { Evidence, Problem } from './channel.js';
import { triggerSinkFailed } from './errors.js';
import type { Agent } from './model.js';
import type { Level } from './scan-types.js';
import { pairKey, rightOfWay } from './tcas.js';

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
