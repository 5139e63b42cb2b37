import { describe, expect, it } from 'vitest';
import { createRepoFixture } from '@airspace/git/fixture';
import { realpathSync } from 'node:fs';
import { WorktreeWatcher } from '../src/watch.js';
import { gitDirOf } from '../src/workspace.js';

const changes = (events: string[], n: number) =>
  new Promise<void>((resolve, reject) => {
    const t0 = Date.now();
    const tick = () =>
      events.length >= n ? resolve() : Date.now() - t0 > 15_000 ? reject(new Error('no change seen')) : setTimeout(tick, 20);
    tick();
  });

describe('WorktreeWatcher', () => {
  for (const poll of [false, true]) {
    it(`sees an edit and a commit in a worktree (${poll ? 'polling' : 'fs.watch'})`, async () => {
      const repo = createRepoFixture({ 'a.ts': 'a\n' });
      const events: string[] = [];
      const dir = realpathSync(repo.dir);
      const watcher = new WorktreeWatcher({ onChange: (e) => events.push(`${e.worktree}:${e.kind}`), poll, pollMs: 50 });
      try {
        watcher.set([{ worktree: dir, gitDir: gitDirOf(dir)! }]);
        await new Promise((r) => setTimeout(r, 200)); // first poll records the signature
        repo.write('a.ts', 'b\n');
        await changes(events, 1);
        expect(events[0]).toContain(dir);
        const seen = events.length;
        repo.commit('b');
        await changes(events, seen + 1);
        watcher.set([]);
        const after = events.length;
        repo.write('a.ts', 'c\n');
        await new Promise((r) => setTimeout(r, 300));
        expect(events.length).toBe(after);
      } finally {
        watcher.dispose();
        repo.dispose();
      }
    });
  }
});
