/**
 * What `airspace.declareIntent` accepts as a path: repository-relative paths, `file:` URIs and
 * absolute paths inside the worktree (mapped to repository paths). Anything else is refused with
 * a problem that says why, never reinterpreted (`/abs/x.ts` is not `abs/x.ts`).
 */
import { isAbsolute, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Problem } from '@airspace/core';
import { real, relativeTo } from './workspace.js';

export type IntentPath = { readonly path: string } | { readonly problem: Problem };

const refused = (item: string, why: string): IntentPath => ({
  problem: { code: 'INTENT_PATH_REFUSED', message: `declareIntent: ${JSON.stringify(item)} ${why}; not declared.`, path: item },
});

/** A declared path → its repository-relative form in `worktree` (a real path), or a problem. */
export function intentPath(worktree: string, item: string): IntentPath {
  if (item.trim() === '') return refused(item, 'is empty');
  let absolute: string | undefined;
  if (item.startsWith('file:')) {
    try {
      absolute = fileURLToPath(item);
    } catch {
      return refused(item, 'is not a valid file URI');
    }
  } else if (isAbsolute(item) || /^[A-Za-z]:[\\/]/.test(item)) absolute = item;
  if (absolute !== undefined) {
    // The worktree is a real path; the client's may go through a symbolic link.
    const rel = relativeTo(worktree, resolve(absolute)) ?? relativeTo(worktree, real(absolute));
    return rel === undefined ? refused(item, `is an absolute path outside this worktree (${worktree})`) : { path: rel };
  }
  const normal = posix.normalize(item.replace(/\\/g, '/'));
  if (normal === '.' || normal === '..' || normal.startsWith('../')) return refused(item, 'leads outside the worktree');
  return { path: normal.replace(/^\.\//, '') };
}
