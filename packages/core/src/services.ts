/**
 * Shapes of the services that front ends put into `ctx.services` for the built-in channels, so
 * that a plugin needs only @airspace/core to read them. @airspace/analysis implements them.
 */
import type { Agent, Range } from './model.js';

export interface SymbolWrite {
  readonly symbol: string;
  readonly path: string;
  readonly qualifiedName: string;
  readonly kind: string;
  readonly change: 'signature' | 'body' | 'added' | 'deleted';
  readonly range?: Range;
  readonly baseRange?: Range;
}

export interface SymbolRead {
  readonly symbol: string;
  readonly qualifiedName: string;
  readonly definedIn: string;
  readonly path: string;
  readonly line: number;
  readonly strength: 'changed' | 'touched';
  readonly confidence: 'high' | 'low';
  readonly via: string;
}

export interface CallStep {
  readonly symbol: string;
  readonly direction: 'calls' | 'called-by';
  readonly path: string;
  readonly line: number;
}

/** `ctx.services.symbols`: per agent, the symbols it writes and reads, and its view of the call graph. */
export interface SymbolService {
  writes(agent: Agent): readonly SymbolWrite[];
  reads(agent: Agent): readonly SymbolRead[];
  callNeighbors(agent: Agent, symbol: string): readonly CallStep[];
}

/** `src/a.ts#Parser.parse` → `Parser.parse`. */
export function displayName(symbol: string): string {
  return symbol.slice(symbol.lastIndexOf('#') + 1);
}

/** A file changed together with another in the commits of a history view. */
export interface CoChangePartner {
  readonly path: string;
  /** Commits of the view that changed both files. */
  readonly support: number;
}

/**
 * The repository's history as of one commit: the `window` most recent commits that are ancestors
 * of it (itself included), never a later one. Merge commits and commits changing more than
 * `maxFilesPerCommit` files count in the window but change nothing in it.
 */
export interface CoChangeView {
  /** The commit the view is as of. */
  readonly asOf: string;
  /** Commits of the window that count as changes (not merges, not over the size limit). */
  readonly commits: number;
  /** Commits of the view that changed `path`. */
  count(path: string): number;
  /** Files changed together with `path` in at least `minSupport` commits of the view. */
  partners(path: string, minSupport: number): readonly CoChangePartner[];
}

export interface CoChangeViewOptions {
  /** How many commits back from the view's commit (merges included). */
  readonly window: number;
  /** Commits changing more files than this are left out (mass renames, formatting, vendoring). */
  readonly maxFilesPerCommit: number;
}

/**
 * `ctx.services.coChange` (co-change channel): the history each agent's work is read against — in
 * a live scan as of the agent's merge base, in a replay as of the side's observed commit. No view
 * (undefined) when the history cannot be read: the agent then predicts nothing.
 */
export interface CoChangeService {
  viewFor(agent: Agent, options: CoChangeViewOptions): Promise<CoChangeView | undefined>;
  /** Problems met reading the history (a damaged cache rebuilt, git failing). */
  takeProblems?(): readonly string[];
}

/**
 * The repository's past merges as of one commit: the merge commits among the `window` most recent
 * ancestors of it (at most `maxMerges`, newest first), each re-merged (its first two parents) to
 * see which paths conflicted. Never a later merge.
 */
export interface PastConflictsView {
  /** The commit the view is as of. */
  readonly asOf: string;
  /** Merges of the view whose re-merge is known. */
  readonly merges: number;
  /** Merges of the view that brought changes to `path` (against their first parent) or conflicted in it. */
  touched(path: string): number;
  /** Of those, the merges whose re-merge conflicted in `path`. */
  conflicted(path: string): number;
}

export interface PastConflictsViewOptions {
  /** How many commits back from the view's commit (merges included). */
  readonly window: number;
  /** At most this many merges of the window, newest first (each costs a re-merge once). */
  readonly maxMerges: number;
}

/**
 * `ctx.services.pastConflicts` (past-conflicts channel): the merges each agent's work is read
 * against — in a live scan as of the agent's merge base, in a replay as of the side's observed
 * commit. No view (undefined) when the history cannot be read.
 */
export interface PastConflictsService {
  viewFor(agent: Agent, options: PastConflictsViewOptions): Promise<PastConflictsView | undefined>;
  /** Problems met reading the history (a damaged cache line, git failing). */
  takeProblems?(): readonly string[];
}
