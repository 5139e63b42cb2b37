/**
 * The mined history on disk, under `<git common dir>/airspace/cache/history-v1/`: a log of
 * segments, each the commits one mining added (so adding a few commits writes a few hundred
 * bytes, not the whole history). A segment is one file: a header line (format, byte length and
 * sha1 of the body) and the body (JSON: the tips mined, a path table, the commits). Written to a
 * temporary file and renamed into place, so a reader never sees half of one; each writer writes
 * its own. When segments pile up they are merged into one; only segments this process read are
 * deleted, so nothing written meanwhile is lost. A segment that does not verify is never trusted:
 * the whole cache is dropped and the history mined again (cheap: one `git log`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HistoryGraph } from './graph.js';

export const HISTORY_CACHE_DIR = 'history-v1';
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

export interface LoadedSegments {
  readonly names: string[];
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
  for (const name of names) {
    try {
      bodies.push(decode(await readFile(join(dir, name), 'utf8')));
    } catch (error) {
      // A file that vanished meanwhile was merged by another process: its commits are in a newer one.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      await Promise.all(names.map((n) => unlink(join(dir, n)).catch(() => undefined)));
      return { names: [], tips: [], damaged: `${name}: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  const tips: string[] = [];
  for (const body of bodies) {
    const local = body.paths.map((p) => graph.pathId(p));
    for (const [id, time, parents, size, files] of body.commits) graph.addNumbered(id, time, parents, size, files.map((f) => local[f]!));
    tips.push(...body.tips);
  }
  return { names, tips };
}

/** Writes the commits `graph` holds from index `from` on as a new segment; returns its name. */
export async function writeSegment(dir: string, graph: HistoryGraph, from: number, tips: readonly string[]): Promise<string> {
  const local = new Map<number, number>();
  const paths: string[] = [];
  const commits: StoredCommit[] = [];
  for (let c = from; c < graph.size; c++) {
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
  return name;
}

/**
 * When more than MAX_SEGMENTS are known, writes the whole graph as one segment and deletes the
 * segments this process read or wrote. Returns the names still live.
 */
export async function compactSegments(dir: string, graph: HistoryGraph, known: readonly string[], tips: readonly string[]): Promise<string[]> {
  if (known.length <= MAX_SEGMENTS) return [...known];
  const merged = await writeSegment(dir, graph, 0, tips);
  await Promise.all(known.map((n) => unlink(join(dir, n)).catch(() => undefined)));
  return [merged];
}
