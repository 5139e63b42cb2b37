/**
 * `loadAgents`: a repository's worktrees (or branches, remote-tracking branches, an
 * orchestrator's observations) → Agents with working sets in merge-base coordinates.
 *
 * Per agent: one merge-base, one snapshot of the work tree into scratch objects (copy of its
 * index + `git add -A`), one `git diff-tree` from the merge base to that state, one `git log`
 * for committed work and commit times. Agents are read a few at a time. The candidates come from
 * `candidates.ts` (one per id over all sources); each is read by `read-agent.ts`.
 */
import type { Agent, Problem, RecencyOptions } from '@airspace/core';
import { DEFAULT_RECENCY } from '@airspace/core';
import { candidatesOf, canonical, pickRicherCandidates } from './candidates.js';
import { mapLimit } from './map-limit.js';
import { agentFailed, GitProblemCodes } from './problems.js';
import { readAgent, type ReadContext } from './read-agent.js';
import { openRepository, resolveBase, resolveCommit, type BaseInfo, type RepositoryInfo } from './repository.js';
import { GitService } from './service.js';
import type { AgentCandidate, AgentSource } from './sources.js';
import { reconcilePublished } from './team/fetch.js';
import { DEFAULT_MAX_FILE_BYTES } from './working-set.js';

export { pickRicherCandidates } from './candidates.js';
export { worktreeOverrides } from './read-agent.js';

export interface LoadAgentsOptions {
  /** Any directory inside the repository. */
  readonly repo: string;
  /** Base ref (default: origin/HEAD, then main, then master). */
  readonly base?: string;
  /** Per-agent base refs, keyed by agent id or worktree directory. */
  readonly baseOverrides?: Readonly<Record<string, string>>;
  /** Where agents come from (default `'worktrees'`); several sources are read in order, first id wins. */
  readonly sources?: AgentSource | readonly AgentSource[];
  readonly recency?: RecencyOptions;
  /** Clock for recency weights (ms since the epoch). */
  readonly now?: number;
  /**
   * Unsaved editor buffers: worktree directory → (repository-relative path → text). An
   * overridden file is diffed as the buffer, not as the file on disk.
   */
  readonly overrides?: Readonly<Record<string, Readonly<Record<string, string | Buffer>>>>;
  /** Files above this size are whole-file changes without line ranges (default 2 MiB). */
  readonly maxFileBytes?: number;
  /** Reuse a service (and its scratch objects and caches) from an earlier load, e.g. in a watcher. */
  readonly git?: GitService;
  /**
   * Read only these agents (ids or worktree directories), e.g. an editor re-reading its own
   * worktree after a keystroke while keeping the others from an earlier load.
   */
  readonly only?: readonly string[];
  /**
   * Agents (ids or worktree directories) that declared intent elsewhere (an editor, the scanner's
   * options): kept even before they change anything, like an observation with `intent`, so their
   * intent can be scored. Other candidates without changes are not agents.
   */
  readonly declaring?: readonly string[];
  /** Agents read at once (default 3). */
  readonly concurrency?: number;
  /** Called as each candidate has been read (a long list of agents shows progress). */
  readonly onProgress?: (done: number, total: number) => void;
  /** `published:<remote>` sources: a fetch of the same remote less than this long ago is reused (default 0: fetch each load). */
  readonly fetchIntervalMs?: number;
}

export interface LoadAgentsResult {
  readonly agents: Agent[];
  readonly base: BaseInfo;
  readonly repository: RepositoryInfo;
  readonly problems: Problem[];
  /** The service for channels (`services.git`); dispose it when done (removes scratch objects). */
  readonly git: GitService;
}

export async function loadAgents(options: LoadAgentsOptions): Promise<LoadAgentsResult> {
  const repository = options.git?.repository ?? (await openRepository(options.repo));
  const base = await resolveBase(repository.root, options.base);
  const now = options.now ?? Date.now();
  const recency = options.recency ?? DEFAULT_RECENCY;
  const maxFileBytes = options.maxFileBytes ?? options.git?.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const git = options.git ?? new GitService(repository, { maxFileBytes, recency });
  const problems: Problem[] = [];

  const sources =
    options.sources === undefined
      ? ['worktrees' as const]
      : Array.isArray(options.sources)
        ? options.sources
        : [options.sources as AgentSource];
  const only = options.only ? new Set(options.only.flatMap((x) => [x, canonical(x)])) : undefined;
  const listed: AgentCandidate[][] = [];
  for (const source of sources) listed.push(await candidatesOf(source, repository, problems, git, options, now));
  const candidates = pickRicherCandidates(reconcilePublished(listed, problems), problems).filter(
    (c) => !only || only.has(c.id) || (c.worktree !== undefined && (only.has(c.worktree) || only.has(canonical(c.worktree)))),
  );

  const declaring = new Set((options.declaring ?? []).flatMap((x) => [x, canonical(x)]));
  const isDeclaring = (c: AgentCandidate): boolean =>
    declaring.has(c.id) || (c.worktree !== undefined && (declaring.has(c.worktree) || declaring.has(canonical(c.worktree))));

  const baseCache = new Map<string, Promise<string | undefined>>();
  const baseCommit = (ref: string) => {
    let hit = baseCache.get(ref);
    if (!hit) baseCache.set(ref, (hit = resolveCommit(repository.root, ref)));
    return hit;
  };

  const context: ReadContext = {
    repository,
    git,
    base,
    baseCommit,
    baseOverrides: options.baseOverrides,
    overrides: options.overrides,
    now,
    recency,
    maxFileBytes,
    isDeclaring,
  };
  let read = 0;
  const loaded = await mapLimit(candidates, options.concurrency ?? 3, async (c) => {
    const own: Problem[] = [];
    try {
      const agent = await readAgent(c, own, context);
      return { agent, problems: own };
    } catch (e) {
      return { agent: undefined, problems: [...own, agentFailed(c.id, e)] };
    } finally {
      options.onProgress?.(++read, candidates.length);
    }
  });

  const agents: Agent[] = [];
  for (const r of loaded) {
    problems.push(...r.problems);
    if (r.agent) agents.push(r.agent);
  }
  // A duplicate that turned out to have no work (the main worktree and its branch) is no news.
  const ids = new Set(agents.map((a) => a.id));
  const news = problems.filter((p) => p.code !== GitProblemCodes.DUPLICATE_AGENT || (p.agent !== undefined && ids.has(p.agent)));
  return { agents, base, repository, problems: news, git };
}
