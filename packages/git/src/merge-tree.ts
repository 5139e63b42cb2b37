/**
 * Merges without a work tree: `git merge-tree --write-tree` of two commits, and the parsers of its
 * output (one merge, or many through `--stdin`) into core's `MergeOutcome` with the conflicted
 * paths, their conflict types and git's messages.
 */
import type { MergeConflict, MergeOutcome } from '@airspace/core';
import { runGitRaw } from './exec.js';
import { decodeLatin1Path } from './path-bytes.js';

/** Reads informational messages (`<count> NUL <path>… NUL <type> NUL <message> NUL`, repeated) from `i`. */
function readMessages(fields: readonly string[], i: number, byPath: Map<string, MergeConflict>): number {
  while (i < fields.length) {
    const count = Number(fields[i]);
    if (fields[i] === '' || !Number.isInteger(count) || count < 1) break;
    const paths = fields.slice(i + 1, i + 1 + count);
    const type = fields[i + 1 + count];
    const message = fields[i + 2 + count]?.replace(/\n$/, '');
    i += count + 3;
    if (!type?.startsWith('CONFLICT')) continue;
    for (const p of paths) {
      if (byPath.get(p)?.type) continue;
      byPath.set(p, { path: p, type, ...(message ? { message } : {}) });
    }
  }
  return i;
}

/** NUL-separated fields; from bytes, each decoded faithfully (names that are not UTF-8 stay distinct). */
const fieldsOf = (output: string | Buffer): string[] =>
  typeof output === 'string' ? output.split('\0') : output.toString('latin1').split('\0').map(decodeLatin1Path);

/**
 * Parses `git merge-tree --stdin --name-only -z`: per merge, `<1 clean|0 conflicted> NUL <tree> NUL`,
 * then for a conflicted merge the conflicted paths, an empty field, the messages and an empty field;
 * for a clean one an empty field. Output cut short (git stops at a merge it refuses) yields fewer outcomes.
 */
export function parseMergeTreeStdin(output: string | Buffer): MergeOutcome[] {
  const fields = fieldsOf(output);
  const out: MergeOutcome[] = [];
  let i = 0;
  while (i + 2 < fields.length) {
    const status = fields[i];
    const tree = fields[i + 1];
    if ((status !== '0' && status !== '1') || !tree) break;
    i += 2;
    if (status === '1') {
      if (fields[i] !== '') break;
      i++;
      out.push({ clean: true, tree, conflicts: [] });
      continue;
    }
    const byPath = new Map<string, MergeConflict>();
    for (; i < fields.length && fields[i] !== ''; i++) byPath.set(fields[i]!, { path: fields[i]! });
    i++;
    i = readMessages(fields, i, byPath);
    if (fields[i] !== '') break; // incomplete record
    i++;
    out.push({ clean: false, tree, conflicts: [...byPath.values()] });
  }
  return out;
}

/** Parses `git merge-tree --write-tree --name-only -z` (with messages). */
export function parseMergeTree(output: string | Buffer, clean: boolean): { tree?: string; conflicts: MergeConflict[] } {
  const fields = fieldsOf(output);
  const tree = fields[0]?.trim() || undefined;
  const names: string[] = [];
  let i = 1;
  if (!clean) {
    for (; i < fields.length && fields[i] !== ''; i++) names.push(fields[i]!);
    i++;
  } else if (fields[1] === '') {
    i = 2;
  }
  const byPath = new Map<string, MergeConflict>();
  for (const n of names) if (!byPath.has(n)) byPath.set(n, { path: n });
  readMessages(fields, i, byPath);
  return { ...(tree ? { tree } : {}), conflicts: [...byPath.values()] };
}

/** One merge of commits `a` and `b` in `cwd` (objects through `env`); git's failure becomes `error`. */
export async function mergeCommits(cwd: string, env: Readonly<Record<string, string>>, a: string, b: string): Promise<MergeOutcome> {
  const r = await runGitRaw(['merge-tree', '--write-tree', '--name-only', '-z', '--messages', a, b], { cwd, env, okCodes: [1, 128] });
  const out = r.stdout;
  if (r.code !== 0 && r.code !== 1) return { clean: true, conflicts: [], error: r.stderr.trim() || `git merge-tree exited ${r.code}` };
  const parsed = parseMergeTree(out, r.code === 0);
  return { clean: r.code === 0, ...(parsed.tree ? { tree: parsed.tree } : {}), conflicts: parsed.conflicts };
}
