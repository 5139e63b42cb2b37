/**
 * The semantic label of a scenario: git merges the two observed states cleanly, and the merged
 * program has type errors that neither side nor the base has. The verdict is the typecheck
 * channel's own (the scanner's built-in, called through its channel API with every pair checked,
 * so whatever languages the channel checks, the label checks), on the replay's git service.
 * Verdicts are cached by the pair's trees in a JSON-lines file beside the scenario cache, so a
 * replay pays for each check once, whatever the channel set or fraction that asks again.
 * A pair the channel could not check is `not-checked` with its reason: never a silent "clear".
 *
 * A pair whose two sides provably cannot interact is clear without the compiler (`apart`): the
 * scanner's import graph of the base and of each side (facts kept in memory, no cache written)
 * shows no file that both sides' changes reach.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent, AnyChannel, ChannelScore, ImportGraphService, Logger } from '@airspace/core';
import { runGit, type GitService, type RepositoryInfo } from '@airspace/git';
import { builtinChannels, createAnalysisState, type AnalysisState } from '@airspace/scanner';
import type { Scenario, SemanticCheck } from '../extract/scenario.js';
import { channelSetVersion } from './scorer.js';
import { ReplayGitService } from './services.js';

export interface SemanticLabeller {
  /** Identifies the checker (channel, options): a record checked by another is checked again. */
  readonly version: string;
  check(scenario: Scenario): Promise<SemanticCheck>;
  dispose(): void;
}

export interface SemanticLabellerOptions {
  /** Directory of the verdict cache; none: nothing cached across runs. */
  readonly cacheDir?: string;
  /** One check's time limit in ms (default 120 s): past it the scenario is not checked. */
  readonly timeLimitMs?: number;
  /** Options passed to the channel over its defaults (e.g. `tsconfig`). */
  readonly channelOptions?: Readonly<Record<string, unknown>>;
  /** The channel to ask (default: the scanner's built-in `typecheck`). */
  readonly channel?: AnyChannel;
}

export const DEFAULT_SEMANTIC_TIME_LIMIT_MS = 120_000;

const SILENT: Logger = { debug() {}, info() {}, warn() {} };

/** The part of the channel's "was not type-checked: …" message that says why. */
export function notCheckedReason(message: string): string {
  return message.replace(/^.*? was not type-checked: /s, '').replace(/\.$/, '');
}

/** A channel's score of a pair as a verdict: broken (risk > 0), clear (checked), or not checked and why. */
export function verdictOf(score: ChannelScore, checker: string): SemanticCheck {
  if (score.risk > 0) return { status: 'broken', checker, errors: score.evidence.filter((e) => (e.risk ?? 0) > 0).map((e) => e.message) };
  const problem = score.problems?.[0];
  if (problem) return { status: 'not-checked', checker, reason: notCheckedReason(problem.message) };
  const clean = score.evidence.find((e) => e.kind === 'typecheck-clean');
  if (clean) return { status: 'clear', checker };
  const said = score.evidence[0]?.message;
  return { status: 'not-checked', checker, reason: said ? notCheckedReason(said) : 'the checker gave no verdict' };
}

/** A TypeScript or JavaScript module the compiler reads (declaration files are not: they may declare globals). */
const isModuleSource = (path: string): boolean => /\.(?:[mc]?tsx?|[mc]?jsx?)$/.test(path) && !/\.d\.[mc]?ts$/.test(path);
/** What else a checker reads: declaration files, JSON (configs, package manifests, imported data), Python. */
const isOtherCheckerInput = (path: string): boolean => /\.(?:d\.[mc]?ts|json|pyi?)$/.test(path) || /(?:^|\/)pyproject\.toml$/.test(path);

/**
 * A module's text that can change what other files see without being imported: a script (no
 * top-level import or export: its declarations are global), `declare global`, `declare module`
 * (an augmentation or an ambient module), a triple-slash reference.
 */
function reachesGlobally(text: string): boolean {
  return !/^\s*(?:import|export)\b/m.test(text) || /^\s*(?:export\s+)?declare\s+(?:global|module)\b|^\s*\/\/\/\s*<reference\b/m.test(text);
}

/** Files a change can affect through imports: the changed paths and, transitively, their importers in every view. */
function importerClosure(
  start: Iterable<string>,
  graph: ImportGraphService,
  views: readonly string[],
  stop?: ReadonlySet<string>,
): Set<string> | 'meets' {
  const seen = new Set<string>();
  const frontier: string[] = [];
  const add = (p: string): boolean => {
    if (seen.has(p)) return false;
    if (stop?.has(p)) return true;
    seen.add(p);
    frontier.push(p);
    return false;
  };
  for (const p of start) if (add(p)) return 'meets';
  const all = [graph.base, ...views.map((id) => graph.forAgent(id))];
  while (frontier.length > 0) {
    const p = frontier.pop()!;
    for (const view of all) for (const i of view.importersOf(p)) if (add(i)) return 'meets';
  }
  return seen;
}

/**
 * Whether the merge of `a` and `b` provably has no type error neither side has, without compiling
 * it. A file's diagnostics depend on its own text, on the files it imports (transitively) and on
 * the program's globals. When no file is reached by both sides' changes (each side's changed
 * files and, transitively, their importers, in the base's, a's and b's import graphs: a superset
 * of the merge's, whose every file is the base's or one side's), every file of the merge reads,
 * through its imports, exactly what it reads in one side's tree (or the base's), so it has that
 * tree's diagnostics. Globals: a change to a declaration file, a JSON file (tsconfig,
 * package.json, imported data), a Python file, or a module that declares globals or ambient modules
 * (`reachesGlobally`, in either its old or new text) is never pruned. Neither is a side that adds
 * a file whose name the other side's changed text mentions: an import resolved only in the merge
 * would be missing from every graph. `text` gives a blob's text (undefined: not pruned).
 */
export async function apart(
  a: Agent,
  b: Agent,
  graph: ImportGraphService,
  text: (blob: string) => Promise<string | undefined>,
): Promise<boolean> {
  const changedOf = async (agent: Agent): Promise<{ paths: Set<string>; added: string[]; texts: string[] } | undefined> => {
    const paths = new Set<string>();
    const added: string[] = [];
    const texts: string[] = [];
    for (const f of agent.files) {
      if (f.declared) continue;
      for (const p of [f.path, f.oldPath]) if (p && isOtherCheckerInput(p)) return undefined;
      if (!isModuleSource(f.path) && !(f.oldPath && isModuleSource(f.oldPath))) continue;
      paths.add(f.path);
      if (f.oldPath) paths.add(f.oldPath);
      if (f.status === 'added' || f.status === 'renamed') added.push(f.path);
      for (const blob of [f.baseBlob, f.newBlob]) {
        if (!blob) continue;
        const t = await text(blob);
        if (t === undefined || reachesGlobally(t)) return undefined;
        if (blob === f.newBlob) texts.push(t);
      }
      if (f.status !== 'deleted' && !f.newBlob) return undefined;
    }
    return { paths, added, texts };
  };
  const ca = await changedOf(a);
  const cb = ca && (await changedOf(b));
  if (!ca || !cb) return false;
  if (ca.paths.size === 0 || cb.paths.size === 0) return true;
  const stem = (p: string) => p.replace(/^.*\//, '').replace(/\.[^.]*$/, '');
  const named = (added: readonly string[], texts: readonly string[]) =>
    added.some((p) => {
      const names = [stem(p), ...(stem(p) === 'index' ? [p.split('/').slice(-2, -1)[0] ?? ''] : [])].filter(Boolean);
      return texts.some((t) => names.some((n) => t.includes(n)));
    });
  if (named(ca.added, cb.texts) || named(cb.added, ca.texts)) return false;
  const views = [a.id, b.id];
  const ra = importerClosure(ca.paths, graph, views);
  return ra !== 'meets' && importerClosure(cb.paths, graph, views, ra) !== 'meets';
}

/** Verdicts by trees, as JSON lines: `{ key, check }`; a torn line is skipped. */
class VerdictCache {
  private readonly verdicts = new Map<string, SemanticCheck>();
  constructor(private readonly file: string | undefined) {
    if (!file || !existsSync(file)) return;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      try {
        const record = JSON.parse(line) as { key?: unknown; check?: SemanticCheck };
        if (typeof record.key === 'string' && record.check?.status) this.verdicts.set(record.key, record.check);
      } catch {
        // A line a killed run left half-written.
      }
    }
  }
  get(key: string): SemanticCheck | undefined {
    return this.verdicts.get(key);
  }
  put(key: string, check: SemanticCheck): void {
    this.verdicts.set(key, check);
    if (!this.file) return;
    mkdirSync(join(this.file, '..'), { recursive: true });
    appendFileSync(this.file, JSON.stringify({ key, check }) + '\n');
  }
}

/** The tree ids of commits (or trees), in order. */
async function treesOf(cwd: string, git: GitService, ids: readonly string[]): Promise<string[]> {
  const out = await runGit(['rev-parse', ...ids.map((id) => `${id}^{tree}`)], { cwd, env: git.scratch.env() });
  return out.split('\n').filter(Boolean);
}

export function createSemanticLabeller(repository: RepositoryInfo, options: SemanticLabellerOptions = {}): SemanticLabeller {
  const channel = options.channel ?? builtinChannels().find((c) => c.channel.id === 'typecheck')?.channel;
  const channelOptions = {
    ...(channel?.defaultOptions ?? {}),
    ...options.channelOptions,
    // Every pair that changes source files, not only those the heuristics link: the label must not lean on them.
    pairs: 'all',
    budgetMs: Number.MAX_SAFE_INTEGER,
    timeLimitMs: options.timeLimitMs ?? DEFAULT_SEMANTIC_TIME_LIMIT_MS,
  };
  // The salt names the checker's behaviour beyond its options: 2, diagnostics matched with their unions sorted;
  // 3, a union printed truncated matched as one. The limits are not part of it: they decide only whether a
  // verdict is reached, and one cut off is checked again anyway (`transient`), so a run with another limit
  // (a `--fit` from the cache) reads the verdicts already paid for.
  const { budgetMs: _budget, timeLimitMs: _limit, ...verdictOptions } = channelOptions;
  const version = channel ? channelSetVersion([channel], { [channel.id]: verdictOptions }, 'semantic-3') : 'none';
  const cache = new VerdictCache(options.cacheDir ? join(options.cacheDir, `semantic-${version}.jsonl`) : undefined);
  const git = new ReplayGitService(repository);
  const root = repository.root;
  // The import graphs `apart` reads: one base at a time, so scenarios take turns.
  let analysis: AnalysisState | undefined;
  let turn: Promise<unknown> = Promise.resolve();
  const cannotInteract = (scenario: Scenario, service: GitService): Promise<boolean> => {
    const [a, b] = scenario.agents;
    const text = (blob: string) =>
      service.readObject(blob).then(
        (buf) => buf.toString('utf8'),
        () => undefined,
      );
    const run = turn.then(async () => {
      analysis ??= createAnalysisState({ cacheDir: false });
      try {
        const services = await analysis.update(root, scenario.base, scenario.agents, service, undefined, { bodies: false });
        return await apart(a, b, services.importGraph, text);
      } catch {
        // No graph: the compiler decides.
        return false;
      }
    });
    turn = run;
    return run;
  };

  const run = async (scenario: Scenario, service: GitService): Promise<SemanticCheck> => {
    if (!channel) return { status: 'not-checked', checker: version, reason: 'the typecheck channel is not available' };
    const [a, b] = scenario.agents;
    const ctx = {
      options: channelOptions,
      now: scenario.now,
      logger: SILENT,
      services: { git: service },
      repository: { id: repository.id, root },
    };
    const prepared = await channel.prepare?.([a, b], ctx);
    const scoring = { ...ctx, prepared };
    const candidates = channel.candidates ? [...(await channel.candidates([a, b], scoring))] : [[a.id, b.id] as const];
    // Not a candidate: one side changes no source file, so the merge's sources are the other side's.
    if (!candidates.some(([x, y]) => (x === a.id && y === b.id) || (x === b.id && y === a.id)))
      return { status: 'clear', checker: version };
    return verdictOf(await channel.score(a, b, scoring), version);
  };

  return {
    version,
    async check(scenario) {
      // Held to the end of the check: checks run concurrently and outlast the service's recycling.
      const { git: service, release } = git.hold(scenario);
      const [a, b] = scenario.agents;
      try {
        const trees = await service.pairTrees(a, b);
        if (trees.merge.error)
          return { status: 'not-checked', checker: version, reason: `git could not merge them (${trees.merge.error})` };
        if (!trees.merge.clean) return { status: 'conflict', checker: version };
        if (!trees.base) return { status: 'not-checked', checker: version, reason: 'they share no merge base' };
        const [base, ta, tb] = await treesOf(root, service, [trees.base, trees.a, trees.b]);
        const key = [base, ...[ta, tb].sort()].join(':');
        const hit = cache.get(key);
        if (hit) return hit;
        // Pruned only where the channel would check (the merge has the tsconfig): elsewhere it says why not.
        const tsconfig = String(channelOptions.tsconfig ?? 'tsconfig.json');
        const checkable = await runGit(['cat-file', '-e', `${trees.merge.tree}:${tsconfig}`], {
          cwd: root,
          env: service.scratch.env(),
        }).then(
          () => true,
          () => false,
        );
        const verdict: SemanticCheck =
          checkable && (await cannotInteract(scenario, service))
            ? { status: 'clear', checker: version, pruned: true }
            : await run(scenario, service);
        // Not checked (a time limit, a missing checker) is not a property of the trees: asked again next run.
        if (verdict.status !== 'not-checked') cache.put(key, verdict);
        return verdict;
      } catch (error) {
        return {
          status: 'not-checked',
          checker: version,
          reason: `the check failed: ${error instanceof Error ? error.message : String(error)}`,
        };
      } finally {
        release();
      }
    },
    dispose: () => git.dispose(),
  };
}
