import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';
import { indexEntryCount } from '../src/repository.js';

let repo: RepoFixture | undefined;
afterEach(() => {
  repo?.dispose();
  repo = undefined;
});

describe('indexEntryCount', () => {
  it("reads the number of files from the index's header, for the main work tree and a linked one", () => {
    repo = createRepoFixture({ 'a.ts': 'a\n', 'src/b.ts': 'b\n', 'src/c/d.py': 'd\n' });
    expect(indexEntryCount(join(repo.dir, '.git'))).toBe(3);
    const linked = repo.worktree('alice');
    linked.write('src/new.ts', 'n\n').commit('alice: a new file');
    expect(indexEntryCount(join(repo.dir, '.git', 'worktrees', 'alice'))).toBe(4);
  });

  it('says nothing of a missing, damaged or foreign index', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-index-count-'));
    try {
      expect(indexEntryCount(dir)).toBeUndefined();
      writeFileSync(join(dir, 'index'), 'DIR');
      expect(indexEntryCount(dir)).toBeUndefined();
      writeFileSync(join(dir, 'index'), Buffer.from('NOPE\0\0\0\x02\0\0\0\x09'));
      expect(indexEntryCount(dir)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
