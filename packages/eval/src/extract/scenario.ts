/**
 * A merge commit as a replay scenario: each parent's diff from the merge base is one agent's
 * working set, and what git (and the people who merged) did is the label.
 *
 * Everything is read from objects (no checkout); the merges git performs for the labels write
 * their trees into a scratch object directory, never into the repository's.
 */
import type { Agent, RecencyOptions } from '@airspace/core';
import { GitError, parseMergeTree, runGit, runGitRaw, type ScratchStore } from '@airspace/git';
import { commitWorkingSet } from '@airspace/git';
import { applyIntent } from '@airspace/scanner';
import { laterMergeConflicted, type SideHistory } from './history.js';
import type { MergeCommit } from './merges.js';

export interface ScenarioLabels {
  /** `git merge-tree --write-tree` of the two parents reports a conflict. */
  readonly textual: boolean;
  readonly conflictedPaths: readonly string[];
  /**
   * The committed merge differs from git's automatic merge in a file that merged cleanly: the
   * person merging had to change it (a proxy for a semantic conflict, or an "evil merge").
   */
  readonly manual: boolean;
  readonly manualPaths: readonly string[];
  /**
   * Per side, the merges on its first-parent chain (re-merged: did they conflict?) and its
   * reverts; absent in records cached before it existed (the replay then completes them).
   */
  readonly history?: readonly [SideHistory, SideHistory];
  /** The semantic check of the final parents (the full diffs' `semantic`), when a replay asked for it. */
  readonly semantic?: SemanticCheck;
}

/**
 * The typecheck channel's verdict on the merge of two states (`score/semantic.ts`): `broken`, git
 * merges them cleanly and the merge has type errors neither side nor the base has (`errors`: the
 * channel's evidence); `clear`, it merges cleanly with none; `conflict`, git does not merge them
 * cleanly (textual, not semantic); `not-checked`, no verdict, and why. `checker`: the labeller's version.
 */
export type SemanticCheck =
  | { readonly status: 'broken'; readonly checker: string; readonly errors: readonly string[] }
  | {
      readonly status: 'clear' | 'conflict';
      readonly checker: string;
      /** Clear without the compiler: the sides cannot interact. */ readonly pruned?: true;
    }
  | { readonly status: 'not-checked'; readonly checker: string; readonly reason: string };

/**
 * What counts as a collision. `collided`: collided at any point — the final merge conflicts, or
 * a merge on either side between the observed commit and the final parent conflicts when
 * re-merged, or the observed states conflict (so it depends on the moment of observation).
 * `semantic`: the observed states, or the final parents, merge cleanly and the merge has type
 * errors neither side nor the base has (`SemanticCheck`); `textual+semantic` and
 * `collided+semantic`: either. Under a semantic label a scenario whose check gave no verdict has
 * no label (`labelKnown`): it is counted and left out, never read as clear.
 */
export type LabelKind = 'textual' | 'manual' | 'any' | 'collided' | 'semantic' | 'textual+semantic' | 'collided+semantic';

export const LABEL_KINDS: readonly LabelKind[] = [
  'textual',
  'manual',
  'any',
  'collided',
  'semantic',
  'textual+semantic',
  'collided+semantic',
];

/** Labels that read the semantic check. */
export const isSemanticLabel = (kind: LabelKind): boolean => kind.includes('semantic');

/** What a label is read from: a merge's labels, and for `collided` the observation. */
export interface Labelled {
  readonly labels: ScenarioLabels;
  /** Commits observed per side (the label's "between the observation and the final merge"). */
  readonly observed?: readonly [number, number];
  /** git's merge of the observed states conflicts. */
  readonly observedConflict?: boolean;
  /** The semantic check of the observed states. */
  readonly semantic?: SemanticCheck;
}

/** The observed states' or the final parents' merge is semantically broken. */
export function semanticBroken(s: Labelled): boolean {
  return s.semantic?.status === 'broken' || s.labels.semantic?.status === 'broken';
}

/**
 * Whether a scenario has a label of this kind: always, but under a semantic label a negative
 * needs a verdict on both the observed states and the final parents.
 */
export function labelKnown(s: Labelled, kind: LabelKind): boolean {
  if (!isSemanticLabel(kind) || labelOf(s, kind)) return true;
  const known = (c: SemanticCheck | undefined) => c !== undefined && c.status !== 'not-checked';
  return known(s.semantic) && known(s.labels.semantic);
}

export function labelOf(s: Labelled, kind: LabelKind): boolean {
  const { labels } = s;
  switch (kind) {
    case 'semantic':
      return semanticBroken(s);
    case 'textual+semantic':
      return labels.textual || semanticBroken(s);
    case 'collided+semantic':
      return labelOf(s, 'collided') || semanticBroken(s);
    case 'textual':
      return labels.textual;
    case 'manual':
      return labels.manual;
    case 'any':
      return labels.textual || labels.manual;
    case 'collided':
      return (
        labels.textual || s.observedConflict === true || (s.observed !== undefined && laterMergeConflicted(labels.history, s.observed))
      );
  }
}

/**
 * `--intent`: at the moment of observation each side also declares what it will eventually touch
 * (the final parent's diff from the merge base): its files, or their directories.
 */
export type IntentMode = 'files' | 'dirs';

export interface SideState {
  /** The parent (the side's final state). */
  readonly head: string;
  /** The commit observed: the head, or with `early` the side's state part-way. */
  readonly commit: string;
  /** Commit time of the observed commit (ms). */
  readonly at: number;
  /** First-parent commits from the base to the head, and how many of them were observed. */
  readonly chainLength: number;
  readonly observed: number;
}

export interface Scenario {
  readonly merge: string;
  readonly parents: readonly [string, string];
  /** The agents' base: the observed commits' merge base (with the full diffs, the merge's). */
  readonly base: string;
  /** The merge base of the parents, from which each side's first-parent chain is counted. */
  readonly mergeBase: string;
  /** Commit time of the merge (ms). */
  readonly committedAt: number;
  /** Fraction of each side's commits observed (1: the full diffs). */
  readonly early: number;
  readonly sides: readonly [SideState, SideState];
  readonly agents: readonly [Agent, Agent];
  readonly labels: ScenarioLabels;
  /** The moment of observation: the later of the two observed commits (ms). */
  readonly now: number;
  /** Each side declared its eventual files or directories at the observation (`--intent`). */
  readonly intent?: IntentMode;
}

export type SkipReason = 'octopus' | 'parent-is-ancestor' | 'several-merge-bases' | 'no-merge-base' | 'huge-diff' | 'failed';

export interface Skipped {
  readonly merge: string;
  readonly reason: SkipReason;
  readonly detail?: string;
}

export type Extracted = { readonly scenario: Scenario } | { readonly skipped: Skipped };

export interface ExtractOptions {
  readonly scratch: ScratchStore;
  /** Fraction of each side's first-parent commits to observe, in (0, 1]; default 1. */
  readonly early?: number;
  /** A side changing more files than this is skipped as a huge diff. */
  readonly maxFiles?: number;
  readonly maxFileBytes?: number;
  readonly repository?: string;
  /** Recency of edits by commit time (default: core's; the scanner's comes from the config). */
  readonly recency?: RecencyOptions;
  /** Labels already known (from the cache): skips the merges git would redo. */
  readonly labels?: ScenarioLabels;
  /** Declare each side's eventual files or directories at the observation (see `declaredPaths`). */
  readonly intent?: IntentMode;
}

/**
 * What a side declares under `--intent`: the paths of its final diff from the merge base (both
 * sides of a rename), or with `dirs` their directories (a file at the root declares itself: the
 * root directory would be everything). Applied as the scanner applies intent: whole-file edits of
 * weight 1 (`applyIntent`).
 */
export async function declaredPaths(cwd: string, base: string, head: string, mode: IntentMode): Promise<string[]> {
  const out = await runGit(['diff-tree', '-r', '-z', '--name-only', '--no-renames', base, head], { cwd });
  const paths = out.split('\0').filter(Boolean);
  const declared = mode === 'files' ? paths : paths.map((p) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : p));
  return [...new Set(declared)].sort();
}

export const DEFAULT_MAX_FILES = 3000;

/** Labels of a two-parent merge: git's own merge of the parents, compared with what was committed. */
export async function labelMerge(
  cwd: string,
  scratch: ScratchStore,
  merge: string,
  parents: readonly [string, string],
): Promise<ScenarioLabels> {
  // The same merge (flags and parser) as the merge channel's, objects in the scratch store.
  const r = await runGitRaw(['merge-tree', '--write-tree', '--name-only', '-z', '--messages', parents[0], parents[1]], {
    cwd,
    env: scratch.env(),
    okCodes: [1],
  });
  const parsed = parseMergeTree(r.stdout, r.code === 0);
  const tree = parsed.tree ?? '';
  if (!/^[0-9a-f]{40,64}$/.test(tree)) throw new Error(`git merge-tree printed no tree for ${parents.join(' ')}`);
  const conflictedPaths = [...new Set(parsed.conflicts.map((c) => c.path))].sort();
  const conflicted = new Set(conflictedPaths);
  const differ = await runGit(['diff-tree', '-r', '-z', '--name-only', '--no-renames', tree, `${merge}^{tree}`], {
    cwd,
    env: scratch.env(),
  });
  const manualPaths = differ
    .split('\0')
    .filter((p) => p && !conflicted.has(p))
    .sort();
  return { textual: conflictedPaths.length > 0, conflictedPaths, manual: manualPaths.length > 0, manualPaths };
}

interface Chain {
  /** First-parent commits from just after the base to the head, oldest first, with commit times. */
  readonly commits: readonly { readonly id: string; readonly at: number }[];
}

async function firstParentChain(cwd: string, base: string, head: string): Promise<Chain> {
  const out = await runGit(['log', '--first-parent', '--no-show-signature', '--format=%H %ct', `${base}..${head}`, '--'], { cwd });
  const commits = out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id = '', t = '0'] = line.split(' ');
      return { id, at: Number(t) * 1000 };
    })
    .reverse();
  return { commits };
}

/** The observed state of a side after the first `early` fraction of its first-parent commits (at least one). */
export function observedIndex(chainLength: number, early: number): number {
  if (chainLength <= 0) return 0;
  return Math.min(chainLength, Math.max(1, Math.ceil(early * chainLength - 1e-9)));
}

async function mergeBases(cwd: string, a: string, b: string): Promise<string[]> {
  const r = await runGitRaw(['merge-base', '--all', a, b], { cwd, okCodes: [1] });
  return r.stdout.toString('utf8').split('\n').filter(Boolean);
}

/**
 * The merge base of two observed commits; the final merge's when they have none. With several (a
 * criss-cross history) the one closest to both: fewest files changed from it to either commit,
 * then the newest, then by id. git merges from a virtual base of them all; from the closest one
 * the least of the others' work shows on both sides, and what does shows as the same change, which
 * channels take as identical. From the final merge's base, older than all of them, a side could
 * show as deleting a file the other changes where git sees no conflict.
 */
export async function observedBase(cwd: string, a: string, b: string, fallback: string): Promise<string> {
  if (a === b) return fallback;
  const bases = await mergeBases(cwd, a, b);
  if (bases.length <= 1) return bases[0] ?? fallback;
  const changed = async (from: string, to: string): Promise<number> =>
    (await runGit(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, to], { cwd })).split('\0').filter(Boolean).length;
  const times = new Map(
    (await runGit(['show', '-s', '--no-show-signature', '--format=%H %ct', ...bases], { cwd }))
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf(' ')), Number(line.slice(line.indexOf(' ') + 1))] as const),
  );
  const ranked = await Promise.all(
    bases.map(async (id) => ({ id, files: (await changed(id, a)) + (await changed(id, b)), at: times.get(id) ?? 0 })),
  );
  ranked.sort((x, y) => x.files - y.files || y.at - x.at || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  return ranked[0]!.id;
}

export async function extractScenario(cwd: string, m: MergeCommit, options: ExtractOptions): Promise<Extracted> {
  const skip = (reason: SkipReason, detail?: string): Extracted => ({ skipped: { merge: m.merge, reason, ...(detail ? { detail } : {}) } });
  if (m.parents.length !== 2) return skip('octopus', `${m.parents.length} parents`);
  const parents = [m.parents[0]!, m.parents[1]!] as const;
  try {
    const bases = await mergeBases(cwd, parents[0], parents[1]);
    if (bases.length === 0) return skip('no-merge-base', 'unrelated histories or a shallow clone');
    if (bases.length > 1) return skip('several-merge-bases', `${bases.length} merge bases`);
    const base = bases[0]!;
    if (base === parents[0] || base === parents[1])
      return skip('parent-is-ancestor', `${base === parents[0] ? 'first' : 'second'} parent is the merge base`);

    const early = options.early ?? 1;
    const chains = await Promise.all(parents.map((p) => firstParentChain(cwd, base, p)));
    const sides = parents.map((head, i): SideState => {
      const chain = chains[i]!.commits;
      const observed = observedIndex(chain.length, early);
      const at = chain[observed - 1] ?? { id: head, at: m.committedAt };
      return { head, commit: at.id, at: at.at, chainLength: chain.length, observed };
    }) as unknown as [SideState, SideState];
    const now = Math.max(sides[0].at, sides[1].at);
    // Part-way, the agents are diffed from the observed commits' own merge base (as git, and a
    // live pair of worktrees, see them): from the final base, a side observed before it merged in
    // commits that the final base contains would show their reversal as its own edits.
    const agentBase = early < 1 ? await observedBase(cwd, sides[0].commit, sides[1].commit, base) : base;

    const maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
    // The label merge and both sides' diffs are independent: run them together.
    const intent = options.intent && early < 1 ? options.intent : undefined;
    const declaring = intent ? Promise.all(parents.map((p) => declaredPaths(cwd, base, p, intent))) : undefined;
    const [labels, ...sets] = await Promise.all([
      options.labels ?? labelMerge(cwd, options.scratch, m.merge, parents),
      ...sides.map((side) =>
        commitWorkingSet(cwd, agentBase, side.commit, {
          now,
          maxFiles,
          ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}),
          ...(options.recency ? { recency: options.recency } : {}),
        }),
      ),
    ]);
    const declared = await declaring;
    const agents: Agent[] = [];
    for (const [i, side] of sides.entries()) {
      const set = sets[i]!;
      if (set.tooManyFiles) return skip('huge-diff', `parent ${i + 1} changes more than ${maxFiles} files`);
      // Ids unique per merge and fraction: scenarios replayed at once share one git service.
      const partial = side.observed < side.chainLength ? ` (${side.observed}/${side.chainLength} commits)` : '';
      const id = `${m.merge.slice(0, 12)}^${i + 1}${early < 1 ? `@${early}` : ''}${intent ? `+${intent}` : ''}`;
      const agent: Agent = {
        id,
        label: `${id}${partial}`,
        startedAt: set.startedAt ?? side.at,
        committedWork: set.commits,
        files: set.files,
        base: agentBase,
        ...(options.repository ? { repository: options.repository } : {}),
        meta: { source: 'merge-replay', head: side.commit, merge: m.merge },
      };
      agents.push(declared ? applyIntent(agent, declared[i]!) : agent);
    }
    return {
      scenario: {
        merge: m.merge,
        parents,
        base: agentBase,
        mergeBase: base,
        committedAt: m.committedAt,
        early,
        sides,
        agents: agents as unknown as [Agent, Agent],
        labels,
        now,
        ...(intent ? { intent } : {}),
      },
    };
  } catch (error) {
    const why =
      error instanceof GitError
        ? error.stderr.trim().split('\n')[0] || error.message
        : error instanceof Error
          ? error.message
          : String(error);
    return skip('failed', why);
  }
}
