/**
 * `loadAgents`: a repository's worktrees (or branches, remote-tracking branches, an
 * orchestrator's observations) → Agents with working sets in merge-base coordinates.
 *
 * Per agent: one merge-base, one snapshot of the work tree into scratch objects (copy of its
 * index + `git add -A`), one `git diff-tree` from the merge base to that state, one `git log`
 * for committed work and commit times. Agents are read a few at a time.
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Agent, FileEdit, Problem, RecencyOptions } from '@airspace/core';
import { DEFAULT_RECENCY } from '@airspace/core';
import { runGitRaw } from './exec.js';
import { mapLimit } from './map-limit.js';
import { agentFailed, fileTooLarge, GitProblemCodes, missingMergeBase } from './problems.js';
import { openRepository, resolveBase, resolveCommit, type BaseInfo, type RepositoryInfo } from './repository.js';
import { GitService } from './service.js';
import { normalizeRelPath, snapshotWorktree } from './snapshot.js';
import {
  branchCandidates,
  parseObservations,
  remoteCandidates,
  resolveObservationCandidates,
  worktreeCandidates,
  type AgentCandidate,
  type AgentSource,
} from './sources.js';
import { publishedCandidates, reconcilePublished } from './team/fetch.js';
import {
  blobSizes,
  changedPaths,
  DEFAULT_MAX_FILE_BYTES,
  diffTrees,
  diffTreesRaw,
  EMPTY_TREE,
  fileMtime,
  readHistory,
  toFileEdit,
} from './working-set.js';

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

async function candidatesOf(
  source: AgentSource,
  repo: RepositoryInfo,
  problems: Problem[],
  git: GitService,
  options: LoadAgentsOptions,
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

function publishedMeta(p: NonNullable<AgentCandidate['published']>): Record<string, unknown> {
  return {
    remote: p.remote,
    ...(p.publishedAt !== undefined ? { publishedAt: new Date(p.publishedAt).toISOString() } : {}),
    ...(p.expiresAt !== undefined ? { expiresAt: new Date(p.expiresAt).toISOString() } : {}),
  };
}

/** Worktree creation time: birth (or change) time of its git directory. */
function creationTime(gitDir: string | undefined): number | undefined {
  if (!gitDir) return undefined;
  try {
    const st = statSync(gitDir);
    return st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs;
  } catch {
    return undefined;
  }
}

function canonical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

function overridesFor(options: LoadAgentsOptions, worktree: string | undefined): Record<string, string | Buffer> | undefined {
  return worktree && options.overrides ? worktreeOverrides(options.overrides, worktree) : undefined;
}

/** The buffers of one worktree among an editor's overrides, by repository-relative path. */
export function worktreeOverrides(
  overrides: NonNullable<LoadAgentsOptions['overrides']>,
  worktree: string,
): Record<string, string | Buffer> | undefined {
  const merged: Record<string, string | Buffer> = {};
  let any = false;
  for (const [dir, files] of Object.entries(overrides)) {
    if (resolve(dir) !== resolve(worktree) && canonical(dir) !== canonical(worktree)) continue;
    for (const [path, text] of Object.entries(files)) {
      // Absolute paths inside the worktree are accepted too.
      const rel = isAbsolute(path) ? relative(worktree, path) : path;
      merged[normalizeRelPath(rel)] = text;
      any = true;
    }
  }
  return any ? merged : undefined;
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

  let read = 0;
  const loaded = await mapLimit(candidates, options.concurrency ?? 3, async (c) => {
    const own: Problem[] = [];
    try {
      const agent = await loadCandidate(c, own);
      return { agent, problems: own };
    } catch (e) {
      return { agent: undefined, problems: [...own, agentFailed(c.id, e)] };
    } finally {
      options.onProgress?.(++read, candidates.length);
    }
  });

  async function loadCandidate(c: AgentCandidate, own: Problem[]): Promise<Agent | undefined> {
    const overrideRef = options.baseOverrides?.[c.id] ?? (c.worktree ? options.baseOverrides?.[c.worktree] : undefined) ?? c.base;
    let scanBase = base;
    if (overrideRef !== undefined) {
      const commit = await baseCommit(overrideRef);
      if (!commit) {
        own.push({
          code: GitProblemCodes.UNKNOWN_BASE,
          agent: c.id,
          message: `Unknown base "${overrideRef}" for agent ${c.id}: no such branch, tag or commit; the agent was left out.`,
        });
        return undefined;
      }
      scanBase = { ref: overrideRef, commit };
    }
    const head = c.head ?? (c.ref && !c.worktree ? await baseCommit(c.ref) : undefined);
    if (!head && !c.worktree) {
      own.push({
        code: GitProblemCodes.AGENT_FAILED,
        agent: c.id,
        message: `${c.ref ?? c.id} does not name a commit; the agent was left out.`,
      });
      return undefined;
    }
    const cwd = c.worktree ?? repository.root;
    const env = git.scratch.env();
    const published = c.published;
    if (published && !published.tree) return unreadablePublished(c, published, scanBase.ref);
    const mergeBase = head ? await git.mergeBase(head, scanBase.commit) : undefined;
    const wholeFiles = head !== undefined && mergeBase === undefined;
    if (wholeFiles) own.push(missingMergeBase(c.id, scanBase.ref));

    // The agent's current state as a tree.
    let tree: string;
    let overridden: readonly string[] = [];
    let oversized: readonly { path: string; bytes: number }[] = [];
    if (c.worktree && c.gitDir) {
      const overrides = overridesFor(options, c.worktree);
      const snap = await snapshotWorktree(
        git.scratch,
        { dir: c.worktree, gitDir: c.gitDir },
        { maxFileBytes, ...(overrides ? { overrides } : {}) },
      );
      tree = snap.tree;
      overridden = snap.overridden;
      oversized = snap.oversized;
    } else {
      tree = published?.tree ?? head!;
    }
    const from = mergeBase ?? (head ? scanBase.commit : EMPTY_TREE);
    let entries;
    let lineLevel = !wholeFiles;
    try {
      entries = await diffTrees(cwd, env, from, tree, maxFileBytes);
    } catch (e) {
      // Degrade to file level rather than lose the agent.
      entries = await diffTreesRaw(cwd, env, from, tree);
      lineLevel = false;
      own.push({
        code: GitProblemCodes.DIFF_FAILED,
        agent: c.id,
        message: `Could not read ${c.id}'s line changes (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); its files are compared whole, file level only.`,
      });
    }
    // With no commit since the merge base, every change is uncommitted: no need to ask git.
    const hasWork = c.worktree !== undefined || published !== undefined;
    const uncommitted = !hasWork
      ? new Set<string>()
      : head && head !== from
        ? await changedPaths(cwd, env, head, tree)
        : new Set(entries.map((e) => e.path));
    // A published agent's right of way is what it recorded from its real branch.
    const history = published
      ? { commits: 0, changedLines: 0, lastCommitAt: new Map<string, number>() }
      : head && head !== mergeBase && !wholeFiles
        ? await readHistory(cwd, mergeBase, head, { numstat: lineLevel }).catch(() => readHistory(cwd, mergeBase, head, { numstat: false }))
        : { commits: 0, changedLines: 0, lastCommitAt: new Map<string, number>() };

    // Binary entries may be files over the size limit (git treats those as binary): ask their sizes.
    const binaryBlobs = entries
      .filter((e) => e.binary)
      .flatMap((e) => [e.newBlob, e.oldBlob])
      .filter((x): x is string => !!x);
    const sizes = Number.isFinite(maxFileBytes) ? await blobSizes(cwd, env, binaryBlobs) : new Map<string, number>();
    const tooLarge = (blob: string | undefined) => blob !== undefined && (sizes.get(blob) ?? 0) > maxFileBytes;
    const overriddenSet = new Set(overridden);

    const files: FileEdit[] = [];
    for (const e of entries) {
      const edit = toFileEdit(e, {
        lastEditedAt: (path) =>
          overriddenSet.has(path)
            ? now
            : uncommitted.has(path)
              ? c.worktree
                ? fileMtime(c.worktree, path)
                : published?.publishedAt
              : history.lastCommitAt.get(path),
        uncommitted: (path) => overriddenSet.has(path) || (hasWork && uncommitted.has(path)),
        now,
        recency,
        tooLarge,
        wholeFiles: !lineLevel,
      });
      if (!edit) continue;
      files.push(edit);
      if (e.binary && (tooLarge(e.newBlob) || tooLarge(e.oldBlob)))
        own.push(fileTooLarge(c.id, e.path, Math.max(sizes.get(e.newBlob ?? '') ?? 0, sizes.get(e.oldBlob ?? '') ?? 0), maxFileBytes));
    }
    for (const o of oversized) {
      const at = fileMtime(cwd, o.path);
      // An untracked file (over the size limit) is uncommitted work: current.
      files.push({
        path: o.path,
        status: 'added',
        weight: 1,
        baseRanges: 'whole',
        newRanges: 'whole',
        ...(at !== undefined ? { lastEditedAt: at } : {}),
      });
      own.push(fileTooLarge(c.id, o.path, o.bytes, maxFileBytes));
    }
    files.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));

    const dirty = hasWork && (uncommitted.size > 0 || oversized.length > 0);
    git.register({
      id: c.id,
      ...(head ? { head } : {}),
      tree,
      dirty,
      ...(mergeBase ? { mergeBase } : {}),
      ...(c.worktree ? { worktree: c.worktree } : {}),
    });
    const reasons = [
      ...(!lineLevel && !wholeFiles
        ? ['its line changes could not be read: compared file-level only']
        : wholeFiles
          ? [`no merge base with ${scanBase.ref} (shallow clone or unrelated history): compared file-level only`]
          : []),
      ...(published ? [...published.incomplete, ...(await publishedBaseReason(published, scanBase, env))] : []),
    ];
    // No work yet: an agent only if it declared what it is about to touch (or a published state is incomplete).
    if (files.length === 0 && !(published && reasons.length > 0) && !(c.intent?.length || isDeclaring(c))) return undefined;

    const startedAt = c.startedAt ?? history.firstCommitAt ?? creationTime(c.gitDir) ?? now;
    const incomplete = reasons.length > 0 ? reasons : undefined;
    return {
      id: c.id,
      label: c.label,
      startedAt,
      committedWork: published ? published.committedWork : history.commits + history.changedLines,
      files,
      ...(c.intent ? { intent: c.intent } : {}),
      ...(mergeBase ? { base: mergeBase } : {}),
      repository: repository.id,
      ...(c.worktree ? { worktree: c.worktree } : {}),
      ...(incomplete ? { incomplete } : {}),
      meta: {
        source: c.source,
        head: head ?? null,
        ...(c.ref ? { ref: c.ref } : {}),
        detached: c.detached ?? false,
        baseRef: scanBase.ref,
        mergeBase: mergeBase ?? null,
        tree,
        dirty,
        commits: history.commits,
        ...(published ? publishedMeta(published) : {}),
        ...(overridden.length ? { overridden } : {}),
        ...(!lineLevel ? { fileLevelOnly: true } : {}),
      },
    };
  }

  /**
   * A published agent whose recorded base is not in this clone's base branch: its diff from our
   * merge base would carry that base's changes as its own. Unknown, with the reason.
   */
  async function publishedBaseReason(
    p: NonNullable<AgentCandidate['published']>,
    scanBase: BaseInfo,
    env: Record<string, string>,
  ): Promise<string[]> {
    if (!p.mergeBase) return [];
    const r = await runGitRaw(['merge-base', '--is-ancestor', p.mergeBase, scanBase.commit], {
      cwd: repository.root,
      env,
      okCodes: [1, 128],
    });
    if (r.code === 0) return [];
    return [
      `its base (${p.baseRef ?? 'its base'} at ${p.mergeBase.slice(0, 12)} where it was published) is not in this clone's ${scanBase.ref}: fetch ${p.baseRef ?? 'that base'} to compare it exactly`,
    ];
  }

  /** A published agent whose state could not be read: its recorded paths, whole files, unknown. */
  function unreadablePublished(c: AgentCandidate, p: NonNullable<AgentCandidate['published']>, baseRef: string): Agent {
    return {
      id: c.id,
      label: c.label,
      startedAt: c.startedAt ?? now,
      committedWork: p.committedWork,
      files: p.paths.map((path) => ({
        path,
        status: 'modified' as const,
        weight: 1,
        baseRanges: 'whole' as const,
        newRanges: 'whole' as const,
      })),
      ...(c.intent ? { intent: c.intent } : {}),
      repository: repository.id,
      incomplete: p.incomplete.length > 0 ? p.incomplete : ['its published state could not be read'],
      meta: {
        source: 'published',
        head: c.head ?? null,
        ...(c.ref ? { ref: c.ref } : {}),
        detached: c.detached ?? false,
        baseRef,
        mergeBase: null,
        dirty: true,
        commits: 0,
        fileLevelOnly: true,
        ...publishedMeta(p),
      },
    };
  }

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
