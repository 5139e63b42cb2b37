/**
 * The observation a published commit carries in its message: a subject line, then the JSON of
 * `PublishedObservation` (docs/observations.md), written and read back with its checks here.
 */

export const OBSERVATION_VERSION = 1;
const SUBJECT = 'airspace observation';

/** The observation a published commit carries in its message (see docs/observations.md). */
export interface PublishedObservation {
  readonly airspace: number;
  readonly id: string;
  readonly label: string;
  /** Random id of the publishing clone: tells one's own publications from a teammate's. */
  readonly clone: string;
  /** The agent's real HEAD (the snapshot commit's parent); absent on an unborn branch. */
  readonly head?: string;
  readonly branch?: string;
  readonly base: { readonly ref: string; readonly commit: string };
  readonly mergeBase?: string;
  /** Right of way, from the real branch (never the snapshot commit). */
  readonly committedWork: number;
  readonly commits: number;
  readonly changedLines: number;
  readonly startedAt: string;
  readonly publishedAt: string;
  readonly expiresAt: string;
  readonly intent?: readonly string[];
  /** True when the state holds work that is not committed. */
  readonly dirty: boolean;
  /** Paths changed from the merge base to the state (at most 5,000). */
  readonly paths: readonly string[];
  readonly pathsTruncated?: boolean;
}

/** The commit message of a published state: a subject, then the observation as JSON. */
export function observationMessage(o: PublishedObservation): string {
  return `${SUBJECT}: ${o.id}\n\n${JSON.stringify(o, null, 1)}\n`;
}

/** Reads an observation back from a commit message; undefined (with why) when it is not one. */
export function parseObservationMessage(message: string): { observation?: PublishedObservation; error?: string } {
  if (!message.startsWith(`${SUBJECT}: `)) return { error: 'its commit is not an Airspace observation' };
  const start = message.indexOf('\n\n');
  let value: unknown;
  try {
    value = JSON.parse(start < 0 ? '' : message.slice(start + 2));
  } catch {
    return { error: 'its observation is not valid JSON' };
  }
  const o = value as Partial<PublishedObservation> | null;
  if (!o || typeof o !== 'object') return { error: 'its observation is not an object' };
  if (o.airspace !== OBSERVATION_VERSION)
    return { error: `its observation has version ${JSON.stringify(o.airspace)}; this reader knows version ${OBSERVATION_VERSION}` };
  const str = (v: unknown) => typeof v === 'string' && v !== '';
  const date = (v: unknown) => typeof v === 'string' && Number.isFinite(Date.parse(v));
  if (
    !str(o.id) ||
    !str(o.clone) ||
    !o.base ||
    !str(o.base.ref) ||
    !str(o.base.commit) ||
    !date(o.publishedAt) ||
    !date(o.expiresAt) ||
    !date(o.startedAt)
  ) {
    return { error: 'its observation lacks id, clone, base, startedAt, publishedAt or expiresAt' };
  }
  if (
    typeof o.committedWork !== 'number' ||
    !Number.isFinite(o.committedWork) ||
    !Array.isArray(o.paths) ||
    !o.paths.every((p) => typeof p === 'string')
  ) {
    return { error: 'its observation lacks committedWork or paths' };
  }
  if (o.intent !== undefined && !(Array.isArray(o.intent) && o.intent.every((p) => typeof p === 'string')))
    return { error: 'its observation has a malformed intent' };
  // Commit ids reach git as arguments: object ids only, never anything option-shaped.
  const oid = (v: unknown) => typeof v === 'string' && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(v);
  if (!oid(o.base.commit) || (o.mergeBase !== undefined && !oid(o.mergeBase)))
    return { error: 'its observation names a base or merge base that is not a commit id' };
  return { observation: { ...o, label: typeof o.label === 'string' ? o.label : o.id } as PublishedObservation };
}
