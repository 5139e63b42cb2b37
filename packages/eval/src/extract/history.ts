/**
 * What happened on each side between an observation and the final merge: the merge commits on
 * its first-parent chain (syncs, other branches merged into it) and whether re-merging their
 * parents conflicts, and its reverts. From these, and from git's merge of the observed states,
 * come the "collided at any point" label and the reasons a visible conflict later dissolves.
 *
 * Read from objects only; the merges git performs write into the scratch object directory.
 */
import { parseMergeTreeStdin, runGit, runGitRaw, type ScratchStore } from '@airspace/git';

export interface SideMerge {
  /** 1-based position on the side's first-parent chain from the merge base (the head is `chainLength`). */
  readonly index: number;
  readonly commit: string;
  /** `git merge-tree` of its first two parents reports a conflict. */
  readonly conflicted: boolean;
}

export interface SideHistory {
  readonly merges: readonly SideMerge[];
  /** Positions of reverts (git's subject `Revert "…"`) on the chain. */
  readonly reverts: readonly number[];
}

export interface ChainCommit {
  readonly id: string;
  /** Commit time (ms). */
  readonly at: number;
  readonly parents: readonly string[];
  readonly subject: string;
}

/** First-parent commits from just after `base` to `head`, oldest first. */
export async function firstParentCommits(cwd: string, base: string, head: string): Promise<ChainCommit[]> {
  const out = await runGit(
    ['log', '--first-parent', '--no-show-signature', '--format=%H%x00%ct%x00%P%x00%s%x00', `${base}..${head}`, '--'],
    { cwd },
  );
  const fields = out.split('\0');
  const commits: ChainCommit[] = [];
  for (let i = 0; i + 3 < fields.length; i += 4) {
    const id = fields[i]!.trim();
    if (!id) continue;
    commits.push({ id, at: Number(fields[i + 1]) * 1000, parents: fields[i + 2]!.split(' ').filter(Boolean), subject: fields[i + 3]! });
  }
  return commits.reverse();
}

const REVERT = /^Revert\b/;

/**
 * Whether `git merge-tree` finds a conflict, per pair, in one `--stdin` process; a pair the batch
 * could not answer (git stops at a merge it refuses) is merged alone; one git cannot merge at all
 * counts as clean.
 */
export async function conflictsOf(cwd: string, scratch: ScratchStore, pairs: readonly (readonly [string, string])[]): Promise<boolean[]> {
  if (pairs.length === 0) return [];
  const r = await runGitRaw(['merge-tree', '--stdin', '--name-only', '-z'], {
    cwd,
    env: scratch.env(),
    input: pairs.map(([a, b]) => `${a} ${b}\n`).join(''),
    okCodes: [1, 128],
  });
  const outcomes = parseMergeTreeStdin(r.stdout);
  const result: boolean[] = [];
  for (const [i, [a, b]] of pairs.entries()) {
    const outcome = outcomes[i];
    if (outcome) {
      result.push(!outcome.clean);
      continue;
    }
    const alone = await runGitRaw(['merge-tree', '--write-tree', '--name-only', '-z', a, b], {
      cwd,
      env: scratch.env(),
      okCodes: [1, 128],
    });
    result.push(alone.code === 1);
  }
  return result;
}

/** The merges and reverts of one side's chain, each merge re-merged (`conflicted`). */
export async function sideHistories(
  cwd: string,
  scratch: ScratchStore,
  chains: readonly [readonly ChainCommit[], readonly ChainCommit[]],
): Promise<[SideHistory, SideHistory]> {
  const merges = chains.map((chain) =>
    chain.flatMap((c, i) =>
      c.parents.length >= 2 ? [{ index: i + 1, commit: c.id, parents: [c.parents[0]!, c.parents[1]!] as const }] : [],
    ),
  );
  const conflicted = await conflictsOf(
    cwd,
    scratch,
    merges.flat().map((m) => m.parents),
  );
  let k = 0;
  return chains.map((chain, side) => ({
    merges: merges[side]!.map((m) => ({ index: m.index, commit: m.commit, conflicted: conflicted[k++]! })),
    reverts: chain.flatMap((c, i) => (REVERT.test(c.subject) ? [i + 1] : [])),
  })) as unknown as [SideHistory, SideHistory];
}

/** Why a conflict between the observed states was gone by the final merge, when the history can tell. */
export type DissolveReason = 'sync-merge' | 'revert' | 'unexplained';

/**
 * A merge commit on either side after its observed commit (a sync, or another branch merged into
 * it) comes first; then a revert after the observed commit; else unexplained (later edits undid it).
 */
export function dissolveReason(
  history: readonly [SideHistory, SideHistory] | undefined,
  observed: readonly [number, number],
): DissolveReason {
  if (!history) return 'unexplained';
  if (history.some((h, i) => h.merges.some((m) => m.index > observed[i]!))) return 'sync-merge';
  if (history.some((h, i) => h.reverts.some((r) => r > observed[i]!))) return 'revert';
  return 'unexplained';
}

/** A merge on either side between the observed commit and the final parent conflicted when re-merged. */
export function laterMergeConflicted(
  history: readonly [SideHistory, SideHistory] | undefined,
  observed: readonly [number, number],
): boolean {
  return !!history?.some((h, i) => h.merges.some((m) => m.conflicted && m.index > observed[i]!));
}

/** What `completeLabels` needs of a scored record. */
export interface ObservedRecord {
  readonly parents: readonly [string, string];
  readonly base: string;
  readonly early: number;
  readonly observed: readonly [number, number];
  readonly labels: { readonly textual: boolean; readonly history?: readonly [SideHistory, SideHistory] };
  readonly observedConflict?: boolean;
}

/**
 * Fills in what the "collided at any point" label needs, for records of one merge (every observed
 * fraction): each side's history (once per merge) and whether the observed states conflict
 * (for the full diffs that is the textual label itself). Records already complete are returned
 * as they are; `changed` says whether any was not.
 */
export async function completeLabels<T extends ObservedRecord>(
  cwd: string,
  scratch: ScratchStore,
  records: readonly T[],
): Promise<{ records: T[]; changed: boolean }> {
  const todo = records.filter((r) => !r.labels.history || r.observedConflict === undefined);
  const first = records[0];
  if (!first || todo.length === 0) return { records: [...records], changed: false };
  // Chains count from the parents' merge base (an early record's `base` is its observed commits').
  const mergeBase =
    records.find((r) => r.early >= 1)?.base ?? (await runGit(['merge-base', first.parents[0], first.parents[1]], { cwd })).trim();
  const chains = (await Promise.all(first.parents.map((p) => firstParentCommits(cwd, mergeBase, p)))) as [ChainCommit[], ChainCommit[]];
  const history =
    first.labels.history ?? records.find((r) => r.labels.history)?.labels.history ?? (await sideHistories(cwd, scratch, chains));
  const pairs: [string, string][] = [];
  const pairOf = new Map<T, number>();
  for (const r of todo) {
    if (r.observedConflict !== undefined || r.early >= 1) continue;
    const a = chains[0][r.observed[0] - 1]?.id ?? r.parents[0];
    const b = chains[1][r.observed[1] - 1]?.id ?? r.parents[1];
    pairOf.set(r, pairs.push([a, b]) - 1);
  }
  const conflicts = await conflictsOf(cwd, scratch, pairs);
  const out = records.map((r) => {
    if (!todo.includes(r)) return r;
    const at = pairOf.get(r);
    const observedConflict = r.observedConflict ?? (at === undefined ? r.labels.textual : conflicts[at]!);
    return { ...r, labels: { ...r.labels, history }, observedConflict };
  });
  return { records: out, changed: true };
}
