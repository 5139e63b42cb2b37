/**
 * `verifyShadowTrail`: checks a trail as read back from JSON, in phases, so that a non-canonical
 * spelling is reported as such before any hash is compared:
 *   shape → field order → path order → value spelling → chain links → hashes → event rules.
 * It proves only that the receipts are consistent with each other; see docs/trail.md for what a
 * consistent chain does not prove.
 */
import { canonicalize, firstDuplicateKey, firstUnsortedObject, sha256Hex } from './canonical.js';
import type { VerifyFailure, VerifyReason } from './errors.js';
import { VerifyReasons } from './errors.js';
import type { TrailState } from './replay.js';
import { applyEvent, eventProblem, initialState, pathOrderProblem, receiptShapeProblem, valueSpellingProblem } from './replay.js';
import type { ShadowReceipt } from './types.js';
import { TRAIL_FORMAT, TRAIL_VERSION } from './types.js';

export interface VerifySuccess {
  readonly ok: true;
  readonly trailId: string;
  readonly receipts: number;
  /** Hash of the last receipt: what a later append will chain to. */
  readonly headHash: string;
}

export type VerifyResult = VerifySuccess | VerifyFailure;

/** The hash a receipt must carry: SHA-256 of the canonical JSON of everything else in it. */
export function receiptHash(receipt: Omit<ShadowReceipt, 'hash'>): string {
  return sha256Hex(
    canonicalize({
      eventId: receipt.eventId,
      payload: receipt.payload,
      previousHash: receipt.previousHash,
      time: receipt.time,
      trailId: receipt.trailId,
    }),
  );
}

function fail(reason: VerifyReason, message: string, index?: number, receipt?: { eventId?: unknown }): VerifyFailure {
  const eventId = typeof receipt?.eventId === 'string' ? receipt.eventId : undefined;
  return {
    ok: false,
    reason,
    message: index === undefined ? message : `receipt ${index}${eventId ? ` (${eventId})` : ''}: ${message}`,
    ...(index !== undefined ? { index } : {}),
    ...(eventId !== undefined ? { eventId } : {}),
  };
}

/** Verify, and on success also return the replayed state (for the append functions). */
export interface VerifyOptions {
  /**
   * The head hash (hash of the last receipt) the caller kept from an earlier read. A chain cannot
   * tell that receipts were cut from its end; with the head it can.
   */
  readonly expectedHeadHash?: string;
}

export function verifyWithState(
  trail: unknown,
  options: VerifyOptions = {},
): { result: VerifyResult; state?: TrailState; receipts?: readonly ShadowReceipt[] } {
  const envelope = envelopeFailure(trail);
  if (envelope) return { result: envelope };
  const t = trail as Record<string, unknown> & { trailId: string; receipts: unknown[] };
  // 1. Shape of every receipt.
  for (const [i, r] of t.receipts.entries()) {
    const problem = receiptShapeProblem(r, 'receipt');
    if (problem) return { result: fail(VerifyReasons.MALFORMED_RECEIPT, problem, i, r as { eventId?: unknown }) };
  }
  const receipts = t.receipts as ShadowReceipt[];
  const failure = canonicalFailure(t, receipts) ?? chainFailure(t.trailId, receipts);
  if (failure) return { result: failure };
  const replayed = replayAll(receipts);
  if ('reason' in replayed) return { result: replayed };
  const head = receipts[receipts.length - 1]!.hash;
  if (options.expectedHeadHash !== undefined && options.expectedHeadHash !== head)
    return { result: headMismatch(receipts, head, options.expectedHeadHash) };
  return {
    result: { ok: true, trailId: t.trailId, receipts: receipts.length, headHash: receipts[receipts.length - 1]!.hash },
    state: replayed,
    receipts,
  };
}

/** The trail's top level: a JSON object of this format and version, a trail id, a non-empty list of receipts, nothing else. */
function envelopeFailure(trail: unknown): VerifyFailure | undefined {
  if (trail === null || typeof trail !== 'object' || Array.isArray(trail))
    return fail(VerifyReasons.MALFORMED_TRAIL, 'a trail must be a JSON object');
  const t = trail as Record<string, unknown>;
  if (t.format !== TRAIL_FORMAT)
    return fail(VerifyReasons.MALFORMED_TRAIL, `"format" must be "${TRAIL_FORMAT}" (got ${JSON.stringify(t.format)})`);
  if (t.version !== TRAIL_VERSION)
    return fail(
      VerifyReasons.UNSUPPORTED_VERSION,
      `trail version ${JSON.stringify(t.version)} is not supported (this verifier reads version ${TRAIL_VERSION})`,
    );
  const extra = Object.keys(t).find((k) => !['format', 'receipts', 'trailId', 'version'].includes(k));
  if (extra !== undefined) return fail(VerifyReasons.MALFORMED_TRAIL, `unexpected top-level field "${extra}"`);
  if (typeof t.trailId !== 'string' || t.trailId.length === 0)
    return fail(VerifyReasons.MALFORMED_TRAIL, '"trailId" must be a non-empty string');
  if (!Array.isArray(t.receipts) || t.receipts.length === 0)
    return fail(VerifyReasons.MALFORMED_TRAIL, '"receipts" must be a non-empty list (a trail starts with its "created" receipt)');
  return undefined;
}

/** The trail as persisted: fields in canonical order (2), path sets in order (3), times and paths spelled canonically (4). */
function canonicalFailure(t: Record<string, unknown>, receipts: readonly ShadowReceipt[]): VerifyFailure | undefined {
  // 2. Field order as persisted (the top level and every receipt, payload included).
  const topOrder = Object.keys(t);
  if (topOrder.join() !== [...topOrder].sort().join())
    return fail(VerifyReasons.NONCANONICAL_FIELD_ORDER, `top-level fields are not in canonical (sorted) order: ${topOrder.join(', ')}`);
  for (const [i, r] of receipts.entries()) {
    const where = firstUnsortedObject(r, 'receipt');
    if (where)
      return fail(
        VerifyReasons.NONCANONICAL_FIELD_ORDER,
        `fields of ${where} are not in canonical (sorted) order: ${Object.keys(at(r, where)).join(', ')}`,
        i,
        r,
      );
  }
  // 3. Path-set order.
  for (const [i, r] of receipts.entries()) {
    const problem = pathOrderProblem(r);
    if (problem) return fail(VerifyReasons.NONCANONICAL_PATH_ORDER, problem, i, r);
  }
  // 4. Spelling of times and paths.
  for (const [i, r] of receipts.entries()) {
    const problem = valueSpellingProblem(r);
    if (problem) return fail(VerifyReasons.NONCANONICAL_VALUE, problem, i, r);
  }
  return undefined;
}

/** 5. Trail id, event ids and chain links; 6. hashes. */
function chainFailure(trailId: string, receipts: readonly ShadowReceipt[]): VerifyFailure | undefined {
  const seen = new Set<string>();
  for (const [i, r] of receipts.entries()) {
    if (r.trailId !== trailId)
      return fail(
        VerifyReasons.TRAIL_ID_MISMATCH,
        `trailId ${JSON.stringify(r.trailId)} is not the trail's ${JSON.stringify(trailId)}`,
        i,
        r,
      );
    if (seen.has(r.eventId)) return fail(VerifyReasons.DUPLICATE_EVENT_ID, `event id ${r.eventId} appears twice`, i, r);
    seen.add(r.eventId);
    const expected = i === 0 ? null : receipts[i - 1]!.hash;
    if (r.previousHash !== expected) {
      return fail(
        VerifyReasons.BROKEN_CHAIN,
        i === 0
          ? 'the first receipt must have previousHash null'
          : `previousHash ${r.previousHash} is not the hash of receipt ${i - 1} (${expected})`,
        i,
        r,
      );
    }
  }
  for (const [i, r] of receipts.entries()) {
    const expected = receiptHash(r);
    if (r.hash !== expected)
      return fail(
        VerifyReasons.HASH_MISMATCH,
        `stored hash ${r.hash} is not the SHA-256 of the receipt's canonical content (${expected})`,
        i,
        r,
      );
  }
  return undefined;
}

/** 7. Event rules, replayed: times never go back, each event is allowed in the state before it. The final state, or the failure. */
function replayAll(receipts: readonly ShadowReceipt[]): TrailState | VerifyFailure {
  for (const [i, r] of receipts.entries()) {
    if (i > 0 && Date.parse(r.time) < Date.parse(receipts[i - 1]!.time)) {
      return fail(VerifyReasons.TIME_REGRESSION, `time ${r.time} is before the previous receipt's ${receipts[i - 1]!.time}`, i, r);
    }
  }
  const first = initialState(receipts[0]!);
  if ('code' in first) return fail(VerifyReasons.INVALID_EVENT, `${first.code}: ${first.message}`, 0, receipts[0]);
  for (let i = 1; i < receipts.length; i++) {
    const problem = eventProblem(first, receipts[i]!);
    if (problem) return fail(VerifyReasons.INVALID_EVENT, `${problem.code}: ${problem.message}`, i, receipts[i]);
    applyEvent(first, receipts[i]!);
  }
  return first;
}

/** The last receipt is not the head the caller kept: extended after it, a copying slip, or truncated or replaced. */
function headMismatch(receipts: readonly ShadowReceipt[], head: string, expected: string): VerifyFailure {
  const known = receipts.findIndex((r) => r.hash === expected);
  // A head a few digits from one of the trail's receipts is a copying slip, not a cut trail.
  const near = known >= 0 ? -1 : receipts.findIndex((r) => digitsApart(r.hash, expected) <= 4);
  const why =
    known >= 0
      ? `it was extended after receipt ${known}`
      : near >= 0
        ? `the expected head is not in this trail, but receipt ${near}'s hash differs from it in ${digitsText(digitsApart(receipts[near]!.hash, expected))}: check the head you copied`
        : 'the expected head is not in this trail (truncated or replaced)';
  return fail(VerifyReasons.HEAD_MISMATCH, `the last receipt's hash ${head} is not the expected head ${expected}: ${why}`);
}

const digitsText = (n: number): string => `${n} digit${n === 1 ? '' : 's'}`;

/** How many digits two hashes of the same length differ in (Infinity for different lengths). */
function digitsApart(a: string, b: string): number {
  if (a.length !== b.length) return Infinity;
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) n++;
  return n;
}

/** The object at a `receipt.payload.x[0]`-style location produced by `firstUnsortedObject`. */
function at(root: unknown, where: string): object {
  let value: unknown = root;
  for (const part of where.replace(/^receipt/, '').match(/\.[^.[]+|\[\d+\]/g) ?? []) {
    value = part.startsWith('[') ? (value as unknown[])[Number(part.slice(1, -1))] : (value as Record<string, unknown>)[part.slice(1)];
  }
  return value as object;
}

/**
 * Verify a trail as read back from JSON (`JSON.parse` of the persisted text; key order as
 * written). Never throws; returns the first failure with its reason code.
 */
export function verifyShadowTrail(trail: unknown, options: VerifyOptions = {}): VerifyResult {
  return verifyWithState(trail, options).result;
}

/**
 * Verify persisted trail text: a parse failure is `malformed-json`, a key twice in one object
 * `duplicate-key` (which `JSON.parse` would hide by keeping the last).
 */
export function verifyShadowTrailText(text: string, options: VerifyOptions = {}): VerifyResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return fail(VerifyReasons.MALFORMED_JSON, `the trail is not JSON: ${(error as Error).message}`);
  }
  const duplicate = firstDuplicateKey(text);
  if (duplicate) return fail(VerifyReasons.DUPLICATE_KEY, `${duplicate} appears twice in one object; canonical JSON allows each key once`);
  return verifyShadowTrail(parsed, options);
}
