import { afterAll, describe, expect, it } from 'vitest';
import { commitWorkingSet } from '../src/working-set.js';
import { createRepoFixture } from '../src/fixture.js';
import { numbered, replaced, text } from './helpers.js';

const repo = createRepoFixture({ 'a.ts': text(numbered(30)), 'b.ts': 'export const b = 1;\n' });
afterAll(() => repo.dispose());

describe('commitWorkingSet', () => {
  const base = repo.head();
  const side = repo.worktree('side');
  side.write('a.ts', text(replaced(numbered(30), 10, 12, 'changed'))).commit('edit a');
  side.write('c.ts', 'export const c = 3;\n').commit('add c');
  const head = side.head();

  it('is the diff base..commit in base coordinates, with commit times for recency', async () => {
    const set = await commitWorkingSet(repo.dir, base, head, { now: Date.UTC(2026, 0, 1, 0, 2) });
    expect(set.commits).toBe(2);
    expect(set.tooManyFiles).toBe(false);
    const byPath = Object.fromEntries(set.files.map((f) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual(['a.ts', 'c.ts']);
    expect(byPath['a.ts']!.baseRanges).toEqual([[10, 12]]);
    expect(byPath['c.ts']!).toMatchObject({ status: 'added', baseRanges: 'whole' });
    // The fixture's clock: base at 00:01, the two commits at 00:02 and 00:03.
    expect(byPath['a.ts']!.lastEditedAt).toBe(Date.UTC(2026, 0, 1, 0, 2));
    expect(byPath['c.ts']!.lastEditedAt).toBe(Date.UTC(2026, 0, 1, 0, 3));
  });

  it('reports a diff over maxFiles without building its edits', async () => {
    const set = await commitWorkingSet(repo.dir, base, head, { now: 0, maxFiles: 1 });
    expect(set).toMatchObject({ files: [], tooManyFiles: true, commits: 2 });
  });
});
