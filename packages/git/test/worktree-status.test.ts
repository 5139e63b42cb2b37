import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';
import { runGit } from '../src/exec.js';
import { ScratchStore } from '../src/scratch.js';
import { snapshotWorktree } from '../src/state-tree.js';
import { readWorktreeStatus, statusWorktreePaths, takeRecentStatus } from '../src/worktree-status.js';

let repo: RepoFixture | undefined;
let scratch: ScratchStore | undefined;
afterEach(() => {
  scratch?.dispose();
  scratch = undefined;
  repo?.dispose();
  repo = undefined;
});

/** The tree `git add -A` writes into a copy of the worktree's index (what the snapshot stood for before). */
async function addAllTree(dir: string, store: ScratchStore): Promise<string> {
  const env = store.env({ GIT_INDEX_FILE: store.tempPath('reference') });
  await runGit(['read-tree', 'HEAD'], { cwd: dir, env });
  await runGit(['add', '-A', '.'], { cwd: dir, env });
  return (await runGit(['write-tree'], { cwd: dir, env })).trim();
}

describe('the worktree snapshot walks the work tree once', () => {
  it('lists what differs from the index: changed, deleted, untracked; staged-only changes are already there', () => {
    const out = Buffer.from(
      [
        '# branch.oid 0123',
        '# branch.head main',
        '1 .M N... 100644 100644 100644 aaaa aaaa src/changed.ts',
        '1 M. N... 100644 100644 100644 aaaa bbbb src/staged only.ts',
        '1 .D N... 100644 100644 000000 aaaa aaaa gone.ts',
        'u UU N... 100644 100644 100644 100644 aaaa bbbb cccc both.ts',
        '? new dir/file.ts',
        '! ignored.log',
        '',
      ].join('\0'),
    );
    expect(statusWorktreePaths(out)).toEqual([
      { path: 'src/changed.ts', untracked: false },
      { path: 'gone.ts', untracked: false },
      { path: 'both.ts', untracked: false },
      { path: 'new dir/file.ts', untracked: true },
    ]);
  });

  it('writes the tree `git add -A` writes, from its own status or from the one the stamp just read', async () => {
    repo = createRepoFixture({
      'a.ts': 'a\n',
      'b.ts': 'b\n',
      'run.sh': 'echo\n',
      'src/deep/c.ts': 'c\n',
      'staged.ts': 's\n',
      '.gitignore': '*.log\n',
    });
    const w = repo.worktree('alice');
    writeFileSync(join(w.dir, 'a.ts'), 'a changed\n');
    unlinkSync(join(w.dir, 'b.ts'));
    chmodSync(join(w.dir, 'run.sh'), 0o755);
    mkdirSync(join(w.dir, 'new dir', 'sub'), { recursive: true });
    writeFileSync(join(w.dir, 'new dir', 'sub', 'n t.ts'), 'new\n');
    writeFileSync(join(w.dir, 'skip.log'), 'ignored\n');
    writeFileSync(join(w.dir, 'staged.ts'), 's staged\n');
    await runGit(['add', 'staged.ts'], { cwd: w.dir });
    writeFileSync(join(w.dir, 'src', 'deep', 'c.ts'), 'c changed\n');
    scratch = new ScratchStore(join(repo.dir, '.git', 'objects'));
    const gitDir = (await runGit(['rev-parse', '--absolute-git-dir'], { cwd: w.dir })).trim();
    const expected = await addAllTree(w.dir, scratch);

    const own = await snapshotWorktree(scratch, { dir: w.dir, gitDir }, { maxFileBytes: Infinity });
    expect(own.tree).toBe(expected);

    // The stamp's reading is taken once: the next snapshot reads its own.
    await readWorktreeStatus(w.dir);
    const shared = await snapshotWorktree(scratch, { dir: w.dir, gitDir }, { maxFileBytes: Infinity });
    expect(shared.tree).toBe(expected);
    expect(takeRecentStatus(w.dir)).toBeUndefined();
    // An old reading is not taken.
    await readWorktreeStatus(w.dir);
    expect(takeRecentStatus(w.dir, -1)).toBeUndefined();
  });

  it('leaves an untracked file over the size limit out of the tree, and a clean worktree is its index', async () => {
    repo = createRepoFixture({ 'a.ts': 'a\n' });
    const w = repo.worktree('bob');
    scratch = new ScratchStore(join(repo.dir, '.git', 'objects'));
    const gitDir = (await runGit(['rev-parse', '--absolute-git-dir'], { cwd: w.dir })).trim();
    const clean = await snapshotWorktree(scratch, { dir: w.dir, gitDir }, { maxFileBytes: 100 });
    expect(clean.tree).toBe((await runGit(['rev-parse', 'HEAD^{tree}'], { cwd: w.dir })).trim());
    writeFileSync(join(w.dir, 'big.bin'), Buffer.alloc(500, 1));
    writeFileSync(join(w.dir, 'small.ts'), 'small\n');
    const snap = await snapshotWorktree(scratch, { dir: w.dir, gitDir }, { maxFileBytes: 100 });
    expect(snap.oversized.map((o) => [o.path, o.bytes])).toEqual([['big.bin', 500]]);
    const listed = (await runGit(['ls-tree', '-r', '--name-only', snap.tree], { cwd: w.dir, env: scratch.env() })).trim().split('\n');
    expect(listed).toEqual(['a.ts', 'small.ts']);
  });
});
