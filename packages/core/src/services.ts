/**
 * The services a channel may `require`, in one place: `Services` maps each name to its contract,
 * so `requires: ['importGraph']` gives a typed `ctx.services.importGraph` and a plugin needs only
 * @airspace/core to read them. @airspace/git implements `git` and `coChange`, @airspace/analysis
 * `importGraph` and `symbols`; the scan checks a required service against `SERVICE_METHODS`
 * before the channel runs (a missing or malformed one is a `MISSING_SERVICE` problem; one the front
 * end says it cannot give, `unavailableService`, makes the channel "not checked" with its reason),
 * so a channel writes no guard of its own.
 */
import type { Agent, FileEdit, Range } from './model.js';

/**
 * `ctx.services.git`: two agents' edits of one file re-based onto the **pair's** merge base (for
 * agents whose `base` differs), and scratch merges of agents' recorded states.
 */
export interface GitChannelService {
  pairEdits(a: Agent, b: Agent, path: string): PairedEdits | undefined | Promise<PairedEdits | undefined>;
  /** Merges the two agents' states as `git merge` would, in scratch objects. */
  merge(a: Agent, b: Agent): Promise<MergeOutcome>;
  /** Optional: merges many pairs at once (one process); `merge` then answers from its cache. */
  mergeMany?(pairs: readonly (readonly [Agent, Agent])[]): Promise<void>;
  /**
   * Optional: the four trees of a pair's merge — the pair's merge base, each agent's current
   * state (uncommitted work included) and their scratch merge, the one `merge` makes.
   */
  pairTrees?(a: Agent, b: Agent): Promise<PairTrees>;
  /** Optional: every file of a tree-ish (recursive), path → blob id. */
  listTree?(tree: string): Promise<ReadonlyMap<string, string>>;
  /** Optional: a blob's content as UTF-8 text. */
  readBlob?(id: string): Promise<string>;
}

/** The trees of one pair's merge (tree-ish ids that `listTree` reads). */
export interface PairTrees {
  /** The pair's merge base; undefined when the two share no history. */
  readonly base?: string;
  readonly a: string;
  readonly b: string;
  /** The merged tree, as `merge` gives it. */
  readonly merge: MergeOutcome;
}

export interface PairedEdits {
  readonly a: FileEdit;
  readonly b: FileEdit;
  /** The pair's merge base (commit id), when known. */
  readonly base?: string;
}

/** The part of the `git` service the overlap channel uses (tests may supply only it). */
export type PairEditsService = Pick<GitChannelService, 'pairEdits'>;

export interface MergeConflict {
  readonly path: string;
  /** git's short conflict type, e.g. `CONFLICT (contents)`, when it said. */
  readonly type?: string;
  readonly message?: string;
}

/** What the `git` service's scratch merge of two agents' states gives. */
export interface MergeOutcome {
  readonly clean: boolean;
  /** The merged tree (in the scratch object directory). */
  readonly tree?: string;
  readonly conflicts: readonly MergeConflict[];
  /** Why the merge could not be run (no common history, missing state …). */
  readonly error?: string;
}

/** What an import means for coupling, as @airspace/analysis derives it from the import's syntax. */
export type ImportEdgeKind = 'value' | 'type-only' | 'guarded' | 'dynamic' | 're-export';

export const IMPORT_EDGE_KINDS: readonly ImportEdgeKind[] = ['value', 'type-only', 'guarded', 'dynamic', 're-export'];

/** One version of the repository's import graph (the base, or an agent's overlay). */
export interface ImportGraphView {
  /** Files that `path` imports. */
  importsOf(path: string): readonly string[];
  /** Files that import `path`. */
  importersOf(path: string): readonly string[];
  /** Kinds of the imports from `importer` to `imported`; without it (or empty) an import counts as `value`. */
  importKinds?(importer: string, imported: string): readonly string[];
  /** Every file of the graph; without it no file counts as a hub. */
  filePaths?(): Iterable<string>;
  /**
   * An agent's overlay: the files it answers differently from the base view (changed, added or
   * deleted). With it a walk reads this view only around them; without it, everywhere.
   */
  readonly changed?: ReadonlySet<string>;
}

/** `ctx.services.importGraph` (dependency channel): per-agent views; agents without an overlay see `base`. */
export interface ImportGraphService {
  readonly base: ImportGraphView;
  forAgent(agentId: string): ImportGraphView;
}

/**
 * An import graph from plain edges `[importer, imported, kinds?]`, one view for every agent (no
 * overlays): for callers that hold a graph as data (a trail's supplied graph, benchmarks). With
 * `files`, the view lists them (`filePaths`, so hubs can be found); without, it lists none.
 */
export function importGraphOfEdges(
  edges: Iterable<readonly [string, string, (readonly string[])?]>,
  files?: readonly string[],
): ImportGraphService {
  const imports = new Map<string, string[]>();
  const importers = new Map<string, string[]>();
  const kinds = new Map<string, readonly string[]>();
  let withKinds = false;
  for (const [from, to, k] of edges) {
    (imports.get(from) ?? imports.set(from, []).get(from)!).push(to);
    (importers.get(to) ?? importers.set(to, []).get(to)!).push(from);
    if (k) {
      withKinds = true;
      kinds.set(`${from}\u0000${to}`, k);
    }
  }
  const none: readonly string[] = [];
  const view: ImportGraphView = {
    importsOf: (path) => imports.get(path) ?? none,
    importersOf: (path) => importers.get(path) ?? none,
    ...(withKinds ? { importKinds: (from: string, to: string) => kinds.get(`${from}\u0000${to}`) ?? none } : {}),
    ...(files ? { filePaths: () => files } : {}),
  };
  return { base: view, forAgent: () => view };
}

export interface SymbolWrite {
  readonly symbol: string;
  readonly path: string;
  readonly qualifiedName: string;
  readonly kind: string;
  readonly change: 'signature' | 'body' | 'added' | 'deleted';
  readonly range?: Range;
  readonly baseRange?: Range;
  /**
   * A `deleted` definition whose body reappears under another name in the same scope: the agent
   * renamed it (docs/channels.md, "Renames"). The new name and its lines (current coordinates).
   */
  readonly renamedTo?: { readonly qualifiedName: string; readonly range: Range };
  /** The `added` side of a rename: the definition's old qualified name. */
  readonly renamedFrom?: string;
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

/**
 * The one rule for symbol ids, `path#name` (`src/a.ts#Parser.parse`), used wherever one is split:
 * - `name` is a qualified name, its segments identifiers; a `#` in it only starts a private
 *   member's segment, right after a `.` (`src/a.ts#Store.#cache`). `path` may hold `#`.
 * - So the id splits at its last `#` that does not follow a `.`.
 * - An id with no such `#`, or with an empty path or an empty name, is malformed: `parseSymbolId`
 *   gives undefined, and a reader takes it as no symbol (refused, or left out), never guessing a
 *   path from it.
 */
export function parseSymbolId(symbol: string): { readonly path: string; readonly name: string } | undefined {
  let at = symbol.lastIndexOf('#');
  while (at > 0 && symbol.charCodeAt(at - 1) === 46) at = symbol.lastIndexOf('#', at - 1); // `.#`: a private member
  return at > 0 && at < symbol.length - 1 ? { path: symbol.slice(0, at), name: symbol.slice(at + 1) } : undefined;
}

/** `src/a.ts#Parser.parse` → `Parser.parse` (see `parseSymbolId`); a malformed id is shown whole. */
export function displayName(symbol: string): string {
  return parseSymbolId(symbol)?.name ?? symbol;
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
  /**
   * The share of the newest `merges` known merges of the view whose re-merge conflicted anywhere
   * (the repository's recent conflict rate as of the view); undefined when none is known.
   */
  recentConflictShare?(merges: number): number | undefined;
}

export interface PastConflictsViewOptions {
  /** How many commits back from the view's commit (merges included). */
  readonly window: number;
  /** At most this many merges of the window, newest first (each costs a re-merge once). */
  readonly maxMerges: number;
}

/** The view the past-conflicts channel reads by default, and the one a scan's probability reads. */
export const DEFAULT_PAST_CONFLICTS_VIEW: PastConflictsViewOptions = { window: 3000, maxMerges: 300 };

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

/** Every service a channel may `require`, by name: what `ctx.services.<name>` is. */
export interface Services {
  readonly git: GitChannelService;
  readonly importGraph: ImportGraphService;
  readonly symbols: SymbolService;
  readonly coChange: CoChangeService;
  readonly pastConflicts: PastConflictsService;
}

export type ServiceName = keyof Services;

/**
 * The methods each service must have: what the scan checks before a channel that requires it
 * runs (optional methods are left out). A service without one of them is as good as missing.
 */
export const SERVICE_METHODS: { readonly [N in ServiceName]: readonly string[] } = {
  git: ['pairEdits', 'merge'],
  importGraph: ['forAgent'],
  symbols: ['writes', 'reads', 'callNeighbors'],
  coChange: ['viewFor'],
  pastConflicts: ['viewFor'],
};

/** What `ctx.services` holds for a channel that requires `Needs`: those, and any other the front end supplied. */
export type ServicesOf<Needs extends ServiceName = never> = Readonly<Pick<Services, Needs>> & Readonly<Partial<Omit<Services, Needs>>>;

/** Why `value` cannot serve as service `name` (undefined when it can). */
export function serviceDefect(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return 'which this front end did not supply';
  const methods = (SERVICE_METHODS as Readonly<Record<string, readonly string[]>>)[name];
  if (!methods) return undefined;
  const missing = methods.filter((m) => typeof (value as Record<string, unknown>)[m] !== 'function');
  if (typeof value !== 'object' || missing.length > 0)
    return `whose value does not offer ${missing.length ? missing.map((m) => `${m}()`).join(', ') : 'its methods'}`;
  return undefined;
}

/** What a front end supplies for a service it cannot give in this scan (e.g. no parser loaded). */
export interface UnavailableService {
  readonly unavailable: { readonly code: string; readonly why: string };
}

/**
 * A service that cannot be given, with a problem code and why: a channel that requires it is
 * reported not checked with that code and reason (never clear), instead of `MISSING_SERVICE`.
 */
export function unavailableService(code: string, why: string): UnavailableService {
  return Object.freeze({ unavailable: Object.freeze({ code, why }) });
}

/** The code and reason of a value made by `unavailableService`, if it is one. */
export function unavailableOf(value: unknown): UnavailableService['unavailable'] | undefined {
  if (typeof value !== 'object' || value === null || !('unavailable' in value)) return undefined;
  const u = (value as UnavailableService).unavailable;
  return typeof u?.code === 'string' && typeof u.why === 'string' ? u : undefined;
}
