/**
 * Tracked changes (`@airspace/git`'s change tracker) → the next scan: the paths that changed in
 * each worktree are re-read (`only` + `changedPaths`: the scanner patches those agents and keeps
 * the others), anything else (git's state moved, a scan failed, nothing known yet) reads all.
 * Shared by `watch` and `view`, so both follow uncommitted edits the same way.
 */
import type { ScanResult } from '@airspace/core';
import { watchTargets, type TrackedChange } from '@airspace/git';
import type { ScanExtra } from '@airspace/scanner';

/** Two changes not yet scanned, as one. */
export function mergeChanges(a: TrackedChange | undefined, b: TrackedChange): TrackedChange {
  if (!a) return b;
  if (a.all) return a;
  if (b.all) return b;
  const paths: Record<string, string[]> = {};
  for (const change of [a, b])
    for (const [dir, list] of Object.entries(change.paths)) paths[dir] = [...new Set([...(paths[dir] ?? []), ...list])].sort();
  return { all: false, reason: a.reason, paths };
}

/** What a scan after `change` re-reads; a full scan when the change is unknown or touches git's state. */
export function scanExtraFor(change: TrackedChange | undefined): ScanExtra {
  if (!change || change.all) return {};
  const only = Object.keys(change.paths).sort();
  return only.length ? { only, changedPaths: change.paths } : {};
}

/** The worktrees to watch after a scan: git's list now, plus agents' own (observations may name others). */
export async function worktreesToWatch(repo: string, result: ScanResult | undefined, fallback: readonly string[]): Promise<string[]> {
  const listed = await watchTargets(repo).then(
    (t) => t.worktrees,
    () => [...fallback],
  );
  return [...new Set([...listed, ...(result?.agents ?? []).map((a) => a.worktree).filter((d): d is string => typeof d === 'string')])];
}

export interface PendingChanges {
  add(change: TrackedChange): void;
  /** Whether changes wait for a scan. */
  has(): boolean;
  /** The changes not yet scanned, handed to the scan about to start. */
  take(): TrackedChange | undefined;
  /** The scan that took them failed: the next one reads everything, so nothing seen is dropped. */
  failed(): void;
}

export function createPendingChanges(): PendingChanges {
  let pending: TrackedChange | undefined;
  return {
    add(change) {
      pending = mergeChanges(pending, change);
    },
    has() {
      return pending !== undefined;
    },
    take() {
      const out = pending;
      pending = undefined;
      return out;
    },
    failed() {
      pending = { all: true, reason: 'the last scan failed' };
    },
  };
}
