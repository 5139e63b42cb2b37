/**
 * Every reason a trail operation or a verification can refuse, in one place. Codes are stable
 * (the CLI prints them and scripts may match on them); messages say what to do.
 */

/** Why `verifyShadowTrail` rejected a persisted trail. */
export const VerifyReasons = {
  /** The text is not JSON (only from the text/file entry points). */
  MALFORMED_JSON: 'malformed-json',
  /** An object holds one key twice (only from the text/file entry points: parsing hides it). */
  DUPLICATE_KEY: 'duplicate-key',
  /** Not a trail object: wrong `format`, missing or extra top-level fields, no receipts. */
  MALFORMED_TRAIL: 'malformed-trail',
  UNSUPPORTED_VERSION: 'unsupported-version',
  /** A receipt lacks a field, has an extra one, or a field has the wrong type or shape. */
  MALFORMED_RECEIPT: 'malformed-receipt',
  TRAIL_ID_MISMATCH: 'trail-id-mismatch',
  DUPLICATE_EVENT_ID: 'duplicate-event-id',
  /** A payload object's keys are not in canonical (sorted) order as persisted. */
  NONCANONICAL_FIELD_ORDER: 'noncanonical-field-order',
  /** A path set (or the graph's edge list) is not sorted, or holds a duplicate. */
  NONCANONICAL_PATH_ORDER: 'noncanonical-path-order',
  /** A time or a path is not in its canonical spelling. */
  NONCANONICAL_VALUE: 'noncanonical-value',
  /** `previousHash` is not the hash of the receipt before (or not null on the first receipt). */
  BROKEN_CHAIN: 'broken-chain',
  /** The stored hash is not the SHA-256 of the receipt's canonical content. */
  HASH_MISMATCH: 'hash-mismatch',
  /** A receipt's time is earlier than the receipt before it. */
  TIME_REGRESSION: 'time-regression',
  /** The last receipt is not the head the caller expected: the trail was truncated or extended. */
  HEAD_MISMATCH: 'head-mismatch',
  /** The chain is intact but an event breaks a trail rule (see the event's own message). */
  INVALID_EVENT: 'invalid-event',
} as const;

export type VerifyReason = (typeof VerifyReasons)[keyof typeof VerifyReasons];

/** Why an append or create call refused. */
export const TrailErrorCodes = {
  INVALID_OBSERVATION: 'invalid-observation',
  INVALID_ARGUMENT: 'invalid-argument',
  /** Both observations name the same agent. */
  SAME_AGENT: 'same-agent',
  /** The trail given to an append or summary call does not verify; `cause` carries the reason. */
  INVALID_TRAIL: 'invalid-trail',
  /** An acknowledgement or scope revision from an agent that is not one of the two observed. */
  NOT_A_PARTY: 'not-a-party',
  /** The latest advisory is `clear`: there is nothing to acknowledge. */
  NOTHING_TO_ACKNOWLEDGE: 'nothing-to-acknowledge',
  /** The acknowledgement names an advisory that a later scope revision or re-observation replaced. */
  SUPERSEDED_ADVISORY: 'superseded-advisory',
  UNKNOWN_ADVISORY: 'unknown-advisory',
  DUPLICATE_ACKNOWLEDGEMENT: 'duplicate-acknowledgement',
  /** A scope revision declared while an original observation was expired or not yet observed. */
  OBSERVATION_NOT_CURRENT: 'observation-not-current',
  /** A second scope revision on the same observed pair; re-observe first. */
  REVISION_ALREADY_DECLARED: 'revision-already-declared',
  /** A re-observation of other agents, another task or another repository. */
  MISMATCHED_REOBSERVATION: 'mismatched-reobservation',
  /** A re-observation not observed after the observation it replaces. */
  STALE_REOBSERVATION: 'stale-reobservation',
  /** An event time earlier than the trail's last receipt. */
  TIME_REGRESSION: 'time-regression',
} as const;

export type TrailErrorCode = (typeof TrailErrorCodes)[keyof typeof TrailErrorCodes];

export class TrailError extends Error {
  readonly code: TrailErrorCode;
  /** For `invalid-trail`: the verification failure. */
  readonly verification?: VerifyFailure;
  constructor(code: TrailErrorCode, message: string, verification?: VerifyFailure) {
    super(message);
    this.name = 'TrailError';
    this.code = code;
    if (verification) this.verification = verification;
  }
}

export interface VerifyFailure {
  readonly ok: false;
  readonly reason: VerifyReason;
  readonly message: string;
  /** Index of the offending receipt, when one is to blame. */
  readonly index?: number;
  readonly eventId?: string;
}
