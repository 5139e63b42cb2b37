/**
 * The semantic label of a scenario: git merges the two observed states cleanly, and the merged
 * program has type errors that neither side nor the base has. The verdict is the typecheck
 * channel's own (the scanner's built-in, called through its channel API with every pair checked,
 * so whatever languages the channel checks, the label checks), on the replay's git service.
 * Verdicts are cached by the pair's trees in a JSON-lines file beside the scenario cache, so a
 * replay pays for each check once, whatever the channel set or fraction that asks again.
 * A pair the channel could not check is `not-checked` with its reason: never a silent "clear".
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyChannel, ChannelScore, Logger } from '@airspace/core';
import { runGit, type GitService, type RepositoryInfo } from '@airspace/git';
import { builtinChannels } from '@airspace/scanner';
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
  // The salt names the checker's behaviour beyond its options: 2, diagnostics matched with their unions sorted.
  const version = channel ? channelSetVersion([channel], { [channel.id]: channelOptions }, 'semantic-2') : 'none';
  const cache = new VerdictCache(options.cacheDir ? join(options.cacheDir, `semantic-${version}.jsonl`) : undefined);
  const git = new ReplayGitService(repository);
  const root = repository.root;

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
      const service = git.servicesFor(scenario).git;
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
        const verdict = await run(scenario, service);
        // Not checked (a time limit, a missing checker) is not a property of the trees: asked again next run.
        if (verdict.status !== 'not-checked') cache.put(key, verdict);
        return verdict;
      } catch (error) {
        return {
          status: 'not-checked',
          checker: version,
          reason: `the check failed: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
    },
    dispose: () => git.dispose(),
  };
}
