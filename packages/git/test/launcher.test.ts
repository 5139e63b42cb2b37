import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashBlob } from '../src/blob.js';
import { GitError, runGit, runGitRaw } from '../src/exec.js';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';
import { launcherStats, LAUNCHER_MIN_RSS, setLauncherThreshold } from '../src/launcher.js';

let repo: RepoFixture;
beforeAll(() => {
  repo = createRepoFixture({ 'a.txt': 'a\n' });
  setLauncherThreshold(0);
});
afterAll(() => {
  setLauncherThreshold(LAUNCHER_MIN_RSS);
  repo.dispose();
});

describe('git through the launcher (a large process starts git from a small child)', () => {
  it('answers as git run directly does: output, input, accepted exit codes, errors', async () => {
    const before = launcherStats.launched;
    expect((await runGit(['rev-parse', '--show-toplevel'], { cwd: repo.dir })).trim()).toBe(repo.git('rev-parse', '--show-toplevel'));
    expect((await runGit(['hash-object', '--stdin'], { cwd: repo.dir, input: 'hello\n' })).trim()).toBe(
      'ce013625030ba8dba906f756967f9e9ca394464a',
    );
    const binary = Buffer.from([0, 1, 2, 255]);
    const id = (await runGit(['hash-object', '--stdin'], { cwd: repo.dir, input: binary })).trim();
    expect(id).toBe(hashBlob(binary));
    const exit1 = await runGitRaw(['diff', '--no-index', '--quiet', '/dev/null', 'a.txt'], { cwd: repo.dir, okCodes: [1] });
    expect(exit1.code).toBe(1);
    await expect(runGit(['rev-parse', '--verify', 'no-such-ref'], { cwd: repo.dir })).rejects.toBeInstanceOf(GitError);
    await expect(runGit(['rev-parse', '--verify', 'no-such-ref'], { cwd: repo.dir })).rejects.toThrow(
      /no-such-ref|Needed a single revision/,
    );
    // Several at once, answered each to its caller.
    const many = await Promise.all(
      Array.from({ length: 8 }, (_, i) => runGit(['hash-object', '--stdin'], { cwd: repo.dir, input: `${i}\n` })),
    );
    expect(new Set(many).size).toBe(8);
    expect(launcherStats.launched - before).toBeGreaterThanOrEqual(14);
  });
});
