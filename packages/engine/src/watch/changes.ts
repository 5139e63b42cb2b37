/**
 * "Something changed, scan again": recursive fs.watch on every agent's work tree and on the git
 * directories (refs, index, HEAD of each worktree), debounced; polling when file events are not
 * available (or asked for). Never reads or writes anything in the repository itself.
 */
import { watch, type FSWatcher } from 'node:fs';
import { sep } from 'node:path';

export interface ChangeSourceOptions {
  /** Directories to watch recursively. */
  readonly dirs: readonly string[];
  /** Which of `dirs` are git directories (only refs, index and HEAD changes count there). */
  readonly gitDirs?: readonly string[];
  /** Quiet period before a burst of events becomes one change (ms). */
  readonly debounceMs?: number;
  /** Poll instead of watching (ms between polls), or as a fallback when watching fails. */
  readonly pollMs: number;
  readonly forcePoll?: boolean;
  readonly onChange: (reason: string) => void;
  readonly onWarning?: (message: string) => void;
}

export interface ChangeSource {
  /** Watch this set of directories from now on (agents come and go). */
  setDirs(dirs: readonly string[]): void;
  /**
   * How many file events have arrived so far (before debouncing), and the directories watched
   * by file events now (none while polling): with both unchanged since a moment, nothing in those
   * directories changed since then (the engine answers without asking git).
   */
  readonly events: () => number;
  readonly watching: () => readonly string[];
  readonly mode: () => 'watch' | 'poll';
  close(): void;
}

/**
 * Changes that never call for a scan: git's object store, logs and lock files (git writes them
 * constantly), Airspace's own caches (a scan writing its cache must not trigger the next scan),
 * and dependency folders.
 */
export function ignoredPath(relative: string, inGitDir = false): boolean {
  const parts = relative.split(sep).join('/').split('/');
  const name = parts[parts.length - 1] ?? '';
  if (name.endsWith('.lock')) return true;
  const gitAt = parts.indexOf('.git');
  if (!inGitDir && gitAt < 0) return parts.includes('node_modules');
  const git = inGitDir ? parts : parts.slice(gitAt + 1);
  const top = git[0] ?? '';
  return top === 'objects' || top === 'logs' || top === 'lfs' || top.startsWith('airspace') || (top === 'worktrees' && git[2] === 'logs');
}

export function createChangeSource(options: ChangeSourceOptions): ChangeSource {
  const debounceMs = options.debounceMs ?? 200;
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let poller: NodeJS.Timeout | undefined;
  let polling = options.forcePoll === true;
  let closed = false;
  let pending: string | undefined;

  let events = 0;
  const fire = (reason: string): void => {
    events++;
    if (closed) return;
    pending ??= reason;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      const why = pending ?? 'change';
      pending = undefined;
      options.onChange(why);
    }, debounceMs);
  };

  const startPolling = (why?: string): void => {
    if (why) options.onWarning?.(`file events unavailable (${why}); polling every ${options.pollMs} ms`);
    polling = true;
    for (const w of watchers.values()) w.close();
    watchers.clear();
    poller ??= setInterval(() => options.onChange('poll'), options.pollMs);
  };

  const watchDir = (dir: string): void => {
    if (watchers.has(dir) || polling) return;
    try {
      const w = watch(dir, { recursive: true, persistent: true }, (_event, name) => {
        const rel = name ? String(name) : '';
        if (rel && ignoredPath(rel, options.gitDirs?.includes(dir))) return;
        fire(rel ? `${dir}${sep}${rel}` : dir);
      });
      w.on('error', (error) => {
        w.close();
        watchers.delete(dir);
        // A deleted worktree is normal; anything else means events are unreliable: poll.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'EPERM')
          startPolling((error as Error).message);
        else fire(dir);
      });
      watchers.set(dir, w);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      startPolling(code ?? (error as Error).message);
    }
  };

  const source: ChangeSource = {
    setDirs(dirs) {
      if (closed) return;
      const wanted = new Set(dirs);
      for (const [dir, w] of watchers) {
        if (!wanted.has(dir)) {
          w.close();
          watchers.delete(dir);
        }
      }
      for (const dir of wanted) watchDir(dir);
    },
    mode: () => (polling ? 'poll' : 'watch'),
    events: () => events,
    watching: () => (polling ? [] : [...watchers.keys()]),
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (poller) clearInterval(poller);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
  if (polling) startPolling();
  source.setDirs(options.dirs);
  return source;
}
