/**
 * Resolved imports persisted beside the facts cache, one file per resolver key (the file set,
 * the configuration files' blob ids and the resolver's version): `res-<key>.json`, holding per
 * path the blob id it was resolved for and its resolved imports. A warm start with
 * the same key resolves nothing. Written to a temporary file and renamed; the newest few keys are
 * kept (one per worktree state in use). A file that does not decode is ignored and replaced.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolvedImport } from '../index/build.js';

const FORMAT = 'airspace-resolutions-2';
/** Resolution files kept per cache directory (newest first). */
const KEEP = 6;

export interface PersistedResolutions {
  /** A file's resolved imports when it was resolved at this blob id (with this many imports). */
  get(path: string, blobId: string, importCount: number): readonly ResolvedImport[] | undefined;
}

const fileName = (key: string) => `res-${key}.json`;

export async function loadResolutions(dir: string, key: string): Promise<PersistedResolutions | undefined> {
  let data: { format?: unknown; key?: unknown; files?: unknown };
  try {
    data = JSON.parse(await readFile(join(dir, fileName(key)), 'utf8')) as typeof data;
  } catch {
    return undefined;
  }
  if (data.format !== FORMAT || data.key !== key || !data.files || typeof data.files !== 'object') return undefined;
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

function validResolved(v: unknown): boolean {
  if (!v || typeof v !== 'object') return false;
  const r = v as Partial<ResolvedImport>;
  return typeof r.specifier === 'string' && typeof r.kind === 'string' && typeof r.line === 'number' && Array.isArray(r.targets) && r.targets.every((t) => typeof t === 'string');
}

/**
 * Writes the resolutions of a key (atomic), then removes the oldest resolution files beyond the
 * few kept. Returns an error message instead of throwing.
 */
export async function saveResolutions(
  dir: string,
  key: string,
  files: Iterable<{ readonly path: string; readonly blobId: string; readonly imports: readonly ResolvedImport[] }>,
): Promise<string | undefined> {
  const out: Record<string, [string, readonly ResolvedImport[]]> = {};
  for (const f of files) out[f.path] = [f.blobId, f.imports];
  const path = join(dir, fileName(key));
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, JSON.stringify({ format: FORMAT, key, files: out }));
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    return e instanceof Error ? e.message : String(e);
  }
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith('res-') && n.endsWith('.json'));
  if (names.length > KEEP) {
    const dated = await Promise.all(names.map(async (n) => ({ n, t: (await stat(join(dir, n)).catch(() => undefined))?.mtimeMs ?? 0 })));
    dated.sort((a, b) => b.t - a.t);
    for (const { n } of dated.slice(KEEP)) await unlink(join(dir, n)).catch(() => undefined);
  }
  return undefined;
}
