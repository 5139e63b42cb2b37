/**
 * Team mode: an agent's full state (uncommitted work included) published to the team's git
 * remote as a commit under `refs/airspace/agents/<id>` (`publish.ts`, the commit's message
 * `observation.ts`), and teammates' published states fetched back as agents (`fetch.ts`). No
 * server of ours: git is the medium. This module holds the team store and the remotes.
 *
 * Nothing here writes to the user's object store, refs, index or work tree. Airspace keeps a bare
 * repository of its own, the *team store* (`<git common dir>/airspace/team.git`), whose objects
 * borrow the user's through `objects/info/alternates`:
 * - `publish` snapshots the worktree into a temporary scratch directory (as a scan does), copies
 *   those loose objects into the store, writes the observation commit there, and pushes from the
 *   user's repository with the store as an extra alternate (`GIT_ALTERNATE_OBJECT_DIRECTORIES`),
 *   to the remote's URL (not its name, so no remote-tracking ref of the user's is touched). What
 *   it last published is recorded in the store (`refs/airspace/published/<remote>/<id>`) and is the
 *   lease of the next push.
 * - `fetchPublished` fetches `refs/airspace/agents/*` into the store
 *   (`refs/airspace/remotes/<remote>/agents/*`); fetched objects land in the store only.
 * A scan reads the store's objects through its scratch directory's alternates.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { gitOperand, runGit, runGitRaw } from '../exec.js';
import type { RepositoryInfo } from '../repository.js';

/** Where teammates' states are published on the remote. */
export const PUBLISHED_PREFIX = 'refs/airspace/agents/';
/** An observation not refreshed for this long is expired: its agent is `unknown`, never clear. */
export const DEFAULT_TTL_MS = 8 * 3600_000;
/** Paths recorded in an observation at most (enough to stay `unknown` when objects are missing). */
export const MAX_RECORDED_PATHS = 5000;

/**
 * How long a fetch or push may go without finishing before it is stopped and reported (a remote or
 * ssh connection that never answers must not hold up a scan).
 */
export const NETWORK_TIMEOUT_MS = 60_000;

export class TeamError extends Error {
  constructor(
    readonly code: 'NO_REMOTE' | 'BAD_AGENT_ID' | 'BAD_INTENT' | 'LEASE_FAILED' | 'PUSH_REJECTED' | 'PUSH_FAILED' | 'NO_WORKTREE',
    message: string,
  ) {
    super(message);
    this.name = 'TeamError';
  }
}

export interface TeamStore {
  /** The bare repository (git dir). */
  readonly dir: string;
  readonly objectsDir: string;
}

/** Opens (creating on first use) the team store of a repository. */
export async function openTeamStore(repository: RepositoryInfo): Promise<TeamStore> {
  const dir = join(repository.commonDir, 'airspace', 'team.git');
  const objectsDir = join(dir, 'objects');
  if (!existsSync(join(dir, 'HEAD'))) {
    mkdirSync(dir, { recursive: true });
    await runGit(['init', '-q', '--bare', dir], { cwd: repository.root });
  }
  const alternates = join(objectsDir, 'info', 'alternates');
  const userObjects = join(repository.commonDir, 'objects');
  if (!existsSync(alternates) || readFileSync(alternates, 'utf8').trim() !== userObjects) {
    mkdirSync(join(objectsDir, 'info'), { recursive: true });
    // Atomically: another process may be reading the store.
    const tmp = `${alternates}.${process.pid}.tmp`;
    writeFileSync(tmp, `${userObjects}\n`);
    renameSync(tmp, alternates);
  }
  return { dir, objectsDir };
}

/** This clone's publisher id (random, kept in the store's config). */
export async function cloneId(store: TeamStore, cwd: string): Promise<string> {
  const r = await runGitRaw(['--git-dir', store.dir, 'config', '--get', 'airspace.clone'], { cwd, okCodes: [1] });
  const known = r.stdout.toString().trim();
  if (known) return known;
  const id = randomUUID();
  await runGit(['--git-dir', store.dir, 'config', 'airspace.clone', id], { cwd });
  return id;
}

export const gitInStore = (store: TeamStore, args: readonly string[]): string[] => ['--git-dir', store.dir, ...args];

export interface RemoteTarget {
  /** As given: a remote's name or a URL. */
  readonly name: string;
  /** Name used inside refs/airspace/ (the remote's name, or a hash of a URL). */
  readonly key: string;
  readonly fetchUrl: string;
  readonly pushUrl: string;
}

/** A remote by name (`git remote get-url`, insteadOf applied) or a URL / path given directly. */
export async function resolveRemote(repository: RepositoryInfo, remote: string): Promise<RemoteTarget> {
  const cwd = repository.root;
  gitOperand(remote, 'remote');
  // A configured URL is checked too: it reaches `git fetch` / `git push` as an argument.
  const get = async (push: boolean) => {
    const r = await runGitRaw(['remote', 'get-url', ...(push ? ['--push'] : []), '--', remote], { cwd, okCodes: [2, 128] });
    return r.code === 0 ? gitOperand(r.stdout.toString().trim(), `the URL of remote "${remote}",`) : undefined;
  };
  const fetchUrl = await get(false);
  if (fetchUrl) return { name: remote, key: remote, fetchUrl, pushUrl: (await get(true)) ?? fetchUrl };
  // A URL or a path (file://, ssh, https, scp-like, a directory).
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(remote) || /^[^/]+@[^:]+:/.test(remote) || existsSync(remote)) {
    const key = `url-${createHash('sha1').update(remote).digest('hex').slice(0, 12)}`;
    return { name: remote, key, fetchUrl: remote, pushUrl: remote };
  }
  throw new TeamError(
    'NO_REMOTE',
    `No remote named "${remote}" in this repository (git remote -v lists them); give a remote's name or a URL.`,
  );
}

export async function validAgentId(id: string, cwd: string): Promise<boolean> {
  if (!id || id.startsWith('-')) return false;
  const r = await runGitRaw(['check-ref-format', `${PUBLISHED_PREFIX}${id}`], { cwd, okCodes: [1] });
  return r.code === 0;
}
