/**
 * The mined history on disk, under `<git common dir>/airspace/cache/history-v1/`: a log of
 * segments, each the commits one mining added (so adding a few commits writes a few hundred
 * bytes, not the whole history). A segment is one file: a header line (format, byte length and
 * sha1 of the body) and the body (JSON: the tips mined, a path table, the commits). Written to a
 * temporary file and renamed into place, so a reader never sees half of one; each writer writes
 * its own. When segments pile up they are merged into one; only segments this process read are
 * deleted, so nothing written meanwhile is lost; the largest is never rewritten. A segment that does not verify is never trusted:
 * the whole cache is dropped and the history mined again (cheap: one `git log`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { HistoryGraph } from './graph.js';

export const HISTORY_CACHE_DIR = 'history-v1';

/** A history cache of another version unused for this long is deleted (as the facts cache's are). */
export const HISTORY_STALE_MS = 14 * 24 * 60 * 60 * 1000;

/**
 * Marks the cache directory `dir` used (its modification time) and deletes the other versions'
 * `history-v*` directories beside it that have gone unused for `HISTORY_STALE_MS`, so that two
 * Airspace versions in use side by side keep theirs and an old one's is not kept forever.
 */
export async function sweepOtherVersions(dir: string, now = Date.now()): Promise<void> {
  const root = dirname(dir);
  const own = basename(dir);
  const at = new Date(now);
  await utimes(dir, at, at).catch(() => undefined);
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    if (name === own || !/^history-v\d+$/.test(name)) continue;
    const full = join(root, name);
    const st = await stat(full).catch(() => undefined);
    if (st?.isDirectory() && now - st.mtimeMs > HISTORY_STALE_MS) await rm(full, { recursive: true, force: true }).catch(() => undefined);
  }
}
const FORMAT = 'airspace-history-segment-1';
/** Merge segments when more than this many are on disk. */
const MAX_SEGMENTS = 8;

/** One commit as stored: id, time, parents, file count, path numbers into the segment's table. */
type StoredCommit = [string, number, string[], number, number[]];

interface SegmentBody {
  readonly tips: string[];
  readonly paths: string[];
  readonly commits: StoredCommit[];
}

/** A segment on disk and the graph's indices of its commits. */
export interface Segment {
  readonly name: string;
  readonly commits: readonly number[];
}

export interface LoadedSegments {
  readonly segments: Segment[];
  readonly tips: string[];
  /** Set when a segment did not verify: everything was discarded. */
  readonly damaged?: string;
}

function encode(body: SegmentBody): string {
  const text = JSON.stringify(body);
  const bytes = Buffer.byteLength(text);
  const sha1 = createHash('sha1').update(text).digest('hex');
  return `${JSON.stringify({ format: FORMAT, bytes, sha1 })}\n${text}`;
}

function decode(raw: string): SegmentBody {
  const nl = raw.indexOf('\n');
  if (nl < 0) throw new Error('no header');
  const head = JSON.parse(raw.slice(0, nl)) as { format?: unknown; bytes?: unknown; sha1?: unknown };
  const text = raw.slice(nl + 1);
  if (head.format !== FORMAT) throw new Error(`format ${String(head.format)}`);
  if (head.bytes !== Buffer.byteLength(text)) throw new Error('truncated');
  if (head.sha1 !== createHash('sha1').update(text).digest('hex')) throw new Error('checksum mismatch');
  const body = JSON.parse(text) as SegmentBody;
  if (!Array.isArray(body.tips) || !Array.isArray(body.paths) || !Array.isArray(body.commits)) throw new Error('not a segment');
  return body;
}

/** Reads every segment into `graph`. A damaged one discards all (the graph is left empty). */
export async function loadSegments(dir: string, graph: HistoryGraph): Promise<LoadedSegments> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith('seg-') && n.endsWith('.json')).sort();
  const bodies: SegmentBody[] = [];
  const read: string[] = [];
  for (const name of names) {
    try {
      bodies.push(decode(await readFile(join(dir, name), 'utf8')));
      read.push(name);
    } catch (error) {
      // A file that vanished meanwhile was merged by another process: its commits are in a newer one.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      await Promise.all(names.map((n) => unlink(join(dir, n)).catch(() => undefined)));
      return { segments: [], tips: [], damaged: `${name}: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  const tips: string[] = [];
  const segments: Segment[] = [];
  for (const [i, body] of bodies.entries()) {
    const local = body.paths.map((p) => graph.pathId(p));
    const commits: number[] = [];
    for (const [id, time, parents, size, files] of body.commits) {
      graph.addNumbered(
        id,
        time,
        parents,
        size,
        files.map((f) => local[f]!),
      );
      commits.push(graph.indexOf(id)!);
    }
    segments.push({ name: read[i]!, commits });
    tips.push(...body.tips);
  }
  return { segments, tips };
}

/** Writes these commits of `graph` (indices) as a new segment. */
export async function writeSegment(
  dir: string,
  graph: HistoryGraph,
  indices: readonly number[],
  tips: readonly string[],
): Promise<Segment> {
  const local = new Map<number, number>();
  const paths: string[] = [];
  const commits: StoredCommit[] = [];
  for (const c of indices) {
    const files = [...graph.files[c]!].map((p) => {
      let l = local.get(p);
      if (l === undefined) {
        l = paths.length;
        local.set(p, l);
        paths.push(graph.paths[p]!);
      }
      return l;
    });
    commits.push([graph.ids[c]!, graph.times[c]!, [...graph.parents[c]!], graph.sizes[c]!, files]);
  }
  await mkdir(dir, { recursive: true });
  const name = `seg-${Date.now().toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}.json`;
  const tmp = join(dir, `.${name}.${process.pid}.tmp`);
  await writeFile(tmp, encode({ tips: [...tips], paths, commits }));
  await rename(tmp, join(dir, name));
  return { name, commits: [...indices] };
}

/**
 * When more than MAX_SEGMENTS are known, merges all but the largest into one (so frequent small
 * updates never rewrite a whole history) and deletes the merged ones. Returns the live segments.
 */
export async function compactSegments(
  dir: string,
  graph: HistoryGraph,
  known: readonly Segment[],
  tips: readonly string[],
): Promise<Segment[]> {
  if (known.length <= MAX_SEGMENTS) return [...known];
  const largest = known.reduce((x, y) => (y.commits.length > x.commits.length ? y : x));
  const rest = known.filter((seg) => seg !== largest);
  const indices = [...new Set(rest.flatMap((seg) => seg.commits))].sort((x, y) => x - y);
  const merged = await writeSegment(dir, graph, indices, tips);
  await Promise.all(rest.map((seg) => unlink(join(dir, seg.name)).catch(() => undefined)));
  return [largest, merged];
}
