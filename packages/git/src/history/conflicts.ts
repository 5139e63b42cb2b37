/**
 * Which files conflicted in the repository's past merges: every merge commit of a view's window is
 * re-merged once (`git merge-tree --stdin` of its first two parents, objects in a scratch store,
 * never the repository's), with the files it brought in against its first parent (one `git log
 * --no-walk --diff-merges=first-parent` per batch). Records are cached by merge commit, one JSON
 * line each, under `<git common dir>/airspace/cache/conflicts-v1/merges.jsonl` (append-only; a torn
 * or unreadable line is skipped and that merge re-merged), so a merge is re-merged once per clone.
 *
 *   const past = await PastConflictHistory.open(history, repositoryRoot);
 *   const view = await past.viewAt(commit, { window: 3000, maxMerges: 300 });
 *   view?.conflicted('src/a.ts'); // merges before `commit` whose re-merge conflicted in src/a.ts
 *
 * A view as of commit C reads only C's ancestors (the co-change `CommitHistory` walk): a merge
 * made after C is never counted.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DEFAULT_PAST_CONFLICTS_VIEW,
  type Agent,
  type PastConflictsService,
  type PastConflictsView,
  type PastConflictsViewOptions,
} from '@airspace/core';
import { runGit, runGitRaw } from '../exec.js';
import { ScratchStore } from '../scratch.js';
import { parseMergeTreeStdin } from '../service.js';
import { STORED_FILES_LIMIT } from './graph.js';
import type { CommitHistory } from './history.js';
import { mineCommits } from './mine.js';

export const CONFLICTS_CACHE_DIR = 'conflicts-v1';
const CACHE_FILE = 'merges.jsonl';

/** Merges re-merged per git process. */
const BATCH = 100;

/** One past merge: the paths its re-merge conflicted in, and the paths it brought in (capped). */
export interface MergeRecord {
  readonly conflicted: readonly string[];
  readonly touched: readonly string[];
}

export interface PastConflictHistoryOptions {
  /** Directory of the cache; false keeps it in memory only. Default `<common dir>/airspace/cache/conflicts-v1`. */
  readonly cacheDir?: string | false;
}

function parseLine(line: string): [string, MergeRecord] | undefined {
  try {
    const v = JSON.parse(line) as unknown;
    if (!Array.isArray(v) || v.length !== 3) return undefined;
    const [id, conflicted, touched] = v as [unknown, unknown, unknown];
    if (typeof id !== 'string' || !Array.isArray(conflicted) || !Array.isArray(touched)) return undefined;
    if (!conflicted.every((p) => typeof p === 'string') || !touched.every((p) => typeof p === 'string')) return undefined;
    return [id, { conflicted: conflicted as string[], touched: touched as string[] }];
  } catch {
    return undefined;
  }
}

export class PastConflictHistory {
  private readonly records = new Map<string, MergeRecord>();
  private readonly problems: string[] = [];
  private scratch: ScratchStore | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly history: CommitHistory,
    private readonly cwd: string,
    private readonly commonDir: string,
    private readonly dir: string | undefined,
  ) {}

  /** Opens the past merges of the repository at `cwd`, over its commit history `history`. */
  static async open(history: CommitHistory, cwd: string, options: PastConflictHistoryOptions = {}): Promise<PastConflictHistory> {
    const commonDir = (await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd })).trim();
    const dir = options.cacheDir === false ? undefined : (options.cacheDir ?? join(commonDir, 'airspace', 'cache', CONFLICTS_CACHE_DIR));
    const past = new PastConflictHistory(history, cwd, commonDir, dir);
    if (dir) {
      const text = await readFile(join(dir, CACHE_FILE), 'utf8').catch(() => '');
      let bad = 0;
      for (const line of text.split('\n')) {
        if (!line) continue;
        const parsed = parseLine(line);
        if (parsed) past.records.set(parsed[0], parsed[1]);
        else bad++;
      }
      if (bad > 0) past.problems.push(`${bad} line(s) of the past-conflicts cache could not be read; those merges are re-merged.`);
    }
    return past;
  }

  /** Merges re-merged so far (from the cache or this process). */
  get size(): number {
    return this.records.size;
  }

  record(merge: string): MergeRecord | undefined {
    return this.records.get(merge);
  }

  takeProblems(): string[] {
    return [...this.problems.splice(0), ...this.history.takeProblems()];
  }

  /** One re-merge batch at a time (a merge asked for twice is merged once). */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Re-merges the merges not known yet (id → first two parents), caching each record. */
  private ensure(merges: ReadonlyMap<string, readonly [string, string]>): Promise<void> {
    return this.serial(async () => {
      const todo = [...merges].filter(([id]) => !this.records.has(id));
      for (let i = 0; i < todo.length; i += BATCH) {
        const batch = todo.slice(i, i + BATCH);
        const fresh = await this.remerge(batch);
        for (const [id, record] of fresh) this.records.set(id, record);
        if (this.dir && fresh.size > 0) {
          try {
            await mkdir(this.dir, { recursive: true });
            const lines = [...fresh].map(([id, r]) => JSON.stringify([id, r.conflicted, r.touched]) + '\n').join('');
            await appendFile(join(this.dir, CACHE_FILE), lines);
          } catch (error) {
            this.problems.push(
              `The past-conflicts cache could not be written (${error instanceof Error ? error.message : String(error)}); the records stay in memory.`,
            );
          }
        }
      }
    });
  }

  private async remerge(batch: readonly (readonly [string, readonly [string, string]])[]): Promise<Map<string, MergeRecord>> {
    this.scratch ??= new ScratchStore(join(this.commonDir, 'objects'));
    const r = await runGitRaw(['merge-tree', '--stdin', '--name-only', '-z'], {
      cwd: this.cwd,
      env: this.scratch.env(),
      input: batch.map(([, [a, b]]) => `${a} ${b}\n`).join(''),
      okCodes: [1, 128],
    });
    const outcomes = parseMergeTreeStdin(r.stdout);
    const touched = new Map<string, string[]>();
    await mineCommits(this.cwd, { tips: batch.map(([id]) => id), mergesAgainstFirstParent: true }, (c) => {
      touched.set(c.id, c.files.length <= STORED_FILES_LIMIT ? [...new Set(c.files)] : []);
    });
    const out = new Map<string, MergeRecord>();
    batch.forEach(([id], i) => {
      // A merge git refused (the batch stops there) is left unknown and asked again next time.
      const outcome = outcomes[i];
      if (!outcome || outcome.error) return;
      out.set(id, { conflicted: outcome.conflicts.map((c) => c.path), touched: touched.get(id) ?? [] });
    });
    if (outcomes.length < batch.length && r.code === 128)
      this.problems.push(`git merge-tree stopped re-merging past merges: ${r.stderr.trim() || 'exit 128'}`);
    return out;
  }

  /**
   * The past merges as of `rev`: merge commits among its `window` most recent ancestors (the commit
   * history's walk), the newest `maxMerges` of them, re-merged where not cached yet.
   */
  async viewAt(rev: string, options: PastConflictsViewOptions = DEFAULT_PAST_CONFLICTS_VIEW): Promise<PastConflictsView | undefined> {
    const asOf = await this.history.viewAt(rev, { window: options.window, maxFilesPerCommit: STORED_FILES_LIMIT });
    if (!asOf) return undefined;
    const graph = this.history.graph;
    const walked = graph.walk(asOf.asOf, options.window);
    if (!walked) return undefined;
    const merges: number[] = [];
    for (let c = 0; c < walked.members.length; c++) if (walked.members[c] && graph.parents[c]!.length >= 2) merges.push(c);
    merges.sort((x, y) => graph.times[y]! - graph.times[x]! || x - y);
    const chosen = merges.slice(0, options.maxMerges).map((c) => graph.ids[c]!);
    await this.ensure(new Map(chosen.map((id) => [id, [graph.parents[graph.indexOf(id)!]![0]!, graph.parents[graph.indexOf(id)!]![1]!]])));
    const touched = new Map<string, number>();
    const conflicted = new Map<string, number>();
    let known = 0;
    // Newest first (`chosen`'s order): whether each known merge conflicted anywhere.
    const newest: boolean[] = [];
    for (const id of chosen) {
      const record = this.records.get(id);
      if (!record) continue;
      known++;
      newest.push(record.conflicted.length > 0);
      const paths = new Set([...record.touched, ...record.conflicted]);
      for (const p of paths) touched.set(p, (touched.get(p) ?? 0) + 1);
      for (const p of new Set(record.conflicted)) conflicted.set(p, (conflicted.get(p) ?? 0) + 1);
    }
    return {
      asOf: asOf.asOf,
      merges: known,
      touched: (path) => touched.get(path) ?? 0,
      conflicted: (path) => conflicted.get(path) ?? 0,
      recentConflictShare: (merges) => {
        const recent = newest.slice(0, Math.max(0, merges));
        return recent.length === 0 ? undefined : recent.filter(Boolean).length / recent.length;
      },
    };
  }

  dispose(): void {
    this.scratch?.dispose();
    this.scratch = undefined;
  }
}

/**
 * The `pastConflicts` service over one repository's past merges: each agent read as of the commit
 * `commitOf` names (none: no view).
 */
export function pastConflictsService(past: PastConflictHistory, commitOf: (agent: Agent) => string | undefined): PastConflictsService {
  const views = new Map<string, Promise<PastConflictsView | undefined>>();
  return {
    viewFor(agent, options) {
      const commit = commitOf(agent);
      if (!commit) return Promise.resolve(undefined);
      const key = `${commit}:${options.window}:${options.maxMerges}`;
      let view = views.get(key);
      if (!view) {
        view = past.viewAt(commit, options).catch((error: unknown) => {
          views.delete(key);
          throw error;
        });
        views.set(key, view);
      }
      return view;
    },
    takeProblems: () => past.takeProblems(),
  };
}
