/** The persisted shape of a shadow trail. Every value is JSON; see docs/trail.md. */
import type { TrailAdvisory, TrailGraph } from './advisory.js';
import type { ShadowObservation } from './observation.js';

export const TRAIL_FORMAT = 'airspace-shadow-trail';
export const TRAIL_VERSION = 1;
/** The label every scope revision's `authorizationRef` carries: the trail checked nothing. */
export const DECLARED_ONLY = 'declared-only';

export interface ShadowTrail {
  readonly format: typeof TRAIL_FORMAT;
  readonly receipts: readonly ShadowReceipt[];
  readonly trailId: string;
  readonly version: typeof TRAIL_VERSION;
}

/**
 * One event. `hash` = SHA-256 (hex) of the canonical JSON of
 * `{ eventId, payload, previousHash, time, trailId }`; `previousHash` is the hash of the receipt
 * before it, `null` on the first.
 */
export interface ShadowReceipt {
  readonly eventId: string;
  readonly hash: string;
  readonly payload: ReceiptPayload;
  readonly previousHash: string | null;
  readonly time: string;
  readonly trailId: string;
}

export type ReceiptPayload = CreatedPayload | AcknowledgementPayload | ScopeRevisionPayload | ReobservationPayload;
export type ReceiptKind = ReceiptPayload['kind'];

/** The first receipt: the two observations, the graph supplied with them, and their advisory. */
export interface CreatedPayload {
  readonly advisory: TrailAdvisory;
  readonly graph: TrailGraph;
  readonly kind: 'created';
  readonly observations: readonly [ShadowObservation, ShadowObservation];
}

/** One observed agent says it has seen one advisory (the latest one, when it was recorded). */
export interface AcknowledgementPayload {
  readonly advisoryEventId: string;
  readonly advisoryHash: string;
  readonly agentId: string;
  readonly kind: 'acknowledgement';
  readonly note: string | null;
}

/** An externally declared revision of one agent's footprint, and the advisory for it. */
export interface ScopeRevisionPayload {
  readonly advisory: TrailAdvisory;
  readonly agentId: string;
  /** A caller's reference to whatever authorised the change; the trail validates none of it. */
  readonly authorizationRef: { readonly label: typeof DECLARED_ONLY; readonly ref: string };
  readonly footprint: { readonly readPaths: readonly string[]; readonly writePaths: readonly string[] };
  readonly kind: 'scope-revision';
  /** The receipt (created or reobservation) whose observations this revision departs from. */
  readonly observationEventId: string;
}

/** A fresh observation of the same two agents, task and repository, and its advisory. */
export interface ReobservationPayload {
  readonly advisory: TrailAdvisory;
  readonly graph: TrailGraph;
  /** `supplied` when the caller gave a graph with the re-observation, `previous` when the last one was kept. */
  readonly graphSource: 'supplied' | 'previous';
  readonly kind: 'reobservation';
  readonly observations: readonly [ShadowObservation, ShadowObservation];
}
