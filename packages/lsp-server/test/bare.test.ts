/**
 * Worktrees of a bare repository (a common layout for agent orchestrators): the bare directory
 * that `git worktree list` names is no work tree, and git's own writes there (objects, packs) are
 * no agent's change.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRepoFixture } from '@airspace/git/fixture';
import { createScanner } from './support/fake-scanner.mjs';
import { InProcessClient } from './support/in-process.js';
import { uriOf } from './support/client.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

describe('a bare repository with worktrees', () => {
  it('does not take git writes in the bare directory for changes of a worktree', async () => {
    const source = createRepoFixture({ 'a.ts': 'a\nb\nc\n' });
    const top = realpathSync(mkdtempSync(join(tmpdir(), 'airspace-bare-')));
    const bare = join(top, 'repo.git');
    git(top, 'clone', '-q', '--bare', source.dir, bare);
    git(bare, 'worktree', 'add', '-q', '-b', 'bob', join(top, 'bob'), 'main');
    writeFileSync(join(top, 'bob', 'a.ts'), 'a\nBOB\nc\n');
    const client = new InProcessClient({ createScanner, settings: { debounceMs: 5000 } }); // events wait; the scan request takes what they marked
    const scan = async () =>
      (await client.connection.sendRequest('airspace/scan', { folder: uriOf(join(top, 'bob')) })) as { meta: { changed: string[] | null } };
    try {
      await client.initialize([join(top, 'bob')]);
      await scan();
      await scan(); // the worktrees are listed and watched after a scan
      execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: bare, input: 'an object git writes\n' });
      await new Promise((r) => setTimeout(r, 500));
      expect((await scan()).meta.changed ?? []).not.toContain(bare);
    } finally {
      await client.close();
      rmSync(top, { recursive: true, force: true });
      source.dispose();
    }
  });
});
