/** Which worktree and repository a workspace folder belongs to (git, read-only). */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { runGit } from '@airspace/git';

export interface FolderInfo {
  /** The folder as the client gave it (a real path). */
  readonly folder: string;
  /** The top of its worktree: this worktree is "self". */
  readonly worktree: string;
  /** The repository's common git directory: one scanner per repository. */
  readonly commonDir: string;
  /** This worktree's own git directory (HEAD, index). */
  readonly gitDir: string;
}

export function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

export async function describeFolder(folder: string): Promise<FolderInfo> {
  const dir = real(folder);
  const out = await runGit(['rev-parse', '--show-toplevel', '--git-common-dir', '--absolute-git-dir'], { cwd: dir });
  const [top, common, gitDir] = out.split('\n').map((l) => l.trim());
  if (!top || !common || !gitDir) throw new Error(`${dir} is not inside a git work tree`);
  return {
    folder: dir,
    worktree: real(top),
    commonDir: real(isAbsolute(common) ? common : resolve(dir, common)),
    gitDir: real(gitDir),
  };
}

/** The repository-relative path of `file` in `worktree`, or undefined when it lies outside. */
export function relativeTo(worktree: string, file: string): string | undefined {
  const rel = relative(worktree, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/** The work trees `git worktree list --porcelain` names: a bare repository's own entry is none. */
export function listedWorktrees(porcelain: string): string[] {
  return porcelain
    .split(/\n\n+/)
    .map((block) => block.split('\n'))
    .filter((lines) => !lines.includes('bare'))
    .flatMap((lines) => lines.filter((l) => l.startsWith('worktree ')).map((l) => l.slice('worktree '.length)));
}
