/**
 * Agent candidates: what each source lists (worktrees, branches, remote-tracking branches,
 * published agents, an orchestrator's observations) and the one candidate kept per id when
 * several sources name the same agent.
 */
import type { Problem } from '@airspace/core';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { GitProblemCodes } from './problems.js';
import type { RepositoryInfo } from './repository.js';
import type { GitService } from './service.js';
import {
  branchCandidates,
  parseObservations,
  remoteCandidates,
  resolveObservationCandidates,
  worktreeCandidates,
  type AgentCandidate,
  type AgentSource,
} from './sources.js';
import { publishedCandidates } from './team/fetch.js';

/** The candidates of one source; what cannot be read becomes a problem. */
export async function candidatesOf(
  source: AgentSource,
  repo: RepositoryInfo,
  problems: Problem[],
  git: GitService,
  options: { readonly fetchIntervalMs?: number },
  now: number,
): Promise<AgentCandidate[]> {
  const cwd = repo.root;
  const report = (skipped: { dir: string; why: string }[]) => {
    for (const s of skipped) problems.push({ code: GitProblemCodes.WORKTREE_UNREADABLE, message: `Skipped ${s.dir}: ${s.why}.` });
  };
  if (source === 'worktrees') {
    const { candidates, skipped } = await worktreeCandidates(cwd);
    report(skipped);
    return candidates;
  }
  if (source === 'branches') return branchCandidates(cwd);
  if (typeof source === 'string' && source.startsWith('published:')) {
    const found = await publishedCandidates(repo, source.slice('published:'.length), {
      now,
      ...(options.fetchIntervalMs !== undefined ? { minIntervalMs: options.fetchIntervalMs } : {}),
    });
    // Their states live in the team store: read through the scratch directory's alternates.
    if (found.objectsDir) git.scratch.addAlternate(found.objectsDir);
    problems.push(...found.problems);
    return found.candidates;
  }
  if (typeof source === 'string') return remoteCandidates(cwd, source.slice('remote:'.length));
  const parsed = parseObservations(source.observations, source.relativeTo ?? repo.root);
  const { candidates, skipped } = await resolveObservationCandidates(parsed);
  report(skipped);
  return candidates;
}

/** A directory's real path (links resolved), else its absolute path. */
export function canonical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/**
 * One candidate per id over all sources. When sources name the same agent (`--source branches
 * --source worktrees`: a branch checked out in a worktree), the richer state wins whatever the
 * order of the sources: a worktree (uncommitted and untracked work) over a commit, then what an
 * orchestrator declared about it (intent, start time, base) over nothing; between equals, the
 * first listed. Each dropped duplicate is a problem saying which was kept.
 */
const SOURCE_NOUN: Record<AgentCandidate['source'], string> = {
  worktree: 'worktree',
  branch: 'branch',
  remote: 'remote-tracking branch',
  observation: 'observation',
  published: 'published agent',
};

export function pickRicherCandidates(lists: readonly (readonly AgentCandidate[])[], problems: Problem[]): AgentCandidate[] {
  const richness = (c: AgentCandidate): number =>
    (c.worktree !== undefined ? 2 : 0) + (c.intent !== undefined || c.startedAt !== undefined || c.base !== undefined ? 1 : 0);
  const chosen = new Map<string, AgentCandidate>();
  const dropped = new Map<string, AgentCandidate[]>();
  for (const c of lists.flat()) {
    const kept = chosen.get(c.id);
    if (kept && richness(c) <= richness(kept)) dropped.set(c.id, [...(dropped.get(c.id) ?? []), c]);
    else {
      if (kept) dropped.set(c.id, [...(dropped.get(c.id) ?? []), kept]);
      chosen.set(c.id, c); // a Map keeps the position of the id's first appearance
    }
  }
  for (const [id, others] of dropped) {
    const kept = chosen.get(id)!;
    const what =
      kept.source === 'observation'
        ? `the observation${kept.worktree !== undefined ? ` of the worktree ${kept.worktree} (uncommitted work included)` : ''}`
        : kept.worktree !== undefined
          ? `the worktree ${kept.worktree} (uncommitted work included)`
          : `the ${SOURCE_NOUN[kept.source]} listed first`;
    const also = [...new Set(others.map((o) => SOURCE_NOUN[o.source]))].join(' and as a ');
    problems.push({
      code: GitProblemCodes.DUPLICATE_AGENT,
      agent: id,
      message: `Agent "${id}" appears as a ${SOURCE_NOUN[kept.source]} and as a ${also}; ${what} was kept.`,
    });
  }
  return [...chosen.values()];
}
