import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';
import { hashBlob, readLooseObject, writeLooseBlob } from '../src/blob.js';
import { runGit } from '../src/exec.js';
import { readHeadCommit } from '../src/repository.js';
import { ScratchStore } from '../src/scratch.js';
import { writeStateCommit } from '../src/state-tree.js';
import { createBlobReader } from '../src/blob-reader.js';
import { TreeModel } from '../src/tree-model.js';

let repo: RepoFixture | undefined;
let scratch: ScratchStore | undefined;
afterEach(() => {
  scratch?.dispose();
  scratch = undefined;
  repo?.dispose();
  repo = undefined;
});

describe('objects and refs read and written without starting git', () => {
  it('a loose blob reads back; a missing or foreign id reads as undefined', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-objects-'));
    try {
      const id = writeLooseBlob(dir, 'hello\n');
      expect(id).toBe(hashBlob('hello\n'));
      expect(readLooseObject(dir, id)).toEqual({ type: 'blob', content: Buffer.from('hello\n') });
      expect(readLooseObject(dir, 'f'.repeat(40))).toBeUndefined();
      expect(readLooseObject(dir, '../../etc/passwd')).toBeUndefined();
      writeFileSync(join(dir, id.slice(0, 2), id.slice(2)), 'not zlib');
      expect(readLooseObject(dir, id)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a state commit is the object git commit-tree writes, and git reads it', async () => {
    repo = createRepoFixture({ 'a.txt': 'a\n' });
    scratch = new ScratchStore(join(repo.dir, '.git', 'objects'));
    const head = repo.head();
    const tree = (await runGit(['rev-parse', 'HEAD^{tree}'], { cwd: repo.dir })).trim();
    const ours = writeStateCommit(scratch, tree, head);
    const env = scratch.env({
      GIT_AUTHOR_NAME: 'airspace',
      GIT_AUTHOR_EMAIL: 'airspace@localhost',
      GIT_AUTHOR_DATE: '1000000000 +0000',
      GIT_COMMITTER_NAME: 'airspace',
      GIT_COMMITTER_EMAIL: 'airspace@localhost',
      GIT_COMMITTER_DATE: '1000000000 +0000',
    });
    const theirs = (
      await runGit(['commit-tree', '--no-gpg-sign', tree, '-p', head, '-m', 'airspace state'], { cwd: repo.dir, env })
    ).trim();
    expect(ours).toBe(theirs);
    expect((await runGit(['rev-parse', `${ours}^`], { cwd: repo.dir, env: scratch.env() })).trim()).toBe(head);
  });

  it('HEAD of the main worktree, a linked one, a detached one and a packed ref, as git rev-parse says', async () => {
    repo = createRepoFixture({ 'a.txt': 'a\n' });
    const bob = repo.worktree('bob');
    bob.write('b.txt', 'b\n').commit('bob');
    const carol = repo.worktree('carol', { detach: true });
    const revParse = async (dir: string) => (await runGit(['rev-parse', 'HEAD'], { cwd: dir })).trim();
    for (const dir of [repo.dir, bob.dir, carol.dir]) expect(readHeadCommit(dir)).toBe(await revParse(dir));
    await runGit(['pack-refs', '--all'], { cwd: repo.dir });
    expect(readHeadCommit(bob.dir)).toBe(await revParse(bob.dir));
    expect(readHeadCommit(join(repo.dir, 'nowhere'))).toBeUndefined();
  });

  it('a tree model reads only the directories along the paths it is asked about, and writes the tree git would', async () => {
    repo = createRepoFixture({ 'a/b/c.ts': 'c\n', 'a/x.ts': 'x\n', 'z/far/away.ts': 'z\n', 'top.ts': 't\n' });
    scratch = new ScratchStore(join(repo.dir, '.git', 'objects'));
    const reader = createBlobReader(repo.dir, { env: scratch.env() });
    try {
      const read: string[] = [];
      const head = (await runGit(['rev-parse', 'HEAD^{tree}'], { cwd: repo.dir })).trim();
      const model = new TreeModel(head, (id) => {
        read.push(id);
        return reader.read(id);
      });
      await model.load(['a/b/c.ts', 'a/new/n.ts']);
      expect(read.length).toBe(3); // the root, a, a/b — not z or z/far
      expect(model.file('a/b/c.ts')?.mode).toBe('100644');
      expect(model.isDirectory('a/b')).toBe(true);
      expect(() => model.file('z/far/away.ts')).toThrow(/not loaded/);
      expect(() => model.set('z/other.ts', { mode: '100644', id: '0'.repeat(40) })).toThrow(/not loaded/);
      expect(model.file('q/nothing.ts')).toBeUndefined();
      model.remove('a/b/c.ts');
      model.set('a/new/n.ts', { mode: '100755', id: writeLooseBlob(scratch.objectsDir, 'n\n') });
      const tree = model.write(scratch.objectsDir);
      // The same change made by git itself.
      repo.remove('a/b/c.ts').write('a/new/n.ts', 'n\n');
      chmodSync(join(repo.dir, 'a/new/n.ts'), 0o755);
      repo.stage();
      expect(tree).toBe((await runGit(['write-tree'], { cwd: repo.dir })).trim());
    } finally {
      reader.close();
    }
  });
});
