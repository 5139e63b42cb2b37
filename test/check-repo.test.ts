/**
 * `airspace check --repo DIR PATH` (issue 34): a relative PATH is a file of DIR, whatever the
 * current directory; an absolute PATH and a PATH without --repo are read as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airspace } from './run-cli.js';
import { collidingWorktrees, type Collision } from './editor-session.js';

describe('check --repo DIR with a relative path', () => {
  let c: Collision;
  let elsewhere: string;
  beforeAll(() => {
    c = collidingWorktrees();
    elsewhere = mkdtempSync(join(tmpdir(), 'airspace-elsewhere-'));
  });
  afterAll(() => {
    c?.repo.dispose();
    if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
  });

  it('reads the path in DIR, not in the current directory', async () => {
    const run = await airspace(['check', '--repo', c.bob.dir, 'src/app.ts', '--lines', '9', '--json'], { cwd: elsewhere });
    expect(run.stderr).toBe('');
    const answer = JSON.parse(run.stdout) as { path: string; level: string; conflicts: { with: string }[] };
    expect(answer.path).toBe('src/app.ts');
    expect(answer.level).toBe('resolution');
    expect(answer.conflicts.map((x) => x.with)).toContain('alice');
    expect(run.code).toBe(2);
  });

  it('reads a relative DIR against the current directory, and the path in it', async () => {
    const run = await airspace(['check', '--repo', relative(elsewhere, c.bob.dir), 'src/app.ts:9-9', '--json'], { cwd: elsewhere });
    expect(run.code).toBe(2);
    expect((JSON.parse(run.stdout) as { path: string }).path).toBe('src/app.ts');
  });

  it('takes an absolute path as it is', async () => {
    const run = await airspace(['check', '--repo', c.bob.dir, c.file, '--lines', '9', '--json'], { cwd: elsewhere });
    expect(run.code).toBe(2);
  });
});
