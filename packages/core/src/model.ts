/**
 * The Airspace model. Pure data: no I/O, nothing about git, tree-sitter or LSP.
 *
 * Line ranges are in **base coordinates** — the lines of the merge base that a merge would
 * compare — unless a name says otherwise (`newRanges`, `current`).
 */

/**
 * An inclusive, 1-based line range `[start, end]` covering `end − start + 1` lines.
 *
 * A pure insertion is a **zero-width range** `[k + 1, k]`: the point between line `k` and line
 * `k + 1` (`[1, 0]` is the top of the file). This is git's own hunk header convention
 * (`@@ -k,0 …` inserts after line k) and keeps every range integral: length = end − start + 1.
 */
export type Range = readonly [start: number, end: number];

/** Line ranges of one side of a file, or the whole file (added, deleted, binary, no line info). */
export type Ranges = readonly Range[] | 'whole';

export type FileStatus = 'modified' | 'added' | 'deleted' | 'renamed';

/** One hunk of an agent's diff against its merge base. */
export interface Hunk {
  /** Old side, in base coordinates (zero-width for a pure insertion). */
  readonly base: Range;
  /** New side, in the agent's current coordinates (zero-width for a pure deletion). */
  readonly current: Range;
  /** Content id (hash) of the hunk's new lines, so identical changes on two sides can be recognised. */
  readonly contentId?: string;
}

export interface FileEdit {
  /** Repository-relative path, forward slashes, on the agent's side. */
  readonly path: string;
  /** For renames: the path in the base. */
  readonly oldPath?: string;
  readonly status: FileStatus;
  /** Recency weight w_f ∈ [floor, 1]. */
  readonly weight: number;
  /** Changed lines in base coordinates. */
  readonly baseRanges: Ranges;
  /** Changed lines in the agent's current coordinates. */
  readonly newRanges: Ranges;
  /** Hunks pairing base and current ranges; lets front ends map base lines to today's lines. */
  readonly hunks?: readonly Hunk[];
  /** Content ids (git blob ids) of the base and the agent's version; equal newBlob on two sides = identical change. */
  readonly baseBlob?: string;
  readonly newBlob?: string;
  readonly binary?: boolean;
  /** Milliseconds since the epoch of the last edit (mtime or commit time). */
  readonly lastEditedAt?: number;
  /**
   * Declared intent, not a change git can see yet: the agent said it is about to touch these lines
   * (or the whole file). Channels treat it as look-ahead (file-level evidence at most) and say so.
   */
  readonly declared?: boolean;
}

export interface Agent {
  /** Stable identifier (branch name, worktree folder, or the orchestrator's id). */
  readonly id: string;
  readonly label: string;
  /** Milliseconds since the epoch. Earlier start wins right-of-way ties. */
  readonly startedAt: number;
  /** Commits and changed lines since the merge base: more committed work wins right of way. */
  readonly committedWork: number;
  readonly files: readonly FileEdit[];
  /** Paths the agent declares it is about to touch (look-ahead). */
  readonly intent?: readonly string[];
  /** Merge base (commit id) of this agent with the scan base, when known. */
  readonly base?: string;
  /** Identity of the repository the agent works in; agents of different repositories are incomparable. */
  readonly repository?: string;
  /** Where the agent works (a worktree directory), for front ends that open the other side's file. */
  readonly worktree?: string;
  /** Reasons this agent's working set is incomplete or stale; a pair with such an agent is `unknown`, never `clear`. */
  readonly incomplete?: readonly string[];
  /** Free-form source data (source kind, branch, head commit …). */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/**
 * Recency weight of committed work: 1 while younger than `graceMs`, then halves every
 * `halfLifeMs`, never below `floor`. Uncommitted work is current and weighs 1 whatever its age
 * (the sources decide what is uncommitted), so a pair's level does not drift with the clock
 * while nobody edits.
 */
export interface RecencyOptions {
  readonly halfLifeMs: number;
  readonly floor: number;
  /** Committed work this recent is current (weight 1); default 0. */
  readonly graceMs?: number;
}

const HOUR = 3600 * 1000;

export const DEFAULT_RECENCY: RecencyOptions = { graceMs: 24 * HOUR, halfLifeMs: 24 * HOUR, floor: 0.3 };

export function recencyWeight(lastEditedAt: number | undefined, now: number, options: RecencyOptions = DEFAULT_RECENCY): number {
  if (lastEditedAt === undefined || !Number.isFinite(lastEditedAt)) return 1;
  const age = Math.max(0, now - lastEditedAt - Math.max(0, options.graceMs ?? 0));
  const decayed = Math.pow(0.5, age / options.halfLifeMs);
  return Math.min(1, Math.max(options.floor, decayed));
}

/** Every path an agent touches, on both sides of its renames. */
export function touchedPaths(agent: Agent): Set<string> {
  const paths = new Set<string>();
  for (const f of agent.files) {
    paths.add(f.path);
    if (f.oldPath) paths.add(f.oldPath);
  }
  return paths;
}

/** The recency weight a channel reads for an edit: clamped into [0, 1]; one that is not a finite number counts as current (1). */
export function editWeight(edit: FileEdit): number {
  return Number.isFinite(edit.weight) ? Math.min(1, Math.max(0, edit.weight)) : 1;
}
