/**
 * Observations: what a caller supplies about one agent at one moment. Versioned, validated with
 * errors that name the field, and normalised (canonical times, sorted and deduplicated path sets)
 * before anything is scored or hashed.
 */
import { isWellFormedText, sortedSet } from './canonical.js';
import { TrailError, TrailErrorCodes } from './errors.js';

export const OBSERVATION_VERSION = 1;

/** An observation as stored in a trail (normalised). */
export interface ShadowObservation {
  readonly version: typeof OBSERVATION_VERSION;
  readonly agentId: string;
  /** The task both agents' work belongs to; a trail covers one two-agent change of one task. */
  readonly taskId: string;
  readonly repositoryId: string;
  /** The base commit both working sets are measured against. */
  readonly base: string;
  /** What the observation covers (e.g. `worktree-diff`, a path prefix); only equal scopes compare. */
  readonly scopeId: string;
  /** Paths the agent reads (depends on), repository-relative, sorted, deduplicated. */
  readonly readPaths: readonly string[];
  /** Paths the agent writes, repository-relative, sorted, deduplicated. */
  readonly writePaths: readonly string[];
  /** False when the observer knows it missed part of the working set; `incompleteReason` says what. */
  readonly complete: boolean;
  readonly incompleteReason?: string;
  /** ISO 8601 UTC, millisecond precision (`Date.prototype.toISOString`). */
  readonly observedAt: string;
  readonly expiresAt: string;
}

/** What a caller may supply: times as ISO strings, epoch milliseconds or Dates; paths in any order. */
export type ObservationInput = Omit<ShadowObservation, 'version' | 'observedAt' | 'expiresAt'> & {
  readonly version: number;
  readonly observedAt: TimeInput;
  readonly expiresAt: TimeInput;
};

export type TimeInput = string | number | Date;

const OBSERVATION_FIELDS = new Set([
  'version',
  'agentId',
  'taskId',
  'repositoryId',
  'base',
  'scopeId',
  'readPaths',
  'writePaths',
  'complete',
  'incompleteReason',
  'observedAt',
  'expiresAt',
]);

const CANONICAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** True when `text` is a time in the trail's canonical spelling. */
export function isCanonicalTime(text: unknown): text is string {
  if (typeof text !== 'string' || !CANONICAL_TIME.test(text)) return false;
  const date = new Date(text);
  return !Number.isNaN(date.getTime()) && date.toISOString() === text;
}

/** A time in canonical spelling; throws `invalid-argument` naming `what` otherwise. */
export function canonicalTime(input: TimeInput, what: string): string {
  const date = input instanceof Date ? input : typeof input === 'number' || typeof input === 'string' ? new Date(input) : undefined;
  if (!date || Number.isNaN(date.getTime()) || (typeof input === 'string' && !/^\d{4}-\d{2}-\d{2}T/.test(input))) {
    throw new TrailError(
      TrailErrorCodes.INVALID_ARGUMENT,
      `${what} must be an ISO 8601 date-time (e.g. 2026-01-31T12:00:00.000Z), epoch milliseconds or a Date; got ${JSON.stringify(input)}.`,
    );
  }
  return date.toISOString();
}

/**
 * Why `path` is not a canonical repository-relative path, or `undefined` when it is: forward
 * slashes, no leading or trailing slash, no empty, `.` or `..` segment, no NUL.
 */
export function pathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string' || path.length === 0) return 'a path must be a non-empty string';
  if (path.includes('\\')) return `path ${JSON.stringify(path)} uses a backslash; use forward slashes`;
  if (!isWellFormedText(path)) return `path ${JSON.stringify(path)} is not well-formed Unicode (a lone surrogate)`;
  if (path.includes('\0')) return `path ${JSON.stringify(path)} contains NUL`;
  if (path.startsWith('/')) return `path ${JSON.stringify(path)} is absolute; paths are repository-relative`;
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return `path ${JSON.stringify(path)} has an empty, "." or ".." segment`;
  }
  return undefined;
}

function invalid(who: string, message: string): TrailError {
  return new TrailError(TrailErrorCodes.INVALID_OBSERVATION, `Observation ${who}: ${message}.`);
}

function requireText(value: unknown, field: string, who: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value !== value.trim() || !isWellFormedText(value)) {
    throw invalid(who, `"${field}" must be a non-empty, well-formed string without surrounding whitespace (got ${JSON.stringify(value)})`);
  }
  return value;
}

/** Validated, normalised path set. */
export function normalizePathSet(value: unknown, field: string, who: string): string[] {
  if (!Array.isArray(value)) throw invalid(who, `"${field}" must be an array of repository-relative paths`);
  for (const path of value) {
    const problem = pathProblem(path);
    if (problem) throw invalid(who, `"${field}": ${problem}`);
  }
  return sortedSet(value as string[]);
}

/**
 * Validate and normalise one observation. `who` names it in errors (`a`, `b`, or an agent id).
 * Throws `TrailError` with code `invalid-observation` on the first problem found.
 */
export function normalizeObservation(input: unknown, who = 'observation'): ShadowObservation {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw invalid(who, 'must be a JSON object');
  const raw = input as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!OBSERVATION_FIELDS.has(key)) throw invalid(who, `unknown field "${key}" (fields: ${[...OBSERVATION_FIELDS].join(', ')})`);
  }
  if (raw.version !== OBSERVATION_VERSION) {
    throw invalid(
      who,
      `"version" must be ${OBSERVATION_VERSION} (got ${JSON.stringify(raw.version)}); this trail reads observation format ${OBSERVATION_VERSION} only`,
    );
  }
  const agentId = requireText(raw.agentId, 'agentId', who);
  const label = `${who} (${agentId})`;
  const taskId = requireText(raw.taskId, 'taskId', label);
  const repositoryId = requireText(raw.repositoryId, 'repositoryId', label);
  const base = requireText(raw.base, 'base', label);
  const scopeId = requireText(raw.scopeId, 'scopeId', label);
  const readPaths = normalizePathSet(raw.readPaths, 'readPaths', label);
  const writePaths = normalizePathSet(raw.writePaths, 'writePaths', label);
  if (typeof raw.complete !== 'boolean') throw invalid(label, `"complete" must be true or false (got ${JSON.stringify(raw.complete)})`);
  let incompleteReason: string | undefined;
  if (raw.complete) {
    if (raw.incompleteReason !== undefined) throw invalid(label, '"incompleteReason" is only allowed when "complete" is false');
  } else {
    incompleteReason = requireText(raw.incompleteReason, 'incompleteReason', label);
  }
  let observedAt: string;
  let expiresAt: string;
  try {
    observedAt = canonicalTime(raw.observedAt as TimeInput, '"observedAt"');
    expiresAt = canonicalTime(raw.expiresAt as TimeInput, '"expiresAt"');
  } catch (error) {
    throw invalid(label, (error as Error).message.replace(/\.$/, ''));
  }
  if (Date.parse(expiresAt) <= Date.parse(observedAt)) {
    throw invalid(label, `"expiresAt" (${expiresAt}) must be later than "observedAt" (${observedAt})`);
  }
  const observation: ShadowObservation = {
    version: OBSERVATION_VERSION,
    agentId,
    taskId,
    repositoryId,
    base,
    scopeId,
    readPaths,
    writePaths,
    complete: raw.complete,
    observedAt,
    expiresAt,
    ...(incompleteReason !== undefined ? { incompleteReason } : {}),
  };
  return observation;
}

/** Why an observation is not current at `time` (expired, or observed after it), or `undefined`. */
export function currencyProblem(observation: ShadowObservation, time: string): string | undefined {
  const at = Date.parse(time);
  if (Date.parse(observation.observedAt) > at) {
    return `observation of ${observation.agentId} is future-dated: observed at ${observation.observedAt}, after ${time}`;
  }
  if (Date.parse(observation.expiresAt) <= at) {
    return `observation of ${observation.agentId} expired at ${observation.expiresAt}, not after ${time}`;
  }
  return undefined;
}

/**
 * Every reason the pair cannot be compared at `time`: incomplete, expired, future-dated, or
 * different repository, base, task or scope. Empty when the pair is comparable.
 */
export function comparabilityProblems(a: ShadowObservation, b: ShadowObservation, time: string): string[] {
  const problems: string[] = [];
  for (const observation of [a, b]) {
    if (!observation.complete) problems.push(`observation of ${observation.agentId} is incomplete: ${observation.incompleteReason}`);
    const currency = currencyProblem(observation, time);
    if (currency) problems.push(currency);
  }
  for (const field of ['repositoryId', 'base', 'taskId', 'scopeId'] as const) {
    if (a[field] !== b[field]) {
      problems.push(`incomparable ${field}: ${a.agentId} has ${JSON.stringify(a[field])}, ${b.agentId} has ${JSON.stringify(b[field])}`);
    }
  }
  return problems;
}
