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
    if (isDotGit(part)) return 'is inside a .git directory';
  }
  return undefined;
}

/** `.git` as git fsck spots it: any case, HFS+'s ignored code points, NTFS's trailing dots and spaces and short name. */
function isDotGit(part: string): boolean {
  const name = part
    .toLowerCase()
    .replace(/[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g, '')
    .replace(/[. ]+$/, '');
  return name === '.git' || name === 'git~1';
}

export const isSafeRepoPath = (path: string): boolean => unsafeRepoPath(path) === undefined;
