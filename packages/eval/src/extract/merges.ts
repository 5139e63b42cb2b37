/**
 * The merge commits a replay walks: two-parent merges, newest first. One `git log` call; the
 * list is small (three ids and a time per merge) even for repositories with many thousands.
 */
import { END_OF_OPTIONS, gitOperand, runGit } from '@airspace/git';

export interface MergeCommit {
  readonly merge: string;
  readonly parents: readonly string[];
  /** Commit time of the merge (ms). */
  readonly committedAt: number;
}

export interface ListMergesOptions {
  /** Examine at most this many merge commits (newest first). */
  readonly maxMerges?: number;
  /** Only merges committed at or after this date (anything `git log --since` accepts). */
  readonly since?: string;
  /** Revision to walk from (default: HEAD). */
  readonly rev?: string;
}

export async function listMerges(cwd: string, options: ListMergesOptions = {}): Promise<MergeCommit[]> {
  const args = ['log', '--merges', '--date-order', '--no-show-signature', '--format=%H %ct %P'];
  if (options.maxMerges !== undefined) args.push(`--max-count=${Math.max(0, Math.floor(options.maxMerges))}`);
  if (options.since !== undefined) args.push(`--since=${options.since}`);
  args.push(END_OF_OPTIONS, gitOperand(options.rev ?? 'HEAD', 'revision'), '--');
  const out = await runGit(args, { cwd });
  const merges: MergeCommit[] = [];
  for (const line of out.split('\n')) {
    const [merge, time, ...parents] = line.trim().split(' ');
    if (!merge || !time) continue;
    merges.push({ merge, parents, committedAt: Number(time) * 1000 });
  }
  return merges;
}
