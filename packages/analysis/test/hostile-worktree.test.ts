/**
 * A work tree's untracked links, FIFOs and devices: the snapshot leaves them out as it leaves out
 * committed links, and a file swapped for one after listing is skipped, never read. Short
 * timeouts: a regression fails here rather than hanging the run on a FIFO or /dev/zero.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { readSource } from '../src/extract/source-file.js';
import { buildIndex } from '../src/indexing/build.js';
import { patchSnapshot, worktreeSnapshot } from '../src/snapshot.js';

let repo: RepoFixture;
beforeAll(() => {
  repo = createRepoFixture({ 'src/a.ts': "import { b } from './b';\nexport const a = b;\n", 'src/b.ts': 'export const b = 1;\n' });
  symlinkSync('/etc/passwd', join(repo.dir, 'src', 'passwd.ts'));
  symlinkSync('../../../../../../../../etc/hosts', join(repo.dir, 'src', 'hosts.ts'));
  symlinkSync('/dev/zero', join(repo.dir, 'src', 'zero.ts'));
  symlinkSync('/dev/urandom', join(repo.dir, 'src', 'random.ts'));
  execFileSync('mkfifo', [join(repo.dir, 'src', 'fifo.ts')]);
  repo.write('src/new.ts', "import { a } from './a';\nexport const n = a;\n");
});
afterAll(() => repo?.dispose());

describe('a work tree with untracked links, FIFOs and devices', () => {
  it('is indexed from its regular files only, without blocking', { timeout: 10_000 }, async () => {
    const snap = await worktreeSnapshot(repo.dir);
    expect(snap.files.map((f) => f.path)).toEqual(['src/a.ts', 'src/b.ts', 'src/new.ts']);
    const patched = await patchSnapshot(snap, ['src/fifo.ts', 'src/zero.ts', 'src/passwd.ts', '../etc/passwd', 'src/new.ts']);
    expect(patched.files.map((f) => f.path)).toEqual(['src/a.ts', 'src/b.ts', 'src/new.ts']);
    const built = await buildIndex(snap, { workers: 0 });
    expect([...built.files.keys()].sort()).toEqual(['src/a.ts', 'src/b.ts', 'src/new.ts']);
  });

  it('a listed file replaced by a FIFO or a link is skipped, not read', { timeout: 10_000 }, async () => {
    const snap = await worktreeSnapshot(repo.dir);
    const file = snap.files.find((f) => f.path === 'src/new.ts')!;
    rmSync(join(repo.dir, 'src', 'new.ts'));
    execFileSync('mkfifo', [join(repo.dir, 'src', 'new.ts')]);
    await expect(file.read()).rejects.toThrow(/FIFO/);
    expect(readSource(file.diskPath!, 1 << 20)).toMatchObject({ skip: 'unreadable', detail: expect.stringMatching(/FIFO/) });
    rmSync(join(repo.dir, 'src', 'new.ts'));
    symlinkSync('/dev/zero', join(repo.dir, 'src', 'new.ts'));
    await expect(file.read()).rejects.toThrow(/symbolic link/);
    expect(readSource(file.diskPath!, 1 << 20)).toMatchObject({ skip: 'unreadable' });
  });
});
