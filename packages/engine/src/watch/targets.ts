/**
 * What to watch for a repository: every worktree (work in progress) and the git common directory
 * (refs, index and HEAD of every worktree).
 */
import { parseWorktreeList, runGit } from '@airspace/git';

export interface WatchTargets {
  readonly dirs: string[];
  readonly gitDirs: string[];
}

export async function watchTargets(repo: string): Promise<WatchTargets> {
  const common = (await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: repo })).trim();
  const worktrees = parseWorktreeList(await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: repo }))
    .filter((w) => !w.bare && !w.prunable)
    .map((w) => w.dir);
  return { dirs: [...new Set([common, ...worktrees])], gitDirs: [common] };
}
