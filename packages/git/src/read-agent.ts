/**
 * Reading one agent candidate into an `Agent` with its working set in merge-base coordinates:
 * merge base, state tree, one diff, history. Whatever cannot be read degrades the agent (whole
 * files, `incomplete`) with a problem rather than losing it.
 */
import type { Agent, FileEdit, Problem, RecencyOptions } from '@airspace/core';
import { isAbsolute, relative, resolve } from 'node:path';
import { canonical } from './candidates.js';
import { runGitRaw } from './exec.js';
import { fileTooLarge, GitProblemCodes, missingMergeBase, unsafePath } from './problems.js';
import { unsafeRepoPath } from './repo-path.js';
import { creationTime, type BaseInfo, type RepositoryInfo } from './repository.js';
import type { GitService } from './service.js';
import { normalizeRelPath, snapshotWorktree, type OversizedFile } from './state-tree.js';
import { parseTreeObject, type TreeEntry } from './tree-model.js';
import type { AgentCandidate } from './sources.js';
import type { DiffEntry } from './diff.js';
import {
  blobSizes,
  changedPaths,
  diffTrees,
  diffTreesRaw,
  EMPTY_TREE,
  fileMtime,
  readHistory,
  toFileEdit,
  type History,
} from './working-set.js';

/** What reading one candidate needs of `loadAgents`' options and state. */
export interface ReadContext {
  readonly repository: RepositoryInfo;
  readonly git: GitService;
  /** The scan base, unless the candidate has its own. */
  readonly base: BaseInfo;
  /** A ref's commit (memoized per load), undefined when it names none. */
  readonly baseCommit: (ref: string) => Promise<string | undefined>;
  /** Per-agent base refs, keyed by agent id or worktree directory. */
  readonly baseOverrides: Readonly<Record<string, string>> | undefined;
  /** Unsaved editor buffers (see `LoadAgentsOptions.overrides`). */
  readonly overrides: Readonly<Record<string, Readonly<Record<string, string | Buffer>>>> | undefined;
  readonly now: number;
  readonly recency: RecencyOptions;
  readonly maxFileBytes: number;
  /** Whether the candidate declared intent elsewhere, so it is an agent before any change. */
  readonly isDeclaring: (c: AgentCandidate) => boolean;
}

/**
 * One candidate as an agent: its merge base with the scan base, its state as a tree (a worktree
 * snapshotted with its unsaved buffers, a commit, a published state), one diff from the merge
 * base to that state, and its history for right of way. Undefined when it is no agent (no work
 * and no intent, an unknown base), with the problem in `own`.
 */
export async function readAgent(c: AgentCandidate, own: Problem[], ctx: ReadContext): Promise<Agent | undefined> {
  const { repository, git, baseCommit, now } = ctx;
  const scanBase = await scanBaseOf(c, own, ctx);
  if (!scanBase) return undefined;
  // A published observation that could not be read has no commit of its own: it is `unknown`
  // with the reason it carries, never left out as a ref that names no commit.
  if (c.published && !c.published.tree && !c.head) return unreadablePublished(c, c.published, scanBase.ref, repository, now);
  const head = c.head ?? (c.ref && !c.worktree ? await baseCommit(c.ref) : undefined);
  if (!head && !c.worktree) {
    own.push({
      code: GitProblemCodes.AGENT_FAILED,
      agent: c.id,
      message: `${c.ref ?? c.id} does not name a commit; the agent was left out.`,
    });
    return undefined;
  }
  const published = c.published;
  if (published && !published.tree) return withSafePaths(unreadablePublished(c, published, scanBase.ref, repository, now), own);
  const mergeBase = head ? await git.mergeBase(head, scanBase.commit) : undefined;
  const wholeFiles = head !== undefined && mergeBase === undefined;
  if (wholeFiles) own.push(missingMergeBase(c.id, scanBase.ref));
  const state = await stateTree(c, head, ctx);
  const read = await readWork(c, { scanBase, head, mergeBase, wholeFiles, ...state }, own, ctx);
  const files = await agentFiles(c, read, own, ctx);
  const dirty = read.hasWork && (read.uncommitted.size > 0 || read.oversized.length > 0);
  git.register({
    id: c.id,
    ...(head ? { head } : {}),
    tree: read.tree,
    dirty,
    ...(mergeBase ? { mergeBase } : {}),
    ...(c.worktree ? { worktree: c.worktree } : {}),
  });
  const reasons = await incompleteReasons(c, read, own, ctx);
  // No work yet: an agent only if it declared what it is about to touch (or a published state is incomplete).
  if (files.length === 0 && !(published && reasons.length > 0) && !(c.intent?.length || ctx.isDeclaring(c))) return undefined;
  return withSafePaths(agentOf(c, read, files, reasons, dirty, ctx), own);
}

/** The base a candidate is read against: its own (an override or the candidate's), else the scan's; undefined (with a problem) when that ref names no commit. */
async function scanBaseOf(c: AgentCandidate, own: Problem[], ctx: ReadContext): Promise<BaseInfo | undefined> {
  const overrideRef = ctx.baseOverrides?.[c.id] ?? (c.worktree ? ctx.baseOverrides?.[c.worktree] : undefined) ?? c.base;
  if (overrideRef === undefined) return ctx.base;
  const commit = await ctx.baseCommit(overrideRef);
  if (!commit) {
    own.push({
      code: GitProblemCodes.UNKNOWN_BASE,
      agent: c.id,
      message: `Unknown base "${overrideRef}" for agent ${c.id}: no such branch, tag or commit; the agent was left out.`,
    });
    return undefined;
  }
  return { ref: overrideRef, commit };
}

interface StateTree {
  readonly tree: string;
  /** Paths whose content came from unsaved editor buffers. */
  readonly overridden: readonly string[];
  /** Untracked files over the size limit, left out of the tree. */
  readonly oversized: readonly OversizedFile[];
}

/** The agent's current state as a tree: its worktree snapshotted (with unsaved buffers), or its published tree, or its head. */
async function stateTree(c: AgentCandidate, head: string | undefined, ctx: ReadContext): Promise<StateTree> {
  if (!(c.worktree && c.gitDir)) return { tree: c.published?.tree ?? head!, overridden: [], oversized: [] };
  const overrides = overridesFor(ctx.overrides, c.worktree);
  const snap = await snapshotWorktree(
    ctx.git.scratch,
    { dir: c.worktree, gitDir: c.gitDir },
    { maxFileBytes: ctx.maxFileBytes, ...(overrides ? { overrides } : {}) },
  );
  return { tree: snap.tree, overridden: snap.overridden, oversized: snap.oversized };
}

/** What was read of one agent's work: its diff from the merge base, what is uncommitted, its history. */
interface WorkRead extends StateTree {
  readonly scanBase: BaseInfo;
  readonly head: string | undefined;
  readonly mergeBase: string | undefined;
  readonly wholeFiles: boolean;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly entries: readonly DiffEntry[];
  /** Line changes were read (else files are compared whole). */
  readonly lineLevel: boolean;
  /** A worktree or a published state: uncommitted work counts. */
  readonly hasWork: boolean;
  readonly uncommitted: ReadonlySet<string>;
  readonly history: History;
}

/** One diff from the merge base to the state tree (file level when line changes cannot be read), the uncommitted paths, the history. */
async function readWork(
  c: AgentCandidate,
  at: Pick<WorkRead, 'scanBase' | 'head' | 'mergeBase' | 'wholeFiles'> & StateTree,
  own: Problem[],
  ctx: ReadContext,
): Promise<WorkRead> {
  const { head, mergeBase, wholeFiles, tree } = at;
  const cwd = c.worktree ?? ctx.repository.root;
  const env = ctx.git.scratch.env();
  const from = mergeBase ?? (head ? at.scanBase.commit : EMPTY_TREE);
  let entries: DiffEntry[];
  let lineLevel = !wholeFiles;
  try {
    entries = await diffTrees(cwd, env, from, tree, ctx.maxFileBytes);
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
  const hasWork = c.worktree !== undefined || c.published !== undefined;
  const uncommitted = !hasWork
    ? new Set<string>()
    : head && head !== from
      ? await changedPaths(cwd, env, head, tree)
      : new Set(entries.map((e) => e.path));
  // A published agent's right of way is what it recorded from its real branch.
  const history: History = c.published
    ? { commits: 0, changedLines: 0, lastCommitAt: new Map<string, number>() }
    : head && head !== mergeBase && !wholeFiles
      ? await readHistory(cwd, mergeBase, head, { numstat: lineLevel }).catch(() => readHistory(cwd, mergeBase, head, { numstat: false }))
      : { commits: 0, changedLines: 0, lastCommitAt: new Map<string, number>() };
  return { ...at, cwd, env, entries, lineLevel, hasWork, uncommitted, history };
}

/** The agent's file edits, sorted by path: each diff entry, and each untracked file over the size limit (whole). */
async function agentFiles(c: AgentCandidate, w: WorkRead, own: Problem[], ctx: ReadContext): Promise<FileEdit[]> {
  const { now, recency, maxFileBytes } = ctx;
  const { entries, uncommitted, history, hasWork } = w;
  // Binary entries may be files over the size limit (git treats those as binary): ask their sizes.
  const binaryBlobs = entries
    .filter((e) => e.binary)
    .flatMap((e) => [e.newBlob, e.oldBlob])
    .filter((x): x is string => !!x);
  const sizes = Number.isFinite(maxFileBytes) ? await blobSizes(w.cwd, w.env, binaryBlobs) : new Map<string, number>();
  const tooLarge = (blob: string | undefined) => blob !== undefined && (sizes.get(blob) ?? 0) > maxFileBytes;
  const overriddenSet = new Set(w.overridden);
  const files: FileEdit[] = [];
  for (const e of entries) {
    const edit = toFileEdit(e, {
      lastEditedAt: (path) =>
        overriddenSet.has(path)
          ? now
          : uncommitted.has(path)
            ? c.worktree
              ? fileMtime(c.worktree, path)
              : c.published?.publishedAt
            : history.lastCommitAt.get(path),
      uncommitted: (path) => overriddenSet.has(path) || (hasWork && uncommitted.has(path)),
      now,
      recency,
      tooLarge,
      wholeFiles: !w.lineLevel,
    });
    if (!edit) continue;
    files.push(edit);
    if (e.binary && (tooLarge(e.newBlob) || tooLarge(e.oldBlob)))
      own.push(fileTooLarge(c.id, e.path, Math.max(sizes.get(e.newBlob ?? '') ?? 0, sizes.get(e.oldBlob ?? '') ?? 0), maxFileBytes));
  }
  for (const o of w.oversized) {
    const at = fileMtime(w.cwd, o.path);
    // An untracked file (over the size limit) is uncommitted work: current. Its blob id (hashed
    // as a stream) lets two sides adding the same content be told apart from an add/add conflict.
    files.push({
      path: o.path,
      status: 'added',
      ...(o.blob ? { newBlob: o.blob } : {}),
      weight: 1,
      baseRanges: 'whole',
      newRanges: 'whole',
      ...(at !== undefined ? { lastEditedAt: at } : {}),
    });
    own.push(fileTooLarge(c.id, o.path, o.bytes, maxFileBytes));
  }
  files.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  return files;
}

/** Why the agent is incomplete: file level only, a published state's own reasons and base, a hostile published tree. */
async function incompleteReasons(c: AgentCandidate, w: WorkRead, own: Problem[], ctx: ReadContext): Promise<string[]> {
  const published = c.published;
  return [
    ...(!w.lineLevel && !w.wholeFiles
      ? ['its line changes could not be read: compared file-level only']
      : w.wholeFiles
        ? [`no merge base with ${w.scanBase.ref} (shallow clone or unrelated history): compared file-level only`]
        : []),
    ...(published ? [...published.incomplete, ...(await publishedBaseReason(published, w.scanBase, w.env, ctx.repository))] : []),
    ...(published?.tree ? await hostileTreeReason(c.id, ctx.git, published.tree, w.entries, own) : []),
  ];
}

/** The agent record: its files, intent, base, and what the scan shows of how it was read (`meta`). */
function agentOf(c: AgentCandidate, w: WorkRead, files: FileEdit[], reasons: string[], dirty: boolean, ctx: ReadContext): Agent {
  const { head, mergeBase, history, tree, overridden } = w;
  const published = c.published;
  const startedAt = c.startedAt ?? history.firstCommitAt ?? creationTime(c.gitDir) ?? ctx.now;
  const incomplete = reasons.length > 0 ? reasons : undefined;
  return {
    id: c.id,
    label: c.label,
    startedAt,
    committedWork: published ? published.committedWork : history.commits + history.changedLines,
    files,
    ...(c.intent ? { intent: c.intent } : {}),
    ...(mergeBase ? { base: mergeBase } : {}),
    repository: ctx.repository.id,
    ...(c.worktree ? { worktree: c.worktree } : {}),
    ...(incomplete ? { incomplete } : {}),
    meta: {
      source: c.source,
      head: head ?? null,
      ...(c.ref ? { ref: c.ref } : {}),
      detached: c.detached ?? false,
      baseRef: w.scanBase.ref,
      mergeBase: mergeBase ?? null,
      tree,
      dirty,
      commits: history.commits,
      ...(published ? publishedMeta(published) : {}),
      ...(overridden.length ? { overridden } : {}),
      ...(!w.lineLevel ? { fileLevelOnly: true } : {}),
    },
  };
}

/**
 * A teammate's state tree is not trusted: the directories along its changed paths are read and
 * their entries checked as git fsck checks them (`.`, `..`, `.git`, an empty name, a `/` in a
 * name). Each offending entry is a problem; the agent is incomplete. (Paths under `..` or `.git`
 * are then left out by `withSafePaths`; an entry named `a/b` would read as a path inside.)
 */
async function hostileTreeReason(
  agent: string,
  git: GitService,
  root: string,
  entries: readonly { path: string; oldPath?: string }[],
  own: Problem[],
): Promise<string[]> {
  const read = new Map<string, Promise<Map<string, TreeEntry> | undefined>>();
  const bad = new Set<string>();
  const open = (id: string, dir: string): Promise<Map<string, TreeEntry> | undefined> => {
    let hit = read.get(id);
    if (!hit) {
      hit = git.readObject(id).then(
        (body) => {
          const list = parseTreeObject(body);
          for (const name of list.keys())
            if (name.includes('/') || unsafeRepoPath(name) !== undefined) bad.add(dir ? `${dir}/${name}` : name);
          return list;
        },
        () => undefined,
      );
      read.set(id, hit);
    }
    return hit;
  };
  const paths = new Set(entries.flatMap((e) => (e.oldPath ? [e.path, e.oldPath] : [e.path])));
  await Promise.all(
    [...paths].map(async (path) => {
      const parts = path.split('/');
      let id: string | undefined = root;
      let dir = '';
      for (let i = 0; i < parts.length - 1 && id; i++) {
        const entry: TreeEntry | undefined = (await open(id, dir))?.get(parts[i]!);
        dir = dir ? `${dir}/${parts[i]}` : parts[i]!;
        id = entry?.mode === '40000' ? entry.id : undefined;
      }
      if (id) await open(id, dir);
    }),
  );
  for (const entry of bad)
    own.push(unsafePath(agent, entry, 'is a tree entry git fsck refuses (".", "..", ".git", an empty name or a "/" in a name)'));
  return bad.size > 0 ? [`its published tree holds entries git fsck refuses (${[...bad].map((b) => JSON.stringify(b)).join(', ')})`] : [];
}

/**
 * Every path an agent names — its edits (a published tree may hold `..` or `.git` entries), its
 * declared intent (observations, a teammate's publication) — passes `unsafeRepoPath` or is left
 * out with a problem, and the agent is incomplete (`unknown`, never `clear`).
 */
function withSafePaths(agent: Agent, own: Problem[]): Agent {
  const refused: string[] = [];
  const safe = (path: string): boolean => {
    const why = unsafeRepoPath(path);
    if (why === undefined) return true;
    own.push(unsafePath(agent.id, path, why));
    refused.push(path);
    return false;
  };
  const files = agent.files.filter((f) => safe(f.path) && (f.oldPath === undefined || safe(f.oldPath)));
  // Intent is typed by people and orchestrators: `./src/a.ts` is `src/a.ts`, as the scanner reads it.
  const intent = agent.intent?.map((p) => p.replace(/^\.\//, '')).filter(safe);
  if (refused.length === 0) return intent ? { ...agent, intent } : agent;
  return {
    ...agent,
    files,
    ...(intent ? { intent } : {}),
    incomplete: [
      ...(agent.incomplete ?? []),
      `it names paths outside the work tree (${refused.map((p) => JSON.stringify(p)).join(', ')}), left out`,
    ],
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
  repository: RepositoryInfo,
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
function unreadablePublished(
  c: AgentCandidate,
  p: NonNullable<AgentCandidate['published']>,
  baseRef: string,
  repository: RepositoryInfo,
  now: number,
): Agent {
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

function publishedMeta(p: NonNullable<AgentCandidate['published']>): Record<string, unknown> {
  return {
    remote: p.remote,
    ...(p.publishedAt !== undefined ? { publishedAt: new Date(p.publishedAt).toISOString() } : {}),
    ...(p.expiresAt !== undefined ? { expiresAt: new Date(p.expiresAt).toISOString() } : {}),
  };
}

function overridesFor(overrides: ReadContext['overrides'], worktree: string | undefined): Record<string, string | Buffer> | undefined {
  return worktree && overrides ? worktreeOverrides(overrides, worktree) : undefined;
}

/** The buffers of one worktree among an editor's overrides, by repository-relative path. */
export function worktreeOverrides(
  overrides: NonNullable<ReadContext['overrides']>,
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
