import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRawPatch } from '../src/diff.js';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';
import { diffArgs } from '../src/working-set.js';
import { parseMergeTreeStdin } from '../src/merge-tree.js';

let repo: RepoFixture | undefined;
afterEach(() => {
  repo?.dispose();
  repo = undefined;
});

describe('parseRawPatch', () => {
  it('keeps raw records and patch sections aligned across a type change (git splits it in two)', () => {
    repo = createRepoFixture({ 'a.txt': 'a\n', 'b.txt': '1\n2\n3\n', 'z.txt': 'z\n' });
    const base = repo.head();
    repo.remove('a.txt');
    execFileSync('ln', ['-s', 'b.txt', join(repo.dir, 'a.txt')]);
    repo.write('b.txt', '1\nX\n3\n').write('z.txt', 'zz\n').commit('typechange');
    const out = execFileSync('git', diffArgs(base, 'HEAD', Infinity), { cwd: repo.dir });
    const entries = parseRawPatch(out);
    expect(entries.map((e) => [e.path, e.status])).toEqual([
      ['a.txt', 'typechange'],
      ['b.txt', 'modified'],
      ['z.txt', 'modified'],
    ]);
    expect(entries[1]!.hunks).toEqual([{ base: [2, 2], current: [2, 2], contentId: expect.any(String) }]);
    expect(entries[2]!.hunks.map((h) => h.base)).toEqual([[1, 1]]);
  });

  it('reads hunk headers: zero-width insertions and deletions, omitted counts', () => {
    const raw = ':100644 100644 ' + '1'.repeat(40) + ' ' + '2'.repeat(40) + ' M\0f\0\0';
    const patch = [
      'diff --git a/f b/f',
      'index 1..2 100644',
      '--- a/f',
      '+++ b/f',
      '@@ -0,0 +1,2 @@',
      '+x',
      '+y',
      '@@ -5 +7 @@',
      '-a',
      '+b',
      '@@ -9,2 +10,0 @@',
      '-c',
      '-d',
      '\\ No newline at end of file',
      '',
    ].join('\n');
    const [e] = parseRawPatch(Buffer.from(raw + patch));
    expect(e!.hunks.map((h) => [h.base, h.current])).toEqual([
      [
        [1, 0],
        [1, 2],
      ],
      [
        [5, 5],
        [7, 7],
      ],
      [
        [9, 10],
        [11, 10],
      ],
    ]);
    expect(e!.hunks[2]!.contentId).toBe(parseRawPatch(Buffer.from(raw + patch.replace('-d', '-e')))[0]!.hunks[2]!.contentId); // a deletion's content is empty
    expect(e!.hunks[0]!.contentId).not.toBe(e!.hunks[1]!.contentId);
  });
});

describe('parseMergeTreeStdin', () => {
  it('splits clean and conflicted merges and stops at a cut-short record', () => {
    const t = 'a'.repeat(40);
    const out = [
      '1',
      t,
      '',
      '0',
      t,
      'x.ts',
      '',
      '1',
      'x.ts',
      'Auto-merging',
      'Auto-merging x.ts\n',
      '1',
      'x.ts',
      'CONFLICT (contents)',
      'CONFLICT (content): Merge conflict in x.ts\n',
      '',
      '1',
      t,
    ].join('\0');
    const outcomes = parseMergeTreeStdin(out);
    expect(outcomes).toEqual([
      { clean: true, tree: t, conflicts: [] },
      {
        clean: false,
        tree: t,
        conflicts: [{ path: 'x.ts', type: 'CONFLICT (contents)', message: 'CONFLICT (content): Merge conflict in x.ts' }],
      },
    ]);
  });
});
