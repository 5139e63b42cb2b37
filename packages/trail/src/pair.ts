/**
 * A front end's acknowledgement of a live advisory between two agents of a scan (the editor's
 * acknowledge command, the MCP server's `acknowledge` tool): appended to the pair's trail file in
 * a trail directory, the trail created from the scan's working sets when none exists yet.
 */
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Agent } from '@airspace/core';
import { TrailError, TrailErrorCodes } from './errors.js';
import { acknowledgeAdvisory, findTrailFile, readTrailFile, withTrailLock, writeTrailFileAtomic } from './file.js';
import type { ObservationInput } from './observation.js';
import { createShadowTrail, summarizeShadowTrail } from './trail.js';
import { verifyShadowTrail } from './verify.js';

/** Observations are current for this long after a scan. */
const OBSERVATION_TTL_MS = 60 * 60 * 1000;

export function pairTrailFile(dir: string, a: string, b: string): string {
  const [x, y] = [a, b].sort();
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_');
  return join(dir, `${safe(x!)}--${safe(y!)}.json`);
}

function observation(agent: Agent, repositoryId: string, now: number): ObservationInput {
  return {
    version: 1,
    agentId: agent.id,
    // One repository, one base, one shared task scope: every front end observes the same airspace.
    taskId: 'airspace',
    repositoryId,
    base: 'scan-base',
    scopeId: 'worktrees',
    readPaths: [],
    writePaths: agent.files.map((f) => f.path),
    complete: !agent.incomplete?.length,
    ...(agent.incomplete?.length ? { incompleteReason: agent.incomplete.join('; ') } : {}),
    observedAt: now,
    expiresAt: now + OBSERVATION_TTL_MS,
  };
}

export interface PairAcknowledgement {
  readonly file: string;
  readonly receipt: { readonly eventId: string; readonly hash: string };
  /** `self` had already acknowledged the latest advisory: nothing was appended, `receipt` is that acknowledgement's. */
  readonly already?: true;
}

/**
 * Appends `self`'s acknowledgement to the pair's trail in `dir`, creating the trail if needed. A
 * second acknowledgement of the same advisory appends nothing and says so (`already`).
 */
export async function acknowledgePair(
  dir: string,
  self: Agent,
  other: Agent,
  repositoryId: string,
  options: { now?: number; note?: string } = {},
): Promise<PairAcknowledgement> {
  const now = options.now ?? Date.now();
  // A trail an orchestrator started for this pair (`airspace trail create`) wins over our own.
  const file = (await findTrailFile(dir, self.id, other.id)) ?? pairTrailFile(dir, self.id, other.id);
  await mkdir(dir, { recursive: true });
  await withTrailLock(file, async () => {
    const exists = await access(file).then(
      () => true,
      () => false,
    );
    if (!exists)
      await writeTrailFileAtomic(
        file,
        await createShadowTrail(observation(self, repositoryId, now), observation(other, repositoryId, now), { now }),
      );
  });
  try {
    const { receipt } = await acknowledgeAdvisory(file, { agentId: self.id, note: options.note ?? `acknowledged (${other.id})` }, { now });
    return { file, receipt: { eventId: receipt.eventId, hash: receipt.hash } };
  } catch (error) {
    if (!(error instanceof TrailError && error.code === TrailErrorCodes.DUPLICATE_ACKNOWLEDGEMENT)) throw error;
    const trail = await readTrailFile(file);
    const mine = summarizeShadowTrail(trail).acknowledgements.find((a) => a.agentId === self.id);
    const receipt = trail.receipts.find((r) => r.eventId === mine?.eventId);
    if (!receipt) throw error;
    return { file, receipt: { eventId: receipt.eventId, hash: receipt.hash }, already: true };
  }
}

/** Whether `self` acknowledged the latest advisory of its trail with `other` in `dir`. A trail that does not verify counts as none. */
export async function pairAcknowledged(dir: string, self: string, other: string): Promise<boolean> {
  const file = await findTrailFile(dir, self, other);
  if (!file) return false;
  const trail = await readTrailFile(file);
  if (!verifyShadowTrail(trail).ok) return false;
  return summarizeShadowTrail(trail).acknowledgements.some((a) => a.agentId === self);
}
