/**
 * The passive shadow receipt trail (seed: "Passive shadow receipt trail (v1)"). Pure apart from
 * hashing and random ids: every function takes a trail and returns a new one; nothing is sent,
 * granted or written. Each append verifies the trail it is given, copies its receipts
 * (`structuredClone`), and checks the new event with the same rules the verifier replays.
 */
import { randomUUID } from 'node:crypto';
import type { AdvisoryOptions, DependencyGraphInput, Footprint, TrailAdvisory, TrailGraph } from './advisory.js';
import { computeAdvisory, normalizeGraph } from './advisory.js';
import { canonicalize, isWellFormedText } from './canonical.js';
import { TrailError, TrailErrorCodes } from './errors.js';
import type { ObservationInput, ShadowObservation, TimeInput } from './observation.js';
import { canonicalTime, normalizeObservation, normalizePathSet, pathProblem } from './observation.js';
import type { TrailState } from './replay.js';
import { eventProblem, initialState } from './replay.js';
import type { ReceiptKind, ReceiptPayload, ShadowReceipt, ShadowTrail } from './types.js';
import { DECLARED_ONLY, TRAIL_FORMAT, TRAIL_VERSION } from './types.js';
import { receiptHash, verifyWithState } from './verify.js';

/** Options every event takes. */
export interface EventOptions {
  /** The event's time (the declared time for a scope revision); default now. Observations are judged against it. */
  readonly now?: TimeInput;
  /** Event id; default a random UUID. */
  readonly eventId?: string;
}

export interface CreateOptions extends EventOptions, AdvisoryOptions {
  /** Dependency edges `[from, to]`; default none (a quiet advisory then says nothing about dependencies). */
  readonly graph?: DependencyGraphInput;
  /** Trail id; default a random UUID. */
  readonly trailId?: string;
}

export interface AcknowledgementInput {
  /** One of the two observed agents. */
  readonly agentId: string;
  /** The advisory acknowledged; default the latest. Only the latest may be acknowledged. */
  readonly advisoryEventId?: string;
  readonly note?: string;
}

export interface ScopeRevisionInput {
  /** The observed agent whose footprint the declaration revises. */
  readonly agentId: string;
  /** A reference to the external authorisation; recorded with the label `declared-only`. */
  readonly authorizationRef: string;
  /** The revised footprint, replacing that agent's observed read and write paths. */
  readonly footprint: { readonly readPaths: readonly string[]; readonly writePaths: readonly string[] };
}

export interface ReobservationOptions extends EventOptions, AdvisoryOptions {
  /** A new dependency graph; default the one the last observation was scored with. */
  readonly graph?: DependencyGraphInput;
}

/** Canonical key order on every object, so that `JSON.stringify` persists canonical field order. */
function canonicalCopy<T>(value: T): T {
  return JSON.parse(canonicalize(value)) as T;
}

function eventTime(options: EventOptions): string {
  return canonicalTime(options.now ?? Date.now(), 'the event time ("now")');
}

function eventId(options: EventOptions): string {
  const id = options.eventId ?? randomUUID();
  if (typeof id !== 'string' || id.length === 0 || !isWellFormedText(id))
    throw new TrailError(TrailErrorCodes.INVALID_ARGUMENT, 'eventId must be a non-empty string.');
  return id;
}

function validGraph(graph: DependencyGraphInput | undefined): TrailGraph {
  if (graph === undefined) return { edges: [] };
  if (graph === null || typeof graph !== 'object' || !Array.isArray(graph.edges)) {
    throw new TrailError(TrailErrorCodes.INVALID_ARGUMENT, 'graph must be { edges: [[from, to], …] } with repository-relative paths.');
  }
  for (const edge of graph.edges) {
    if (!Array.isArray(edge) || edge.length !== 2)
      throw new TrailError(TrailErrorCodes.INVALID_ARGUMENT, `graph edge ${JSON.stringify(edge)} is not a [from, to] pair.`);
    for (const path of edge) {
      const problem = pathProblem(path);
      if (problem) throw new TrailError(TrailErrorCodes.INVALID_ARGUMENT, `graph edge ${JSON.stringify(edge)}: ${problem}.`);
    }
  }
  return normalizeGraph(graph);
}

function footprintOf(o: ShadowObservation): Footprint {
  return { agentId: o.agentId, readPaths: o.readPaths, writePaths: o.writePaths };
}

function makeReceipt(trailId: string, id: string, time: string, previousHash: string | null, payload: ReceiptPayload): ShadowReceipt {
  const body = canonicalCopy({ eventId: id, payload, previousHash, time, trailId });
  return {
    eventId: body.eventId,
    hash: receiptHash(body),
    payload: body.payload,
    previousHash: body.previousHash,
    time: body.time,
    trailId: body.trailId,
  };
}

function pair(a: unknown, b: unknown): [ShadowObservation, ShadowObservation] {
  const first = normalizeObservation(a, 'a');
  const second = normalizeObservation(b, 'b');
  if (first.agentId === second.agentId)
    throw new TrailError(TrailErrorCodes.SAME_AGENT, `Both observations are of agent ${first.agentId}; a trail is between two agents.`);
  return [first, second];
}

/** Verify `trail` and replay it; throws `invalid-trail` with the verification failure. */
function open(trail: unknown): { state: TrailState; receipts: readonly ShadowReceipt[]; trailId: string } {
  const { result, state, receipts } = verifyWithState(trail);
  if (!result.ok)
    throw new TrailError(TrailErrorCodes.INVALID_TRAIL, `The trail does not verify (${result.reason}): ${result.message}`, result);
  return { state: state!, receipts: receipts!, trailId: result.trailId };
}

/** A new trail: the receipts copied, then `receipt` checked against the replayed state and appended. */
function extend(trail: { state: TrailState; receipts: readonly ShadowReceipt[]; trailId: string }, receipt: ShadowReceipt): ShadowTrail {
  const problem = eventProblem(trail.state, receipt);
  if (problem) throw new TrailError(problem.code, `${problem.message}.`);
  return {
    format: TRAIL_FORMAT,
    receipts: [...trail.receipts.map((r) => structuredClone(r)), receipt],
    trailId: trail.trailId,
    version: TRAIL_VERSION,
  };
}

/**
 * Start a trail from two observations: scores them (at `options.now`) and records the first
 * receipt. The advisory is `unknown` when either observation is incomplete, expired or
 * future-dated, or the two differ in repository, base, task or scope.
 */
export async function createShadowTrail(
  observationA: ObservationInput,
  observationB: ObservationInput,
  options: CreateOptions = {},
): Promise<ShadowTrail> {
  const observations = pair(observationA, observationB);
  const time = eventTime(options);
  const graph = validGraph(options.graph);
  const trailId = options.trailId ?? randomUUID();
  if (typeof trailId !== 'string' || trailId.length === 0 || !isWellFormedText(trailId))
    throw new TrailError(TrailErrorCodes.INVALID_ARGUMENT, 'trailId must be a non-empty string.');
  const advisory = await computeAdvisory([footprintOf(observations[0]), footprintOf(observations[1])], observations, graph, time, options);
  const receipt = makeReceipt(trailId, eventId(options), time, null, { advisory, graph, kind: 'created', observations });
  const state = initialState(receipt);
  if ('code' in state) throw new TrailError(state.code, `${state.message}.`);
  return { format: TRAIL_FORMAT, receipts: [receipt], trailId, version: TRAIL_VERSION };
}

/** One observed agent acknowledges the latest advisory. A third party, a repeat, or a clear advisory is refused. */
export function appendAcknowledgement(trail: ShadowTrail, acknowledgement: AcknowledgementInput, options: EventOptions = {}): ShadowTrail {
  const opened = open(trail);
  if (!acknowledgement || typeof acknowledgement.agentId !== 'string' || acknowledgement.agentId.length === 0) {
    throw new TrailError(TrailErrorCodes.INVALID_ARGUMENT, 'An acknowledgement needs the acknowledging agentId.');
  }
  if (acknowledgement.note !== undefined && (typeof acknowledgement.note !== 'string' || !isWellFormedText(acknowledgement.note))) {
    throw new TrailError(TrailErrorCodes.INVALID_ARGUMENT, 'note must be a well-formed string.');
  }
  const latest = opened.state.advisory;
  const advisoryEventId = acknowledgement.advisoryEventId ?? latest.eventId;
  const advisory = opened.receipts.find((r) => r.eventId === advisoryEventId);
  const receipt = makeReceipt(opened.trailId, eventId(options), eventTime(options), opened.receipts.at(-1)!.hash, {
    advisoryEventId,
    advisoryHash: advisory?.hash ?? latest.hash,
    agentId: acknowledgement.agentId,
    kind: 'acknowledgement',
    note: acknowledgement.note ?? null,
  });
  return extend(opened, receipt);
}

/**
 * Record one externally declared revision of one agent's footprint, at the declared time
 * (`options.now`), with the advisory for the revised footprints. Both original observations must
 * be current at that time; one revision per observed pair. Its `authorizationRef` is recorded as
 * `declared-only`: nothing here checks it.
 */
export async function appendScopeRevision(
  trail: ShadowTrail,
  revision: ScopeRevisionInput,
  options: EventOptions & AdvisoryOptions = {},
): Promise<ShadowTrail> {
  const opened = open(trail);
  if (!revision || typeof revision.agentId !== 'string' || revision.agentId.length === 0)
    throw new TrailError(TrailErrorCodes.INVALID_ARGUMENT, 'A scope revision needs the agentId whose footprint it revises.');
  if (
    typeof revision.authorizationRef !== 'string' ||
    revision.authorizationRef.trim() === '' ||
    !isWellFormedText(revision.authorizationRef)
  ) {
    throw new TrailError(
      TrailErrorCodes.INVALID_ARGUMENT,
      'A scope revision needs an authorizationRef (a reference to the external declaration); it is recorded as declared-only.',
    );
  }
  if (!revision.footprint || typeof revision.footprint !== 'object')
    throw new TrailError(TrailErrorCodes.INVALID_ARGUMENT, 'A scope revision needs its new footprint { readPaths, writePaths }.');
  const who = `revision of ${revision.agentId}`;
  let footprint: { readPaths: string[]; writePaths: string[] };
  try {
    footprint = {
      readPaths: normalizePathSet(revision.footprint.readPaths, 'readPaths', who),
      writePaths: normalizePathSet(revision.footprint.writePaths, 'writePaths', who),
    };
  } catch (error) {
    throw new TrailError(TrailErrorCodes.INVALID_ARGUMENT, (error as Error).message);
  }
  const time = eventTime(options);
  const id = eventId(options);
  const { state } = opened;
  const observations = state.observations;
  const footprints = observations.map((o) => (o.agentId === revision.agentId ? { agentId: o.agentId, ...footprint } : footprintOf(o))) as [
    Footprint,
    Footprint,
  ];
  // Check the rules before scoring so a refused declaration costs no scan.
  const draft = makeReceipt(opened.trailId, id, time, opened.receipts.at(-1)!.hash, {
    advisory: PLACEHOLDER_ADVISORY,
    agentId: revision.agentId,
    authorizationRef: { label: DECLARED_ONLY, ref: revision.authorizationRef },
    footprint,
    kind: 'scope-revision',
    observationEventId: state.observationEventId,
  });
  const problem = eventProblem(state, draft);
  if (problem) throw new TrailError(problem.code, `${problem.message}.`);
  const advisory = await computeAdvisory(footprints, observations, state.graph, time, options);
  return extend(
    opened,
    makeReceipt(opened.trailId, id, time, opened.receipts.at(-1)!.hash, { ...(draft.payload as object), advisory } as ReceiptPayload),
  );
}

const PLACEHOLDER_ADVISORY: TrailAdvisory = {
  level: 'clear',
  found: false,
  risk: 0,
  levelReason: null,
  unknownReasons: [],
  exactOverlaps: { writeWrite: [], aWritesBReads: [], aReadsBWrites: [] },
  links: [],
  channels: [],
  evidence: [],
  graph: { edgeCount: 0, digest: '0'.repeat(64) },
  statement: 'placeholder',
};

/**
 * Record a fresh observation of the same two agents (same task and repository), each observed
 * after the observation it replaces, scored with `options.graph` or, when none is given, the
 * graph of the last observation.
 */
export async function appendReobservation(
  trail: ShadowTrail,
  observationA: ObservationInput,
  observationB: ObservationInput,
  options: ReobservationOptions = {},
): Promise<ShadowTrail> {
  const opened = open(trail);
  let observations = pair(observationA, observationB);
  // Keep the trail's agent order whichever order the caller passed them in.
  if (observations[0].agentId === opened.state.agents[1] && observations[1].agentId === opened.state.agents[0])
    observations = [observations[1], observations[0]];
  const time = eventTime(options);
  const id = eventId(options);
  const graph = options.graph === undefined ? opened.state.graph : validGraph(options.graph);
  const graphSource = options.graph === undefined ? 'previous' : 'supplied';
  const draft = makeReceipt(opened.trailId, id, time, opened.receipts.at(-1)!.hash, {
    advisory: PLACEHOLDER_ADVISORY,
    graph,
    graphSource,
    kind: 'reobservation',
    observations,
  });
  const problem = eventProblem(opened.state, draft);
  if (problem) throw new TrailError(problem.code, `${problem.message}.`);
  const advisory = await computeAdvisory([footprintOf(observations[0]), footprintOf(observations[1])], observations, graph, time, options);
  return extend(
    opened,
    makeReceipt(opened.trailId, id, time, opened.receipts.at(-1)!.hash, {
      advisory,
      graph,
      graphSource,
      kind: 'reobservation',
      observations,
    }),
  );
}

export interface AcknowledgementRecord {
  readonly agentId: string;
  readonly eventId: string;
  readonly time: string;
  readonly note: string | null;
}

export interface ShadowTrailSummary {
  readonly trailId: string;
  readonly agents: readonly [string, string];
  readonly taskId: string;
  readonly repositoryId: string;
  readonly receipts: number;
  readonly headHash: string;
  /** The advisory of the latest scoped event (created, scope revision or re-observation). */
  readonly latestAdvisory: {
    readonly eventId: string;
    readonly hash: string;
    readonly kind: Exclude<ReceiptKind, 'acknowledgement'>;
    /** `declared` when it scores a declared scope revision, `observed` otherwise. */
    readonly basis: 'observed' | 'declared';
    readonly time: string;
  } & Pick<TrailAdvisory, 'level' | 'found' | 'risk' | 'levelReason' | 'unknownReasons' | 'exactOverlaps' | 'evidence' | 'statement'>;
  /** Acknowledgements bound to the latest advisory. */
  readonly acknowledgements: readonly AcknowledgementRecord[];
  /** Observed agents that have not acknowledged the latest advisory (empty when it is clear). */
  readonly awaitingAcknowledgement: readonly string[];
  /** Acknowledgements of earlier advisories, kept apart: they say nothing about the latest one. */
  readonly historicalAcknowledgers: readonly (AcknowledgementRecord & { readonly advisoryEventId: string })[];
  readonly scopeRevisions: readonly {
    readonly eventId: string;
    readonly agentId: string;
    readonly time: string;
    readonly authorizationRef: { readonly label: typeof DECLARED_ONLY; readonly ref: string };
  }[];
  /** The trail records; it never adjudicates whether a collision happened or was avoided. */
  readonly outcome: 'unadjudicated';
  readonly statement: string;
}

/** Summarise a trail (verifying it first; an invalid trail throws `invalid-trail`). */
export function summarizeShadowTrail(trail: ShadowTrail): ShadowTrailSummary {
  const { state, receipts, trailId } = open(trail);
  const latest = state.advisory;
  const payload = latest.payload as Extract<ReceiptPayload, { advisory: TrailAdvisory }>;
  const advisory = payload.advisory;
  const acknowledgements: AcknowledgementRecord[] = [];
  const historical: (AcknowledgementRecord & { advisoryEventId: string })[] = [];
  const scopeRevisions: ShadowTrailSummary['scopeRevisions'][number][] = [];
  for (const r of receipts) {
    const p = r.payload;
    if (p.kind === 'acknowledgement') {
      const record = { agentId: p.agentId, eventId: r.eventId, time: r.time, note: p.note };
      if (p.advisoryEventId === latest.eventId) acknowledgements.push(record);
      else historical.push({ ...record, advisoryEventId: p.advisoryEventId });
    } else if (p.kind === 'scope-revision') {
      scopeRevisions.push({ eventId: r.eventId, agentId: p.agentId, time: r.time, authorizationRef: { ...p.authorizationRef } });
    }
  }
  const acked = new Set(acknowledgements.map((a) => a.agentId));
  const awaiting = advisory.level === 'clear' ? [] : state.agents.filter((id) => !acked.has(id));
  const basis = payload.kind === 'scope-revision' ? 'declared' : 'observed';
  const declared = basis === 'declared' ? ' It scores a declared scope revision (authorizationRef declared-only, not validated).' : '';
  return structuredClone({
    trailId,
    agents: state.agents,
    taskId: state.taskId,
    repositoryId: state.repositoryId,
    receipts: receipts.length,
    headHash: receipts.at(-1)!.hash,
    latestAdvisory: {
      eventId: latest.eventId,
      hash: latest.hash,
      kind: payload.kind,
      basis,
      time: latest.time,
      level: advisory.level,
      found: advisory.found,
      risk: advisory.risk,
      levelReason: advisory.levelReason,
      unknownReasons: advisory.unknownReasons,
      exactOverlaps: advisory.exactOverlaps,
      evidence: advisory.evidence,
      statement: advisory.statement,
    },
    acknowledgements,
    awaitingAcknowledgement: awaiting,
    historicalAcknowledgers: historical,
    scopeRevisions,
    outcome: 'unadjudicated' as const,
    statement: `${advisory.statement}${declared} Outcome unadjudicated: this trail issues no grants, sends no messages and does not say whether a collision happened.`,
  });
}
