/**
 * Trail files: the I/O edge. A trail is persisted as canonically ordered JSON (2-space indented,
 * a final newline); every write goes to a temporary file in the same directory and is renamed
 * over the old one, under an exclusive lock file, so a failed or concurrent write never loses the
 * old trail or an appended receipt.
 */
import { randomUUID } from 'node:crypto';
import { open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readRegularFile } from '@airspace/git/worktree-file';
import { TrailError, TrailErrorCodes } from './errors.js';
import type { AcknowledgementInput, EventOptions } from './trail.js';
import { appendAcknowledgement } from './trail.js';
import type { ShadowReceipt, ShadowTrail } from './types.js';
import { verifyShadowTrailText } from './verify.js';

/** The persisted text of a trail. Field order is whatever the trail holds (canonical when built here). */
export function serializeTrail(trail: ShadowTrail): string {
  return `${JSON.stringify(trail, null, 2)}\n`;
}

/**
 * A file the user names (a trail): a link is followed, but only a regular file is read, through a
 * non-blocking descriptor and bounded (`readRegularFile`), so a FIFO or a device never blocks.
 */
export async function readNamedFile(file: string): Promise<string> {
  const read = await readRegularFile(file, { followLinks: true });
  if ('content' in read) return read.content.toString('utf8');
  throw new Error(read.detail);
}

/** Read and verify a trail file; throws `invalid-trail` (with the verification failure) when it does not verify. */
export async function readTrailFile(file: string): Promise<ShadowTrail> {
  const text = await readNamedFile(file).catch((error: Error) => {
    throw new TrailError(TrailErrorCodes.INVALID_ARGUMENT, `Cannot read trail file ${file}: ${error.message}`);
  });
  const result = verifyShadowTrailText(text);
  if (!result.ok)
    throw new TrailError(TrailErrorCodes.INVALID_TRAIL, `Trail file ${file} does not verify (${result.reason}): ${result.message}`, result);
  return JSON.parse(text) as ShadowTrail;
}

const LOCK_WAIT_MS = 5_000;
const LOCK_STALE_MS = 30_000;

/** Run `work` holding `<file>.lock` (created exclusively; a lock older than 30 s is taken as stale). */
export async function withTrailLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await open(lock, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > LOCK_STALE_MS) {
        await unlink(lock).catch(() => undefined);
        continue;
      }
      if (Date.now() > deadline)
        throw new TrailError(
          TrailErrorCodes.INVALID_ARGUMENT,
          `Trail file ${file} is locked by another writer (${lock}); try again, or remove the lock file if no writer is running.`,
        );
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  try {
    return await work();
  } finally {
    await unlink(lock).catch(() => undefined);
  }
}

/** Write a trail atomically: temporary file in the same directory, fsync, rename over `file`. */
export async function writeTrailFileAtomic(file: string, trail: ShadowTrail): Promise<void> {
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.${randomUUID()}.tmp`);
  const handle = await open(temporary, 'wx');
  try {
    await handle.writeFile(serializeTrail(trail), 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/**
 * Read the trail in `file`, apply `change`, write the result atomically, all under the file's
 * lock. On any error the file keeps its old content.
 */
export async function updateTrailFile(
  file: string,
  change: (trail: ShadowTrail) => ShadowTrail | Promise<ShadowTrail>,
): Promise<ShadowTrail> {
  return withTrailLock(file, async () => {
    const next = await change(await readTrailFile(file));
    await writeTrailFileAtomic(file, next);
    return next;
  });
}

export interface AcknowledgeAdvisoryResult {
  readonly trail: ShadowTrail;
  /** The acknowledgement receipt appended. */
  readonly receipt: ShadowReceipt;
}

/**
 * For front ends (the LSP server's acknowledge command): append `agentId`'s acknowledgement of
 * the trail's latest advisory (or of `advisoryEventId`, which must be the latest) to the trail in
 * `trailFile`, atomically. Throws `TrailError` with a code (`not-a-party`,
 * `duplicate-acknowledgement`, `nothing-to-acknowledge`, `superseded-advisory`, `invalid-trail`…).
 */
export async function acknowledgeAdvisory(
  trailFile: string,
  acknowledgement: AcknowledgementInput,
  options: EventOptions = {},
): Promise<AcknowledgeAdvisoryResult> {
  const trail = await updateTrailFile(trailFile, (current) => appendAcknowledgement(current, acknowledgement, options));
  return { trail, receipt: trail.receipts.at(-1)! };
}

/**
 * The trail file in `directory` (its `*.json` files) whose two observed agents are `agentA` and
 * `agentB` in either order, for a front end that knows only the pair of a live advisory. Files
 * that do not verify are skipped. With several, the one whose last receipt is latest wins.
 */
export async function findTrailFile(directory: string, agentA: string, agentB: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = (await readdir(directory)).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return undefined;
  }
  let best: { file: string; time: string } | undefined;
  for (const name of names) {
    const file = join(directory, name);
    const trail = await readTrailFile(file).catch(() => undefined);
    const first = trail?.receipts[0]?.payload;
    if (!trail || first?.kind !== 'created') continue;
    const ids = first.observations.map((o) => o.agentId);
    if (!(ids.includes(agentA) && ids.includes(agentB) && agentA !== agentB)) continue;
    const time = trail.receipts.at(-1)!.time;
    if (!best || time > best.time) best = { file, time };
  }
  return best?.file;
}
