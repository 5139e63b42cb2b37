import { realpathSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createRepoFixture } from '@airspace/git/fixture';
import { watchTargets } from '../src/watch/targets.js';

const repo = createRepoFixture({ 'a.ts': 'export const a = 1;\n' });
afterAll(() => repo.dispose());

describe('watchTargets', () => {
  it('lists the common git directory and every worktree, each as a directory', async () => {
    const alice = repo.worktree('alice');
    const targets = await watchTargets(alice.dir);
    const real = (d: string) => realpathSync(d);
    expect(targets.dirs.map(real).sort()).toEqual([real(`${repo.dir}/.git`), real(repo.dir), real(alice.dir)].sort());
    expect(targets.gitDirs.map(real)).toEqual([real(`${repo.dir}/.git`)]);
  });
});
