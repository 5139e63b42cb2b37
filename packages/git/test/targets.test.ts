import { realpathSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { watchTargets } from '../src/changes.js';
import { createRepoFixture } from '../src/fixture.js';

const repo = createRepoFixture({ 'a.ts': 'export const a = 1;\n' });
afterAll(() => repo.dispose());

describe('watchTargets', () => {
  it('lists the common git directory and every worktree, each as a directory', async () => {
    const alice = repo.worktree('alice');
    const targets = await watchTargets(alice.dir);
    const real = (d: string) => realpathSync(d);
    expect([targets.commonDir, ...targets.worktrees].map(real).sort()).toEqual(
      [real(`${repo.dir}/.git`), real(repo.dir), real(alice.dir)].sort(),
    );
    expect(real(targets.commonDir)).toEqual(real(`${repo.dir}/.git`));
  });
});
