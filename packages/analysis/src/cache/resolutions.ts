/**
 * Resolved imports persisted beside the facts cache, one file per resolver key (the file set,
 * the configuration files' blob ids and the resolver's version): `res-<key>.json`, holding per
 * path the blob id it was resolved for and its resolved imports. A warm start with
 * the same key resolves nothing. Written to a temporary file and renamed; the newest few keys are
 * kept (one per worktree state in use). Each file is sealed with a checksum line (`checksum.ts`):
 * a file that fails it is reported (`onDamaged`) and ignored, one that does not decode is
 * ignored; either way everything is resolved again and the file replaced.
 *
 * Beside it, `memo-<key>.json` holds the resolver's memo (each resolution with the paths it
 * probed), read only when a later index of another file set starts from this one: its resolver
 * then keeps what the added or deleted paths cannot change instead of resolving everything.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoRecord, ResolvedImport } from '../resolve/resolver.js';
import { seal, unseal } from './checksum.js';

const FORMAT = 'airspace-resolutions-4';
/** Resolution files kept per cache directory (newest first). */
const KEEP = 6;

export interface PersistedResolutions {
  /** A file's resolved imports when it was resolved at this blob id (with this many imports). */
  get(path: string, blobId: string, importCount: number): readonly ResolvedImport[] | undefined;
}

const fileName = (key: string) => `res-${key}.json`;
const memoName = (key: string) => `memo-${key}.json`;
const MEMO_FORMAT = 'airspace-resolver-memo-3';

/** Told when a file fails its checksum: its path and why. */
export type OnDamaged = (path: string, why: string) => void;

/** A sealed JSON file's value, or undefined when it is missing, foreign or damaged (then `onDamaged` is told). */
async function readSealed(path: string, onDamaged?: OnDamaged): Promise<unknown> {
  let raw: Buffer;
  try {
    raw = await readFile(path);
  } catch {
    return undefined;
  }
  const sealed = unseal(raw);
  if ('damaged' in sealed) onDamaged?.(path, sealed.damaged);
  if (!('text' in sealed)) return undefined;
  try {
    return JSON.parse(sealed.text) as unknown;
  } catch {
    return undefined;
  }
}

export async function loadResolutions(dir: string, key: string, onDamaged?: OnDamaged): Promise<PersistedResolutions | undefined> {
  const data = (await readSealed(join(dir, fileName(key)), onDamaged)) as { format?: unknown; key?: unknown; files?: unknown } | undefined;
  if (!data || data.format !== FORMAT || data.key !== key || !data.files || typeof data.files !== 'object') return undefined;
  const files = data.files as Record<string, unknown>;
  return {
    get(path, blobId, importCount) {
      const entry = files[path];
      if (!Array.isArray(entry) || entry[0] !== blobId || !Array.isArray(entry[1]) || entry[1].length !== importCount) return undefined;
      const imports = entry[1] as unknown[];
      // Stored as the index builds them (JSON.parse makes the objects); checked, not trusted.
      for (const r of imports) if (!validResolved(r)) return undefined;
      return imports as ResolvedImport[];
    },
  };
}

/** The resolver memo saved with the resolutions of `key`, or undefined when missing or not decodable. */
export async function loadResolverMemo(dir: string, key: string, onDamaged?: OnDamaged): Promise<MemoRecord[] | undefined> {
  const data = (await readSealed(join(dir, memoName(key)), onDamaged)) as { format?: unknown; key?: unknown; memo?: unknown } | undefined;
  if (!data || data.format !== MEMO_FORMAT || data.key !== key || !Array.isArray(data.memo)) return undefined;
  for (const e of data.memo as unknown[]) if (!validMemoRecord(e)) return undefined;
  return data.memo as MemoRecord[];
}

function validMemoRecord(v: unknown): boolean {
  if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || !v[1] || typeof v[1] !== 'object') return false;
  const { resolution: r, probed } = v[1] as {
    resolution?: { status?: unknown; targets?: unknown; package?: unknown; reason?: unknown };
    probed?: unknown;
  };
  if (!Array.isArray(probed) || !probed.every((p) => typeof p === 'string')) return false;
  if (!r || typeof r !== 'object') return false;
  if (r.status === 'resolved') return Array.isArray(r.targets) && r.targets.every((t) => typeof t === 'string');
  if (r.status === 'external') return typeof r.package === 'string';
  return r.status === 'unresolved' && typeof r.reason === 'string';
}

function validResolved(v: unknown): boolean {
  if (!v || typeof v !== 'object') return false;
  const r = v as Partial<ResolvedImport>;
  return (
    typeof r.specifier === 'string' &&
    typeof r.kind === 'string' &&
    typeof r.edge === 'string' &&
    typeof r.line === 'number' &&
    Array.isArray(r.targets) &&
    r.targets.every((t) => typeof t === 'string')
  );
}

/**
 * Writes the resolutions of a key (atomic), then removes the oldest resolution files beyond the
 * few kept. Returns an error message instead of throwing.
 */
export async function saveResolutions(
  dir: string,
  key: string,
  files: Iterable<{ readonly path: string; readonly blobId: string; readonly imports: readonly ResolvedImport[] }>,
  memo?: readonly MemoRecord[],
): Promise<string | undefined> {
  const out: Record<string, [string, readonly ResolvedImport[]]> = {};
  for (const f of files) out[f.path] = [f.blobId, f.imports];
  const failure =
    (await writeAtomically(join(dir, fileName(key)), JSON.stringify({ format: FORMAT, key, files: out }))) ??
    (memo ? await writeAtomically(join(dir, memoName(key)), JSON.stringify({ format: MEMO_FORMAT, key, memo })) : undefined);
  if (failure) return failure;
  for (const prefix of ['res-', 'memo-']) {
    const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith(prefix) && n.endsWith('.json'));
    if (names.length <= KEEP) continue;
    const dated = await Promise.all(names.map(async (n) => ({ n, t: (await stat(join(dir, n)).catch(() => undefined))?.mtimeMs ?? 0 })));
    dated.sort((a, b) => b.t - a.t);
    for (const { n } of dated.slice(KEEP)) await unlink(join(dir, n)).catch(() => undefined);
  }
  return undefined;
}

/** Writes `text`, sealed, to a temporary file renamed to `path`; an error message instead of throwing. */
async function writeAtomically(path: string, text: string): Promise<string | undefined> {
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, seal(text));
    await rename(tmp, path);
    return undefined;
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    return e instanceof Error ? e.message : String(e);
  }
}
