/**
 * Checksums of what the caches store: crc32 where Node has it (five times faster than sha1),
 * else sha1, named in the checksum (`crc32:<hex>`, `sha1:<hex>`) so a reader knows which to run.
 * `seal` puts a checksum line before a text; `unseal` gives the text back only when it matches,
 * so a flipped bit anywhere in a cached record is found rather than believed.
 */
import { createHash } from 'node:crypto';
import * as zlib from 'node:zlib';

const crc32 = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** A running checksum: crc32 where Node has it, else sha1. */
export function newChecksum(algorithm: 'crc32' | 'sha1' = crc32 ? 'crc32' : 'sha1'): { update(b: Uint8Array): void; digest(): string } {
  if (algorithm === 'crc32' && crc32) {
    let value = 0;
    // Empty input is skipped: Node 20's crc32 of an empty view returns 0 instead of the running value.
    return { update: (b) => void (b.length > 0 && (value = crc32(b, value))), digest: () => `crc32:${value.toString(16)}` };
  }
  const h = createHash('sha1');
  return { update: (b) => void h.update(b), digest: () => `sha1:${h.digest('hex')}` };
}

/** The checksum of `data` with the algorithm named in `like` (undefined for an unknown algorithm). */
export function checksumOf(like: string, data: Uint8Array): string | undefined {
  const algorithm = like.slice(0, like.indexOf(':'));
  // A Node without crc32 cannot check another's crc32 record: it trusts the length alone rather than delete it.
  if (algorithm === 'crc32' && !crc32) return like;
  if (algorithm !== 'crc32' && algorithm !== 'sha1') return undefined;
  const c = newChecksum(algorithm);
  c.update(data);
  return c.digest();
}

const SEAL = /^(crc32|sha1):[0-9a-f]+ (\d+)$/;

/** `text` behind a line with its checksum and byte length. */
export function seal(text: string): string {
  const bytes = Buffer.from(text);
  const c = newChecksum();
  c.update(bytes);
  return `${c.digest()} ${bytes.length}\n${text}`;
}

/**
 * The text `seal` wrote, checked: `{ text }` when it matches, `{ damaged }` saying why when it
 * does not, `{ foreign: true }` when there is no checksum line at all (a file of an older format).
 */
export function unseal(raw: Buffer): { text: string } | { damaged: string } | { foreign: true } {
  const nl = raw.indexOf(0x0a);
  const line = nl < 0 ? '' : raw.toString('latin1', 0, nl);
  const m = SEAL.exec(line);
  if (!m) return raw[0] === 0x7b /* { */ ? { foreign: true } : { damaged: 'no checksum line' };
  const body = raw.subarray(nl + 1);
  if (body.length !== Number(m[2])) return { damaged: `${body.length} bytes, expected ${m[2]}` };
  const check = line.slice(0, line.indexOf(' '));
  if (checksumOf(check, body) !== check) return { damaged: 'checksum mismatch' };
  return { text: body.toString('utf8') };
}
