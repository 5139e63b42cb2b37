/**
 * Team mode: an agent's full state (uncommitted work included) published to the team's git
 * remote as a commit under `refs/airspace/agents/<id>`, and teammates' published states fetched
 * back as agents. No server of ours: git is the medium.
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
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { basename, join } from 'node:path';
import { writeLooseObject } from './blob.js';
import type { Problem } from '@airspace/core';
import { runGit, runGitRaw } from './exec.js';
import { GitProblemCodes } from './problems.js';
import { openRepository, resolveBase, type RepositoryInfo } from './repository.js';
import { ScratchStore } from './scratch.js';
import { snapshotWorktree } from './snapshot.js';
import type { AgentCandidate } from './sources.js';
import { DEFAULT_MAX_FILE_BYTES, readHistory } from './working-set.js';

/** Where teammates' states are published on the remote. */
export const PUBLISHED_PREFIX = 'refs/airspace/agents/';
export const OBSERVATION_VERSION = 1;
/** An observation not refreshed for this long is expired: its agent is `unknown`, never clear. */
export const DEFAULT_TTL_MS = 8 * 3600_000;
/** Paths recorded in an observation at most (enough to stay `unknown` when objects are missing). */
const MAX_RECORDED_PATHS = 5000;
const SUBJECT = 'airspace observation';

/** The observation a published commit carries in its message (see docs/observations.md). */
export interface PublishedObservation {
  readonly airspace: number;
  readonly id: string;
  readonly label: string;
  /** Random id of the publishing clone: tells one's own publications from a teammate's. */
  readonly clone: string;
  /** The agent's real HEAD (the snapshot commit's parent); absent on an unborn branch. */
  readonly head?: string;
  readonly branch?: string;
  readonly base: { readonly ref: string; readonly commit: string };
  readonly mergeBase?: string;
  /** Right of way, from the real branch (never the snapshot commit). */
  readonly committedWork: number;
  readonly commits: number;
  readonly changedLines: number;
  readonly startedAt: string;
  readonly publishedAt: string;
  readonly expiresAt: string;
  readonly intent?: readonly string[];
  /** True when the state holds work that is not committed. */
  readonly dirty: boolean;
  /** Paths changed from the merge base to the state (at most 5,000). */
  readonly paths: readonly string[];
  readonly pathsTruncated?: boolean;
}

export class TeamError extends Error {
  constructor(
    readonly code: 'NO_REMOTE' | 'BAD_AGENT_ID' | 'LEASE_FAILED' | 'PUSH_REJECTED' | 'PUSH_FAILED' | 'NO_WORKTREE',
    message: string,
  ) {
    super(message);
    this.name = 'TeamError';
  }
}

// ---------------------------------------------------------------------------------------------
// The team store.

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
async function cloneId(store: TeamStore, cwd: string): Promise<string> {
  const r = await runGitRaw(['--git-dir', store.dir, 'config', '--get', 'airspace.clone'], { cwd, okCodes: [1] });
  const known = r.stdout.toString().trim();
  if (known) return known;
  const id = randomUUID();
  await runGit(['--git-dir', store.dir, 'config', 'airspace.clone', id], { cwd });
  return id;
}

const gitInStore = (store: TeamStore, args: readonly string[]): string[] => ['--git-dir', store.dir, ...args];

// ---------------------------------------------------------------------------------------------
// Remotes.

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
  const get = async (push: boolean) => {
    const r = await runGitRaw(['remote', 'get-url', ...(push ? ['--push'] : []), '--', remote], { cwd, okCodes: [2, 128] });
    return r.code === 0 ? r.stdout.toString().trim() : undefined;
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

async function validAgentId(id: string, cwd: string): Promise<boolean> {
  if (!id || id.startsWith('-')) return false;
  const r = await runGitRaw(['check-ref-format', `${PUBLISHED_PREFIX}${id}`], { cwd, okCodes: [1] });
  return r.code === 0;
}

// ---------------------------------------------------------------------------------------------
// Observation format.

/** The commit message of a published state: a subject, then the observation as JSON. */
export function observationMessage(o: PublishedObservation): string {
  return `${SUBJECT}: ${o.id}\n\n${JSON.stringify(o, null, 1)}\n`;
}

/** Reads an observation back from a commit message; undefined (with why) when it is not one. */
export function parseObservationMessage(message: string): { observation?: PublishedObservation; error?: string } {
  if (!message.startsWith(`${SUBJECT}: `)) return { error: 'its commit is not an Airspace observation' };
  const start = message.indexOf('\n\n');
  let value: unknown;
  try {
    value = JSON.parse(start < 0 ? '' : message.slice(start + 2));
  } catch {
    return { error: 'its observation is not valid JSON' };
  }
  const o = value as Partial<PublishedObservation> | null;
  if (!o || typeof o !== 'object') return { error: 'its observation is not an object' };
  if (o.airspace !== OBSERVATION_VERSION)
    return { error: `its observation has version ${JSON.stringify(o.airspace)}; this reader knows version ${OBSERVATION_VERSION}` };
  const str = (v: unknown) => typeof v === 'string' && v !== '';
  const date = (v: unknown) => typeof v === 'string' && Number.isFinite(Date.parse(v));
  if (
    !str(o.id) ||
    !str(o.clone) ||
    !o.base ||
    !str(o.base.ref) ||
    !str(o.base.commit) ||
    !date(o.publishedAt) ||
    !date(o.expiresAt) ||
    !date(o.startedAt)
  ) {
    return { error: 'its observation lacks id, clone, base, startedAt, publishedAt or expiresAt' };
  }
  if (
    typeof o.committedWork !== 'number' ||
    !Number.isFinite(o.committedWork) ||
    !Array.isArray(o.paths) ||
    !o.paths.every((p) => typeof p === 'string')
  ) {
    return { error: 'its observation lacks committedWork or paths' };
  }
  if (o.intent !== undefined && !(Array.isArray(o.intent) && o.intent.every((p) => typeof p === 'string')))
    return { error: 'its observation has a malformed intent' };
  return { observation: { ...o, label: typeof o.label === 'string' ? o.label : o.id } as PublishedObservation };
}

// ---------------------------------------------------------------------------------------------
// Publish.

export interface PublishOptions {
  /** Any directory inside the worktree to publish. */
  readonly repo: string;
  /** Remote name or URL (default `origin`). */
  readonly remote?: string;
  /** Agent id (default: as a local scan names this worktree — its branch, else its folder). */
  readonly agent?: string;
  readonly label?: string;
  readonly base?: string;
  readonly intent?: readonly string[];
  readonly ttlMs?: number;
  readonly now?: number;
  readonly maxFileBytes?: number;
  /** Skip the push when the state and observation (but for times) equal what was last published and it is not half-way to expiry. */
  readonly skipUnchanged?: boolean;
}

export interface PublishResult {
  readonly id: string;
  readonly remote: string;
  /** The remote ref written. */
  readonly ref: string;
  readonly commit: string;
  /** What the remote ref held before (undefined: it was new). */
  readonly previous?: string;
  readonly observation: PublishedObservation;
  /** True when nothing was pushed because nothing changed (`skipUnchanged`). */
  readonly unchanged: boolean;
  /** Untracked files left out as over the size limit. */
  readonly oversized: readonly string[];
}

const IDENTITY = 'airspace <airspace@localhost>';

/** Moves the loose objects of a scratch directory into the store (content-addressed: a copy is safe). */
function copyLooseObjects(fromObjects: string, toObjects: string): void {
  for (const dir of readdirSync(fromObjects)) {
    if (!/^[0-9a-f]{2}$/.test(dir)) continue;
    const target = join(toObjects, dir);
    mkdirSync(target, { recursive: true });
    for (const name of readdirSync(join(fromObjects, dir))) {
      if (!/^[0-9a-f]{38}$/.test(name) || existsSync(join(target, name))) continue;
      // Through a temporary name: a concurrent reader never sees half an object.
      const tmp = join(target, `${name}.${process.pid}.tmp`);
      copyFileSync(join(fromObjects, dir, name), tmp);
      renameSync(tmp, join(target, name));
    }
  }
}

async function storeRef(store: TeamStore, cwd: string, ref: string): Promise<string | undefined> {
  const r = await runGitRaw(gitInStore(store, ['rev-parse', '--verify', '--quiet', ref]), { cwd, okCodes: [1, 128] });
  const id = r.stdout.toString().trim();
  return r.code === 0 && id ? id : undefined;
}

function creationTime(gitDir: string): number | undefined {
  try {
    const st = statSync(gitDir);
    return st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs;
  } catch {
    return undefined;
  }
}

/** One sentence for a failed push, from git's porcelain status line and stderr. */
function pushFailure(remote: string, ref: string, out: string, stderr: string, previous: string | undefined): TeamError {
  const line = out.split('\n').find((l) => l.startsWith('!')) ?? '';
  const reason = /\[(?:remote )?rejected\]\s*\(([^)]*)\)/.exec(line)?.[1] ?? /\[([^\]]+)\]/.exec(line)?.[1];
  if (/stale info/.test(line)) {
    return new TeamError(
      'LEASE_FAILED',
      `${ref} on ${remote} is not what this clone last published (${previous ? previous.slice(0, 12) : 'nothing'}): another clone publishes as this agent, or someone replaced it; nothing was pushed and the remote ref was kept. Publish under another id (--agent ID).`,
    );
  }
  if (/remote rejected/.test(line) || /hook declined|denied|rejected/i.test(stderr)) {
    const hook = stderr
      .split('\n')
      .map((l) => l.replace(/^remote:\s*/, '').trim())
      .filter((l) => l && !/^(To |error: failed to push|!\s)/.test(l))[0];
    return new TeamError(
      'PUSH_REJECTED',
      `${remote} refused ${ref} (${reason ?? 'rejected'}${hook && hook !== reason ? `: ${hook}` : ''}); nothing was published. The remote must accept pushes to refs/airspace/agents/* (see docs/team.md).`,
    );
  }
  const first =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l && !l.startsWith('To ')) ?? 'git push failed';
  return new TeamError('PUSH_FAILED', `Could not push ${ref} to ${remote}: ${first.replace(/^(fatal|error):\s*/, '')}`);
}

/**
 * Publishes the worktree's state (committed, staged, unstaged, untracked) with its observation
 * to `refs/airspace/agents/<id>` on the remote, leased on what this clone last published there.
 */
export async function publishAgent(options: PublishOptions): Promise<PublishResult> {
  const repository = await openRepository(options.repo);
  if (repository.bare)
    throw new TeamError('NO_WORKTREE', `${repository.root} is a bare repository: publish runs in a worktree of the agent.`);
  const cwd = repository.root;
  const now = options.now ?? Date.now();
  const headRun = await runGitRaw(['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd, okCodes: [1, 128] });
  const head = headRun.code === 0 ? headRun.stdout.toString().trim() || undefined : undefined;
  const symref = await runGitRaw(['symbolic-ref', '--quiet', 'HEAD'], { cwd, okCodes: [1, 128] });
  const branch = symref.code === 0 ? symref.stdout.toString().trim() || undefined : undefined;
  const id = options.agent ?? (branch ? branch.replace(/^refs\/heads\//, '') : basename(cwd));
  if (!(await validAgentId(id, cwd)))
    throw new TeamError('BAD_AGENT_ID', `"${id}" cannot be part of a git ref name; give another agent id (--agent ID).`);
  const remote = await resolveRemote(repository, options.remote ?? 'origin');
  const base = await resolveBase(cwd, options.base);
  const store = await openTeamStore(repository);
  const clone = await cloneId(store, cwd);

  const scratch = new ScratchStore(join(repository.commonDir, 'objects'));
  try {
    const snap = await snapshotWorktree(
      scratch,
      { dir: cwd, gitDir: repository.gitDir },
      { maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES },
    );
    const env = scratch.env();
    const mb = head ? await runGitRaw(['merge-base', head, base.commit], { cwd, env, okCodes: [1] }) : undefined;
    const mergeBase = mb?.code === 0 ? mb.stdout.toString().trim().split('\n')[0] || undefined : undefined;
    const history =
      head && head !== mergeBase
        ? await readHistory(cwd, mergeBase, head).catch(() => readHistory(cwd, mergeBase, head, { numstat: false }))
        : undefined;
    const from = mergeBase ?? (head ? base.commit : '4b825dc642cb6eb9a060e54bf8d69288fbee4904');
    const paths = (await runGit(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, snap.tree], { cwd, env }))
      .split('\0')
      .filter(Boolean);
    const dirty = head
      ? (await runGit(['diff-tree', '-r', '--name-only', '--no-renames', head, snap.tree], { cwd, env })).trim() !== ''
      : paths.length > 0;
    const startedAt = history?.firstCommitAt ?? creationTime(repository.gitDir) ?? now;
    const commits = history?.commits ?? 0;
    const changedLines = history?.changedLines ?? 0;
    const ttl = options.ttlMs ?? DEFAULT_TTL_MS;
    const observation: PublishedObservation = {
      airspace: OBSERVATION_VERSION,
      id,
      label: options.label ?? id,
      clone,
      ...(head ? { head } : {}),
      ...(branch ? { branch } : {}),
      base: { ref: base.ref, commit: base.commit },
      ...(mergeBase ? { mergeBase } : {}),
      committedWork: commits + changedLines,
      commits,
      changedLines,
      startedAt: new Date(startedAt).toISOString(),
      publishedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ttl).toISOString(),
      ...(options.intent?.length ? { intent: [...options.intent] } : {}),
      dirty,
      paths: paths.slice(0, MAX_RECORDED_PATHS),
      ...(paths.length > MAX_RECORDED_PATHS ? { pathsTruncated: true } : {}),
    };
    const seconds = Math.floor(now / 1000);
    const who = `${IDENTITY} ${seconds} +0000`;
    const body = `tree ${snap.tree}\n${head ? `parent ${head}\n` : ''}author ${who}\ncommitter ${who}\n\n${observationMessage(observation)}`;
    const commit = writeLooseObject(scratch.objectsDir, 'commit', body);

    const ownRef = `refs/airspace/published/${remote.key}/${id}`;
    const previous = await storeRef(store, cwd, ownRef);
    const ref = `${PUBLISHED_PREFIX}${id}`;
    if (options.skipUnchanged && previous && (await sameState(store, cwd, previous, observation, snap.tree, now))) {
      return {
        id,
        remote: remote.name,
        ref,
        commit: previous,
        previous,
        observation,
        unchanged: true,
        oversized: snap.oversized.map((o) => o.path),
      };
    }
    copyLooseObjects(scratch.objectsDir, store.objectsDir);

    // Push from the user's repository (its config: credentials, ssh) with the store as an extra
    // alternate; to the URL, so none of the user's remote-tracking refs is updated. No hooks of
    // the user's run: this pushes no branch.
    const push = await runGitRaw(
      ['push', '--porcelain', '--no-verify', '--quiet', `--force-with-lease=${ref}:${previous ?? ''}`, remote.pushUrl, `${commit}:${ref}`],
      {
        cwd,
        env: { GIT_ALTERNATE_OBJECT_DIRECTORIES: store.objectsDir },
        okCodes: [1, 128],
        timeoutMs: NETWORK_TIMEOUT_MS,
      },
    );
    if (push.code !== 0) throw pushFailure(remote.name, ref, push.stdout.toString(), push.stderr, previous);
    // The lease of the next publish; and the store's copy, so a scan sees it before the next fetch.
    await runGit(gitInStore(store, ['update-ref', ownRef, commit]), { cwd });
    await runGit(gitInStore(store, ['update-ref', `refs/airspace/remotes/${remote.key}/agents/${id}`, commit]), { cwd });
    // Each publish adds the changed files' blobs: let git pack (and in time prune) the store when
    // loose objects pile up (git's own threshold), in the foreground so no process outlives us.
    await runGitRaw(gitInStore(store, ['-c', 'gc.autoDetach=false', 'gc', '--auto', '--quiet']), { cwd, okCodes: [1, 128] });
    return {
      id,
      remote: remote.name,
      ref,
      commit,
      ...(previous ? { previous } : {}),
      observation,
      unchanged: false,
      oversized: snap.oversized.map((o) => o.path),
    };
  } finally {
    scratch.dispose();
  }
}

export interface WithdrawOptions {
  readonly repo: string;
  readonly remote?: string;
  readonly agent?: string;
}

/**
 * Deletes this agent's published ref from the remote (leased on what this clone last published
 * there, so a teammate's state under the same id is never deleted) and forgets it in the store.
 * Returns the commit that was withdrawn, or undefined when this clone had published nothing.
 */
export async function withdrawAgent(options: WithdrawOptions): Promise<{ id: string; ref: string; withdrawn?: string }> {
  const repository = await openRepository(options.repo);
  const cwd = repository.root;
  const symref = await runGitRaw(['symbolic-ref', '--quiet', 'HEAD'], { cwd, okCodes: [1, 128] });
  const branch = symref.code === 0 ? symref.stdout.toString().trim() || undefined : undefined;
  const id = options.agent ?? (branch ? branch.replace(/^refs\/heads\//, '') : basename(cwd));
  if (!(await validAgentId(id, cwd)))
    throw new TeamError('BAD_AGENT_ID', `"${id}" cannot be part of a git ref name; give another agent id (--agent ID).`);
  const remote = await resolveRemote(repository, options.remote ?? 'origin');
  const store = await openTeamStore(repository);
  const ref = `${PUBLISHED_PREFIX}${id}`;
  const ownRef = `refs/airspace/published/${remote.key}/${id}`;
  const previous = await storeRef(store, cwd, ownRef);
  if (!previous) return { id, ref };
  const push = await runGitRaw(
    ['push', '--porcelain', '--no-verify', '--quiet', `--force-with-lease=${ref}:${previous}`, remote.pushUrl, `:${ref}`],
    { cwd, okCodes: [1, 128], timeoutMs: NETWORK_TIMEOUT_MS },
  );
  if (push.code !== 0) throw pushFailure(remote.name, ref, push.stdout.toString(), push.stderr, previous);
  await runGit(gitInStore(store, ['update-ref', '-d', ownRef]), { cwd });
  await runGitRaw(gitInStore(store, ['update-ref', '-d', `refs/airspace/remotes/${remote.key}/agents/${id}`]), { cwd, okCodes: [1, 128] });
  return { id, ref, withdrawn: previous };
}

/** Whether the last published commit holds this state and observation (times aside) and is fresh enough. */
async function sameState(
  store: TeamStore,
  cwd: string,
  previous: string,
  next: PublishedObservation,
  nextTree: string,
  now: number,
): Promise<boolean> {
  const r = await runGitRaw(gitInStore(store, ['cat-file', 'commit', previous]), { cwd, okCodes: [1, 128] });
  if (r.code !== 0) return false;
  const text = r.stdout.toString('utf8');
  const tree = /^tree ([0-9a-f]+)$/m.exec(text)?.[1];
  const parsed = parseObservationMessage(text.slice(text.indexOf('\n\n') + 2));
  const before = parsed.observation;
  if (!before) return false;
  const published = Date.parse(before.publishedAt);
  const expires = Date.parse(before.expiresAt);
  // Refresh half-way to expiry, so a quiet agent never looks gone.
  if (now - published >= (expires - published) / 2) return false;
  const strip = (o: PublishedObservation) => JSON.stringify({ ...o, publishedAt: '', expiresAt: '' });
  return tree === nextTree && strip(before) === strip(next);
}

// ---------------------------------------------------------------------------------------------
// Fetch: teammates' published states as agent candidates.

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

/**
 * How long a fetch or push may go without finishing before it is stopped and reported (a remote or
 * ssh connection that never answers must not hold up a scan).
 */
export const NETWORK_TIMEOUT_MS = 60_000;

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
      remote.fetchUrl,
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
  for (const [refname, oid] of refs) {
    const id = refname.slice(prefix.length);
    const incomplete: string[] = [];
    if (fetched.error) incomplete.push(`not refreshed: fetching from ${remote.name} failed (${fetched.error})`);
    const commit = commits.get(oid);
    const parsed = commit
      ? parseObservationMessage(commit.message)
      : { error: `its published state ${oid.slice(0, 12)} is not among the fetched objects` };
    const o = parsed.observation;
    if (!o) {
      candidates.push({
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
      });
      continue;
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
    candidates.push({
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
    });
  }
  return { candidates, problems, objectsDir: store.objectsDir };
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
