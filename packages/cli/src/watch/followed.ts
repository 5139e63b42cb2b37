/**
 * What `watch` and `view` scan with, and how they learn that something moved. Through the
 * repository's resident engine (found or started, held while they run): it follows the worktrees
 * and git's state itself and tells its subscribers when an answer moved, so this process runs no
 * change tracker. Otherwise — `--no-engine`, `AIRSPACE_ENGINE=off`, `--poll` (file events are not
 * to be trusted here: the engine would trust them), sources other than worktrees, a calibration
 * file, or no engine to be had (at start or later) — a scanner and a change tracker of this
 * process, each scan re-reading only the paths that changed (tracked.ts).
 */
import type { ScanResult } from '@airspace/core';
import { createChangeTracker, watchTargets, type ChangeTracker, type TrackedChange } from '@airspace/git';
import { createScanner, watchConfigFiles, type Scanner, type ScannerOptions } from '@airspace/scanner';
import { engineDisabled } from '@airspace/engine/client';
import { createEngineScans, type EngineScanInput, type EngineScans } from '@airspace/engine/remote';
import type { Io } from '../io.js';
import { createPendingChanges, scanExtraFor, worktreesToWatch } from './tracked.js';

export interface FollowOptions {
  readonly options: ScannerOptions;
  readonly io: Io;
  /** False with `--no-engine`. */
  readonly engine: boolean;
  /** This process's change tracker (when it has one). */
  readonly pollMs: number;
  readonly debounceMs?: number;
  readonly forcePoll?: boolean;
  /** Something moved: a scan is due (`pending()` is true). */
  readonly onChange: () => void;
  readonly onWarning: (message: string) => void;
  /** Where scans run and why, for a person reading stderr. */
  readonly say: (message: string) => void;
  /** Without a repository, this process's tracker is not an error (the first scan says what is wrong). */
  readonly tolerant?: boolean;
}

export interface Followed {
  /**
   * Finds the engine, or sets up this process's scanner and change tracker: before the first
   * scan, so that an edit made during it is not missed.
   */
  start(): Promise<void>;
  /** Whether something moved since the last scan started. */
  pending(): boolean;
  /** Something moved that no file event tells (a fetch interval): read everything next. */
  touch(reason: string): void;
  /** The next scan: of what moved since the last (all of it the first time, or after a failure). */
  scan(): Promise<ScanResult>;
  /** Who follows the changes: the engine, or this process's tracker by file events or polling. */
  following(): 'engine' | 'watch' | 'poll';
  dispose(): Promise<void>;
}

/** Scans only the engine cannot serve as this process would run them: other sources, a calibration file. */
export function engineServes(options: ScannerOptions): boolean {
  return options.sources === undefined && options.calibration === undefined;
}

export function followChanges(f: FollowOptions): Followed {
  const { options } = f;
  const repo = options.repo ?? f.io.cwd;
  const pending = createPendingChanges();
  let tracker: ChangeTracker | undefined;
  let tracking: Promise<void> | undefined;
  let watched: string[] = [];
  let config: { changed(): boolean } | undefined;
  let own: Scanner | undefined;
  let disposed = false;
  /** `start` is done: a fallback from now on follows from then. */
  let started = false;

  const changed = (change: TrackedChange): void => {
    pending.add(change);
    f.onChange();
  };

  /** This process follows the worktrees itself: its config files, git's worktrees, a change tracker. */
  const track = (): Promise<void> =>
    (tracking ??= (async () => {
      config = await watchConfigFiles(options);
      const targets = f.tolerant ? await watchTargets(repo).catch(() => undefined) : await watchTargets(repo);
      if (!targets || disposed) return;
      watched = targets.worktrees;
      tracker = createChangeTracker({
        worktrees: watched,
        commonDir: targets.commonDir,
        pollMs: f.pollMs,
        ...(f.debounceMs !== undefined ? { debounceMs: f.debounceMs } : {}),
        ...(f.forcePoll ? { forcePoll: true } : {}),
        onChange: changed,
        onWarning: f.onWarning,
      });
    })());

  const scanHere = async (change: TrackedChange | undefined): Promise<ScanResult> => {
    await track();
    if (config?.changed()) {
      // A config created, edited or removed: a new scanner reads it, and every agent again.
      await own?.dispose();
      own = undefined;
      change = { all: true, reason: 'configuration changed' };
      f.say('the configuration changed; scanning with it');
    }
    own ??= createScanner(options);
    const result = await own.scan(undefined, scanExtraFor(change));
    // Worktrees come and go: after a change of git's state, watch git's list (and agents') again.
    if (tracker && (!change || change.all)) tracker.setWorktrees((watched = await worktreesToWatch(repo, result, watched)));
    return result;
  };

  const engine: EngineScans<EngineScanInput & { change?: TrackedChange }> | undefined =
    f.engine && !f.forcePoll && !engineDisabled(f.io.env) && engineServes(options)
      ? createEngineScans({
          cwd: repo,
          settings: {
            ...(options.base ? { base: options.base } : {}),
            ...(typeof options.config === 'string' ? { config: options.config } : {}),
          },
          // The engine followed the repository (and caught up): ask again.
          onChange: (change) => changed({ all: true, reason: change.reason }),
          inProcess: () => {
            // No engine any more: from now on this process follows the worktrees itself, and reads
            // everything once (what moved while nobody followed). At start, `start` sets it up.
            if (started)
              void track().then(
                () => changed({ all: true, reason: 'scanning in this process' }),
                (error: unknown) => f.onWarning(`cannot follow the worktrees: ${(error as Error).message}`),
              );
            return { scan: (input) => scanHere(input.change), dispose: () => undefined };
          },
          log: f.say,
          disabled: false,
        })
      : undefined;

  return {
    async start() {
      if (engine) await engine.ready();
      if (!engine || engine.mode()?.kind === 'in-process') await track();
      started = true;
    },
    pending: () => pending.has(),
    touch: (reason) => changed({ all: true, reason }),
    async scan() {
      const change = pending.take();
      try {
        return await (engine ? engine.scan(change ? { change } : {}) : scanHere(change));
      } catch (error) {
        pending.failed();
        throw error;
      }
    },
    following: () => (engine?.mode()?.kind === 'engine' ? 'engine' : (tracker?.mode() ?? 'poll')),
    async dispose() {
      disposed = true;
      tracker?.close();
      await engine?.dispose();
      await own?.dispose();
    },
  };
}
