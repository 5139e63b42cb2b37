/**
 * What `airspace.declareIntent` accepts as a path: repository-relative paths, `file:` URIs and
 * absolute paths inside the worktree (mapped to repository paths). Anything else is refused with
 * a problem that says why, never reinterpreted (`/abs/x.ts` is not `abs/x.ts`).
 */
import { isAbsolute, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Problem } from '@airspace/core';
import { unsafeRepoPath } from '@airspace/git';
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
    if (rel === undefined) return refused(item, `is an absolute path outside this worktree (${worktree})`);
    return checked(item, rel);
  }
  return checked(item, posix.normalize(item.replace(/\\/g, '/')).replace(/^\.\//, ''));
}

/** The one rule for paths from outside (`unsafeRepoPath`): nothing leads out of the worktree or into `.git`. */
function checked(item: string, path: string): IntentPath {
  const why = unsafeRepoPath(path);
  if (why === undefined) return { path };
  return refused(item, why.includes('outside') ? 'leads outside the worktree' : why);
}
