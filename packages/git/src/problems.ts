/**
 * Problem codes and factories of `@airspace/git` in one place. Problems are returned beside a
 * degraded result; `GitSourceError` is thrown only when there is nothing to degrade to (not a
 * repository, an unknown base, unreadable observations).
 */
import type { Problem } from '@airspace/core';

export const GitProblemCodes = {
  NOT_A_REPOSITORY: 'NOT_A_REPOSITORY',
  GIT_NOT_FOUND: 'GIT_NOT_FOUND',
  UNKNOWN_BASE: 'UNKNOWN_BASE',
  INVALID_OBSERVATIONS: 'INVALID_OBSERVATIONS',
  INVALID_SOURCE: 'INVALID_SOURCE',
  MISSING_MERGE_BASE: 'MISSING_MERGE_BASE',
  FILE_TOO_LARGE: 'FILE_TOO_LARGE',
  DIFF_FAILED: 'DIFF_FAILED',
  WORKTREE_UNREADABLE: 'WORKTREE_UNREADABLE',
  AGENT_FAILED: 'AGENT_FAILED',
  DUPLICATE_AGENT: 'DUPLICATE_AGENT',
  NO_STATE: 'NO_STATE',
  PUBLISHED_UNAVAILABLE: 'PUBLISHED_UNAVAILABLE',
  OPTION_LIKE_ARGUMENT: 'OPTION_LIKE_ARGUMENT',
  UNSAFE_PATH: 'UNSAFE_PATH',
} as const;

export class GitSourceError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'GitSourceError';
  }
}

export function notARepository(dir: string, why: string): GitSourceError {
  // git's own "not a git repository" adds nothing; anything else (e.g. "dubious ownership") is the reason.
  const detail = /not a git repository/i.test(why) ? '' : ` (${why.trim() || 'git rev-parse failed'})`;
  return new GitSourceError(GitProblemCodes.NOT_A_REPOSITORY, `${dir} is not inside a git repository${detail}.`);
}

/** A folder given as the repository that is missing or is not a folder. */
export function noSuchDirectory(dir: string, what: 'missing' | 'file'): GitSourceError {
  return new GitSourceError(
    GitProblemCodes.NOT_A_REPOSITORY,
    what === 'missing' ? `${dir} does not exist.` : `${dir} is a file, not a folder inside a git repository.`,
  );
}

export function gitNotFound(): GitSourceError {
  return new GitSourceError(
    GitProblemCodes.GIT_NOT_FOUND,
    'git was not found on PATH; Airspace needs git (2.38 or later) installed to read the repository.',
  );
}

export function unknownBase(ref: string): GitSourceError {
  return new GitSourceError(GitProblemCodes.UNKNOWN_BASE, `Unknown base "${ref}": no such branch, tag or commit in this repository.`);
}

export function noDefaultBase(tried: readonly string[]): GitSourceError {
  return new GitSourceError(
    GitProblemCodes.UNKNOWN_BASE,
    `No base given and no default branch found (tried ${tried.join(', ')}); pass a base ref (--base REF).`,
  );
}

export function noCommitsYet(): GitSourceError {
  return new GitSourceError(
    GitProblemCodes.UNKNOWN_BASE,
    'This repository has no commits yet, so there is no base to compare work against; make a first commit, then scan.',
  );
}

/** A ref, URL, pattern or path from outside that git would read as an option (`--upload-pack=…`). */
export function optionLikeArgument(what: string, value: string): GitSourceError {
  return new GitSourceError(
    GitProblemCodes.OPTION_LIKE_ARGUMENT,
    `Refused ${what} ${JSON.stringify(value)}: it starts with "-", so git would read it as an option; nothing was run.`,
  );
}

export function invalidObservations(why: string): GitSourceError {
  return new GitSourceError(GitProblemCodes.INVALID_OBSERVATIONS, `Invalid agent observations: ${why}.`);
}

export function invalidSource(
  spec: string,
  hint = 'expected worktrees, branches, remote:<pattern>, published:<remote> or json:<file>',
): GitSourceError {
  return new GitSourceError(GitProblemCodes.INVALID_SOURCE, `Unknown agent source "${spec}"; ${hint}.`);
}

export function missingMergeBase(agent: string, base: string): Problem {
  return {
    code: GitProblemCodes.MISSING_MERGE_BASE,
    agent,
    message: `No merge base between ${agent} and ${base} (a shallow clone or unrelated history): its files are compared whole, file-level only. Deepen the clone (git fetch --deepen) for line-level results.`,
  };
}

export function fileTooLarge(agent: string, path: string, bytes: number, limit: number): Problem {
  return {
    code: GitProblemCodes.FILE_TOO_LARGE,
    agent,
    path,
    message: `${path} in ${agent} is ${bytes} bytes, over the ${limit}-byte limit: treated as a whole-file change without line ranges.`,
  };
}

/** A path from outside (a published tree, paths or intent; observations) that leads out of the work tree. */
export function unsafePath(agent: string, path: string, why: string): Problem {
  return {
    code: GitProblemCodes.UNSAFE_PATH,
    agent,
    path,
    message: `${agent} names ${JSON.stringify(path)}, which ${why}: left out, and ${agent} counts as incomplete.`,
  };
}

export function agentFailed(agent: string, error: unknown): Problem {
  const text = error instanceof Error ? error.message : String(error);
  return { code: GitProblemCodes.AGENT_FAILED, agent, message: `Could not read ${agent}'s working set; it was left out: ${text}` };
}
