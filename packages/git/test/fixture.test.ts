import { afterEach, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';
import { runGit } from '../src/exec.js';

let repo: RepoFixture | undefined;
afterEach(() => repo?.dispose());

describe('createRepoFixture', () => {
  it('builds a base commit and worktrees on their own branches, reproducibly', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n' });
    const alice = repo.worktree('alice');
    alice.write('src/a.ts', 'export const a = 2;\n').commit('edit a');
    alice.write('notes.txt', 'untracked\n');
    expect(await runGit(['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: alice.dir })).toBe('alice\n');
    expect(alice.git('status', '--porcelain')).toBe('?? notes.txt');
    const list = await runGit(['worktree', 'list', '--porcelain'], { cwd: repo.dir });
    expect(list).toContain('branch refs/heads/alice');
    // Fixed identity and clock: the same fixture gives the same commit ids.
    const again = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n' });
    try {
      expect(again.head()).toBe(repo.head());
    } finally {
      again.dispose();
    }
  });

  it('reports git failures as GitError with the command and stderr', async () => {
    repo = createRepoFixture({ 'a.txt': 'a\n' });
    await expect(runGit(['rev-parse', 'no-such-ref'], { cwd: repo.dir })).rejects.toMatchObject({ code: 'GIT_FAILED' });
  });
});
