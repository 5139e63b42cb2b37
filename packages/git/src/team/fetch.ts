/**
 * Teammates' published agents: `refs/airspace/agents/*` fetched into the team store (at most once
 * per interval), each read back as an agent candidate carrying its recorded right of way, paths
 * and `incomplete` reasons; `reconcilePublished` drops this clone's own publications of local
 * agents and renames a teammate's clashing id.
 */
import type { Problem } from '@airspace/core';
import { END_OF_OPTIONS, gitOperand, runGit, runGitRaw } from '../exec.js';
import { GitProblemCodes } from '../problems.js';
import type { RepositoryInfo } from '../repository.js';
import type { AgentCandidate } from '../sources.js';
import { parseObservationMessage } from './observation.js';
import {
  cloneId,
  gitInStore,
  NETWORK_TIMEOUT_MS,
  openTeamStore,
  PUBLISHED_PREFIX,
  resolveRemote,
  type RemoteTarget,
  type TeamStore,
} from './store.js';

export interface PublishedFetchOptions {
  readonly now?: number;
  /** A fetch of the same remote less than this long ago is reused (watch, editors); default 0. */
  readonly minIntervalMs?: number;
  /** Stop a fetch that has not finished after this long (default `NETWORK_TIMEOUT_MS`). */
  readonly timeoutMs?: number;
}

interface FetchOutcome {
  readonly at: number;
  readonly error?: string;
}

const recentFetches = new Map<string, FetchOutcome>();

/** One fetch of `refs/airspace/agents/*` into the team store; the error (one line) when it failed. */
export async function fetchPublished(
  repository: RepositoryInfo,
  store: TeamStore,
  remote: RemoteTarget,
  options: PublishedFetchOptions = {},
): Promise<FetchOutcome> {
  const now = options.now ?? Date.now();
  const key = `${store.dir}\0${remote.key}`;
  const recent = recentFetches.get(key);
  if (recent && !recent.error && now - recent.at < (options.minIntervalMs ?? 0)) return recent;
  const r = await runGitRaw(
    gitInStore(store, [
      'fetch',
      '--quiet',
      '--no-tags',
      '--prune',
      '--no-write-fetch-head',
      '--no-auto-gc',
      END_OF_OPTIONS,
      gitOperand(remote.fetchUrl, 'remote URL'),
      `+${PUBLISHED_PREFIX}*:refs/airspace/remotes/${remote.key}/agents/*`,
    ]),
    { cwd: repository.root, okCodes: [1, 128], timeoutMs: options.timeoutMs ?? NETWORK_TIMEOUT_MS },
  ).catch((e: unknown) => ({ code: -1, stderr: e instanceof Error ? e.message : String(e), stdout: Buffer.alloc(0) }));
  const error =
    r.code === 0
      ? undefined
      : (r.stderr
          .split('\n')
          .map((l) => l.trim().replace(/^(fatal|error):\s*/, ''))
          .find(Boolean) ?? `git fetch exited ${r.code}`);
  const outcome = { at: now, ...(error ? { error } : {}) };
  recentFetches.set(key, outcome);
  return outcome;
}

interface CommitRecord {
  readonly tree?: string;
  readonly parents: readonly string[];
  readonly message: string;
}

/** Reads commits of the store through one `cat-file --batch`; missing ones are absent from the map. */
async function readCommits(store: TeamStore, cwd: string, ids: readonly string[]): Promise<Map<string, CommitRecord>> {
  const out = new Map<string, CommitRecord>();
  if (ids.length === 0) return out;
  const r = await runGitRaw(gitInStore(store, ['cat-file', '--batch']), { cwd, input: ids.join('\n') + '\n', okCodes: [128] });
  const buf = r.stdout;
  let i = 0;
  while (i < buf.length) {
    const nl = buf.indexOf(10, i);
    if (nl < 0) break;
    const [id, type, size] = buf.subarray(i, nl).toString('latin1').split(' ');
    i = nl + 1;
    if (type === 'missing' || size === undefined) continue;
    const n = Number(size);
    const body = buf.subarray(i, i + n).toString('utf8');
    i += n + 1;
    if (type !== 'commit' || !id) continue;
    const end = body.indexOf('\n\n');
    const header = end < 0 ? body : body.slice(0, end);
    const tree = /^tree ([0-9a-f]+)$/m.exec(header)?.[1];
    const parents = [...header.matchAll(/^parent ([0-9a-f]+)$/gm)].map((m) => m[1]!);
    out.set(id, { ...(tree ? { tree } : {}), parents, message: end < 0 ? '' : body.slice(end + 2) });
  }
  return out;
}

async function hasObject(store: TeamStore, cwd: string, id: string): Promise<boolean> {
  const r = await runGitRaw(gitInStore(store, ['cat-file', '-e', `${id}^{tree}`]), { cwd, okCodes: [1, 128] });
  return r.code === 0;
}

export interface PublishedCandidates {
  readonly candidates: AgentCandidate[];
  readonly problems: Problem[];
  /** The store whose objects the candidates' states live in (add it to the scratch alternates). */
  readonly objectsDir?: string;
}

/**
 * Teammates' published agents: one fetch (unless one of the same remote is recent enough), then
 * every `refs/airspace/agents/*` read from the store. Expired, stale (the fetch failed) and
 * unreadable observations become candidates with `incomplete` reasons: `unknown`, never clear.
 */
export async function publishedCandidates(
  repository: RepositoryInfo,
  remoteName: string,
  options: PublishedFetchOptions = {},
): Promise<PublishedCandidates> {
  const now = options.now ?? Date.now();
  const problems: Problem[] = [];
  let remote: RemoteTarget;
  try {
    remote = await resolveRemote(repository, remoteName);
  } catch (e) {
    problems.push({
      code: GitProblemCodes.PUBLISHED_UNAVAILABLE,
      message: `${e instanceof Error ? e.message.replace(/\.$/, '') : String(e)}; published agents were left out.`,
    });
    return { candidates: [], problems };
  }
  const cwd = repository.root;
  const store = await openTeamStore(repository);
  const clone = await cloneId(store, cwd);
  const fetched = await fetchPublished(repository, store, remote, options);
  if (fetched.error) {
    problems.push({
      code: GitProblemCodes.PUBLISHED_UNAVAILABLE,
      message: `Could not fetch published agents from ${remote.name} (${fetched.error}); local agents go on, and teammates' states from the last fetch, if any, count as unknown.`,
    });
  }
  const prefix = `refs/airspace/remotes/${remote.key}/agents/`;
  const listing = await runGit(gitInStore(store, ['for-each-ref', '--format=%(refname)%00%(objectname)', prefix]), { cwd });
  const refs = listing
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\0') as [string, string]);
  const commits = await readCommits(
    store,
    cwd,
    refs.map(([, oid]) => oid),
  );
  const candidates: AgentCandidate[] = [];
  const read = { store, cwd, clone, remote, now, fetchError: fetched.error };
  for (const [refname, oid] of refs)
    candidates.push(await publishedCandidate(refname.slice(prefix.length), refname, oid, commits.get(oid), read));
  return { candidates, problems, objectsDir: store.objectsDir };
}

/** One published ref as a candidate: its observation read, with why it is incomplete (stale, expired, partly fetched, unreadable). */
async function publishedCandidate(
  id: string,
  refname: string,
  oid: string,
  commit: { readonly tree?: string; readonly parents: readonly string[]; readonly message: string } | undefined,
  read: {
    readonly store: TeamStore;
    readonly cwd: string;
    readonly clone: string;
    readonly remote: RemoteTarget;
    readonly now: number;
    readonly fetchError: string | undefined;
  },
): Promise<AgentCandidate> {
  const { store, cwd, clone, remote, now, fetchError } = read;
  const incomplete: string[] = [];
  if (fetchError) incomplete.push(`not refreshed: fetching from ${remote.name} failed (${fetchError})`);
  const parsed = commit
    ? parseObservationMessage(commit.message)
    : { error: `its published state ${oid.slice(0, 12)} is not among the fetched objects` };
  const o = parsed.observation;
  if (!o) {
    return {
      id,
      label: id,
      source: 'published',
      ref: refname,
      detached: false,
      published: {
        remote: remote.name,
        committedWork: 0,
        paths: [],
        incomplete: [...incomplete, `published observation unreadable: ${parsed.error}`],
        self: false,
      },
    };
  }
  const publishedAt = Date.parse(o.publishedAt);
  const expiresAt = Date.parse(o.expiresAt);
  if (expiresAt <= now) incomplete.push(`its published observation expired at ${o.expiresAt} (published ${o.publishedAt})`);
  const head = commit!.parents[0];
  let tree = commit!.tree;
  if (tree && !(await hasObject(store, cwd, tree))) {
    incomplete.push(
      `its published state ${oid.slice(0, 12)} is only partly fetched (tree ${tree.slice(0, 12)} missing): compared by its recorded paths only`,
    );
    tree = undefined;
  }
  if (o.pathsTruncated && !tree) incomplete.push('its recorded paths were cut at 5,000');
  return {
    id,
    label: o.label === o.id ? id : o.label,
    source: 'published',
    ref: refname,
    detached: o.branch === undefined,
    ...(head ? { head } : {}),
    startedAt: Date.parse(o.startedAt),
    ...(o.intent ? { intent: o.intent } : {}),
    published: {
      remote: remote.name,
      ...(tree ? { tree } : {}),
      committedWork: o.committedWork,
      publishedAt,
      expiresAt,
      paths: o.paths,
      ...(o.mergeBase ? { mergeBase: o.mergeBase } : {}),
      baseRef: o.base.ref,
      incomplete,
      self: o.clone === clone,
      ...(o.branch ? { branch: o.branch } : {}),
    },
  };
}

/**
 * Published candidates beside the other sources' (before `pickRicherCandidates`): this clone's
 * own publication of an agent it also lists locally (same id, or same branch under another
 * `--agent` id) is itself — dropped, the local state is richer; a teammate's agent whose id is
 * taken locally is renamed `<id>@<remote>`.
 */
export function reconcilePublished(lists: readonly (readonly AgentCandidate[])[], problems: Problem[]): AgentCandidate[][] {
  const locals = lists.flat().filter((c) => c.source !== 'published');
  const local = new Set(locals.map((c) => c.id));
  const localBranches = new Set(locals.map((c) => c.ref).filter((r): r is string => r !== undefined));
  return lists.map((list) =>
    list.flatMap((c) => {
      if (c.source !== 'published') return [c];
      if (c.published?.self && (local.has(c.id) || (c.published.branch !== undefined && localBranches.has(c.published.branch)))) return [];
      if (!local.has(c.id)) return [c];
      const id = `${c.id}@${c.published?.remote ?? 'remote'}`;
      problems.push({
        code: GitProblemCodes.DUPLICATE_AGENT,
        agent: id,
        message: `A teammate published an agent named "${c.id}", as a local agent is named; it is listed as "${id}".`,
      });
      return [{ ...c, id, label: id }];
    }),
  );
}
