/**
 * An agent's current state as a git tree, written into the scratch object directory through a
 * copy of its index: HEAD + staged + unstaged + untracked-not-ignored, with an editor's unsaved
 * buffers in place of the files on disk. The worktree's own index is only read (copied).
 */
import { copyFileSync, existsSync, lstatSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { hashFileBlob, writeLooseBlob, writeLooseObject } from './blob.js';
import { GitError, runGit, runGitRaw } from './exec.js';
import { fsPath, pathBytes } from './path-bytes.js';
import type { ScratchStore } from './scratch.js';
import { statusWorktreePaths, takeRecentStatus, WORKTREE_STATUS_ARGS, type StatusPath } from './worktree-status.js';

/** Settings that keep a temporary index self-contained (no shared index files in .git). */
const INDEX_CONFIG = ['-c', 'core.splitIndex=false', '-c', 'core.untrackedCache=false'];

export interface WorktreeSnapshot {
  readonly tree: string;
  /**
   * Untracked files left out of the tree because they are over the size limit, with their blob id
   * (hashed as a stream, so identical files on two sides are known identical; absent: unreadable).
   */
  readonly oversized: readonly OversizedFile[];
  /** Repository-relative paths whose content came from an override. */
  readonly overridden: readonly string[];
}

export interface OversizedFile {
  readonly path: string;
  readonly bytes: number;
  readonly blob?: string;
}

/** Blob ids of files over the size limit by path and stat, so a watcher's every snapshot does not hash them again. */
const oversizedBlobs = new Map<string, string>();

async function oversizedBlob(
  path: string | Buffer,
  st: { size: number; mtimeMs: number; ino: number; ctimeMs: number },
): Promise<string | undefined> {
  const key = `${typeof path === 'string' ? path : path.toString('latin1')}\0${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
  const known = oversizedBlobs.get(key);
  if (known) return known;
  const blob = await hashFileBlob(path, st.size);
  if (blob) {
    if (oversizedBlobs.size >= 1000) oversizedBlobs.clear();
    oversizedBlobs.set(key, blob);
  }
  return blob;
}

/** Normalises an override key (relative, `./`-prefixed or with backslashes) to a repository path. */
export function normalizeRelPath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.\//, '').replace(/^\/+/, '');
}

export async function snapshotWorktree(
  scratch: ScratchStore,
  worktree: { readonly dir: string; readonly gitDir: string },
  options: { readonly overrides?: Readonly<Record<string, string | Buffer>>; readonly maxFileBytes: number },
): Promise<WorktreeSnapshot> {
  const index = scratch.tempPath('index');
  try {
    return await snapshotWith(index);
  } catch (error) {
    // git names the scratch copy; the user needs to hear about their own index.
    const damaged =
      error instanceof GitError &&
      /index file (smaller than expected|corrupt)|bad signature|bad index (file|version)|index uses .* extension/i.exec(error.stderr);
    if (damaged)
      throw new Error(
        `its index ${join(worktree.gitDir, 'index')} is damaged (${damaged[0]}); git status in ${worktree.dir} reports the same.`,
      );
    throw error;
  } finally {
    // A watcher snapshots every few seconds: temporary indexes must not pile up.
    rmSync(index, { force: true });
    rmSync(`${index}.lock`, { force: true });
  }

  async function snapshotWith(index: string): Promise<WorktreeSnapshot> {
    const ownIndex = join(worktree.gitDir, 'index');
    if (existsSync(ownIndex)) {
      copyFileSync(ownIndex, index);
      // Git trusts an entry's stat data only when the file is older than the index file (racy-git
      // rule); a fresh copy would look newer than every file. Keep the original's time, rounded
      // down to the second, so a file written in the same second as the index is still re-read.
      const st = statSync(ownIndex);
      const seconds = Math.floor(st.mtimeMs / 1000);
      utimesSync(index, seconds, seconds);
    }
    const env = scratch.env({ GIT_INDEX_FILE: index });
    const cwd = worktree.dir;
    // One walk of the work tree: the engine's stamp just read it (taken), else status reads it
    // here, against the copied index (so git refreshes the copy, never the user's index).
    const status =
      takeRecentStatus(cwd) ??
      (await runGitRaw([...INDEX_CONFIG, ...WORKTREE_STATUS_ARGS], { cwd, env: { ...env, GIT_OPTIONAL_LOCKS: '0' } })).stdout;
    const changed = statusWorktreePaths(status);
    const oversized = Number.isFinite(options.maxFileBytes) ? await oversizedOf(cwd, changed, options.maxFileBytes) : [];
    await addChanged(cwd, env, changed, oversized);

    const overridden: string[] = [];
    if (options.overrides) {
      const records: string[] = [];
      for (const [key, content] of Object.entries(options.overrides)) {
        const path = normalizeRelPath(key);
        if (!path) continue;
        let mode = '100644';
        try {
          if (lstatSync(join(cwd, path)).mode & 0o111) mode = '100755';
        } catch {
          // A buffer not yet saved to disk: a new regular file.
        }
        const id = writeLooseBlob(scratch.objectsDir, content);
        records.push(`${mode} ${id}\t${path}\0`);
        overridden.push(path);
      }
      if (records.length) await runGit([...INDEX_CONFIG, 'update-index', '-z', '--index-info'], { cwd, env, input: records.join('') });
    }
    const tree = (await runGit(['write-tree'], { cwd, env })).trim();
    return { tree, oversized, overridden };
  }
}

/** Untracked files of the status over the size limit (left out of the tree), with their blob id. */
async function oversizedOf(cwd: string, changed: readonly StatusPath[], maxFileBytes: number): Promise<OversizedFile[]> {
  const oversized: OversizedFile[] = [];
  for (const { path, untracked } of changed) {
    if (!untracked) continue;
    try {
      const st = lstatSync(fsPath(cwd, path));
      if (!st.isFile() || st.size <= maxFileBytes) continue;
      const blob = await oversizedBlob(fsPath(cwd, path), st);
      oversized.push({ path, bytes: st.size, ...(blob ? { blob } : {}) });
    } catch {
      // Vanished between listing and stat: git add will not see it either.
    }
  }
  return oversized;
}

/** Beyond this many changed paths, `git add -A` walks the whole tree rather than match each. */
const MAX_LISTED_PATHS = 2_000;

/**
 * `git add -A` of the paths the status listed (literal pathspecs: git visits only their
 * directories), or of the whole tree when they are many or git refuses one (a path gone since).
 * Pathspecs on standard input, as bytes: a name that is not UTF-8 cannot be an argument.
 */
async function addChanged(
  cwd: string,
  env: Record<string, string>,
  changed: readonly StatusPath[],
  oversized: readonly OversizedFile[],
): Promise<void> {
  const excluded = new Set(oversized.map((o) => o.path));
  const listed = changed.filter((c) => !excluded.has(c.path));
  const exclusions = oversized.map((o) => Buffer.concat([Buffer.from(':(exclude,literal)'), pathBytes(o.path), Buffer.of(0)]));
  const add = (pathspecs: Buffer[]) =>
    runGitRaw([...INDEX_CONFIG, 'add', '-A', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'], {
      cwd,
      env,
      input: Buffer.concat(pathspecs),
      okCodes: [1],
    });
  const whole = () => add([Buffer.from('.\0'), ...exclusions]);
  if (listed.length === 0) return;
  if (listed.length > MAX_LISTED_PATHS) return void (await whole());
  try {
    await add(listed.map((c) => Buffer.concat([Buffer.from(':(literal)'), pathBytes(c.path), Buffer.of(0)])));
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    await whole();
  }
}

/** Fixed identity and date: the same (tree, parent) always gives the same state commit id. */
const STATE_IDENTITY = 'airspace <airspace@localhost> 1000000000 +0000';

/**
 * A scratch commit of `tree` on top of `parent`, so that `merge-tree` finds the right merge base.
 * Written in-process (the object `git commit-tree` would write with that identity and date).
 */
export function writeStateCommit(scratch: ScratchStore, tree: string, parent: string | undefined): string {
  const body = `tree ${tree}\n${parent ? `parent ${parent}\n` : ''}author ${STATE_IDENTITY}\ncommitter ${STATE_IDENTITY}\n\nairspace state\n`;
  return writeLooseObject(scratch.objectsDir, 'commit', body);
}
