/**
 * Resolved imports persisted beside the facts cache, one file per resolver key (the file set,
 * the configuration files' blob ids and the resolver's version): `res-<key>.json`, holding per
 * path the blob id it was resolved for and one entry per import of its facts. A warm start with
 * the same key resolves nothing. Written to a temporary file and renamed; the newest few keys are
 * kept (one per worktree state in use). A file that does not decode is ignored and replaced.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImportFact } from '../facts.js';
import type { ResolvedVia } from '../resolve/resolver.js';

const FORMAT = 'airspace-resolutions-1';
/** Resolution files kept per cache directory (newest first). */
const KEEP = 6;

/** The outcome of one import, as the index records it. */
export interface ImportOutcome {
  readonly targets: readonly string[];
  readonly via?: ResolvedVia;
  readonly external?: string;
  readonly unresolved?: string;
}

/** `[0, via, ...targets]` resolved, `[1, package]` external, `[2, reason]` unresolved. */
type Encoded = [0, ResolvedVia, ...string[]] | [1, string] | [2, string];

export interface PersistedResolutions {
  /** The outcomes of a file's imports when it was resolved at this blob id, aligned with its facts' imports. */
  get(path: string, blobId: string, imports: readonly ImportFact[]): ImportOutcome[] | undefined;
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
    get(path, blobId, imports) {
      const entry = files[path];
      if (!Array.isArray(entry) || entry[0] !== blobId || !Array.isArray(entry[1]) || entry[1].length !== imports.length) return undefined;
      const out: ImportOutcome[] = [];
      for (const e of entry[1] as unknown[]) {
        const o = decode(e);
        if (!o) return undefined;
        out.push(o);
      }
      return out;
    },
  };
}

function decode(e: unknown): ImportOutcome | undefined {
  if (!Array.isArray(e) || e.length < 2 || !e.every((x, i) => (i === 0 ? typeof x === 'number' : typeof x === 'string'))) return undefined;
  if (e[0] === 0) return { targets: e.slice(2) as string[], via: e[1] as ResolvedVia };
  if (e[0] === 1 && e.length === 2) return { targets: [], external: e[1] as string };
  if (e[0] === 2 && e.length === 2) return { targets: [], unresolved: e[1] as string };
  return undefined;
}

function encode(o: ImportOutcome): Encoded {
  if (o.external !== undefined) return [1, o.external];
  if (o.unresolved !== undefined) return [2, o.unresolved];
  return [0, o.via ?? 'relative', ...o.targets];
}

/**
 * Writes the resolutions of a key (atomic), then removes the oldest resolution files beyond the
 * few kept. Returns an error message instead of throwing.
 */
export async function saveResolutions(
  dir: string,
  key: string,
  files: Iterable<{ readonly path: string; readonly blobId: string; readonly imports: readonly ImportOutcome[] }>,
): Promise<string | undefined> {
  const out: Record<string, [string, Encoded[]]> = {};
  for (const f of files) out[f.path] = [f.blobId, f.imports.map(encode)];
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
