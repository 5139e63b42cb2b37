/**
 * The typecheck channel: semantic collisions. git merges two agents' work cleanly, and the merged
 * program no longer compiles — one changed a signature another's new code calls, renamed an
 * export another imports, added a required field another's object literal lacks. For each pair
 * whose work can interact (`pairs.ts`), the channel type-checks the scratch merge the merge
 * channel makes (`git merge-tree --write-tree` of the two current states, uncommitted work
 * included) with the TypeScript compiler and the project's own tsconfig, reading every file from
 * the git trees (`tree-fs.ts`, `check.ts`); Python files with pyright, on copies of the trees'
 * Python files in a private temporary directory (`python.ts`, `pyright.ts`). An error the merge
 * has and neither side nor the base has (`compare.ts`) is risk 1 with the compiler's message at
 * the breaking line and the other agent's change that breaks it.
 *
 * A checked pair with no new error is risk 0 with evidence that says "checked", and overrules the
 * symbols channel's signature/body reads for that pair (core's overrule rule: they no longer raise
 * a resolution alone). A pair that cannot be checked (the compiler missing, the scan's budget
 * spent, a check's time limit, a tsconfig that cannot be read) is a `TYPECHECK_NOT_CHECKED`
 * problem naming why, never a "clear"; where there is nothing to check (no tsconfig: not a
 * TypeScript project; a merge that conflicts: the merge channel's) its evidence says so at risk 0,
 * without a problem. Results are cached by the pair's trees.
 */
import {
  defineChannel,
  pairKey,
  type Agent,
  type AgentPair,
  type ChannelScore,
  type Evidence,
  type EvidenceSide,
  type GitChannelService,
  type OptionsSchema,
  type Range,
} from '@airspace/core';
import { checkWithCompiler, type CheckResult, type NewError, type PairListings } from './check.js';
import type { ThreadCheckInput } from './compiler-thread.js';
import { describeDiag } from './compare.js';
import { interactingPairs } from './pairs.js';
import { beingChecked, compilerThread, inBackground, startCheck } from './background.js';
import { holdRuns, isPyrightInput } from './pyright.js';
import { changedPython, checkPythonPair } from './python.js';
import { BlobTexts, fetchTexts, isCompilerInput } from './tree-fs.js';

export { newErrors, type Diag } from './compare.js';
export { checkInBackground, type BackgroundChecks } from './background.js';
export { interactingPairs } from './pairs.js';

export interface TypecheckOptions {
  /** The project's tsconfig, relative to the repository root (project references are followed). */
  readonly tsconfig: string;
  /** `interacting`: only pairs whose work can interact (`pairs.ts`); `all`: every pair that changes source files. */
  readonly pairs: 'interacting' | 'all';
  /** Import steps from one agent's changed file to the other's that make a pair interact. */
  readonly importDepth: number;
  /** Steps of importers of a changed file that are checked too. */
  readonly importerDepth: number;
  /** Files checked per pair at most (nearest to the changes first). */
  readonly maxFiles: number;
  /** Time the channel may spend per scan, in ms; pairs beyond it are not checked (and say so). */
  readonly budgetMs: number;
  /** Time one pair's check may take, in ms. */
  readonly timeLimitMs: number;
  /** Evidence items per pair at most. */
  readonly maxEvidence: number;
  /** The pyright CLI (`index.js`) that checks Python; '' for the installed npm package `pyright`. */
  readonly pyright: string;
}

export const DEFAULT_TYPECHECK_OPTIONS: TypecheckOptions = {
  tsconfig: 'tsconfig.json',
  pairs: 'interacting',
  importDepth: 4,
  importerDepth: 3,
  maxFiles: 400,
  budgetMs: 30_000,
  timeLimitMs: 15_000,
  maxEvidence: 5,
  pyright: '',
};

export const TYPECHECK_OPTIONS_SCHEMA: OptionsSchema<TypecheckOptions> = {
  tsconfig: { type: 'string' },
  pairs: { type: 'string', values: ['interacting', 'all'] },
  importDepth: { type: 'number', integer: true, min: 0 },
  importerDepth: { type: 'number', integer: true, min: 0 },
  maxFiles: { type: 'number', integer: true, min: 1 },
  budgetMs: { type: 'number', min: 0 },
  timeLimitMs: { type: 'number', above: 0 },
  maxEvidence: { type: 'number', integer: true, min: 1 },
  pyright: { type: 'string' },
};

/** The symbols channel's findings the compiler's word replaces: a definition changed that the other reads. */
export const OVERRULED_SYMBOL_KINDS: readonly string[] = ['write-read', 'write-read-touched'];

/** Shared by every scan of the process: blob texts by id, check results by the pair's trees. */
const texts = new BlobTexts();
const results = new Map<string, CheckResult>();
/** Background checks that met their time limit once (tried again once). */
const timedOut = new Set<string>();
const MAX_RESULTS = 10_000;

interface Prepared {
  readonly started: number;
  readonly pairs: readonly AgentPair[];
  /** Pairs whose check started in `prepare`, by `a\0b`. */
  readonly ahead: ReadonlyMap<string, Promise<ChannelScore>>;
}

function remember(key: string, result: CheckResult): void {
  if (results.size >= MAX_RESULTS) (results.clear(), timedOut.clear());
  results.set(key, result);
}

/**
 * A pair whose check runs in the engine's background: said as a problem and in evidence, risk 0,
 * and `pending`, so that the next scan reads the result; the other channels' findings stand.
 */
function stillBeingChecked(a: Agent, b: Agent): ChannelScore {
  const message = `The merge of ${a.label} and ${b.label} is still being checked: the compiler runs in the engine's background, and until it answers the other channels' findings stand.`;
  return {
    risk: 0,
    evidence: [{ kind: 'typecheck-pending', risk: 0, message }],
    problems: [{ code: 'TYPECHECK_PENDING', channel: 'typecheck', message }],
    pending: true,
  };
}

function notChecked(a: Agent, b: Agent, reason: string): ChannelScore {
  return {
    risk: 0,
    evidence: [],
    problems: [
      {
        code: 'TYPECHECK_NOT_CHECKED',
        channel: 'typecheck',
        message: `The merge of ${a.label} and ${b.label} was not type-checked: ${reason}.`,
      },
    ],
  };
}

/** Not checked, for a reason that needs no one's attention: said in evidence (risk 0), not as a problem. */
function skipped(a: Agent, b: Agent, reason: string): ChannelScore {
  return {
    risk: 0,
    evidence: [{ kind: 'typecheck-skipped', risk: 0, message: `The merge of ${a.label} and ${b.label} was not type-checked: ${reason}.` }],
  };
}

function span(path: string, r: readonly [number, number] | undefined): string {
  if (!r) return path;
  return r[0] === r[1] ? `${path}:${r[0]}` : `${path}:${r[0]}–${r[1]}`;
}

/** The lines an agent changed in a file (first to last), when it has line information. */
function changedSpan(agent: Agent, path: string): { lines?: readonly [number, number] } {
  const edit = agent.files.find((f) => f.path === path);
  if (!edit || edit.newRanges === 'whole' || edit.newRanges.length === 0) return {};
  const first = edit.newRanges[0]!;
  const last = edit.newRanges[edit.newRanges.length - 1]!;
  return last[1] >= first[0] ? { lines: [first[0], last[1]] } : {};
}

/** One new error as evidence: the compiler's message at the breaking line, and the change that breaks it. */
function evidenceOf(a: Agent, b: Agent, e: NewError): Evidence {
  const agentOf = (s: 'a' | 'b') => (s === 'a' ? a : b);
  const line = e.readerLine ?? e.diag.line;
  const breaker = e.reader ? agentOf(e.reader === 'a' ? 'b' : 'a') : undefined;
  const readerSide: EvidenceSide | undefined = e.reader
    ? { agent: agentOf(e.reader).id, path: e.diag.path, range: [line, line] as Range, access: 'read' }
    : undefined;
  // A file without a declaration to name (a module that lost an export): the lines its author changed.
  const site = e.site && !e.site.lines ? { ...e.site, ...changedSpan(agentOf(e.site.side), e.site.path) } : e.site;
  const siteSide: EvidenceSide | undefined = site
    ? {
        agent: agentOf(site.side).id,
        path: site.path,
        ...(site.lines ? { range: [site.lines[0], site.lines[1]] as Range } : {}),
        ...(site.name ? { symbol: site.name } : {}),
      }
    : undefined;
  const sideOf = (who: 'a' | 'b'): EvidenceSide | undefined => (e.reader === who ? readerSide : site?.side === who ? siteSide : undefined);
  const why = site
    ? ` — ${agentOf(site.side).label} changed ${site.name ? `${site.name} at ` : ''}${span(site.path, site.lines)}`
    : breaker
      ? ` — ${breaker.label}'s changes break it`
      : ' — neither side has this error alone';
  const sa = sideOf('a');
  const sb = sideOf('b');
  return {
    kind: 'type-error',
    risk: 1,
    confidence: 'high',
    message: `merging ${a.label} and ${b.label}: ${e.diag.path}:${line} ${describeDiag(e.diag)}${why}`,
    ...(sa ? { a: sa } : {}),
    ...(sb ? { b: sb } : {}),
  };
}

/** A cached result for the other order of the pair: sides swapped. */
function swapped(r: CheckResult): CheckResult {
  if (r.status !== 'checked') return r;
  const flip = (s: 'a' | 'b'): 'a' | 'b' => (s === 'a' ? 'b' : 'a');
  return {
    ...r,
    errors: r.errors.map((e) => ({
      ...e,
      ...(e.reader ? { reader: flip(e.reader) } : {}),
      ...(e.site ? { site: { ...e.site, side: flip(e.site.side) } } : {}),
    })),
  };
}

type TreeReader = {
  listTree(tree: string): Promise<ReadonlyMap<string, string>>;
  readBlob(id: string): Promise<string>;
};

type TreeIds = { readonly base: string; readonly a: string; readonly b: string; readonly merge: string };

/** A pair's trees listed, and which checkers they need. */
interface ListedPair {
  readonly trees: PairListings;
  readonly typescript: boolean;
  readonly python: boolean;
}

/**
 * Lists a pair's trees: TypeScript is checked where the trees have the tsconfig, Python (pyright)
 * where the merge changes Python files; neither gives a quiet result at once.
 */
async function listPair(git: TreeReader, o: TypecheckOptions, ids: TreeIds): Promise<ListedPair | CheckResult> {
  const [base, ta, tb, merge] = await Promise.all([ids.base, ids.a, ids.b, ids.merge].map((t) => git.listTree(t)));
  const trees: PairListings = { base: base!, a: ta!, b: tb!, merge: merge! };
  const typescript = trees.merge.has(o.tsconfig) || trees.a.has(o.tsconfig) || trees.b.has(o.tsconfig);
  const python = changedPython(trees).length > 0;
  // Neither a TypeScript project nor Python changed: nothing to read, no checker to load.
  if (!typescript && !python)
    return { status: 'not-checked', reason: `no ${o.tsconfig} in the merged tree and no Python file changed`, quiet: true };
  return { trees, typescript, python };
}

/** A pair's checks, read and ready: the Python part done, the TypeScript part's input. */
interface PreparedCheck {
  readonly python?: CheckResult;
  readonly typescript?: ThreadCheckInput;
}

/**
 * Reads what a listed pair's checks need and runs the Python part (pyright, a process of its
 * own); gives the TypeScript part's input (the compiler is synchronous: `finish` runs it here or
 * in the compiler's thread). Bounded by the time limit and what is left of the budget from `started`.
 */
async function prepareChecks(
  git: TreeReader,
  root: string,
  o: TypecheckOptions,
  ids: TreeIds,
  listed: ListedPair,
  started: number,
  release?: () => void,
): Promise<PreparedCheck> {
  const { trees, typescript, python } = listed;
  const wanted: string[] = [];
  for (const l of [trees.merge, trees.a, trees.b, trees.base])
    for (const [p, id] of l) if ((typescript && isCompilerInput(p, false)) || (python && isPyrightInput(p))) wanted.push(id);
  await fetchTexts(wanted, texts, (id) => git.readBlob(id));
  const deadline = Date.now() + Math.min(o.timeLimitMs, Math.max(1, o.budgetMs - (Date.now() - started)));
  let pythonResult: CheckResult | undefined;
  if (python)
    pythonResult = await checkPythonPair({
      root,
      trees,
      ids,
      texts,
      pyright: o.pyright,
      importerDepth: o.importerDepth,
      maxFiles: o.maxFiles,
      deadline,
      ...(release ? { release } : {}),
    });
  else release?.();
  return {
    ...(pythonResult ? { python: pythonResult } : {}),
    ...(typescript
      ? { typescript: { root, trees, tsconfig: o.tsconfig, importerDepth: o.importerDepth, maxFiles: o.maxFiles, deadline } }
      : {}),
  };
}

/** A prepared check's TypeScript part run by `compile` (in this thread, or the compiler's), and the languages' results combined. */
async function finish(prepared: PreparedCheck, compile: (input: ThreadCheckInput) => Promise<CheckResult>): Promise<CheckResult> {
  const parts: CheckResult[] = [];
  if (prepared.typescript) parts.push(await compile(prepared.typescript));
  if (prepared.python) parts.push(prepared.python);
  return combine(parts);
}

/** One result of a pair's languages: their errors; never clear while a part could not be checked. */
function combine(parts: readonly CheckResult[]): CheckResult {
  if (parts.length === 1) return parts[0]!;
  const checked = parts.flatMap((p) => (p.status === 'checked' ? [p] : []));
  const failed = parts.find((p) => p.status === 'not-checked' && !p.quiet);
  const errors = checked.flatMap((p) => p.errors);
  if (checked.length === 0 || (failed && errors.length === 0)) return failed ?? parts[0]!;
  return {
    status: 'checked',
    config: checked.map((p) => p.config).join(' and '),
    files: checked.reduce((n, p) => n + p.files, 0),
    truncated: checked.reduce((n, p) => n + p.truncated, 0),
    errors,
  };
}

/** What scoring one pair reads of the scan's context. */
interface ScoreContext {
  readonly options: TypecheckOptions;
  readonly git: GitChannelService;
  readonly root: string | undefined;
  readonly started: number;
  /** This check's hold on pyright's next run (started with others in `prepare`). */
  readonly release?: () => void;
}

/** Pairs checked at once, from `prepare`: their pyright runs are shared (see `pyright.ts`). */
const AHEAD = 32;

interface FirstCheck {
  readonly git: TreeReader;
  readonly root: string;
  readonly options: TypecheckOptions;
  /** The cache key of the pair's trees. */
  readonly key: string;
  readonly ctx: ScoreContext;
  /** The pair's trees (every one present: checked by the caller). */
  readonly trees: { readonly base: string; readonly a: string; readonly b: string; readonly merge: { readonly tree?: string } };
}

/**
 * A pair's first check (no cached result): its result, in the order `a`, `b`; or a score at once
 * when the check was started in the engine's background.
 */
async function firstCheck(
  a: Agent,
  b: Agent,
  input: Omit<FirstCheck, 'trees'>,
  trees: FirstCheck['trees'],
): Promise<CheckResult | ChannelScore> {
  const { git, root, options: o, key, ctx } = input;
  const ids = { base: trees.base, a: trees.a, b: trees.b, merge: trees.merge.tree! };
  const ordered = trees.a <= trees.b;
  const listed = await listPair(git, o, ids);
  if ('status' in listed) {
    ctx.release?.();
    remember(key, ordered ? listed : swapped(listed));
    return listed;
  }
  if (inBackground()) {
    ctx.release?.();
    // The resident engine: the check runs after this answer, bounded by its own time limit (not
    // the scan's budget); its result is read by a later scan.
    startCheck(
      key,
      async () =>
        finish(await prepareChecks(git, root, { ...o, budgetMs: o.timeLimitMs }, ids, listed, Date.now()), (input) =>
          compilerThread().check(input, texts, o.timeLimitMs),
        ),
      (r) => {
        // A time limit is kept once it was met twice: the first try of a cold check parses the
        // project (kept for the next), so the engine's rescan, told of the end, tries once more.
        if (r.status === 'checked' || r.quiet || timedOut.has(key)) remember(key, ordered ? r : swapped(r));
        else timedOut.add(key);
      },
    );
    return stillBeingChecked(a, b);
  }
  const prepared = await prepareChecks(git, root, o, ids, listed, ctx.started, ctx.release);
  const result = await finish(prepared, (input) => checkWithCompiler({ ...input, texts }));
  // A time limit is not a property of the trees: the next scan tries again.
  if (result.status === 'checked' || result.quiet) remember(key, ordered ? result : swapped(result));
  return result;
}

/** The channel's score of one pair (cached by its trees). */
async function scoreOnce(a: Agent, b: Agent, ctx: ScoreContext): Promise<ChannelScore> {
  const o = ctx.options;
  const git = ctx.git;
  if (!git.pairTrees || !git.listTree || !git.readBlob) return notChecked(a, b, 'the git service cannot read trees');
  const root = ctx.root;
  if (!root) return notChecked(a, b, 'no repository root');
  const spent = Date.now() - ctx.started;
  if (spent >= o.budgetMs) return notChecked(a, b, `the scan's type-check budget (${o.budgetMs} ms) is spent`);

  let trees;
  try {
    trees = await git.pairTrees(a, b);
  } catch (e) {
    return notChecked(a, b, `git could not merge them: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (trees.merge.error) return notChecked(a, b, `git could not merge them (${trees.merge.error})`);
  // A textual conflict is the merge channel's, at risk 1: no problem to raise, but said.
  if (!trees.merge.clean) return skipped(a, b, 'git reports a textual conflict (the merge channel scores it)');
  if (!trees.base || !trees.merge.tree || !trees.a || !trees.b) return notChecked(a, b, 'they share no merge base');

  const key = [root, o.tsconfig, o.pyright, o.importerDepth, o.maxFiles, trees.base, pairKey(trees.a, trees.b), trees.merge.tree].join(
    '\0',
  );
  let result = results.get(key);
  if (!result && beingChecked(key)) return stillBeingChecked(a, b);
  if (!result) {
    const first = await firstCheck(a, b, { git: git as TreeReader, root, options: o, key, ctx }, trees as FirstCheck['trees']);
    if (!('status' in first)) return first;
    result = first;
  } else if (trees.a > trees.b) result = swapped(result);

  if (result.status === 'not-checked') return result.quiet ? skipped(a, b, result.reason) : notChecked(a, b, result.reason);
  if (result.errors.length === 0) {
    const scope = result.files === 0 ? 'no source file changed' : `${result.files} file${result.files === 1 ? '' : 's'} checked`;
    const partly = result.truncated > 0 ? `; ${result.truncated} more importers not checked (maxFiles)` : '';
    return {
      risk: 0,
      evidence: [
        {
          kind: 'typecheck-clean',
          risk: 0,
          confidence: 'high',
          message: `checked: the merge of ${a.label} and ${b.label} type-checks with no new error (${scope} with ${result.config}${partly}).`,
        },
      ],
      overrules: [
        {
          channel: 'symbols',
          kinds: OVERRULED_SYMBOL_KINDS,
          reason: `the compiler checked the merge of ${a.label} and ${b.label} and found no new error`,
        },
      ],
    };
  }
  return { risk: 1, evidence: result.errors.slice(0, o.maxEvidence).map((e) => evidenceOf(a, b, e)) };
}

export function typecheckChannel() {
  return defineChannel({
    id: 'typecheck',
    defaultWeight: 1,
    meta: {
      description:
        "Semantic collisions: type-checks the scratch merge of the two agents' current states with the TypeScript compiler (pyright for Python); an error neither side nor the base has is a collision.",
      precision: 'line',
      scoresGitState: true,
    },
    defaultOptions: DEFAULT_TYPECHECK_OPTIONS,
    optionsSchema: TYPECHECK_OPTIONS_SCHEMA,
    requires: ['git'],
    async prepare(agents, ctx): Promise<Prepared> {
      const o = ctx.options;
      const git = ctx.services.git;
      const ahead = new Map<string, Promise<ChannelScore>>();
      // A front end whose git service cannot read trees (a replay of supplied observations) checks nothing.
      if (!git.pairTrees || !git.listTree || !git.readBlob) return { started: Date.now(), pairs: [], ahead };
      const pairs = interactingPairs(agents, {
        ...(o.pairs === 'interacting' && ctx.services.importGraph ? { importGraph: ctx.services.importGraph } : {}),
        ...(o.pairs === 'interacting' && ctx.services.symbols ? { symbols: ctx.services.symbols } : {}),
        importDepth: o.importDepth,
      });
      const started = Date.now();
      // Several pairs: their checks start together (not awaited here), so that the pyright runs of
      // the same moment are shared; `score` reads them.
      if (pairs.length > 1) {
        const byId = new Map(agents.map((x) => [x.id, x]));
        const first = pairs.slice(0, AHEAD).map(([x, y]) => [byId.get(x)!, byId.get(y)!] as const);
        await git.mergeMany?.(first).catch(() => undefined);
        for (const [x, y] of first) {
          const release = holdRuns();
          const p = scoreOnce(x, y, { options: o, git, root: ctx.repository?.root, started, release }).finally(release);
          p.catch(() => undefined); // read (and reported) by `score`
          ahead.set(`${x.id}\0${y.id}`, p);
        }
      }
      return { started, pairs, ahead };
    },
    candidates(_agents, ctx, only) {
      return only ? ctx.prepared.pairs.filter(([x, y]) => only.has(x) || only.has(y)) : ctx.prepared.pairs;
    },
    async score(a, b, ctx) {
      const sc: ScoreContext = { options: ctx.options, git: ctx.services.git, root: ctx.repository?.root, started: ctx.prepared.started };
      const ahead = ctx.prepared.ahead;
      const mine = ahead.get(`${a.id}\0${b.id}`);
      if (mine) return mine;
      // Checked ahead in the other order: wait for it (its result is cached), then read it this way round.
      await ahead.get(`${b.id}\0${a.id}`)?.catch(() => undefined);
      return scoreOnce(a, b, sc);
    },
  });
}

/** @public What a config naming this package as a plugin loads (`docs/plugins.md`). */
export default typecheckChannel;
