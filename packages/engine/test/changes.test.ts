import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChangeSource, ignoredPath, type ChangeSource } from '../src/watch/changes.js';

let source: ChangeSource | undefined;
let dir: string | undefined;
afterEach(() => {
  source?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('ignoredPath', () => {
  it.each([
    ['src/a.ts', false, false],
    ['objects/ab', false, false], // a user folder named objects is work
    ['node_modules/x/index.js', false, true],
    ['.git/objects/ab/cd', false, true],
    ['.git/refs/heads/main', false, false],
    ['.git/index', false, false],
    ['.git/index.lock', false, true],
    ['objects/ab/cd', true, true],
    ['logs/HEAD', true, true],
    ['worktrees/alice/index', true, false],
    ['worktrees/alice/logs/HEAD', true, true],
    ['refs/heads/alice', true, false],
  ])('%s (git dir: %s) → ignored %s', (path, inGitDir, ignored) => {
    expect(ignoredPath(path, inGitDir)).toBe(ignored);
  });
});

describe('createChangeSource', () => {
  it('turns a burst of file events into one debounced change', async () => {
    dir = mkdtempSync(join(tmpdir(), 'airspace-watch-'));
    mkdirSync(join(dir, 'src'));
    const changes: string[] = [];
    source = createChangeSource({ dirs: [dir], pollMs: 60_000, debounceMs: 100, onChange: (why) => changes.push(why) });
    expect(source.mode()).toBe('watch');
    for (let i = 0; i < 5; i++) writeFileSync(join(dir, 'src', `f${i}.ts`), `${i}\n`);
    await new Promise((r) => setTimeout(r, 600));
    expect(changes).toHaveLength(1);
    expect(changes[0]).toContain(join(dir, 'src'));
  });

  it('polls when asked', async () => {
    dir = mkdtempSync(join(tmpdir(), 'airspace-watch-'));
    const changes: string[] = [];
    source = createChangeSource({ dirs: [dir], pollMs: 50, forcePoll: true, onChange: (why) => changes.push(why) });
    expect(source.mode()).toBe('poll');
    await new Promise((r) => setTimeout(r, 400));
    expect(changes.length).toBeGreaterThanOrEqual(2);
    expect(new Set(changes)).toEqual(new Set(['poll']));
  });
});
