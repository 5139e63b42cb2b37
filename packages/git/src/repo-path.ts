/**
 * The one rule for a repository-relative path that comes from outside this process: a teammate's
 * published state tree, paths and intent, an orchestrator's observations, a declared intent (the
 * LSP's `declareIntent`, MCP's `declare_intent`), the engine's intents file. Such a path names a
 * file inside the work tree or it is refused: not empty, not absolute, and no component that git
 * fsck refuses in a tree (`.`, `..`, `.git` in any case, an empty name) — so `../etc/passwd`,
 * `/etc/shadow` and `.git/config` never become an edit, a read or a declaration.
 */

/** Why `path` (repository-relative, `/` or `\` separated) is not a path inside a work tree; undefined when it is. */
export function unsafeRepoPath(path: string): string | undefined {
  if (path.trim() === '') return 'is empty';
  if (path.includes('\0')) return 'contains a NUL byte';
  if (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path)) return 'is an absolute path';
  for (const part of path.split(/[\\/]/)) {
    if (part === '') return 'has an empty component';
    if (part === '.' || part === '..') return `has a "${part}" component, which leads outside the work tree`;
    if (part.toLowerCase() === '.git') return 'is inside a .git directory';
  }
  return undefined;
}

export const isSafeRepoPath = (path: string): boolean => unsafeRepoPath(path) === undefined;
