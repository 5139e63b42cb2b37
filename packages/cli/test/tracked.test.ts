import { describe, expect, it } from 'vitest';
import { createPendingChanges, mergeChanges, scanExtraFor } from '../src/watch/tracked.js';

describe('tracked changes → the next scan', () => {
  it('merges paths per worktree, and "everything" wins', () => {
    const a = { all: false as const, reason: 'x', paths: { '/w/alice': ['src/a.ts'] } };
    const b = { all: false as const, reason: 'y', paths: { '/w/alice': ['src/b.ts', 'src/a.ts'], '/w/bob': ['x.md'] } };
    expect(mergeChanges(a, b)).toEqual({ all: false, reason: 'x', paths: { '/w/alice': ['src/a.ts', 'src/b.ts'], '/w/bob': ['x.md'] } });
    expect(mergeChanges(a, { all: true, reason: 'git refs/heads/main' })).toEqual({ all: true, reason: 'git refs/heads/main' });
  });

  it('re-reads only the changed worktrees and paths; everything when unknown', () => {
    expect(scanExtraFor({ all: false, reason: 'x', paths: { '/w/bob': ['x.md'], '/w/alice': ['a.ts'] } })).toEqual({
      only: ['/w/alice', '/w/bob'],
      changedPaths: { '/w/bob': ['x.md'], '/w/alice': ['a.ts'] },
    });
    expect(scanExtraFor({ all: true, reason: 'git HEAD' })).toEqual({});
    expect(scanExtraFor(undefined)).toEqual({});
  });

  it('gives the changes of a failed scan back as "everything"', () => {
    const pending = createPendingChanges();
    expect(pending.has()).toBe(false);
    pending.add({ all: false, reason: 'x', paths: { '/w/a': ['a.ts'] } });
    expect(pending.take()).toMatchObject({ all: false });
    expect(pending.has()).toBe(false);
    pending.failed();
    expect(pending.take()).toMatchObject({ all: true });
  });
});
