/**
 * What changed in a repository's worktrees since its last scan started, in one shape: the server
 * records events here (saves, buffers, file and git events, polling) and hands the scanner what
 * `take()` returns.
 */
import type { ScanInput } from './lsp-scanner.js';

/** What a scan is told about changes: nothing known (read everything), or per worktree. */
export type ScanChanges = Pick<ScanInput, 'changed' | 'changedPaths'> & {
  /** Whether some worktree is read in full (nothing known about what changed in it). */
  readonly full: boolean;
};

export class ChangeSet {
  /** Per worktree, the repository-relative paths that changed, or `all`; `all` for the whole repository. */
  private changed: Map<string, Set<string> | 'all'> | 'all' = 'all';

  /** Everything may have changed (a new folder, a new scanner, a failed scan). */
  all(): void {
    this.changed = 'all';
  }

  /** A worktree changed in ways unknown (a git event, polling, a worktree seen for the first time). */
  worktree(worktree: string): void {
    if (this.changed !== 'all') this.changed.set(worktree, 'all');
  }

  /** One path of a worktree changed on disk (a save, a file event); unnamed, the whole worktree. */
  path(worktree: string, path: string | undefined): void {
    if (path === undefined) this.worktree(worktree);
    else this.paths(worktree).add(path.replace(/\\/g, '/'));
  }

  /** Nothing on disk changed, but what the scan is given for the worktree did (a buffer, declared intent). */
  buffer(worktree: string): void {
    this.paths(worktree);
  }

  private paths(worktree: string): Set<string> {
    if (this.changed === 'all') return new Set();
    const known = this.changed.get(worktree);
    if (known === 'all') return new Set();
    const paths = known ?? new Set<string>();
    this.changed.set(worktree, paths);
    return paths;
  }

  /** What changed since the last `take()`, for the scan starting now; the set starts empty again. */
  take(): ScanChanges {
    const changed = this.changed;
    this.changed = new Map();
    if (changed === 'all') return { full: true };
    const changedPaths: Record<string, string[]> = {};
    let full = false;
    for (const [worktree, paths] of changed) {
      if (paths === 'all') full = true;
      else changedPaths[worktree] = [...paths].sort();
    }
    return { full, changed: [...changed.keys()].sort(), changedPaths };
  }
}
