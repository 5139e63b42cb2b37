/**
 * Error codes and factories in one place (as Rollup's `logs.ts`). Problems are returned, not
 * thrown, wherever a degraded result is possible.
 */
import type { Problem } from './channel.js';
import { serviceDefect, unavailableOf } from './services.js';

export const ErrorCodes = {
  DUPLICATE_CHANNEL_ID: 'DUPLICATE_CHANNEL_ID',
  INVALID_CHANNEL: 'INVALID_CHANNEL',
  CHANNEL_THREW: 'CHANNEL_THREW',
  RISK_OUT_OF_RANGE: 'RISK_OUT_OF_RANGE',
  MISSING_EVIDENCE: 'MISSING_EVIDENCE',
  MISSING_SERVICE: 'MISSING_SERVICE',
  INVALID_OPTION: 'INVALID_OPTION',
  INCOMPARABLE_AGENTS: 'INCOMPARABLE_AGENTS',
  INCOMPLETE_AGENT: 'INCOMPLETE_AGENT',
  INVALID_RANGE: 'INVALID_RANGE',
  INVALID_WEIGHT: 'INVALID_WEIGHT',
  TRIGGER_SINK_FAILED: 'TRIGGER_SINK_FAILED',
  DUPLICATE_AGENT_ID: 'DUPLICATE_AGENT_ID',
  MALFORMED_AGENT: 'MALFORMED_AGENT',
  INVALID_THRESHOLDS: 'INVALID_THRESHOLDS',
  INVALID_PROBABILITY_MAP: 'INVALID_PROBABILITY_MAP',
  INVALID_FORECAST_MODEL: 'INVALID_FORECAST_MODEL',
  CHANNEL_TIMED_OUT: 'CHANNEL_TIMED_OUT',
  CHANNEL_OVER_BUDGET: 'CHANNEL_OVER_BUDGET',
} as const;

export class AirspaceError extends Error {
  readonly code: string;
  readonly channel?: string;
  constructor(problem: Problem) {
    super(problem.message);
    this.name = 'AirspaceError';
    this.code = problem.code;
    if (problem.channel !== undefined) this.channel = problem.channel;
  }
}

/**
 * Thrown by a channel (or a host running one, e.g. a plugin's worker that exited) when it cannot
 * go on in this scan: the scan records its problem once and scores the channel 0 for the pair and
 * every remaining pair, instead of calling it again.
 */
export class ChannelStopped extends AirspaceError {
  readonly problem: Problem;
  constructor(problem: Problem) {
    super(problem);
    this.name = 'ChannelStopped';
    this.problem = problem;
  }
}

function during(agents?: readonly [string, string]): string {
  return agents ? `while scoring ${agents[0]} × ${agents[1]}` : 'while preparing';
}

export function channelTimedOut(id: string, callMs: number, agents?: readonly [string, string]): Problem {
  return {
    code: ErrorCodes.CHANNEL_TIMED_OUT,
    channel: id,
    message: `Channel "${id}" did not answer within ${callMs} ms ${during(agents)} (its per-call limit); it scored 0 for the rest of this scan.`,
  };
}

export function channelOverBudget(id: string, channelMs: number, agents?: readonly [string, string]): Problem {
  return {
    code: ErrorCodes.CHANNEL_OVER_BUDGET,
    channel: id,
    message: `Channel "${id}" used its time budget of ${channelMs} ms for this scan ${during(agents)}; it scored 0 for the remaining pairs.`,
  };
}

export function duplicateChannelId(id: string, firstSource?: string, secondSource?: string): Problem {
  const where = firstSource && secondSource ? ` (from ${firstSource} and ${secondSource})` : '';
  return {
    code: ErrorCodes.DUPLICATE_CHANNEL_ID,
    channel: id,
    message: `Two channels share the id "${id}"${where}; channel ids must be unique.`,
  };
}

export function invalidChannel(source: string, why: string): Problem {
  return { code: ErrorCodes.INVALID_CHANNEL, message: `${source} is not a valid channel: ${why}.` };
}

export function channelThrew(id: string, error: unknown, agents?: [string, string]): Problem {
  const text = error instanceof Error ? error.message : String(error);
  const pair = agents ? ` while scoring ${agents[0]} × ${agents[1]}` : '';
  return { code: ErrorCodes.CHANNEL_THREW, channel: id, message: `Channel "${id}" threw${pair}: ${text}` };
}

export function riskOutOfRange(id: string, risk: unknown, agents?: [string, string]): Problem {
  const pair = agents ? ` for ${agents[0]} × ${agents[1]}` : '';
  return {
    code: ErrorCodes.RISK_OUT_OF_RANGE,
    channel: id,
    message: `Channel "${id}" returned risk ${String(risk)}${pair}, outside [0, 1]; it was ignored.`,
  };
}

export function missingService(id: string, service: string, why = 'which this front end did not supply'): Problem {
  return {
    code: ErrorCodes.MISSING_SERVICE,
    channel: id,
    message: `Channel "${id}" requires "${service}", ${why}; it scored 0.`,
  };
}

/** A channel whose required service the front end said it cannot give: not checked, with its code and reason. */
export function serviceUnavailable(id: string, service: string, code: string, why: string): Problem {
  return {
    code,
    channel: id,
    message: `Channel "${id}" was not checked: it requires "${service}", which is unavailable: ${why}.`,
  };
}

/** The problem that keeps channel `id` from running with `value` as service `name`, if any. */
export function serviceProblem(id: string, name: string, value: unknown): Problem | undefined {
  const unavailable = unavailableOf(value);
  if (unavailable) return serviceUnavailable(id, name, unavailable.code, unavailable.why);
  const defect = serviceDefect(name, value);
  return defect === undefined ? undefined : missingService(id, name, defect);
}

export function unknownOption(id: string, key: string, known: readonly string[]): Problem {
  return {
    code: ErrorCodes.INVALID_OPTION,
    channel: id,
    message: `Option ${key} of the ${id} channel is not one it has (${known.join(', ') || 'none'}); ignored.`,
  };
}

export function invalidOption(id: string, key: string, value: unknown, expected: string): Problem {
  return {
    code: ErrorCodes.INVALID_OPTION,
    channel: id,
    message: `Option ${key} of the ${id} channel is ${JSON.stringify(value) ?? String(value)}, not ${expected}; its default is used.`,
  };
}

export function missingEvidence(id: string, risk: number, agents: [string, string]): Problem {
  return {
    code: ErrorCodes.MISSING_EVIDENCE,
    channel: id,
    message: `Channel "${id}" returned risk ${risk} for ${agents[0]} × ${agents[1]} without evidence; every non-zero risk must say which file/lines/symbol caused it.`,
  };
}

export function invalidRange(range: unknown, agent?: string, path?: string): Problem {
  const where = [agent, path].filter(Boolean).join(' ');
  return {
    code: ErrorCodes.INVALID_RANGE,
    message: `Invalid line range ${JSON.stringify(range)}${where ? ` in ${where}` : ''}: a range is [start, end], 1-based integers with end ≥ start − 1; it was ignored.`,
    ...(agent !== undefined ? { agent } : {}),
    ...(path !== undefined ? { path } : {}),
  };
}

export function invalidWeight(id: string, weight: unknown, used: number): Problem {
  return {
    code: ErrorCodes.INVALID_WEIGHT,
    channel: id,
    message: `Weight ${String(weight)} for channel "${id}" is not in [0, 1]; ${used} was used.`,
  };
}

export function incomparableAgents(a: string, b: string, why: string): Problem {
  return { code: ErrorCodes.INCOMPARABLE_AGENTS, message: `${a} and ${b} cannot be compared: ${why}.` };
}

export function incompleteAgent(agent: string, reasons: readonly string[]): Problem {
  return {
    code: ErrorCodes.INCOMPLETE_AGENT,
    agent,
    message: `${agent}'s working set is incomplete (${reasons.join('; ')}); its pairs are unknown, never clear.`,
  };
}

export function triggerSinkFailed(error: unknown): Problem {
  const text = error instanceof Error ? error.message : String(error);
  return { code: ErrorCodes.TRIGGER_SINK_FAILED, message: `The trigger sink failed: ${text}` };
}

export function invalidRecencyWeight(agent: string, path: string, weight: unknown, used: number): Problem {
  return {
    code: ErrorCodes.INVALID_WEIGHT,
    agent,
    path,
    message: `Recency weight ${String(weight)} of ${path} (${agent}) is not in [0, 1]; ${used} was used.`,
  };
}

export function duplicateAgentId(id: string): Problem {
  return { code: ErrorCodes.DUPLICATE_AGENT_ID, agent: id, message: `Two agents share the id "${id}"; the second was ignored.` };
}

export function malformedAgent(agent: string, why: string): Problem {
  return { code: ErrorCodes.MALFORMED_AGENT, agent, message: `Agent "${agent}": ${why}.` };
}

export function invalidThresholds(thresholds: { traffic: unknown; resolution: unknown }): Problem {
  return {
    code: ErrorCodes.INVALID_THRESHOLDS,
    message: `Thresholds τ_TA ${String(thresholds.traffic)}, τ_RA ${String(thresholds.resolution)} must satisfy 0 ≤ τ_TA ≤ τ_RA ≤ 1; the defaults were used.`,
  };
}

export function invalidProbabilityMap(reason: string): Problem {
  return {
    code: ErrorCodes.INVALID_PROBABILITY_MAP,
    message: `Probability map ${reason}; the shipped map was used.`,
  };
}

export function invalidForecastModel(reason: string): Problem {
  return {
    code: ErrorCodes.INVALID_FORECAST_MODEL,
    message: `Forecast model: ${reason}; the shipped model was used.`,
  };
}
