/**
 * Error codes and factories in one place (as Rollup's `logs.ts`). Problems are returned, not
 * thrown, wherever a degraded result is possible.
 */
import type { Problem } from './channel.js';

export const ErrorCodes = {
  DUPLICATE_CHANNEL_ID: 'DUPLICATE_CHANNEL_ID',
  INVALID_CHANNEL: 'INVALID_CHANNEL',
  CHANNEL_THREW: 'CHANNEL_THREW',
  RISK_OUT_OF_RANGE: 'RISK_OUT_OF_RANGE',
  MISSING_EVIDENCE: 'MISSING_EVIDENCE',
  MISSING_SERVICE: 'MISSING_SERVICE',
  INCOMPARABLE_AGENTS: 'INCOMPARABLE_AGENTS',
  INCOMPLETE_AGENT: 'INCOMPLETE_AGENT',
  INVALID_RANGE: 'INVALID_RANGE',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

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

export function duplicateChannelId(id: string, firstSource?: string, secondSource?: string): Problem {
  const where = firstSource && secondSource ? ` (from ${firstSource} and ${secondSource})` : '';
  return { code: ErrorCodes.DUPLICATE_CHANNEL_ID, channel: id, message: `Two channels share the id "${id}"${where}; channel ids must be unique.` };
}

export function invalidChannel(source: string, why: string): Problem {
  return { code: ErrorCodes.INVALID_CHANNEL, message: `${source} is not a valid channel: ${why}.` };
}

export function channelThrew(id: string, error: unknown, agents?: [string, string]): Problem {
  const text = error instanceof Error ? error.message : String(error);
  const pair = agents ? ` while scoring ${agents[0]} × ${agents[1]}` : '';
  return { code: ErrorCodes.CHANNEL_THREW, channel: id, message: `Channel "${id}" threw${pair}: ${text}` };
}

export function riskOutOfRange(id: string, risk: unknown): Problem {
  return { code: ErrorCodes.RISK_OUT_OF_RANGE, channel: id, message: `Channel "${id}" returned risk ${String(risk)}, outside [0, 1]; it was ignored.` };
}

export function missingService(id: string, service: string): Problem {
  return { code: ErrorCodes.MISSING_SERVICE, channel: id, message: `Channel "${id}" requires "${service}", which this front end did not supply; it scored 0.` };
}
