import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { scanAirspace } from '@airspace/core';
import { loadAgents, runGit, worktreeGitDir } from '@airspace/git';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { mergeChannel } from '../src/index.js';

let repo: RepoFixture | undefined;
afterEach(() => {
  repo?.dispose();
  repo = undefined;
});

/** Everything a scan must leave untouched, for one work tree. */
async function record(dir: string): Promise<Record<string, string>> {
  const git = (...args: string[]) => runGit(args, { cwd: dir });
  return {
    status: await git('status', '--porcelain=v2', '--branch', '--untracked-files=all'),
    refs: await git('for-each-ref'),
    stash: await git('stash', 'list'),
    index: readFileSync(join(worktreeGitDir(dir)!, 'index')).toString('base64'),
    objects: await git('count-objects', '-v'),
  };
}

it('a full load and merge scan leaves every work tree, index, ref, stash and the object store unchanged', async () => {
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
  const text = (l: string[]) => l.join('\n') + '\n';
  repo = createRepoFixture({ 'a.ts': text(lines), 'b.ts': 'b\n' });
  const alice = repo.worktree('alice');
  alice.write('a.ts', text(lines.map((l, i) => (i === 4 ? 'alice' : l)))).commit('alice');
  alice.write('b.ts', 'stashed\n');
  alice.git('stash', 'push', '-q', '-m', 'keep me');
  alice.write('a.ts', text(lines.map((l, i) => (i === 4 ? 'alice 2' : l)))).stage('a.ts');
  alice.write('untracked.md', 'u\n');
  const bob = repo.worktree('bob');
  bob.write('a.ts', text(lines.map((l, i) => (i === 5 ? 'bob' : l))));
  bob.write('untracked.md', 'other\n');
  repo.write('b.ts', 'main is dirty too\n');
  const dirs = [repo.dir, alice.dir, bob.dir];
  const before = await Promise.all(dirs.map(record));

  const loaded = await loadAgents({ repo: bob.dir, overrides: { [alice.dir]: { 'b.ts': 'unsaved\n' } } });
  try {
    const scan = await scanAirspace(loaded.agents, {
      channels: [mergeChannel()],
      services: { git: loaded.git },
      repository: { id: loaded.repository.id },
    });
    // The scan really merged: alice × bob conflict in a.ts (lines 5 and 6 touch) and untracked.md.
    const link = scan.links.find((l) => l.a === 'alice' && l.b === 'bob');
    expect(link?.channels[0]?.risk).toBe(1);
    expect(loaded.git.stats.merges).toBeGreaterThan(0);
  } finally {
    loaded.git.dispose();
  }

  const after = await Promise.all(dirs.map(record));
  expect(after).toEqual(before);
});
