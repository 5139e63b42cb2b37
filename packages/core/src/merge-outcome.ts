/**
 * What the `git` service's scratch merge of two agents' states gives (GitService in
 * @airspace/git implements it; the merge channel reads it). Here so that a channel needs core only.
 */

export interface MergeConflict {
  readonly path: string;
  /** git's short conflict type, e.g. `CONFLICT (contents)`, when it said. */
  readonly type?: string;
  readonly message?: string;
}

export interface MergeOutcome {
  readonly clean: boolean;
  /** The merged tree (in the scratch object directory). */
  readonly tree?: string;
  readonly conflicts: readonly MergeConflict[];
  /** Why the merge could not be run (no common history, missing state …). */
  readonly error?: string;
}
