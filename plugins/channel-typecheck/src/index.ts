/**
 * The typecheck channel: semantic collisions. git merges two agents' work cleanly, and the merged
 * program no longer compiles — one changed a signature another's new code calls, renamed an
 * export another imports, added a required field another's object literal lacks. For each pair
 * whose work can interact (`pairs.ts`), the channel type-checks the scratch merge the merge
 * channel makes (`git merge-tree --write-tree` of the two current states, uncommitted work
 * included) with the TypeScript compiler and the project's own tsconfig, reading every file from
 * the git trees (`tree-fs.ts`, `check.ts`). An error the merge has and neither side nor the base
 * has (`compare.ts`) is risk 1 with the compiler's message at the breaking line and the other
 * agent's change that breaks it.
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
import { checkPair, loadTypeScript, type CheckResult, type NewError, type PairListings } from './check.js';
import { describeDiag } from './compare.js';
import { interactingPairs } from './pairs.js';
import { beingChecked, inBackground, startCheck } from './background.js';
import { BlobTexts, fetchTexts, isCompilerInput } from './tree-fs.js';

export { newErrors, type Diag } from './compare.js';
export { interactingPairs } from './pairs.js';
export { checkInBackground, type BackgroundChecks } from './background.js';

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

interface FirstCheck {
  readonly git: GitChannelService;
  readonly root: string;
  readonly options: TypecheckOptions;
  /** The pair's trees (every one present: checked by the caller). */
  readonly trees: { readonly base: string; readonly a: string; readonly b: string; readonly merge: { readonly tree?: string } };
  /** The cache key of the pair's trees. */
  readonly key: string;
  /** What is left of the scan's budget (ms). */
  readonly budgetLeft: number;
}

/**
 * A pair's first check (no cached result): its result, in the order `a`, `b`; or a score at once
 * when there is nothing to check, or when the check was started in the engine's background.
 */
async function firstCheck(a: Agent, b: Agent, input: FirstCheck): Promise<CheckResult | ChannelScore> {
  const { git, root, options: o, trees, key } = input;
  const [base, ta, tb, merge] = await Promise.all([trees.base, trees.a, trees.b, trees.merge.tree!].map((t) => git.listTree!(t)));
  const listings: PairListings = { base: base!, a: ta!, b: tb!, merge: merge! };
  // Not a TypeScript project: nothing to read, no compiler to load.
  if (!listings.merge.has(o.tsconfig) && !listings.a.has(o.tsconfig) && !listings.b.has(o.tsconfig))
    return skipped(a, b, `no ${o.tsconfig} in the merged tree`);
  const ts = await loadTypeScript();
  if (!ts) return notChecked(a, b, 'the TypeScript compiler (npm package typescript) is not installed');
  const wanted: string[] = [];
  for (const l of [listings.merge, listings.a, listings.b, listings.base])
    for (const [p, id] of l) if (isCompilerInput(p, false)) wanted.push(id);
  const check = (limit: number) => (): CheckResult =>
    checkPair({
      ts,
      root,
      trees: listings,
      texts,
      tsconfig: o.tsconfig,
      importerDepth: o.importerDepth,
      maxFiles: o.maxFiles,
      deadline: Date.now() + limit,
    });
  const ordered = trees.a <= trees.b;
  if (inBackground()) {
    // The resident engine: the check runs after this answer, bounded by its own time limit; its
    // result is read by a later scan.
    startCheck(
      key,
      async () => (await fetchTexts(wanted, texts, (id) => git.readBlob!(id)), check(o.timeLimitMs)),
      (r) => {
        // A time limit is kept once it was met twice: the first try of a cold check parses the
        // project (kept for the next), so the engine's rescan, told of the end, tries once more.
        if (r.status === 'checked' || r.quiet || timedOut.has(key)) remember(key, ordered ? r : swapped(r));
        else timedOut.add(key);
      },
    );
    return stillBeingChecked(a, b);
  }
  await fetchTexts(wanted, texts, (id) => git.readBlob!(id));
  const result = check(Math.min(o.timeLimitMs, Math.max(1, input.budgetLeft)))();
  // A time limit is not a property of the trees: the next scan tries again.
  if (result.status === 'checked' || result.quiet) remember(key, ordered ? result : swapped(result));
  return result;
}

export function typecheckChannel() {
  return defineChannel({
    id: 'typecheck',
    defaultWeight: 1,
    meta: {
      description:
        "Semantic collisions: type-checks the scratch merge of the two agents' current states with the TypeScript compiler; an error neither side nor the base has is a collision.",
      precision: 'line',
      scoresGitState: true,
    },
    defaultOptions: DEFAULT_TYPECHECK_OPTIONS,
    optionsSchema: TYPECHECK_OPTIONS_SCHEMA,
    requires: ['git'],
    prepare(agents, ctx): Prepared {
      const o = ctx.options;
      const git = ctx.services.git;
      // A front end whose git service cannot read trees (a replay of supplied observations) checks nothing.
      if (!git.pairTrees || !git.listTree || !git.readBlob) return { started: Date.now(), pairs: [] };
      const pairs = interactingPairs(agents, {
        ...(o.pairs === 'interacting' && ctx.services.importGraph ? { importGraph: ctx.services.importGraph } : {}),
        ...(o.pairs === 'interacting' && ctx.services.symbols ? { symbols: ctx.services.symbols } : {}),
        importDepth: o.importDepth,
      });
      return { started: Date.now(), pairs };
    },
    candidates(_agents, ctx, only) {
      return only ? ctx.prepared.pairs.filter(([x, y]) => only.has(x) || only.has(y)) : ctx.prepared.pairs;
    },
    async score(a, b, ctx) {
      const o = ctx.options;
      const git = ctx.services.git;
      if (!git.pairTrees || !git.listTree || !git.readBlob) return notChecked(a, b, 'the git service cannot read trees');
      const root = ctx.repository?.root;
      if (!root) return notChecked(a, b, 'no repository root');
      const spent = Date.now() - ctx.prepared.started;
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

      const key = [root, o.tsconfig, o.importerDepth, o.maxFiles, trees.base, pairKey(trees.a, trees.b), trees.merge.tree].join('\0');
      let result = results.get(key);
      if (!result && beingChecked(key)) return stillBeingChecked(a, b);
      if (!result) {
        const first = await firstCheck(a, b, {
          git,
          root,
          options: o,
          trees: { base: trees.base, a: trees.a, b: trees.b, merge: trees.merge },
          key,
          budgetLeft: o.budgetMs - (Date.now() - ctx.prepared.started),
        });
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
    },
  });
}

export default typecheckChannel;
