/**
 * `patchAgent`: an agent read before, with only some of its paths read again — an editor's save
 * or a watcher's file event in a 10,000-file worktree costs a few files, not a snapshot of the
 * whole work tree. The state tree is changed in memory (`TreeModel`: only the directories along
 * the paths are read) and written as loose objects into the scratch store; only the changed paths are diffed against the merge base, with the same
 * `git diff-tree` flags as a full read, so the edits are the ones a full read would give.
 *
 * Whenever the shortcut could be wrong it declines (`{ fallback: why }`) and the caller reads the
 * agent in full: HEAD moved, a path is now a directory or a symbolic link, a file is over the size
 * limit, the agent was read file-level only.
 */
import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { Agent, FileEdit, RecencyOptions } from '@airspace/core';
import { writeLooseBlob } from './blob.js';
import { runGit } from './exec.js';
import type { GitService } from './service.js';
import type { TreeModel } from './tree-model.js';
import { readHeadCommit } from './repository.js';
import { hasRawBytes } from './path-bytes.js';
import { normalizeRelPath } from './state-tree.js';
import { unsafeRepoPath } from './repo-path.js';
import { readWorktreeFileSync } from './worktree-file.js';
import { blobSizes, diffTrees, fileMtime, toFileEdit } from './working-set.js';

export interface PatchAgentOptions {
  /** The service the agent was loaded with (its state and scratch store). */
  readonly git: GitService;
  /** The agent as last loaded (by `loadAgents` or `patchAgent`). */
  readonly agent: Agent;
  /** Repository-relative paths that may have changed since (saved files, watcher events). */
  readonly paths: readonly string[];
  /** The worktree's unsaved buffers now (repository-relative path → text), all of them. */
  readonly overrides?: Readonly<Record<string, string | Buffer>>;
  readonly now?: number;
  readonly recency?: RecencyOptions;
}

/** `agent` is the given object itself when nothing changed. */
export type PatchAgentResult = { readonly agent: Agent } | { readonly fallback: string };

const isFile = (st: Stats | undefined): boolean => st !== undefined && st.isFile();

function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw e;
  }
}

export async function patchAgent(options: PatchAgentOptions): Promise<PatchAgentResult> {
  const { git, agent } = options;
  const state = git.state(agent);
  const dir = agent.worktree;
  if (!state || !dir || state.worktree === undefined) return { fallback: 'not a worktree agent read before' };
  if (!state.mergeBase || !state.head) return { fallback: 'no merge base or no commit yet' };
  if (agent.incomplete?.length || agent.meta?.fileLevelOnly) return { fallback: 'read file-level only' };
  const now = options.now ?? Date.now();

  const overrides = new Map<string, string | Buffer>();
  for (const [key, text] of Object.entries(options.overrides ?? {})) {
    const p = normalizeRelPath(key);
    if (p) overrides.set(p, text);
  }
  const before = new Set((agent.meta?.overridden as readonly string[] | undefined) ?? []);
  const paths = pathsToRead(options.paths, overrides, before);
  if (typeof paths === 'string') return { fallback: paths };

  const head = readHeadCommit(dir) ?? (await runGit(['rev-parse', '--verify', '-q', 'HEAD'], { cwd: dir, okCodes: [1] })).trim();
  if (head !== state.head) return { fallback: 'HEAD moved' };
  const model = git.treeModel(agent);
  if (!model) return { fallback: 'no state tree' };
  await model.load(paths);
  const next = readPaths(paths, model, dir, overrides, git.maxFileBytes);
  if (typeof next === 'string') return { fallback: next };
  const changed = await applyToModel(next, model, dir, git.scratch.objectsDir);

  const overridden = [...overrides.keys()].sort();
  if (changed.size === 0 && overridden.join('\0') === [...before].sort().join('\0')) {
    // Nothing changed (a watcher's echo of a save already read): the very same agent.
    return { agent };
  }
  const meta = { ...agent.meta, ...(overridden.length ? { overridden } : {}) };
  if (!overridden.length) delete (meta as Record<string, unknown>).overridden;
  if (changed.size === 0) return { agent: { ...agent, meta } };

  const tree = model.write(git.scratch.objectsDir);
  const files = await rediffChanged(options, { dir, mergeBase: state.mergeBase, tree, changed, overrides, now });
  git.register({ ...state, tree, dirty: true });
  return { agent: { ...agent, files, meta: { ...meta, tree, dirty: true } } };
}

/** The paths to read again: the changed ones, and every buffer opened, changed or closed since the last read; or why not (a fallback). */
function pathsToRead(
  changed: readonly string[],
  overrides: ReadonlyMap<string, string | Buffer>,
  before: ReadonlySet<string>,
): Set<string> | string {
  const paths = new Set<string>();
  for (const p of [...changed, ...overrides.keys(), ...before]) {
    const path = normalizeRelPath(p);
    if (!path || path === '.git' || path.startsWith('.git/')) continue;
    if (unsafeRepoPath(path)) return `${p} is outside the worktree`;
    // The tree model and the file system take text names; such a name is read in full instead.
    if (hasRawBytes(path)) return `${p} is a name that is not UTF-8`;
    paths.add(path);
  }
  return paths;
}

/** A path's content now (none: deleted), and whether it is untracked. */
interface NextContent {
  readonly path: string;
  readonly content?: Buffer | string;
  readonly stat?: Stats;
  readonly overridden: boolean;
  readonly untracked: boolean;
}

/** Each path's content now, from its buffer or the work tree; or why the shortcut declines (a fallback). */
function readPaths(
  paths: ReadonlySet<string>,
  model: TreeModel,
  dir: string,
  overrides: ReadonlyMap<string, string | Buffer>,
  maxBytes: number,
): NextContent[] | string {
  const next: NextContent[] = [];
  for (const path of paths) {
    if (model.isDirectory(path)) return `${path} is a directory`;
    const old = model.file(path);
    if (old && old.mode !== '100644' && old.mode !== '100755') return `${path} is a symbolic link or a submodule`;
    const override = overrides.get(path);
    const stat = statOf(join(dir, path));
    if (override !== undefined) {
      next.push({ path, content: override, ...(stat ? { stat } : {}), overridden: true, untracked: false });
      continue;
    }
    if (stat && !isFile(stat)) return `${path} is not a regular file`;
    if (stat && stat.size > maxBytes) return `${path} is over the size limit`;
    const untracked = stat !== undefined && !old;
    if (!stat) {
      next.push({ path, overridden: false, untracked });
      continue;
    }
    // Read as every work-tree file is: regular, inside the work tree, bounded (`readWorktreeFileSync`).
    const read = readWorktreeFileSync(dir, path, maxBytes);
    if (!('content' in read)) return `${path} was not read (${read.detail})`;
    next.push({ path, stat, content: read.content, overridden: false, untracked });
  }
  return next;
}

/** Sets each path's new blob in the tree model (or removes it); the paths that changed. */
async function applyToModel(next: readonly NextContent[], model: TreeModel, dir: string, objectsDir: string): Promise<Set<string>> {
  // New files count only when git would add them (`git add -A` leaves ignored files out).
  const untracked = next.filter((n) => n.untracked).map((n) => n.path);
  const ignored = new Set<string>();
  if (untracked.length) {
    const out = await runGit(['check-ignore', '-z', '--stdin'], { cwd: dir, input: untracked.join('\0') + '\0', okCodes: [1] });
    for (const p of out.split('\0')) if (p) ignored.add(p);
  }
  const changed = new Set<string>();
  for (const n of next) {
    const old = model.file(n.path);
    if (n.content === undefined || ignored.has(n.path)) {
      if (old) {
        model.remove(n.path);
        changed.add(n.path);
      }
      continue;
    }
    const mode = n.stat && n.stat.mode & 0o111 ? '100755' : '100644';
    const id = writeLooseBlob(objectsDir, n.content);
    if (old?.id === id && old.mode === mode) continue;
    model.set(n.path, { mode, id });
    changed.add(n.path);
  }
  return changed;
}

/** The agent's files with the changed paths (and their renames' other sides) diffed again against the merge base. */
async function rediffChanged(
  options: PatchAgentOptions,
  at: {
    readonly dir: string;
    readonly mergeBase: string;
    readonly tree: string;
    readonly changed: ReadonlySet<string>;
    readonly overrides: ReadonlyMap<string, string | Buffer>;
    readonly now: number;
  },
): Promise<FileEdit[]> {
  const { git, agent } = options;
  const { dir, changed, overrides, now } = at;
  const recency = options.recency ?? git.recency;
  const maxBytes = git.maxFileBytes;
  // A renamed file's other side is diffed with it, so the rename is found again (or undone).
  const diffPaths = new Set(changed);
  for (const f of agent.files) {
    if (f.oldPath && changed.has(f.path)) diffPaths.add(f.oldPath);
    if (f.oldPath && changed.has(f.oldPath)) diffPaths.add(f.path);
  }
  const env = git.scratch.env();
  const entries = await diffTrees(dir, env, at.mergeBase, at.tree, maxBytes, [...diffPaths].sort());
  const binary = entries
    .filter((e) => e.binary)
    .flatMap((e) => [e.newBlob, e.oldBlob])
    .filter((x): x is string => !!x);
  const sizes = binary.length ? await blobSizes(dir, env, binary) : new Map<string, number>();
  const fresh: FileEdit[] = [];
  for (const e of entries) {
    const edit = toFileEdit(e, {
      lastEditedAt: (path) => (overrides.has(path) ? now : fileMtime(dir, path)),
      // Paths an editor just saved or changed in a buffer: work in progress, current.
      uncommitted: () => true,
      now,
      recency,
      tooLarge: (blob) => blob !== undefined && (sizes.get(blob) ?? 0) > maxBytes,
      wholeFiles: false,
    });
    if (edit) fresh.push(edit);
  }
  return [...agent.files.filter((f) => !diffPaths.has(f.path) && !(f.oldPath && diffPaths.has(f.oldPath))), ...fresh].sort((x, y) =>
    x.path < y.path ? -1 : x.path > y.path ? 1 : 0,
  );
}
