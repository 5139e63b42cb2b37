import { afterEach, expect, test } from 'vitest';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';
import { openRepository } from '../src/repository.js';
import { fetchPublished, openTeamStore, resolveRemote } from '../src/index.js';

let repo: RepoFixture | undefined;
const saved = process.env.GIT_SSH_COMMAND;
afterEach(() => {
  repo?.dispose();
  if (saved === undefined) delete process.env.GIT_SSH_COMMAND;
  else process.env.GIT_SSH_COMMAND = saved;
});

test('a fetch from a remote that never answers is stopped and reported, not waited on', async () => {
  repo = createRepoFixture({ 'a.txt': 'a\n' });
  // An ssh "connection" that hangs: git waits on it until the fetch is stopped.
  process.env.GIT_SSH_COMMAND = "sh -c 'sleep 60'";
  repo.git('remote', 'add', 'team', 'ssh://git.example.invalid/team.git');
  const repository = await openRepository(repo.dir);
  const store = await openTeamStore(repository);
  const remote = await resolveRemote(repository, 'team');
  const started = Date.now();
  const outcome = await fetchPublished(repository, store, remote, { timeoutMs: 500 });
  expect(outcome.error).toMatch(/no answer after/);
  expect(Date.now() - started).toBeLessThan(30_000);
});
