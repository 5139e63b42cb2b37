/**
 * Watches worktrees for file changes and git events (HEAD, index, refs) with `fs.watch`; where
 * watching fails (no inotify, too many watches), polls `git status` and HEAD instead.
 */
import { existsSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { runGit } from '@airspace/git';

export interface WatchTarget {
  readonly worktree: string;
  /** The worktree's own git directory. */
  readonly gitDir?: string;
  /** The repository's common git directory (refs). */
  readonly commonDir?: string;
}

/**
 * What the watcher saw in a worktree: a file (its worktree-relative path, when the platform
 * named it), a git event (HEAD, index, refs, worktrees added or removed), or a change found by
 * polling (which names nothing).
 */
export type WatchEvent =
  | { readonly kind: 'file'; readonly worktree: string; readonly path?: string }
  | { readonly kind: 'git'; readonly worktree: string; readonly what: string }
  | { readonly kind: 'poll'; readonly worktree: string };

export interface WatcherOptions {
  readonly onChange: (event: WatchEvent) => void;
  readonly onError?: (message: string) => void;
  readonly pollMs?: number;
  /** Force polling (tests, network file systems). */
  readonly poll?: boolean;
}

const IGNORED = /(^|[\\/])(node_modules|\.git|dist|\.turbo)([\\/]|$)/;

export class WorktreeWatcher {
  private readonly watchers = new Map<string, FSWatcher[]>();
  private readonly polls = new Map<string, { timer: NodeJS.Timeout; last?: string }>();

  constructor(private readonly options: WatcherOptions) {}

  /** Watches exactly these targets: new ones are added, vanished ones closed. */
  set(targets: readonly WatchTarget[]): void {
    const wanted = new Map(targets.map((t) => [t.worktree, t]));
    for (const dir of [...this.watchers.keys(), ...this.polls.keys()]) if (!wanted.has(dir)) this.stop(dir);
    for (const t of targets) if (!this.watchers.has(t.worktree) && !this.polls.has(t.worktree)) this.start(t);
  }

  private start(t: WatchTarget): void {
    if (this.options.poll) return this.startPolling(t, 'polling requested');
    const list: FSWatcher[] = [];
    try {
      list.push(
        watch(t.worktree, { recursive: true, persistent: false }, (_e, file) => {
          const path = file ? String(file) : '';
          if (!IGNORED.test(path)) this.options.onChange({ kind: 'file', worktree: t.worktree, ...(path ? { path } : {}) });
        }),
      );
      for (const dir of [t.gitDir, t.commonDir && join(t.commonDir, 'refs')]) {
        if (!dir) continue;
        list.push(
          watch(dir, { recursive: dir.endsWith('refs'), persistent: false }, (_e, file) =>
            this.options.onChange({ kind: 'git', worktree: t.worktree, what: String(file ?? '') }),
          ),
        );
      }
      // Linked worktrees are added and removed under <common dir>/worktrees (`--detach` moves no ref).
      const linked = t.commonDir && join(t.commonDir, 'worktrees');
      if (linked && existsSync(linked))
        list.push(
          watch(linked, { persistent: false }, (_e, file) =>
            this.options.onChange({ kind: 'git', worktree: t.worktree, what: `worktrees/${String(file ?? '')}` }),
          ),
        );
      for (const w of list) w.on('error', (e) => this.fallBack(t, e));
      this.watchers.set(t.worktree, list);
    } catch (error) {
      for (const w of list) w.close();
      this.fallBack(t, error);
    }
  }

  private fallBack(t: WatchTarget, error: unknown): void {
    for (const w of this.watchers.get(t.worktree) ?? []) w.close();
    this.watchers.delete(t.worktree);
    if (!this.polls.has(t.worktree)) this.startPolling(t, error instanceof Error ? error.message : String(error));
  }

  private startPolling(t: WatchTarget, why: string): void {
    this.options.onError?.(`Watching ${t.worktree} by polling (${why}).`);
    const state: { timer: NodeJS.Timeout; last?: string } = {
      timer: setInterval(() => void this.pollOnce(t, state), this.options.pollMs ?? 2000),
    };
    state.timer.unref();
    this.polls.set(t.worktree, state);
  }

  private async pollOnce(t: WatchTarget, state: { timer: NodeJS.Timeout; last?: string }): Promise<void> {
    try {
      const status = await runGit(['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: t.worktree });
      const head = await runGit(['rev-parse', 'HEAD'], { cwd: t.worktree, okCodes: [128] });
      // Paths alone miss a second edit of an already-dirty file: stat them too.
      const stamps = status
        .split('\0')
        .filter((e) => e.length > 3)
        .map((e) => {
          try {
            const s = statSync(join(t.worktree, e.slice(3)));
            return `${e}:${s.mtimeMs}:${s.size}`;
          } catch {
            return e;
          }
        });
      const signature = `${head}\n${stamps.join('\n')}`;
      // A poll that finishes after its worktree was unwatched reports nothing.
      if (this.polls.get(t.worktree) !== state) return;
      if (state.last !== undefined && state.last !== signature) this.options.onChange({ kind: 'poll', worktree: t.worktree });
      state.last = signature;
    } catch (error) {
      this.options.onError?.(`Polling ${t.worktree} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private stop(dir: string): void {
    for (const w of this.watchers.get(dir) ?? []) w.close();
    this.watchers.delete(dir);
    const p = this.polls.get(dir);
    if (p) clearInterval(p.timer);
    this.polls.delete(dir);
  }

  dispose(): void {
    for (const dir of [...this.watchers.keys(), ...this.polls.keys()]) this.stop(dir);
  }
}
