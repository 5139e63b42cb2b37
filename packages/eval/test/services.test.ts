import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@airspace/core';
import { openRepository, type RepositoryInfo } from '@airspace/git';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import type { Scenario } from '../src/extract/scenario.js';
import { ReplayGitService } from '../src/score/services.js';

let repo: RepoFixture;
let info: RepositoryInfo;
let base: string;
let sides: [string, string];

beforeAll(async () => {
  repo = createRepoFixture({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  base = repo.head();
  const left = repo.worktree('left').write('a.txt', 'left\n').commit('left');
  const right = repo.worktree('right').write('b.txt', 'right\n').commit('right');
  sides = [left.head(), right.head()];
  info = await openRepository(repo.dir);
});
afterAll(() => repo.dispose());

const agent = (id: string): Agent => ({ id, label: id, files: [] }) as unknown as Agent;
const scenario = (n: number): Scenario =>
  ({
    base,
    agents: [agent(`a${n}`), agent(`b${n}`)],
    sides: [{ commit: sides[0] }, { commit: sides[1] }],
  }) as unknown as Scenario;

describe("a replay's git service", () => {
  it('is recycled every N scenarios, but one a scenario holds stays usable until that scenario lets go', async () => {
    const git = new ReplayGitService(info, 2);
    const held = git.hold(scenario(1));
    git.servicesFor(scenario(2));
    // The third scenario recycles the service the first still holds.
    const next = git.servicesFor(scenario(3)).git;
    expect(next).not.toBe(held.git);
    expect(existsSync(held.git.scratch.objectsDir)).toBe(true);
    const trees = await held.git.pairTrees('a1', 'b1');
    expect(trees.merge.clean).toBe(true);
    held.release();
    expect(existsSync(held.git.scratch.objectsDir)).toBe(false);
    // The current service is the next scenario's, not disposed by the release.
    expect(existsSync(next.scratch.objectsDir)).toBe(true);
    git.dispose();
    expect(existsSync(next.scratch.objectsDir)).toBe(false);
  });

  it('disposes a recycled service nobody holds at once, and a held one at the end of the replay', () => {
    const git = new ReplayGitService(info, 1);
    const first = git.servicesFor(scenario(1)).git;
    git.servicesFor(scenario(2));
    expect(existsSync(first.scratch.objectsDir)).toBe(false);
    const held = git.hold(scenario(3));
    git.servicesFor(scenario(4));
    expect(existsSync(held.git.scratch.objectsDir)).toBe(true);
    git.dispose();
    expect(existsSync(held.git.scratch.objectsDir)).toBe(false);
    held.release();
  });
});
