/**
 * Change tracking for long-running front ends (`airspace watch`, `airspace view`): what changed
 * in a repository's worktrees and git state, debounced, with the paths when they are known.
 *
 * File events come from watching every directory of every worktree and of the git common
 * directory (`watchTree`): directories, not files, so that a file saved by rename (an editor's
 * atomic save, `sed -i`) is still followed after it (Node's recursive watch on Linux watches each
 * file's inode, and loses a file replaced by rename). An event in a worktree names a path there (the deepest watched worktree wins, so a worktree
 * nested in another is not a change of the outer one); an event in the git directory (refs, HEAD,
 * an index, the worktree list) changes what every agent is compared with, so everything is read
 * again. Where file events are unavailable (or polling is asked for), each worktree is polled with
 * `git status` and the file stamps it lists, and the git state with its refs and worktree list:
 * a poll that sees nothing new reports nothing. Nothing is ever written to the repository
 * (`GIT_OPTIONAL_LOCKS=0`: even `git status` leaves the index alone).
 */
import { lstatSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { runGit, runGitRaw } from './exec.js';
import { fsPath, splitPaths } from './path-bytes.js';
import { parseWorktreeList } from './sources.js';

/** What changed since the last report. */
export type TrackedChange =
  /** Git's state changed (or what changed is not known): read every agent again. */
  | { readonly all: true; readonly reason: string }
  /** Only these files changed: worktree directory → repository-relative paths (forward slashes). */
  | { readonly all: false; readonly reason: string; readonly paths: Readonly<Record<string, readonly string[]>> };

/** Changes seen so far: those that call for reading everything, and those of each worktree's files. */
export interface EventCounts {
  readonly all: number;
  /** Worktree directory (as given to the tracker) → changes of its files. */
  readonly worktrees: ReadonlyMap<string, number>;
}

export interface ChangeTrackerOptions {
  /** Work trees to watch (agents come and go: see `setWorktrees`). */
  readonly worktrees: readonly string[];
  /** The repository's git common directory. */
  readonly commonDir: string;
  /** Quiet period before a burst of events becomes one change (ms, default 200). */
  readonly debounceMs?: number;
  /**
   * Answer the first event after a quiet period within this many ms instead (an editor's save is
   * a few events within a millisecond or two), then coalesce the rest of a burst with
   * `debounceMs` as before: one change at once, one more once the burst is over. Unset: every
   * change waits out `debounceMs`.
   */
  readonly leadingMs?: number;
  /** Poll this often (ms) when file events are unavailable, or always with `forcePoll`. */
  readonly pollMs: number;
  readonly forcePoll?: boolean;
  readonly onChange: (change: TrackedChange) => void;
  readonly onWarning?: (message: string) => void;
  /** Watch each directory rather than whole trees (default: where the platform's recursive watch follows inodes). */
  readonly perDirectory?: boolean;
}

export interface ChangeTracker {
  /** Watch exactly these work trees from now on. */
  setWorktrees(worktrees: readonly string[]): void;
  readonly mode: () => 'watch' | 'poll';
  /**
   * How many changes were seen so far (before debouncing), and the directories watched by file
   * events now (none while polling): with both unchanged since a moment, nothing in those
   * directories changed since then (the engine answers without asking git).
   */
  readonly events: () => number;
  /**
   * The same count by where the changes were: those that call for reading everything (git's
   * directory, a worktree that went) and, per worktree, its files. A worktree whose count did
   * not move since a moment had no file event since then.
   */
  readonly eventCounts: () => EventCounts;
  /**
   * The paths of `worktree`'s file events after its count was `count` (repository-relative; a
   * directory stands for everything under it), or undefined when they are no longer all known.
   */
  readonly pathsSince: (worktree: string, count: number) => readonly string[] | undefined;
  readonly watching: () => readonly string[];
  /** Directories followed by file events now (0 while polling). */
  readonly directories: () => number;
  /** Why file events were given up for polling, when they were (a watch failed: events could be missed). */
  readonly lostTrack: () => string | undefined;
  close(): void;
}

/** The worktrees (not bare, not prunable) and git common directory of the repository at `repo`. */
export async function watchTargets(repo: string): Promise<{ readonly worktrees: string[]; readonly commonDir: string }> {
  const commonDir = (await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: repo })).trim();
  const worktrees = parseWorktreeList(await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: repo }))
    .filter((w) => !w.bare && !w.prunable)
    .map((w) => w.dir);
  return { worktrees: [...new Set(worktrees)], commonDir };
}

/**
 * Changes that never call for a scan: git's object store, logs and lock files inside the git
 * directory (git writes them constantly), Airspace's own caches (a scan writing its cache must not
 * trigger the next scan), and dependency folders. `relative` is relative to a worktree, or to the git directory when
 * `inGitDir`; inside a worktree, anything under a `.git` folder is the git directory's business.
 */
export function ignoredPath(relativePath: string, inGitDir = false): boolean {
  const parts = relativePath.split(sep).join('/').split('/');
  // In a worktree a lock file is work (Cargo.lock, yarn.lock); git's own are in its directory.
  if (!inGitDir) return parts.includes('node_modules') || parts.includes('.git');
  const name = parts[parts.length - 1] ?? '';
  const top = parts[0] ?? '';
  return (
    name.endsWith('.lock') ||
    top === 'objects' ||
    top === 'logs' ||
    top === 'lfs' ||
    top.startsWith('airspace') ||
    (top === 'worktrees' && parts[2] === 'logs')
  );
}

/** Where `fs.watch` follows a whole tree itself by path (FSEvents, ReadDirectoryChangesW); elsewhere Node watches inodes. */
const NATIVE_RECURSIVE = process.platform === 'darwin' || process.platform === 'win32';

export interface TreeWatchOptions {
  /** A directory (forward-slash path relative to the root) not to follow, nor anything below it. */
  readonly skip: (relativeDir: string) => boolean;
  /** Something at this path (relative to the root; '' for the root itself) changed, came or went. */
  readonly onEvent: (relativePath: string) => void;
  /** Following the tree failed beyond repair (e.g. the system's limit of watches): events may be missed from now on. */
  readonly onLost: (error: NodeJS.ErrnoException) => void;
  /** Force one watch per directory (the default where the platform has no recursive watch by path). */
  readonly perDirectory?: boolean;
  /** How long one slice of setting up watches may hold the event loop (ms, default ARM_SLICE_MS). */
  readonly sliceMs?: number;
}

export interface TreeWatch {
  /** Directories watched now. */
  readonly directories: () => number;
  close(): void;
}

/** How long one slice of setting up a tree's watches may hold the event loop (ms). */
const ARM_SLICE_MS = 15;
/** How many directories a slice watches at least, whatever the time. */
const SLICE_MIN_ITEMS = 256;

/**
 * `work` for each item pushed, in order, in slices of SLICE_MIN_ITEMS items or `sliceMs`, whichever
 * is more, between which the event loop runs: a small batch is done before the first push
 * returns, a large one goes on after it.
 * Items pushed by `work` itself join the queue.
 */
function inSlices<A, B>(work: (a: A, b: B) => boolean, stopped: () => boolean, sliceMs: number): (a: A, b: B) => void {
  let queue: Array<[A, B]> = [];
  let head = 0;
  let draining = false;
  const drain = (): void => {
    draining = true;
    const until = performance.now() + sliceMs;
    for (let done = 0; head < queue.length && !stopped();) {
      const [a, b] = queue[head++]!;
      if (work(a, b)) done++;
      // At least SLICE_MIN_ITEMS directories a slice: a small tree is watched at once however loaded the machine.
      if (done >= SLICE_MIN_ITEMS && performance.now() > until) break;
    }
    if (head === queue.length || stopped()) ((queue = []), (head = 0));
    draining = queue.length > 0;
    if (draining) setImmediate(drain);
  };
  return (a, b) => {
    queue.push([a, b]);
    if (!draining) drain();
  };
}

/** Codes that mean a directory went away or cannot be read, not that watching failed. */
const GONE = new Set(['ENOENT', 'ENOTDIR', 'EPERM', 'EACCES']);

/**
 * Follows the tree at `root` by watching its directories, not its files: an event of a directory
 * names the child that changed, came or went, whatever its inode, so a file replaced by rename
 * stays followed. A directory that comes (created or moved in) is watched from then on and
 * everything already in it counts as changed; one that goes (or is replaced) is let go.
 */
export function watchTree(root: string, options: TreeWatchOptions): TreeWatch {
  if (!(options.perDirectory ?? !NATIVE_RECURSIVE)) {
    const w = watch(root, { recursive: true, persistent: true }, (_event, name) =>
      options.onEvent(name ? String(name).split(sep).join('/') : ''),
    );
    w.on('error', (error) => {
      w.close();
      options.onLost(error as NodeJS.ErrnoException);
    });
    return { directories: () => 1, close: () => w.close() };
  }
  /** Relative directory → its watcher and the inode it watches. */
  const watchers = new Map<string, { watcher: FSWatcher; ino: number }>();
  let closed = false;
  const under = (dir: string, rel: string): boolean => dir === rel || rel === '' || dir.startsWith(`${rel}/`);
  const letGo = (rel: string): void => {
    for (const [dir, w] of watchers)
      if (under(dir, rel)) {
        w.watcher.close();
        watchers.delete(dir);
      }
  };
  const lost = (error: NodeJS.ErrnoException): void => {
    if (closed) return;
    closed = true;
    for (const w of watchers.values()) w.watcher.close();
    watchers.clear();
    options.onLost(error);
  };
  const inode = (rel: string): number | undefined => {
    try {
      // The root may be reached through a link; below it, links are not followed.
      const st = rel === '' ? statSync(root) : lstatSync(join(root, rel));
      return st.isDirectory() ? st.ino : undefined;
    } catch {
      return undefined;
    }
  };
  /** Watches one directory and queues its subdirectories; false when there was nothing to watch. */
  const armOne = (rel: string, announce: boolean): boolean => {
    if (closed || watchers.has(rel) || (rel !== '' && options.skip(rel))) return false;
    const dir = rel === '' ? root : join(root, rel);
    const ino = inode(rel);
    if (ino === undefined) return false;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: true }, (_event, name) => changed(rel, name ? String(name) : undefined));
    } catch (error) {
      if (!GONE.has((error as NodeJS.ErrnoException).code ?? '')) lost(error as NodeJS.ErrnoException);
      return false;
    }
    watcher.on('error', (error) => {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (!GONE.has(code)) return lost(error as NodeJS.ErrnoException);
      letGo(rel);
      if (rel === '') options.onEvent('');
    });
    watchers.set(rel, { watcher, ino });
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return true;
    }
    for (const entry of entries) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) arm(child, announce);
      else if (announce) options.onEvent(child);
    }
    return true;
  };
  // Watching a large tree takes seconds (a readdir, an lstat and a watch per directory: 1.4 s for
  // three worktrees of a 27,000-file repository); done at once it would hold every answer of the
  // engine that long. An event missed before its directory is watched is not lost: the engine
  // compares with git before it answers (its freshness stamp).
  const arm = inSlices<string, boolean>(armOne, () => closed, options.sliceMs ?? ARM_SLICE_MS);
  const changed = (dir: string, name: string | undefined): void => {
    if (closed) return;
    if (name === undefined) return options.onEvent(dir);
    const rel = dir === '' ? name : `${dir}/${name}`;
    options.onEvent(rel);
    const ino = inode(rel);
    const known = watchers.get(rel);
    if (known && known.ino !== ino) letGo(rel); // removed, moved away, or replaced by another
    if (ino !== undefined && !watchers.has(rel)) arm(rel, true);
  };
  arm('', false);
  return {
    directories: () => watchers.size,
    close() {
      closed = true;
      for (const w of watchers.values()) w.watcher.close();
      watchers.clear();
    },
  };
}

/** The deepest of `worktrees` holding `file` (absolute), and the path inside it. */
function locate(worktrees: readonly string[], file: string): { worktree: string; path: string } | undefined {
  let best: { worktree: string; path: string } | undefined;
  for (const w of worktrees) {
    const rel = relative(w, file);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue;
    if (!best || w.length > best.worktree.length) best = { worktree: w, path: rel.split(sep).join('/') };
  }
  return best;
}

/** One worktree's uncommitted files with their stamps, as `git status` lists them. */
async function worktreeStamps(dir: string): Promise<Map<string, string>> {
  const out = (await runGitRaw(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'], { cwd: dir })).stdout;
  const stamps = new Map<string, string>();
  for (const entry of splitPaths(out)) {
    if (entry.length <= 3) continue;
    const path = entry.slice(3);
    // Paths alone miss a second edit of a file already changed: its size and time say it.
    let stamp = entry.slice(0, 2);
    try {
      const st = statSync(fsPath(dir, path));
      stamp += `:${st.mtimeMs}:${st.size}`;
    } catch {
      stamp += ':gone';
    }
    stamps.set(path, stamp);
  }
  return stamps;
}

/** Refs, worktree list and every worktree's HEAD: what a change of git's state changes. */
async function gitSignature(commonDir: string): Promise<string> {
  const [refs, list] = await Promise.all([
    runGit(['for-each-ref', '--format=%(refname) %(objectname)'], { cwd: commonDir }),
    runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: commonDir }),
  ]);
  return `${refs}\n${list}`;
}

/**
 * When a burst of events is reported: `debounceMs` after its last event, or, for the first event
 * after a quiet period that may `lead` (a saved file), `leadingMs` after it (a timer later file
 * events do not push back); an event within `debounceMs` of the last report is part of a burst.
 * A change of git's state (a new worktree, a checkout) never leads, and ends a leading wait: what
 * comes with it (the new worktree's files) is written over the next moments, and is read with it.
 */
function quietPeriod(
  debounceMs: number,
  leadingMs: number | undefined,
  report: () => void,
): { schedule(lead: boolean): void; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let lastReport = -Infinity;
  let leading = false;
  const fire = (): void => {
    timer = undefined;
    leading = false;
    lastReport = performance.now();
    report();
  };
  return {
    schedule(lead) {
      if (leading && lead) return;
      if (timer) clearTimeout(timer);
      leading = lead && !timer && leadingMs !== undefined && performance.now() - lastReport >= debounceMs;
      timer = setTimeout(fire, leading ? leadingMs : debounceMs);
    },
    cancel: () => clearTimeout(timer),
  };
}

export function createChangeTracker(options: ChangeTrackerOptions): ChangeTracker {
  const watchers = new Map<string, TreeWatch>();
  let lostTrack: string | undefined;
  let worktrees: string[] = [];
  let poller: NodeJS.Timeout | undefined;
  let polling = options.forcePoll === true;
  let closed = false;
  const isClosed = () => closed;
  const report = createPendingReport(options.debounceMs ?? 200, options.leadingMs, options.onChange, isClosed);
  const { changedAll, changedPath } = report;

  const onFileEvent = (file: string): void => {
    const at = locate(worktrees, file);
    if (!at || ignoredPath(at.path)) return;
    changedPath(at.worktree, at.path);
  };

  const poll = createPoll(options, () => worktrees, report, isClosed);
  const startPolling = (why?: string): void => {
    if (why) options.onWarning?.(`file events unavailable (${why}); polling every ${options.pollMs} ms`);
    polling = true;
    for (const w of watchers.values()) w.close();
    watchers.clear();
    if (!poller) {
      poller = setInterval(() => void poll.once(), options.pollMs);
      void poll.once();
    }
  };

  const watchDir = (dir: string, inGitDir: boolean): void => {
    if (watchers.has(dir) || polling) return;
    const tree = watchTree(dir, {
      // Inside a worktree: not another worktree nested in it (it has its own watch), not a git
      // directory or dependencies; inside the git directory: not what git writes constantly.
      skip: (rel) => ignoredPath(rel, inGitDir) || (!inGitDir && worktrees.includes(join(dir, rel))),
      onEvent: (rel) => {
        if (inGitDir) {
          if (!rel || !ignoredPath(rel, true)) changedAll(rel ? `git ${rel}` : 'git');
        } else if (rel) onFileEvent(join(dir, rel));
        else changedAll(dir);
      },
      onLost: (error) => {
        watchers.get(dir)?.close();
        watchers.delete(dir);
        // A deleted worktree is normal; anything else means events are unreliable: poll.
        if (error.code === 'ENOENT' || error.code === 'EPERM') changedAll(dir);
        else {
          lostTrack ??= `watching ${dir} failed: ${error.message}`;
          startPolling(error.code ?? error.message);
        }
      },
      ...(options.perDirectory !== undefined ? { perDirectory: options.perDirectory } : {}),
    });
    if (!polling) watchers.set(dir, tree);
    else tree.close();
  };

  const tracker: ChangeTracker = {
    setWorktrees(dirs) {
      if (closed) return;
      worktrees = [...new Set(dirs)];
      const wanted = new Set([...worktrees, options.commonDir]);
      for (const [dir, w] of watchers) {
        if (!wanted.has(dir)) {
          w.close();
          watchers.delete(dir);
        }
      }
      poll.forget(wanted);
      watchDir(options.commonDir, true);
      for (const dir of worktrees) watchDir(dir, false);
    },
    mode: () => (polling ? 'poll' : 'watch'),
    events: report.events,
    eventCounts: report.counts,
    pathsSince: report.pathsSince,
    watching: () => (polling ? [] : [...watchers.keys()]),
    directories: () => (polling ? 0 : [...watchers.values()].reduce((n, w) => n + w.directories(), 0)),
    lostTrack: () => lostTrack,
    close() {
      closed = true;
      report.cancel();
      if (poller) clearInterval(poller);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
  if (polling) startPolling();
  tracker.setWorktrees(options.worktrees);
  return tracker;
}

/** How many event paths per worktree are kept for `pathsSince` (halved when exceeded). */
const RECENT_PATHS = 2000;

/** What the next report says (everything, or paths per worktree), sent `debounceMs` after the last change; the count of changes seen. */
function createPendingReport(
  debounceMs: number,
  leadingMs: number | undefined,
  onChange: (change: TrackedChange) => void,
  isClosed: () => boolean,
) {
  let all: string | undefined;
  let paths = new Map<string, Set<string>>();
  let firstReason: string | undefined;
  let events = 0;
  let allEvents = 0;
  const byWorktree = new Map<string, number>();
  /** Per worktree, the paths of its latest events: `paths[i]` is event number `first + i + 1`. */
  const recent = new Map<string, { first: number; paths: string[] }>();
  const flush = (): void => {
    if (isClosed()) return;
    const reason = all ?? firstReason ?? 'change';
    const change: TrackedChange =
      all !== undefined
        ? { all: true, reason }
        : { all: false, reason, paths: Object.fromEntries([...paths].map(([w, set]) => [w, [...set].sort()])) };
    all = undefined;
    firstReason = undefined;
    paths = new Map();
    onChange(change);
  };
  const quiet = quietPeriod(debounceMs, leadingMs, flush);
  const schedule = (lead: boolean): void => {
    if (!isClosed()) quiet.schedule(lead);
  };
  return {
    changedAll(reason: string): void {
      events++;
      allEvents++;
      all ??= reason;
      schedule(false);
    },
    changedPath(worktree: string, path: string): void {
      events++;
      byWorktree.set(worktree, (byWorktree.get(worktree) ?? 0) + 1);
      const log = recent.get(worktree) ?? { first: 0, paths: [] };
      recent.set(worktree, log);
      log.paths.push(path);
      if (log.paths.length > RECENT_PATHS) {
        log.first += log.paths.length - RECENT_PATHS / 2;
        log.paths = log.paths.slice(-RECENT_PATHS / 2);
      }
      let set = paths.get(worktree);
      if (!set) paths.set(worktree, (set = new Set()));
      set.add(path);
      firstReason ??= join(worktree, path);
      schedule(true);
    },
    events: (): number => events,
    counts: (): EventCounts => ({ all: allEvents, worktrees: new Map(byWorktree) }),
    pathsSince(worktree: string, count: number): readonly string[] | undefined {
      const log = recent.get(worktree) ?? { first: 0, paths: [] };
      return count < log.first ? undefined : [...new Set(log.paths.slice(count - log.first))];
    },
    cancel: () => quiet.cancel(),
  };
}

/** Polling: the last stamps of each worktree and of git's state; the first poll only records. */
function createPoll(
  options: Pick<ChangeTrackerOptions, 'commonDir' | 'onWarning'>,
  worktrees: () => readonly string[],
  report: ReturnType<typeof createPendingReport>,
  isClosed: () => boolean,
) {
  const lastStamps = new Map<string, Map<string, string>>();
  let lastGit: string | undefined;
  let pollRunning = false;
  const once = async (): Promise<void> => {
    if (pollRunning || isClosed()) return;
    pollRunning = true;
    try {
      const signature = await gitSignature(options.commonDir);
      if (lastGit !== undefined && signature !== lastGit) report.changedAll('git state changed (poll)');
      lastGit = signature;
      for (const dir of worktrees()) {
        let now: Map<string, string>;
        try {
          now = await worktreeStamps(dir);
        } catch {
          continue; // a worktree removed between two polls: the git state says so
        }
        const before = lastStamps.get(dir);
        lastStamps.set(dir, now);
        if (!before) continue;
        for (const [path, stamp] of now) if (before.get(path) !== stamp) report.changedPath(dir, path);
        for (const path of before.keys()) if (!now.has(path)) report.changedPath(dir, path); // reverted to its committed state
      }
    } catch (error) {
      options.onWarning?.(`polling failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      pollRunning = false;
    }
  };
  return {
    once,
    /** Forgets the stamps of directories no longer wanted. */
    forget(wanted: ReadonlySet<string>): void {
      for (const dir of [...lastStamps.keys()]) if (!wanted.has(dir)) lastStamps.delete(dir);
    },
  };
}
