/**
 * A repository's commit history for co-change: mined once (one `git log` per mining), cached by
 * commit under `<git common dir>/airspace/cache/history-v1/`, extended incrementally (only the
 * commits not mined yet: `git log NEW --not KNOWN-TIPS`), and read as of any commit — only that
 * commit's ancestors, the most recent `window` of them, never a later commit.
 *
 *   const history = await CommitHistory.open(repository);
 *   const view = await history.viewAt(commit, { window: 3000, maxFilesPerCommit: 30 });
 *   view?.partners('src/a.ts', 2); // files changed with src/a.ts in ≥ 2 commits of the window
 */
import { join } from 'node:path';
import type { Agent, CoChangeService, CoChangeView, CoChangeViewOptions } from '@airspace/core';
import { END_OF_OPTIONS, isOptionLike, runGit } from '../exec.js';
import { compactSegments, HISTORY_CACHE_DIR, loadSegments, sweepOtherVersions, writeSegment, type Segment } from './cache.js';
import { HistoryGraph, type HistoryView } from './graph.js';
import { mineCommits } from './mine.js';

export interface CommitHistoryOptions {
  /** Directory of the cache; false keeps it in memory only. Default `<common dir>/airspace/cache/history-v1`. */
  readonly cacheDir?: string | false;
}

export const DEFAULT_CO_CHANGE_VIEW: CoChangeViewOptions = { window: 3000, maxFilesPerCommit: 30 };

/** Tips kept as "already mined" markers (older ones only make a mining re-read some commits). */
const MAX_TIPS = 64;

/** A tip as stored: `id` (its whole history mined) or `id~` (one window of it). */
const formatTip = (t: { id: string; complete: boolean }): string => (t.complete ? t.id : `${t.id}~`);
const parseTip = (s: string): { id: string; complete: boolean } =>
  s.endsWith('~') ? { id: s.slice(0, -1), complete: false } : { id: s, complete: true };

const isCommitId = (s: string): boolean => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(s);

export class CommitHistory {
  readonly graph = new HistoryGraph();
  /** Tips mined before: `complete` ones with all their history, the others one window of it. */
  private tips: { id: string; complete: boolean }[] = [];
  private segments: Segment[] = [];
  private readonly problems: string[] = [];
  /** Commits whose own window was mined in full (`git log -n window C`): never mined again. */
  private readonly minedWindows = new Map<string, number>();
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly cwd: string,
    private readonly dir: string | undefined,
  ) {}

  /** Opens the history of the repository at `cwd` (any directory in it; a bare repository too). */
  static async open(cwd: string, options: CommitHistoryOptions = {}): Promise<CommitHistory> {
    let dir: string | undefined;
    if (options.cacheDir !== false) {
      dir =
        options.cacheDir ??
        join(
          (await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd })).trim(),
          'airspace',
          'cache',
          HISTORY_CACHE_DIR,
        );
    }
    const history = new CommitHistory(cwd, dir);
    if (dir) {
      await sweepOtherVersions(dir);
      const loaded = await loadSegments(dir, history.graph);
      if (loaded.damaged) history.problems.push(`The co-change history cache was damaged (${loaded.damaged}); it is mined again.`);
      history.segments = loaded.segments;
      history.tips = loaded.tips.map(parseTip).slice(-MAX_TIPS);
    }
    return history;
  }

  /** Problems met since the last call (a damaged cache, a failed write). */
  takeProblems(): string[] {
    return this.problems.splice(0);
  }

  /** One mining or write at a time. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Mines what `tip`'s history adds to the graph: its commits not reachable from tips mined
   * before, at most `maxCount` (undefined: all of them). Returns how many commits were added.
   */
  ensure(tip: string, maxCount?: number): Promise<number> {
    // A bounded mining (a window) may stop at any tip mined before; a whole history only at
    // tips whose whole history is known.
    return this.serial(() => {
      // Read when its turn comes: a mining queued before this one may have added tips.
      if (this.tips.some((t) => t.id === tip && (t.complete || maxCount !== undefined))) return Promise.resolve(0);
      const exclude = this.tips.filter((t) => maxCount !== undefined || t.complete).map((t) => t.id);
      return this.mine({ tips: [tip], exclude, ...(maxCount !== undefined ? { maxCount } : {}) }, tip);
    });
  }

  private async mine(spec: { tips: string[]; exclude: readonly string[]; maxCount?: number }, tip: string): Promise<number> {
    const from = this.graph.size;
    let walked = 0;
    await mineCommits(this.cwd, spec, (c) => {
      walked++;
      this.graph.add(c);
    });
    const added = this.graph.size - from;
    // Whole history: not cut by --max-count, and stopped only at tips whose history is whole.
    const complete =
      (spec.maxCount === undefined || walked < spec.maxCount) &&
      spec.exclude.every((id) => this.tips.some((t) => t.id === id && t.complete));
    const previous = this.tips.find((t) => t.id === tip);
    this.tips = [...this.tips.filter((t) => t.id !== tip), { id: tip, complete: complete || previous?.complete === true }].slice(-MAX_TIPS);
    if (this.dir && added > 0) {
      try {
        const fresh = Array.from({ length: added }, (_, i) => from + i);
        this.segments.push(await writeSegment(this.dir, this.graph, fresh, [formatTip(this.tips[this.tips.length - 1]!)]));
        this.segments = await compactSegments(this.dir, this.graph, this.segments, this.tips.map(formatTip));
      } catch (error) {
        this.problems.push(
          `The co-change history cache could not be written (${error instanceof Error ? error.message : String(error)}); the history stays in memory.`,
        );
      }
    }
    return added;
  }

  /** The commit id a revision names (ids pass through). */
  private async resolve(rev: string): Promise<string | undefined> {
    if (isCommitId(rev)) return rev;
    if (isOptionLike(rev)) return undefined;
    return runGit(['rev-parse', '--verify', '--quiet', END_OF_OPTIONS, `${rev}^{commit}`], { cwd: this.cwd }).then(
      (s) => s.trim() || undefined,
      () => undefined,
    );
  }

  /**
   * The history as of `rev`: its `window` most recent ancestors (itself included) by commit
   * time. Mines what is missing: the commits new since the cache (bounded by the window), and,
   * when the walk runs off what was mined before the window is full, `rev`'s whole window.
   */
  async viewAt(rev: string, options: CoChangeViewOptions = DEFAULT_CO_CHANGE_VIEW): Promise<HistoryView | undefined> {
    const commit = await this.resolve(rev);
    if (!commit) return undefined;
    if (!this.graph.has(commit)) await this.ensure(commit, options.window);
    let walked = this.graph.walk(commit, options.window);
    if (!walked) return undefined;
    if (walked.taken < options.window && walked.missing && (this.minedWindows.get(commit) ?? 0) < options.window) {
      await this.serial(() => this.mine({ tips: [commit], exclude: [], maxCount: options.window }, commit));
      this.minedWindows.set(commit, options.window);
    }
    return this.graph.view(commit, options);
  }
}

/**
 * The `coChange` service over one history: each agent read as of the commit `commitOf` names
 * (none: the agent predicts nothing).
 */
export function coChangeService(history: CommitHistory, commitOf: (agent: Agent) => string | undefined): CoChangeService {
  const views = new Map<string, Promise<CoChangeView | undefined>>();
  return {
    viewFor(agent, options) {
      const commit = commitOf(agent);
      if (!commit) return Promise.resolve(undefined);
      const key = `${commit}:${options.window}:${options.maxFilesPerCommit}`;
      let view = views.get(key);
      if (!view) {
        view = history.viewAt(commit, options).catch((error: unknown) => {
          views.delete(key);
          throw error;
        });
        views.set(key, view);
      }
      return view;
    },
    takeProblems: () => history.takeProblems(),
  };
}
