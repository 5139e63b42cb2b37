/**
 * Where agents come from: the repository's worktrees (default), local branches, remote-tracking
 * branches matching a pattern, or an orchestrator's JSON observations. Each source yields
 * candidates; `loadAgents` turns a candidate with changes into an Agent.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { END_OF_OPTIONS, gitOperand, runGit, runGitRaw } from './exec.js';
import { readRegularFileSync } from './worktree-file.js';
import { invalidObservations, invalidSource } from './problems.js';

export type AgentSourceKind = 'worktree' | 'branch' | 'remote' | 'observation' | 'published';

/**
 * `'worktrees'` (every worktree, the main one included), `'branches'` (local branches),
 * `'remote:<pattern>'` (remote-tracking branches, e.g. `remote:origin/agent/*`), or
 * `{ observations }`: an orchestrator's list, as JSON text or parsed (see `parseObservations`), or
 * `'published:<remote>'`: teammates' states published to a remote (`team.ts`).
 */
export type AgentSource =
  'worktrees' | 'branches' | `remote:${string}` | `published:${string}` | { readonly observations: unknown; readonly relativeTo?: string };

/** What a published observation says about its agent (see team.ts, docs/observations.md). */
export interface PublishedState {
  /** The remote as named in the source. */
  readonly remote: string;
  /** The published state's tree (in the team store); undefined when it could not be read. */
  readonly tree?: string;
  /** Right of way as recorded from the real branch. */
  readonly committedWork: number;
  readonly publishedAt?: number;
  readonly expiresAt?: number;
  /** Paths changed from the merge base, as recorded (a file-level stand-in when objects are missing). */
  readonly paths: readonly string[];
  readonly mergeBase?: string;
  readonly baseRef?: string;
  /** Why this observation is incomplete (expired, stale, unreadable). */
  readonly incomplete: readonly string[];
  /** Published by this clone. */
  readonly self: boolean;
  /** The publisher's branch (`refs/heads/…`), when on one. */
  readonly branch?: string;
}

/** One would-be agent before its working set is read. */
export interface AgentCandidate {
  readonly id: string;
  readonly label: string;
  readonly source: AgentSourceKind;
  /** Work tree directory, for candidates whose uncommitted and untracked work counts. */
  readonly worktree?: string;
  /** The worktree's own git directory (holds its index and HEAD). */
  readonly gitDir?: string;
  /** Commit the candidate is at; undefined for an unborn branch. */
  readonly head?: string;
  /** Full ref name (`refs/heads/alice`) when on a branch. */
  readonly ref?: string;
  readonly detached?: boolean;
  /** Per-agent base ref (observations or config). */
  readonly base?: string;
  readonly startedAt?: number;
  readonly intent?: readonly string[];
  /** For a published agent: its observation. */
  readonly published?: PublishedState;
}

/** A worktree's git directory, read from its `.git` file (linked) or directory (main). */
export function worktreeGitDir(dir: string): string | undefined {
  const dotGit = join(dir, '.git');
  try {
    const st = statSync(dotGit);
    if (st.isDirectory()) return dotGit;
    const m = /^gitdir: (.*)$/m.exec(readFileSync(dotGit, 'utf8'));
    if (!m?.[1]) return undefined;
    return isAbsolute(m[1]) ? m[1] : resolve(dir, m[1]);
  } catch {
    return undefined;
  }
}

export interface WorktreeRecord {
  readonly dir: string;
  readonly head?: string;
  readonly ref?: string;
  readonly detached: boolean;
  readonly bare: boolean;
  readonly prunable: boolean;
}

/** Parses `git worktree list --porcelain -z`. */
export function parseWorktreeList(output: string): WorktreeRecord[] {
  const records: WorktreeRecord[] = [];
  let cur: { dir?: string; head?: string; ref?: string; detached: boolean; bare: boolean; prunable: boolean } | undefined;
  const push = () => {
    if (cur?.dir)
      records.push({
        dir: cur.dir,
        detached: cur.detached,
        bare: cur.bare,
        prunable: cur.prunable,
        ...(cur.head ? { head: cur.head } : {}),
        ...(cur.ref ? { ref: cur.ref } : {}),
      });
    cur = undefined;
  };
  for (const field of output.split('\0')) {
    if (field === '') {
      push();
      continue;
    }
    const space = field.indexOf(' ');
    const key = space < 0 ? field : field.slice(0, space);
    const value = space < 0 ? '' : field.slice(space + 1);
    if (key === 'worktree') {
      push();
      cur = { dir: value, detached: false, bare: false, prunable: false };
    } else if (cur) {
      if (key === 'HEAD' && !/^0+$/.test(value)) cur.head = value;
      else if (key === 'branch') cur.ref = value;
      else if (key === 'detached') cur.detached = true;
      else if (key === 'bare') cur.bare = true;
      else if (key === 'prunable') cur.prunable = true;
    }
  }
  push();
  return records;
}

const shortBranch = (ref: string): string => ref.replace(/^refs\/heads\//, '').replace(/^refs\/remotes\//, '');

/** Gives every candidate a unique id: a clash gets `@<n>` appended, in listing order. */
function uniqueIds<T extends { id: string }>(items: T[]): T[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const n = seen.get(item.id) ?? 0;
    seen.set(item.id, n + 1);
    return n === 0 ? item : { ...item, id: `${item.id}@${n + 1}` };
  });
}

export async function worktreeCandidates(cwd: string): Promise<{ candidates: AgentCandidate[]; skipped: { dir: string; why: string }[] }> {
  const out = await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd });
  const skipped: { dir: string; why: string }[] = [];
  const candidates: {
    id: string;
    label: string;
    source: AgentSourceKind;
    worktree: string;
    gitDir: string;
    head?: string;
    ref?: string;
    detached: boolean;
  }[] = [];
  for (const w of parseWorktreeList(out)) {
    if (w.bare) continue;
    const gitDir = w.prunable || !existsSync(w.dir) ? undefined : worktreeGitDir(w.dir);
    if (!gitDir) {
      skipped.push({ dir: w.dir, why: 'its directory is missing (prunable worktree)' });
      continue;
    }
    const id = w.ref ? shortBranch(w.ref) : basename(w.dir);
    candidates.push({
      id,
      label: w.ref ? id : `${id} (detached)`,
      source: 'worktree',
      worktree: w.dir,
      gitDir,
      detached: !w.ref,
      ...(w.head ? { head: w.head } : {}),
      ...(w.ref ? { ref: w.ref } : {}),
    });
  }
  return { candidates: uniqueIds(candidates), skipped };
}

/**
 * The id the worktree source gives the worktree at `dir` (its branch, else its folder's name, with
 * git's `@n` for a clash), or undefined when it is no worktree of the repository: the one way an
 * agent id is derived for a worktree that has no agent yet (declared intent, a check's probe).
 */
export async function worktreeAgentId(repo: string, dir: string): Promise<string | undefined> {
  const { candidates } = await worktreeCandidates(repo);
  const same = (a: string, b: string): boolean => {
    if (resolve(a) === resolve(b)) return true;
    try {
      return realpathSync(a) === realpathSync(b);
    } catch {
      return false;
    }
  };
  return candidates.find((c) => c.worktree !== undefined && same(c.worktree, dir))?.id;
}

async function refCandidates(cwd: string, patterns: string[], source: AgentSourceKind): Promise<AgentCandidate[]> {
  for (const p of patterns) gitOperand(p, 'ref pattern');
  const out = await runGit(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(symref)', END_OF_OPTIONS, ...patterns], { cwd });
  const candidates: AgentCandidate[] = [];
  // One line per ref: `refname NUL objectname NUL symref` (ref names cannot hold NUL or LF).
  for (const line of out.split('\n')) {
    const [refname, head, symref] = line.split('\0');
    if (!refname || !head || symref) continue; // origin/HEAD and other symbolic refs are aliases, not agents
    const id = shortBranch(refname);
    candidates.push({ id, label: id, source, ref: refname, head, detached: false });
  }
  return candidates;
}

export function branchCandidates(cwd: string): Promise<AgentCandidate[]> {
  return refCandidates(cwd, ['refs/heads/'], 'branch');
}

/** `pattern` as in `remote:origin/agent/*` (without `refs/remotes/`). */
export async function remoteCandidates(cwd: string, pattern: string): Promise<AgentCandidate[]> {
  gitOperand(pattern, 'the ref pattern of source');
  const p = pattern.startsWith('refs/') ? pattern : `refs/remotes/${pattern}`;
  return refCandidates(cwd, [p], 'remote');
}

/**
 * Observations from an orchestrator (JSON text or the parsed value):
 *
 *   { "version": 1,
 *     "agents": [
 *       { "id": "alice", "worktree": "../alice" },              // full state of a work tree
 *       { "id": "bob", "ref": "agent/bob", "label": "Bob",      // or the committed state of a ref
 *         "base": "release", "startedAt": "2026-01-01T09:00:00Z", "intent": ["src/a.ts"] } ] }
 *
 * A bare array of agents is accepted too. Each agent needs a unique non-empty `id` and exactly
 * one of `worktree` (a directory, relative to `relativeTo`) or `ref` (any commit-ish).
 * `startedAt` is an ISO date or milliseconds since the epoch. Errors name the offending entry.
 */
export function parseObservations(input: unknown, relativeTo: string): AgentCandidate[] {
  let value = input;
  if (typeof input === 'string' || Buffer.isBuffer(input)) {
    try {
      value = JSON.parse(input.toString());
    } catch (e) {
      throw invalidObservations(`not JSON (${e instanceof Error ? e.message : String(e)})`);
    }
  }
  const list = Array.isArray(value) ? value : value && typeof value === 'object' ? (value as { agents?: unknown }).agents : undefined;
  if (!Array.isArray(list)) throw invalidObservations('expected an object with an "agents" array, or an array of agents');
  if (!Array.isArray(value) && value && typeof value === 'object') {
    const version = (value as { version?: unknown }).version;
    if (version !== undefined && version !== 1)
      throw invalidObservations(`unsupported version ${JSON.stringify(version)} (this reader knows version 1)`);
  }
  const ids = new Set<string>();
  return list.map((raw, i): AgentCandidate => {
    const where = `agents[${i}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalidObservations(`${where} is not an object`);
    const o = raw as Record<string, unknown>;
    if (typeof o.id !== 'string' || o.id.trim() === '') throw invalidObservations(`${where}.id must be a non-empty string`);
    if (ids.has(o.id)) throw invalidObservations(`${where}.id "${o.id}" is used twice`);
    ids.add(o.id);
    const hasWorktree = typeof o.worktree === 'string' && o.worktree !== '';
    const hasRef = typeof o.ref === 'string' && o.ref !== '';
    if (hasWorktree === hasRef)
      throw invalidObservations(`${where} ("${o.id}") needs exactly one of "worktree" (a directory) or "ref" (a commit-ish)`);
    for (const key of ['label', 'base'] as const) {
      if (o[key] !== undefined && typeof o[key] !== 'string') throw invalidObservations(`${where}.${key} must be a string`);
    }
    let startedAt: number | undefined;
    if (o.startedAt !== undefined) {
      startedAt = typeof o.startedAt === 'number' ? o.startedAt : typeof o.startedAt === 'string' ? Date.parse(o.startedAt) : NaN;
      if (!Number.isFinite(startedAt)) throw invalidObservations(`${where}.startedAt must be an ISO date or milliseconds since the epoch`);
    }
    if (o.intent !== undefined && !(Array.isArray(o.intent) && o.intent.every((p) => typeof p === 'string'))) {
      throw invalidObservations(`${where}.intent must be an array of paths`);
    }
    const worktree = hasWorktree ? resolve(relativeTo, o.worktree as string) : undefined;
    return {
      id: o.id,
      label: typeof o.label === 'string' ? o.label : o.id,
      source: 'observation',
      detached: false,
      ...(worktree ? { worktree } : {}),
      ...(hasRef ? { ref: o.ref as string } : {}),
      ...(typeof o.base === 'string' ? { base: o.base } : {}),
      ...(startedAt !== undefined ? { startedAt } : {}),
      ...(o.intent ? { intent: o.intent as string[] } : {}),
    };
  });
}

/**
 * Resolves observation candidates against git: a worktree's git dir, HEAD and branch; a ref's
 * commit. Unreadable entries are returned in `skipped` with the reason.
 */
export async function resolveObservationCandidates(
  candidates: readonly AgentCandidate[],
): Promise<{ candidates: AgentCandidate[]; skipped: { dir: string; why: string }[] }> {
  const out: AgentCandidate[] = [];
  const skipped: { dir: string; why: string }[] = [];
  for (const c of candidates) {
    if (c.worktree) {
      const gitDir = existsSync(c.worktree) ? worktreeGitDir(c.worktree) : undefined;
      if (!gitDir) {
        skipped.push({ dir: c.worktree, why: `agent "${c.id}": not a git work tree root` });
        continue;
      }
      const head = await runGitRaw(['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: c.worktree, okCodes: [1, 128] });
      const sym = await runGitRaw(['symbolic-ref', '--quiet', 'HEAD'], { cwd: c.worktree, okCodes: [1, 128] });
      const headId = head.code === 0 ? head.stdout.toString().trim() : undefined;
      const ref = sym.code === 0 ? sym.stdout.toString().trim() : undefined;
      out.push({ ...c, gitDir, detached: !ref, ...(headId ? { head: headId } : {}), ...(ref ? { ref } : {}) });
    } else {
      out.push(c); // a ref: resolved against the repository by loadAgents
    }
  }
  return { candidates: out, skipped };
}

/** Parses a source spec as the CLI spells it: worktrees | branches | remote:<pattern> | published:<remote> | json:<file>. */
export function parseSourceSpec(spec: string, cwd: string = process.cwd()): AgentSource {
  if (spec === 'worktrees' || spec === 'branches') return spec;
  if (spec.startsWith('remote:') && spec.length > 'remote:'.length) {
    gitOperand(spec.slice('remote:'.length), 'the ref pattern of source');
    return spec as `remote:${string}`;
  }
  if (spec.startsWith('published:') && spec.length > 'published:'.length) {
    gitOperand(spec.slice('published:'.length), 'the remote of source');
    return spec as `published:${string}`;
  }
  if (spec.startsWith('json:') && spec.length > 'json:'.length) {
    const file = resolve(cwd, spec.slice('json:'.length));
    // A file the user names: a regular file only, so a FIFO or a device never blocks.
    const read = readRegularFileSync(file, { followLinks: true });
    if (!('content' in read)) throw invalidObservations(`cannot read ${file} (${read.detail})`);
    const text = read.content.toString('utf8');
    return { observations: text, relativeTo: resolve(file, '..') };
  }
  // A bare file name is the likely slip: say how to name it.
  if (existsSync(resolve(cwd, spec))) throw invalidSource(spec, `to read agent observations from that file, write json:${spec}`);
  throw invalidSource(spec);
}
