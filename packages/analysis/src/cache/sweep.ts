/**
 * What the facts cache deletes on its own: the directories of other versions (older queries,
 * grammars or layout) once unused for two weeks, and segment bodies whose head never appeared
 * (left by a writer that crashed) once an hour old.
 */
import { readdir, rm, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';

/** A body file without its head older than this is left over from a crashed writer. */
const ORPHAN_MS = 60 * 60 * 1000;

/**
 * A facts directory of another version (older queries, grammars or layout) unused for this long
 * is deleted. Each store marks its own directory used (its modification time) when it opens it,
 * so two Airspace versions in use side by side keep their caches.
 */
export const STALE_CACHE_MS = 14 * 24 * 60 * 60 * 1000;

/** Marks `own` used and deletes the other `facts-*` directories under `root` unused for `STALE_CACHE_MS`. */
export async function sweepStaleVersions(root: string, own: string): Promise<void> {
  const now = new Date();
  await utimes(own, now, now).catch(() => undefined);
  const names = await readdir(root).catch(() => [] as string[]);
  for (const n of names) {
    const full = join(root, n);
    if (!n.startsWith('facts-') || full === own) continue;
    const st = await stat(full).catch(() => undefined);
    if (st?.isDirectory() && now.getTime() - st.mtimeMs > STALE_CACHE_MS)
      await rm(full, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Removes body files of `dir` (whose entries are `names`) whose head never appeared (a writer that crashed long ago). */
export async function removeOrphans(dir: string, names: readonly string[]): Promise<void> {
  const heads = new Set(names.filter((n) => n.endsWith('.head.json')).map((n) => n.slice(0, -'.head.json'.length)));
  for (const n of names) {
    const seg = n.endsWith('.body') ? n.slice(0, -'.body'.length) : n.endsWith('.tmp') ? n : undefined;
    if (!seg || heads.has(seg)) continue;
    const full = join(dir, n);
    const st = await stat(full).catch(() => undefined);
    if (st && Date.now() - st.mtimeMs > ORPHAN_MS) await unlink(full).catch(() => undefined);
  }
}
