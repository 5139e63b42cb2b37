/**
 * Publishing an agent: its worktree's state snapshotted as a scan does, written into the team
 * store as an observation commit on its real HEAD, and pushed to `refs/airspace/agents/<id>` on
 * the remote leased on what this clone last published; and withdrawing it again.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { writeLooseObject } from '../blob.js';
import { END_OF_OPTIONS, gitOperand, runGit, runGitRaw } from '../exec.js';
import { creationTime, openRepository, resolveBase, type BaseInfo } from '../repository.js';
import { unsafeRepoPath } from '../repo-path.js';
import { ScratchStore } from '../scratch.js';
import { snapshotWorktree } from '../state-tree.js';
import { DEFAULT_MAX_FILE_BYTES, readHistory } from '../working-set.js';
import { OBSERVATION_VERSION, observationMessage, parseObservationMessage, type PublishedObservation } from './observation.js';
import {
  cloneId,
  DEFAULT_TTL_MS,
  gitInStore,
  MAX_RECORDED_PATHS,
  NETWORK_TIMEOUT_MS,
  openTeamStore,
  PUBLISHED_PREFIX,
  resolveRemote,
  TeamError,
  validAgentId,
  type RemoteTarget,
  type TeamStore,
} from './store.js';

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

/**
 * The id the worktree at `cwd` publishes under: `agent` when given, else as a local scan names
 * the worktree (its branch, else its folder), checked to be usable in a ref name; with its branch.
 */
async function publishedId(cwd: string, agent: string | undefined): Promise<{ id: string; branch?: string }> {
  const symref = await runGitRaw(['symbolic-ref', '--quiet', 'HEAD'], { cwd, okCodes: [1, 128] });
  const branch = symref.code === 0 ? symref.stdout.toString().trim() || undefined : undefined;
  const id = agent ?? (branch ? branch.replace(/^refs\/heads\//, '') : basename(cwd));
  if (!(await validAgentId(id, cwd)))
    throw new TeamError('BAD_AGENT_ID', `"${id}" cannot be part of a git ref name; give another agent id (--agent ID).`);
  return { id, ...(branch ? { branch } : {}) };
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
  const { id, branch } = await publishedId(cwd, options.agent);
  for (const path of options.intent ?? []) {
    const why = unsafeRepoPath(path);
    if (why)
      throw new TeamError('BAD_INTENT', `Intent ${JSON.stringify(path)} ${why}: name a path inside the work tree; nothing was published.`);
  }
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
    const observation = await observe(
      { cwd, env: scratch.env(), head, base, tree: snap.tree, gitDir: repository.gitDir, now },
      { id, branch, clone },
      options,
    );
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

    await pushPublished(cwd, store, remote, { ref, ownRef, id, commit, previous });
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

/** Where and what a publish observes: the worktree's state tree against the base. */
interface ObserveAt {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly head: string | undefined;
  readonly base: BaseInfo;
  readonly tree: string;
  readonly gitDir: string;
  readonly now: number;
}

/** The observation published with the state: merge base, history, changed paths, dirtiness, times and intent. */
async function observe(
  at: ObserveAt,
  who: { readonly id: string; readonly branch: string | undefined; readonly clone: string },
  options: PublishOptions,
): Promise<PublishedObservation> {
  const { cwd, env, head, base, now } = at;
  const mb = head ? await runGitRaw(['merge-base', head, base.commit], { cwd, env, okCodes: [1] }) : undefined;
  const mergeBase = mb?.code === 0 ? mb.stdout.toString().trim().split('\n')[0] || undefined : undefined;
  const history =
    head && head !== mergeBase
      ? await readHistory(cwd, mergeBase, head).catch(() => readHistory(cwd, mergeBase, head, { numstat: false }))
      : undefined;
  const from = mergeBase ?? (head ? base.commit : '4b825dc642cb6eb9a060e54bf8d69288fbee4904');
  const paths = (await runGit(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, at.tree], { cwd, env }))
    .split('\0')
    .filter(Boolean);
  const dirty = head
    ? (await runGit(['diff-tree', '-r', '--name-only', '--no-renames', head, at.tree], { cwd, env })).trim() !== ''
    : paths.length > 0;
  const startedAt = history?.firstCommitAt ?? creationTime(at.gitDir) ?? now;
  const commits = history?.commits ?? 0;
  const changedLines = history?.changedLines ?? 0;
  const ttl = options.ttlMs ?? DEFAULT_TTL_MS;
  const { id, branch, clone } = who;
  return {
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
}

/** Pushes `commit` to `ref` on the remote, leased on `previous`; then records it in the store (the next lease, the scan's copy). */
async function pushPublished(
  cwd: string,
  store: TeamStore,
  remote: RemoteTarget,
  p: { readonly ref: string; readonly ownRef: string; readonly id: string; readonly commit: string; readonly previous: string | undefined },
): Promise<void> {
  const { ref, commit, previous } = p;
  // Push from the user's repository (its config: credentials, ssh) with the store as an extra
  // alternate; to the URL, so none of the user's remote-tracking refs is updated. No hooks of
  // the user's run: this pushes no branch.
  const push = await runGitRaw(
    [
      'push',
      '--porcelain',
      '--no-verify',
      '--quiet',
      `--force-with-lease=${ref}:${previous ?? ''}`,
      END_OF_OPTIONS,
      gitOperand(remote.pushUrl, 'push URL'),
      `${commit}:${ref}`,
    ],
    {
      cwd,
      env: { GIT_ALTERNATE_OBJECT_DIRECTORIES: store.objectsDir },
      okCodes: [1, 128],
      timeoutMs: NETWORK_TIMEOUT_MS,
    },
  );
  if (push.code !== 0) throw pushFailure(remote.name, ref, push.stdout.toString(), push.stderr, previous);
  // The lease of the next publish; and the store's copy, so a scan sees it before the next fetch.
  await runGit(gitInStore(store, ['update-ref', p.ownRef, commit]), { cwd });
  await runGit(gitInStore(store, ['update-ref', `refs/airspace/remotes/${remote.key}/agents/${p.id}`, commit]), { cwd });
  // Each publish adds the changed files' blobs: let git pack (and in time prune) the store when
  // loose objects pile up (git's own threshold), in the foreground so no process outlives us.
  await runGitRaw(gitInStore(store, ['-c', 'gc.autoDetach=false', 'gc', '--auto', '--quiet']), { cwd, okCodes: [1, 128] });
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
  const { id } = await publishedId(cwd, options.agent);
  const remote = await resolveRemote(repository, options.remote ?? 'origin');
  const store = await openTeamStore(repository);
  const ref = `${PUBLISHED_PREFIX}${id}`;
  const ownRef = `refs/airspace/published/${remote.key}/${id}`;
  const previous = await storeRef(store, cwd, ownRef);
  if (!previous) return { id, ref };
  const push = await runGitRaw(
    [
      'push',
      '--porcelain',
      '--no-verify',
      '--quiet',
      `--force-with-lease=${ref}:${previous}`,
      END_OF_OPTIONS,
      gitOperand(remote.pushUrl, 'push URL'),
      `:${ref}`,
    ],
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
