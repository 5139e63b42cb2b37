/**
 * Reading a trail back: the shape of each receipt, its canonical spelling, and the event rules
 * replayed from the first receipt. The append functions run the same rules on the receipt they
 * are about to add, so "what may be appended" and "what verifies" cannot drift apart.
 */
import { canonicalize, isSortedSet } from './canonical.js';
import type { TrailErrorCode } from './errors.js';
import { TrailErrorCodes } from './errors.js';
import type { ShadowObservation } from './observation.js';
import { currencyProblem, isCanonicalTime, pathProblem } from './observation.js';
import type { AcknowledgementPayload, ReceiptKind, ReobservationPayload, ScopeRevisionPayload, ShadowReceipt } from './types.js';
import { DECLARED_ONLY } from './types.js';

type Shape = Record<string, unknown>;

const isObject = (v: unknown): v is Shape => v !== null && typeof v === 'object' && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isHash = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Problem when `value`'s own keys are not exactly `required` (plus any of `optional`). */
function keysProblem(value: Shape, where: string, required: readonly string[], optional: readonly string[] = []): string | undefined {
  for (const key of required) if (!(key in value)) return `${where} lacks "${key}"`;
  const allowed = new Set([...required, ...optional]);
  for (const key of Object.keys(value)) if (!allowed.has(key)) return `${where} has an unexpected field "${key}"`;
  return undefined;
}

const OBSERVATION_KEYS = [
  'agentId',
  'base',
  'complete',
  'expiresAt',
  'observedAt',
  'readPaths',
  'repositoryId',
  'scopeId',
  'taskId',
  'version',
  'writePaths',
];
const ADVISORY_KEYS = [
  'channels',
  'evidence',
  'exactOverlaps',
  'found',
  'graph',
  'level',
  'levelReason',
  'links',
  'risk',
  'statement',
  'unknownReasons',
];
const LEVELS = new Set(['clear', 'traffic', 'resolution', 'unknown']);
const PAYLOAD_KEYS: Record<ReceiptKind, readonly string[]> = {
  created: ['advisory', 'graph', 'kind', 'observations'],
  acknowledgement: ['advisoryEventId', 'advisoryHash', 'agentId', 'kind', 'note'],
  'scope-revision': ['advisory', 'agentId', 'authorizationRef', 'footprint', 'kind', 'observationEventId'],
  reobservation: ['advisory', 'graph', 'graphSource', 'kind', 'observations'],
};

function observationShape(o: unknown, where: string): string | undefined {
  if (!isObject(o)) return `${where} is not an object`;
  const keys = keysProblem(o, where, OBSERVATION_KEYS, ['incompleteReason']);
  if (keys) return keys;
  if (o.version !== 1) return `${where}.version is not 1`;
  for (const k of ['agentId', 'base', 'expiresAt', 'observedAt', 'repositoryId', 'scopeId', 'taskId'])
    if (!isText(o[k])) return `${where}.${k} is not a non-empty string`;
  if (typeof o.complete !== 'boolean') return `${where}.complete is not a boolean`;
  if (o.complete === 'incompleteReason' in o) return `${where}.incompleteReason must be present exactly when complete is false`;
  if ('incompleteReason' in o && !isText(o.incompleteReason)) return `${where}.incompleteReason is not a non-empty string`;
  if (!isStringArray(o.readPaths) || !isStringArray(o.writePaths)) return `${where} path sets are not arrays of strings`;
  return undefined;
}

function graphShape(g: unknown, where: string): string | undefined {
  if (!isObject(g)) return `${where} is not an object`;
  const keys = keysProblem(g, where, ['edges']);
  if (keys) return keys;
  if (
    !Array.isArray(g.edges) ||
    !g.edges.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && typeof e[1] === 'string')
  ) {
    return `${where}.edges is not a list of [from, to] path pairs`;
  }
  return undefined;
}

function advisoryShape(a: unknown, where: string): string | undefined {
  if (!isObject(a)) return `${where} is not an object`;
  const keys = keysProblem(a, where, ADVISORY_KEYS);
  if (keys) return keys;
  if (typeof a.level !== 'string' || !LEVELS.has(a.level)) return `${where}.level is not clear, traffic, resolution or unknown`;
  if (typeof a.found !== 'boolean' || a.found !== (a.level === 'traffic' || a.level === 'resolution'))
    return `${where}.found does not match its level`;
  if (a.risk !== null && !(typeof a.risk === 'number' && a.risk >= 0 && a.risk <= 1)) return `${where}.risk is neither null nor in [0, 1]`;
  if ((a.risk === null) !== (a.level === 'unknown' && Array.isArray(a.unknownReasons) && a.unknownReasons.length > 0))
    return `${where}.risk is null exactly when the pair was not scored`;
  if (a.levelReason !== null && typeof a.levelReason !== 'string') return `${where}.levelReason is neither null nor a string`;
  if (!isText(a.statement)) return `${where}.statement is not a non-empty string`;
  if (!isStringArray(a.unknownReasons)) return `${where}.unknownReasons is not a list of strings`;
  const overlaps = a.exactOverlaps;
  if (!isObject(overlaps)) return `${where}.exactOverlaps is not an object`;
  const overlapKeys = keysProblem(overlaps, `${where}.exactOverlaps`, ['aReadsBWrites', 'aWritesBReads', 'writeWrite']);
  if (overlapKeys) return overlapKeys;
  if (![overlaps.aReadsBWrites, overlaps.aWritesBReads, overlaps.writeWrite].every(isStringArray))
    return `${where}.exactOverlaps holds a non-list`;
  const graph = a.graph;
  if (!isObject(graph) || keysProblem(graph, '', ['digest', 'edgeCount']) || !isHash(graph.digest) || !Number.isInteger(graph.edgeCount)) {
    return `${where}.graph is not { digest, edgeCount }`;
  }
  for (const [field, fields] of [
    ['links', ['level', 'risk', 'sides']],
    ['channels', ['channel', 'risk', 'weight']],
    ['evidence', ['kind', 'message']],
  ] as const) {
    const list = a[field];
    if (!Array.isArray(list)) return `${where}.${field} is not a list`;
    for (const [i, item] of list.entries()) {
      if (!isObject(item)) return `${where}.${field}[${i}] is not an object`;
      const problem = keysProblem(item, `${where}.${field}[${i}]`, fields);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** Why `receipt` is not a well-formed receipt (shape only), or `undefined`. */
export function receiptShapeProblem(receipt: unknown, where: string): string | undefined {
  if (!isObject(receipt)) return `${where} is not an object`;
  const keys = keysProblem(receipt, where, ['eventId', 'hash', 'payload', 'previousHash', 'time', 'trailId']);
  if (keys) return keys;
  if (!isText(receipt.eventId)) return `${where}.eventId is not a non-empty string`;
  if (!isText(receipt.trailId)) return `${where}.trailId is not a non-empty string`;
  if (!isText(receipt.time)) return `${where}.time is not a non-empty string`;
  if (!isHash(receipt.hash)) return `${where}.hash is not 64 lowercase hex digits`;
  if (receipt.previousHash !== null && !isHash(receipt.previousHash))
    return `${where}.previousHash is neither null nor 64 lowercase hex digits`;
  const p = receipt.payload;
  if (!isObject(p)) return `${where}.payload is not an object`;
  const kind = p.kind as ReceiptKind;
  const required = typeof kind === 'string' ? PAYLOAD_KEYS[kind] : undefined;
  if (!required) return `${where}.payload.kind ${JSON.stringify(p.kind)} is not one of ${Object.keys(PAYLOAD_KEYS).join(', ')}`;
  const at = `${where}.payload`;
  const problem = keysProblem(p, at, required);
  if (problem) return problem;
  switch (kind) {
    case 'created':
    case 'reobservation': {
      if (!Array.isArray(p.observations) || p.observations.length !== 2) return `${at}.observations is not a pair`;
      const obs =
        observationShape(p.observations[0], `${at}.observations[0]`) ?? observationShape(p.observations[1], `${at}.observations[1]`);
      if (obs) return obs;
      if (kind === 'reobservation' && p.graphSource !== 'supplied' && p.graphSource !== 'previous')
        return `${at}.graphSource is not "supplied" or "previous"`;
      return graphShape(p.graph, `${at}.graph`) ?? advisoryShape(p.advisory, `${at}.advisory`);
    }
    case 'acknowledgement':
      if (!isText(p.agentId) || !isText(p.advisoryEventId)) return `${at} agentId and advisoryEventId must be non-empty strings`;
      if (!isHash(p.advisoryHash)) return `${at}.advisoryHash is not 64 lowercase hex digits`;
      if (p.note !== null && typeof p.note !== 'string') return `${at}.note is neither null nor a string`;
      return undefined;
    case 'scope-revision': {
      if (!isText(p.agentId) || !isText(p.observationEventId)) return `${at} agentId and observationEventId must be non-empty strings`;
      const ref = p.authorizationRef;
      if (!isObject(ref) || keysProblem(ref, '', ['label', 'ref']) || !isText(ref.ref))
        return `${at}.authorizationRef is not { label, ref }`;
      const fp = p.footprint;
      if (
        !isObject(fp) ||
        keysProblem(fp, '', ['readPaths', 'writePaths']) ||
        !isStringArray(fp.readPaths) ||
        !isStringArray(fp.writePaths)
      ) {
        return `${at}.footprint is not { readPaths, writePaths }`;
      }
      return advisoryShape(p.advisory, `${at}.advisory`);
    }
  }
}

/** Every path set of a (well-formed) payload, with where it sits. Graph edges are checked apart. */
function pathSets(receipt: ShadowReceipt): { where: string; paths: readonly string[] }[] {
  const p = receipt.payload;
  const out: { where: string; paths: readonly string[] }[] = [];
  if (p.kind === 'created' || p.kind === 'reobservation') {
    p.observations.forEach((o, i) => {
      out.push({ where: `payload.observations[${i}].readPaths`, paths: o.readPaths });
      out.push({ where: `payload.observations[${i}].writePaths`, paths: o.writePaths });
    });
  }
  if (p.kind === 'scope-revision') {
    out.push({ where: 'payload.footprint.readPaths', paths: p.footprint.readPaths });
    out.push({ where: 'payload.footprint.writePaths', paths: p.footprint.writePaths });
  }
  if (p.kind !== 'acknowledgement') {
    for (const key of ['writeWrite', 'aWritesBReads', 'aReadsBWrites'] as const)
      out.push({ where: `payload.advisory.exactOverlaps.${key}`, paths: p.advisory.exactOverlaps[key] });
  }
  return out;
}

/** Where a path set or the edge list is out of order or duplicated, or `undefined`. */
export function pathOrderProblem(receipt: ShadowReceipt): string | undefined {
  for (const { where, paths } of pathSets(receipt)) {
    if (!isSortedSet(paths)) return `${where} is not sorted and duplicate-free`;
  }
  const p = receipt.payload;
  if (p.kind === 'created' || p.kind === 'reobservation') {
    if (!isSortedSet(p.graph.edges.map((e) => canonicalize(e))))
      return 'payload.graph.edges is not sorted by (from, to) and duplicate-free';
  }
  return undefined;
}

/** Where a time or path is not in its canonical spelling, or `undefined`. */
export function valueSpellingProblem(receipt: ShadowReceipt): string | undefined {
  if (!isCanonicalTime(receipt.time)) return `time ${JSON.stringify(receipt.time)} is not canonical (YYYY-MM-DDTHH:mm:ss.sssZ)`;
  for (const { where, paths } of pathSets(receipt)) {
    for (const path of paths) {
      const problem = pathProblem(path);
      if (problem) return `${where}: ${problem}`;
    }
  }
  const p = receipt.payload;
  if (p.kind === 'created' || p.kind === 'reobservation') {
    for (const [i, o] of p.observations.entries()) {
      for (const k of ['observedAt', 'expiresAt'] as const) {
        if (!isCanonicalTime(o[k])) return `payload.observations[${i}].${k} ${JSON.stringify(o[k])} is not canonical`;
      }
    }
    for (const edge of p.graph.edges) {
      for (const path of edge) {
        const problem = pathProblem(path);
        if (problem) return `payload.graph.edges: ${problem}`;
      }
    }
  }
  return undefined;
}

/** What replaying the receipts so far establishes. */
export interface TrailState {
  readonly agents: readonly [string, string];
  readonly taskId: string;
  readonly repositoryId: string;
  /** The latest observed pair and the receipt that recorded it. */
  observations: readonly [ShadowObservation, ShadowObservation];
  observationEventId: string;
  /** Whether a scope revision was declared on the latest observed pair. */
  revised: boolean;
  /** The graph of the latest observed pair (a scope revision reuses it). */
  graph: { readonly edges: readonly (readonly [string, string])[] };
  /** The receipt carrying the latest advisory. */
  advisory: ShadowReceipt;
  /** Agent ids that acknowledged each advisory, by advisory event id. */
  readonly acknowledged: Map<string, Set<string>>;
  lastTime: string;
  readonly eventIds: Set<string>;
}

export interface EventProblem {
  readonly code: TrailErrorCode;
  readonly message: string;
}

/** The state after the first receipt, or the problem with it. */
export function initialState(receipt: ShadowReceipt): TrailState | EventProblem {
  const p = receipt.payload;
  if (p.kind !== 'created')
    return { code: TrailErrorCodes.INVALID_ARGUMENT, message: `the first receipt must be "created", not "${p.kind}"` };
  const [a, b] = p.observations;
  if (a.agentId === b.agentId) return { code: TrailErrorCodes.SAME_AGENT, message: `both observations are of agent ${a.agentId}` };
  return {
    agents: [a.agentId, b.agentId],
    taskId: a.taskId,
    repositoryId: a.repositoryId,
    observations: p.observations,
    observationEventId: receipt.eventId,
    revised: false,
    graph: p.graph,
    advisory: receipt,
    acknowledged: new Map([[receipt.eventId, new Set()]]),
    lastTime: receipt.time,
    eventIds: new Set([receipt.eventId]),
  };
}

/** Why `receipt` may not follow `state`, or `undefined`. Does not change `state`. */
export function eventProblem(state: TrailState, receipt: ShadowReceipt): EventProblem | undefined {
  if (state.eventIds.has(receipt.eventId))
    return { code: TrailErrorCodes.INVALID_ARGUMENT, message: `event id ${receipt.eventId} is already used in this trail` };
  if (Date.parse(receipt.time) < Date.parse(state.lastTime)) {
    return {
      code: TrailErrorCodes.TIME_REGRESSION,
      message: `event time ${receipt.time} is before the previous receipt's time ${state.lastTime}`,
    };
  }
  const p = receipt.payload;
  switch (p.kind) {
    case 'created':
      return { code: TrailErrorCodes.INVALID_ARGUMENT, message: 'a trail has exactly one "created" receipt, the first' };
    case 'acknowledgement':
      return partyProblem(state, p.agentId) ?? acknowledgementProblem(state, p);
    case 'scope-revision':
      return partyProblem(state, p.agentId) ?? scopeRevisionProblem(state, p, receipt.time);
    case 'reobservation':
      return reobservationProblem(state, p);
  }
}

/** An acknowledgement, scope revision or re-observation comes from one of the two observed agents. */
function partyProblem(state: TrailState, agentId: string): EventProblem | undefined {
  return state.agents.includes(agentId)
    ? undefined
    : {
        code: TrailErrorCodes.NOT_A_PARTY,
        message: `agent ${agentId} is not one of the two observed agents (${state.agents.join(', ')})`,
      };
}

/** An acknowledgement names the latest advisory (by id and hash), one that is not clear, once per agent. */
function acknowledgementProblem(state: TrailState, p: AcknowledgementPayload): EventProblem | undefined {
  const latest = state.advisory;
  if (p.advisoryEventId !== latest.eventId) {
    return state.acknowledged.has(p.advisoryEventId)
      ? {
          code: TrailErrorCodes.SUPERSEDED_ADVISORY,
          message: `advisory ${p.advisoryEventId} was superseded by ${latest.eventId}; acknowledge the latest advisory`,
        }
      : { code: TrailErrorCodes.UNKNOWN_ADVISORY, message: `no advisory ${p.advisoryEventId} in this trail` };
  }
  if (p.advisoryHash !== latest.hash)
    return { code: TrailErrorCodes.UNKNOWN_ADVISORY, message: `advisoryHash does not match the hash of advisory ${latest.eventId}` };
  const level = (latest.payload as { advisory: { level: string } }).advisory.level;
  if (level === 'clear')
    return {
      code: TrailErrorCodes.NOTHING_TO_ACKNOWLEDGE,
      message: `advisory ${latest.eventId} is clear: no advisory was found, so there is nothing to acknowledge`,
    };
  if (state.acknowledged.get(latest.eventId)?.has(p.agentId)) {
    return {
      code: TrailErrorCodes.DUPLICATE_ACKNOWLEDGEMENT,
      message: `agent ${p.agentId} already acknowledged advisory ${latest.eventId}`,
    };
  }
  return undefined;
}

/** A scope revision departs from the current observations, once, while both are current, declared only. */
function scopeRevisionProblem(state: TrailState, p: ScopeRevisionPayload, time: string): EventProblem | undefined {
  if (p.observationEventId !== state.observationEventId) {
    return {
      code: TrailErrorCodes.INVALID_ARGUMENT,
      message: `the revision departs from observations ${p.observationEventId}, but the current observations are ${state.observationEventId}`,
    };
  }
  if (state.revised) {
    return {
      code: TrailErrorCodes.REVISION_ALREADY_DECLARED,
      message: `a scope revision was already declared on observations ${state.observationEventId}; re-observe before declaring another`,
    };
  }
  for (const observation of state.observations) {
    const problem = currencyProblem(observation, time);
    if (problem)
      return {
        code: TrailErrorCodes.OBSERVATION_NOT_CURRENT,
        message: `both original observations must be current when a scope revision is declared: ${problem}`,
      };
  }
  if (p.authorizationRef.label !== DECLARED_ONLY)
    return { code: TrailErrorCodes.INVALID_ARGUMENT, message: `authorizationRef.label must be "${DECLARED_ONLY}"` };
  return undefined;
}

/** A re-observation observes the same two agents, task and repository, each newer than before. */
function reobservationProblem(state: TrailState, p: ReobservationPayload): EventProblem | undefined {
  const [a, b] = p.observations;
  const ids = [a.agentId, b.agentId];
  if (ids[0] !== state.agents[0] || ids[1] !== state.agents[1]) {
    return {
      code: TrailErrorCodes.MISMATCHED_REOBSERVATION,
      message: `a re-observation must observe ${state.agents.join(' and ')}, got ${ids.join(' and ')}`,
    };
  }
  for (const o of [a, b]) {
    if (o.taskId !== state.taskId)
      return {
        code: TrailErrorCodes.MISMATCHED_REOBSERVATION,
        message: `task ${JSON.stringify(o.taskId)} of ${o.agentId} is not the trail's task ${JSON.stringify(state.taskId)}`,
      };
    if (o.repositoryId !== state.repositoryId) {
      return {
        code: TrailErrorCodes.MISMATCHED_REOBSERVATION,
        message: `repository ${JSON.stringify(o.repositoryId)} of ${o.agentId} is not the trail's repository ${JSON.stringify(state.repositoryId)}`,
      };
    }
  }
  for (const [i, o] of [a, b].entries()) {
    const before = state.observations[i]!;
    if (Date.parse(o.observedAt) <= Date.parse(before.observedAt)) {
      return {
        code: TrailErrorCodes.STALE_REOBSERVATION,
        message: `the re-observation of ${o.agentId} (observed ${o.observedAt}) is not newer than the observation it replaces (${before.observedAt})`,
      };
    }
  }
  return undefined;
}

/** Advance `state` past `receipt` (which `eventProblem` accepted). */
export function applyEvent(state: TrailState, receipt: ShadowReceipt): void {
  state.eventIds.add(receipt.eventId);
  state.lastTime = receipt.time;
  const p = receipt.payload;
  switch (p.kind) {
    case 'acknowledgement':
      state.acknowledged.get(p.advisoryEventId)!.add(p.agentId);
      return;
    case 'scope-revision':
      state.revised = true;
      state.advisory = receipt;
      state.acknowledged.set(receipt.eventId, new Set());
      return;
    case 'reobservation':
      state.observations = p.observations;
      state.observationEventId = receipt.eventId;
      state.revised = false;
      state.graph = p.graph;
      state.advisory = receipt;
      state.acknowledged.set(receipt.eventId, new Set());
      return;
    case 'created':
      return;
  }
}
