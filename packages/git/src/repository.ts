/**
 * Where the repository is and what the scan base is. Two git calls at most; every failure is a
 * GitSourceError with a sentence a user can act on.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { END_OF_OPTIONS, GitError, isOptionLike, runGit, runGitRaw } from './exec.js';
import { GitSourceError, noCommitsYet, noDefaultBase, noSuchDirectory, notARepository, unknownBase } from './problems.js';
import { readRegularFileSync } from './worktree-file.js';

export interface RepositoryInfo {
  /** Identity shared by every worktree of the repository: its common git directory. */
  readonly id: string;
  /** Top of the work tree `repo` is in (the common git directory for a bare repository). */
  readonly root: string;
  /** The git directory of that work tree (`.git`, or `.git/worktrees/<name>` for a linked one). */
  readonly gitDir: string;
  /** The directory shared by all worktrees: objects, refs, config. */
  readonly commonDir: string;
  readonly bare: boolean;
}

export interface BaseInfo {
  /** The ref as given, or the default that was found (e.g. `origin/main`, `main`). */
  readonly ref: string;
  readonly commit: string;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Finds the repository containing `dir`; throws NOT_A_REPOSITORY otherwise. */
export async function openRepository(dir: string): Promise<RepositoryInfo> {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st) throw noSuchDirectory(dir, 'missing');
  if (!st.isDirectory()) throw noSuchDirectory(dir, 'file');
  let lines: string[];
  try {
    const out = await runGit(['rev-parse', '--absolute-git-dir', '--git-common-dir', '--is-bare-repository'], { cwd: dir });
    lines = out.split('\n');
  } catch (e) {
    if (e instanceof GitSourceError) throw e; // git not found
    throw notARepository(dir, e instanceof GitError ? e.stderr : String(e instanceof Error ? e.message : e));
  }
  const gitDir = real(lines[0] ?? '');
  const commonDir = real(resolve(dir, lines[1] ?? '.'));
  const bare = lines[2] === 'true';
  let root = commonDir;
  if (!bare) {
    try {
      root = real((await runGit(['rev-parse', '--show-toplevel'], { cwd: dir })).trim());
    } catch (e) {
      // Inside the .git directory itself: the work tree is its parent's.
      root = real(resolve(commonDir, '..'));
      void e;
    }
  }
  return { id: commonDir, root, gitDir, commonDir, bare };
}

/** Resolves a commit-ish to a commit id, or undefined. */
export async function resolveCommit(cwd: string, ref: string): Promise<string | undefined> {
  // An option-shaped ref names no commit (`gitOperand`'s rule; undefined says "unknown base").
  if (isOptionLike(ref) || ref.length === 0) return undefined;
  const r = await runGitRaw(['rev-parse', '--verify', '--quiet', END_OF_OPTIONS, `${ref}^{commit}`], { cwd, okCodes: [1, 128] });
  const id = r.stdout.toString('utf8').trim();
  return r.code === 0 && id ? id : undefined;
}

export const DEFAULT_BASE_CANDIDATES = ['origin/HEAD', 'main', 'master'] as const;

/**
 * The scan base: `ref` when given (unknown → UNKNOWN_BASE naming it), else the repository's
 * default branch: origin/HEAD (reported as the branch it points at), then main, then master. A
 * repository with no commits at all is told so, not asked for a base it cannot have.
 */
export async function resolveBase(cwd: string, ref?: string): Promise<BaseInfo> {
  if (ref !== undefined) {
    const commit = await resolveCommit(cwd, ref);
    if (!commit) throw (await hasCommits(cwd)) ? unknownBase(ref) : noCommitsYet();
    return { ref, commit };
  }
  for (const candidate of DEFAULT_BASE_CANDIDATES) {
    const commit = await resolveCommit(cwd, candidate);
    if (!commit) continue;
    let name: string = candidate;
    if (candidate === 'origin/HEAD') {
      const sym = await runGitRaw(['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'], { cwd, okCodes: [1, 128] });
      name = sym.code === 0 ? sym.stdout.toString('utf8').trim() || candidate : candidate;
    }
    return { ref: name, commit };
  }
  throw (await hasCommits(cwd)) ? noDefaultBase(DEFAULT_BASE_CANDIDATES) : noCommitsYet();
}

/** Whether any ref of the repository names a commit (a fresh `git init` has none). */
async function hasCommits(cwd: string): Promise<boolean> {
  const r = await runGitRaw(['rev-list', '--all', '--max-count=1'], { cwd, okCodes: [128] });
  return r.code !== 0 || r.stdout.length > 0;
}

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The commit a worktree's HEAD points at, read from its files (`.git` → HEAD → loose or packed
 * ref) without starting git — an editor's save asks this every time. Undefined when the layout is
 * not one this reads (reftable, an unborn branch, anything odd): ask `git rev-parse HEAD` then.
 */
export function readHeadCommit(worktree: string): string | undefined {
  const dotGit = resolve(worktree, '.git');
  let gitDir = dotGit;
  const file = readText(dotGit);
  if (file !== undefined) {
    const m = /^gitdir: (.+)$/m.exec(file);
    if (!m) return undefined;
    gitDir = resolve(worktree, m[1]!.trim());
  }
  const common = readText(join(gitDir, 'commondir'));
  const commonDir = common === undefined ? gitDir : resolve(gitDir, common.trim());
  if (existsSync(join(commonDir, 'reftable'))) return undefined;
  let head = readText(join(gitDir, 'HEAD'))?.trim();
  for (let depth = 0; head !== undefined && depth < 5; depth++) {
    if (OID.test(head)) return head;
    const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
    if (!ref || ref.includes('..')) return undefined;
    head = (readText(join(gitDir, ref)) ?? readText(join(commonDir, ref)))?.trim();
    if (head === undefined) {
      // Packed: `<oid> <ref>` lines (peeled `^<oid>` lines follow tags).
      const packed = readText(join(commonDir, 'packed-refs')) ?? '';
      for (const line of packed.split('\n')) {
        const sp = line.indexOf(' ');
        if (sp > 0 && line.slice(sp + 1).trim() === ref) return OID.test(line.slice(0, sp)) ? line.slice(0, sp) : undefined;
      }
      return undefined;
    }
  }
  return undefined;
}

/** Worktree creation time: birth (or change) time of its git directory. */
export function creationTime(gitDir: string | undefined): number | undefined {
  if (!gitDir) return undefined;
  try {
    const st = statSync(gitDir);
    return st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs;
  } catch {
    return undefined;
  }
}

/**
 * How many entries the work tree's index holds, read from its header: the repository's size at
 * the cost of one small read, before anything is listed. Undefined when there is no readable
 * index (a bare repository, a damaged file).
 */
export function indexEntryCount(gitDir: string): number | undefined {
  const read = readRegularFileSync(join(gitDir, 'index'));
  if (!('content' in read) || read.content.length < 12 || read.content.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  return read.content.readUInt32BE(8);
}
