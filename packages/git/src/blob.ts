/**
 * Git object ids computed the way git does (`sha1("<type> <len>\0" + content)`), and loose
 * objects written into a scratch object directory — never into a user's object store.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';

export function objectId(type: 'blob' | 'tree' | 'commit', content: Buffer | string): string {
  const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
}

/** The blob id `git hash-object` would print for this content (no filters applied). */
export function hashBlob(content: Buffer | string): string {
  return objectId('blob', content);
}

/**
 * The blob id of a file of `bytes` bytes, read as a stream (a file over the size limit is never
 * held whole in memory). Undefined when it cannot be read or its length is not `bytes` (it
 * changed while read): no id rather than a wrong one.
 */
export async function hashFileBlob(path: string | Buffer, bytes: number): Promise<string | undefined> {
  const h = createHash('sha1').update(`blob ${bytes}\0`);
  let read = 0;
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (read > bytes) return undefined;
      h.update(chunk);
    }
  } catch {
    return undefined;
  }
  return read === bytes ? h.digest('hex') : undefined;
}

/** Writes a loose object into `objectsDir` (a scratch GIT_OBJECT_DIRECTORY) and returns its id. */
export function writeLooseObject(objectsDir: string, type: 'blob' | 'tree' | 'commit', content: Buffer | string): string {
  const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const id = objectId(type, body);
  const dir = join(objectsDir, id.slice(0, 2));
  const file = join(dir, id.slice(2));
  if (existsSync(file)) return id;
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, deflateSync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body])));
  renameSync(tmp, file);
  return id;
}

/** Writes a loose blob into `objectsDir` (a scratch GIT_OBJECT_DIRECTORY) and returns its id. */
export function writeLooseBlob(objectsDir: string, content: Buffer | string): string {
  return writeLooseObject(objectsDir, 'blob', content);
}

/**
 * Reads a loose object of `objectsDir` in-process (no git process): what Airspace wrote to its
 * scratch store. Undefined when it is not there as a loose object (packed, or elsewhere).
 */
export function readLooseObject(objectsDir: string, id: string): { type: string; content: Buffer } | undefined {
  if (!/^[0-9a-f]{40}$/.test(id)) return undefined;
  let raw: Buffer;
  try {
    raw = inflateSync(readFileSync(join(objectsDir, id.slice(0, 2), id.slice(2))));
  } catch {
    return undefined;
  }
  const nul = raw.indexOf(0);
  const [type, size] = raw.subarray(0, nul).toString('latin1').split(' ');
  const content = raw.subarray(nul + 1);
  if (!type || Number(size) !== content.length) return undefined;
  return { type, content };
}
