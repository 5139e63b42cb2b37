import { describe, expect, it } from 'vitest';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRepoFixture } from '@airspace/git/fixture';
import { parseStatusV2, repositoryStamp, stampDelta, statsHold, type RepositoryStamp } from '../src/freshness.js';

const stamp = (refs: string, worktrees: Record<string, { head: string; paths: Record<string, string> }>): RepositoryStamp => ({
  refs,
  worktrees: new Map(Object.entries(worktrees).map(([dir, w]) => [dir, { head: w.head, paths: new Map(Object.entries(w.paths)) }])),
});

describe('parseStatusV2', () => {
  it('reads HEAD and every path of ordinary, renamed, unmerged and untracked records', () => {
    const text = [
      '# branch.oid 1234',
      '# branch.head main',
      '# branch.ab +0 -0',
      '1 .M N... 100644 100644 100644 aaa aaa src/with space.ts',
      '2 R. N... 100644 100644 100644 bbb bbb R100 src/new.ts',
      'src/old.ts',
      'u UU N... 100644 100644 100644 100644 c1 c2 c3 src/conflict.ts',
      '? notes/new.md',
      '',
    ].join('\0');
    const { head, records } = parseStatusV2(text);
    expect(head).toBe('# branch.oid 1234\n# branch.head main');
    expect([...records.keys()].sort()).toEqual(['notes/new.md', 'src/conflict.ts', 'src/new.ts', 'src/old.ts', 'src/with space.ts']);
  });
});

describe('stampDelta', () => {
  const base = stamp('refs', { '/w/a': { head: 'h1', paths: { 'x.ts': '1 .M 10' } }, '/w/b': { head: 'h2', paths: {} } });

  it('is the same when nothing moved, and everything on a first look', () => {
    expect(stampDelta(base, base)).toEqual({ kind: 'same' });
    expect(stampDelta(undefined, base)).toEqual({ kind: 'repository' });
  });

  it('names the paths that changed, appeared or left the status, per worktree', () => {
    const after = stamp('refs', { '/w/a': { head: 'h1', paths: { 'x.ts': '1 .M 11', 'y.ts': '? 5' } }, '/w/b': { head: 'h2', paths: {} } });
    expect(stampDelta(base, after)).toEqual({ kind: 'worktrees', changed: new Map([['/w/a', ['x.ts', 'y.ts']]]) });
    const reverted = stamp('refs', { '/w/a': { head: 'h1', paths: {} }, '/w/b': { head: 'h2', paths: {} } });
    expect(stampDelta(base, reverted)).toEqual({ kind: 'worktrees', changed: new Map([['/w/a', ['x.ts']]]) });
  });

  it('reads a worktree again when its HEAD moved, and every agent when worktrees or refs change', () => {
    const committed = stamp('refs', { '/w/a': { head: 'h3', paths: {} }, '/w/b': { head: 'h2', paths: {} } });
    expect(stampDelta(base, committed)).toEqual({ kind: 'worktrees', changed: new Map([['/w/a', 'all']]) });
    expect(
      stampDelta(base, stamp('refs moved', { '/w/a': { head: 'h1', paths: { 'x.ts': '1 .M 10' } }, '/w/b': { head: 'h2', paths: {} } })),
    ).toEqual({ kind: 'repository' });
  });
});

describe('statsHold', () => {
  it('holds while no changed path moved, and not after an edit of one, in place or by rename', async () => {
    const repo = createRepoFixture({ 'src/a.ts': 'a\n' });
    try {
      const file = join(repo.dir, 'src/a.ts');
      writeFileSync(file, 'dirty\n');
      const taken = await repositoryStamp(repo.dir);
      expect(statsHold(taken)).toBe(true);
      writeFileSync(file, 'edited in place, longer\n');
      expect(statsHold(taken)).toBe(false);
      const again = await repositoryStamp(repo.dir);
      writeFileSync(`${file}.tmp`, 'by rename\n');
      renameSync(`${file}.tmp`, file); // a new inode, same size as before is no cover
      expect(statsHold(again)).toBe(false);
    } finally {
      repo.dispose();
    }
  });
});
