#!/usr/bin/env node
/**
 * Cost of team mode on a real repository: `node bench/team.mjs <repository> [<commit>] [--keep]`.
 * Makes (in the temp directory) a bare "remote" holding <commit> as main, and two clones of it:
 * alice edits 20 files (10 committed, 10 not) and adds 2 untracked files, then publishes; bob
 * fetches the published agents. Prints wall times (ms) of each step as JSON. Needs a build.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openRepository, publishAgent, publishedCandidates } from '../dist/index.js';

const [source, commit = 'HEAD'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const keep = process.argv.includes('--keep');
if (!source) {
  console.error('usage: node bench/team.mjs <repository> [<commit>] [--keep]');
  process.exit(1);
}
const git = (cwd, ...args) =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 1 << 30,
  }).trim();
const time = async (fn) => {
  const t = performance.now();
  const value = await fn();
  return { ms: Math.round(performance.now() - t), value };
};

const dir = mkdtempSync(join(tmpdir(), 'airspace-team-bench-'));
try {
  const remote = join(dir, 'remote.git');
  git(dir, 'init', '-q', '--bare', remote);
  const sha = git(source, 'rev-parse', `${commit}^{commit}`);
  git(source, 'push', '-q', remote, `${sha}:refs/heads/main`);
  git(remote, 'symbolic-ref', 'HEAD', 'refs/heads/main');
  const alice = join(dir, 'alice');
  const bob = join(dir, 'bob');
  git(dir, 'clone', '-q', remote, alice);
  git(dir, 'clone', '-q', remote, bob);
  git(alice, 'checkout', '-q', '-b', 'alice');
  const files = git(alice, 'ls-files')
    .split('\n')
    .filter((f) => /\.(ts|tsx|js|py|md)$/.test(f))
    .slice(0, 20);
  files.slice(0, 10).forEach((f) => appendFileSync(join(alice, f), '\n// alice: committed\n'));
  git(alice, 'commit', '-qam', 'alice: ten files');
  files.slice(10).forEach((f) => appendFileSync(join(alice, f), '\n// alice: uncommitted\n'));
  writeFileSync(join(alice, 'alice-new-1.txt'), 'new\n');
  writeFileSync(join(alice, 'alice-new-2.txt'), 'new\n');

  const tracked = Number(git(alice, 'ls-files').split('\n').length);
  const first = await time(() => publishAgent({ repo: alice }));
  const unchanged = await time(() => publishAgent({ repo: alice, skipUnchanged: true }));
  appendFileSync(join(alice, files[15]), '// one more line\n');
  const changed = await time(() => publishAgent({ repo: alice, skipUnchanged: true }));
  const repository = await openRepository(bob);
  const fetch1 = await time(() => publishedCandidates(repository, 'origin'));
  const fetch2 = await time(() => publishedCandidates(repository, 'origin'));
  const plainFetch = await time(() => git(bob, 'fetch', '-q', 'origin'));
  console.log(
    JSON.stringify(
      {
        repository: source,
        commit: sha,
        trackedFiles: tracked,
        publishFirstMs: first.ms,
        publishUnchangedMs: unchanged.ms,
        unchangedSkipped: unchanged.value.unchanged,
        publishChangedMs: changed.ms,
        publishedPaths: changed.value.observation.paths.length,
        fetchFirstMs: fetch1.ms,
        fetchAgainMs: fetch2.ms,
        agentsFetched: fetch1.value.candidates.length,
        plainGitFetchMs: plainFetch.ms,
      },
      null,
      2,
    ),
  );
} finally {
  if (keep) console.error(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
