/**
 * Work-tree files are read by one rule: regular files inside the work tree, never through a link,
 * never blocking on a FIFO, never reading a device, bounded. Each case has a short timeout: a
 * regression fails here rather than hanging the run.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRegularFile, readRegularFileSync, readWorktreeFile, readWorktreeFileSync } from '../src/index.js';

let root: string;
let outside: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'airspace-worktree-file-'));
  outside = mkdtempSync(join(tmpdir(), 'airspace-outside-'));
  writeFileSync(join(outside, 'secret.ts'), 'export const secret = 1;\n');
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'src', 'big.ts'), 'x'.repeat(5000));
  symlinkSync(join(outside, 'secret.ts'), join(root, 'src', 'abs.ts'));
  symlinkSync('../../' + outside.split('/').pop() + '/secret.ts', join(root, 'src', 'rel.ts'));
  symlinkSync('/dev/zero', join(root, 'src', 'zero.ts'));
  symlinkSync('/dev/urandom', join(root, 'src', 'random.ts'));
  symlinkSync(outside, join(root, 'linked'));
  execFileSync('mkfifo', [join(root, 'src', 'fifo.ts')]);
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const T = { timeout: 5_000 };

describe('readWorktreeFile', () => {
  it('reads a regular file', T, async () => {
    expect(readWorktreeFileSync(root, 'src/a.ts')).toEqual({ content: Buffer.from('export const a = 1;\n') });
    expect(await readWorktreeFile(root, 'src/a.ts')).toEqual({ content: Buffer.from('export const a = 1;\n') });
  });

  it.each([
    ['src/fifo.ts', 'not-a-file', /FIFO/],
    ['src/zero.ts', 'not-a-file', /symbolic link/],
    ['src/random.ts', 'not-a-file', /symbolic link/],
    ['src/abs.ts', 'not-a-file', /symbolic link/],
    ['src/rel.ts', 'not-a-file', /symbolic link/],
    ['linked/secret.ts', 'outside', /link that leads outside/],
    ['../' + 'x', 'outside', /leads outside/],
    ['/etc/passwd', 'outside', /absolute/],
    ['src', 'not-a-file', /directory/],
  ])('refuses %s (%s) without blocking', T, async (path, skip, detail) => {
    expect(readWorktreeFileSync(root, path)).toMatchObject({ skip, detail: expect.stringMatching(detail) });
    expect(await readWorktreeFile(root, path)).toMatchObject({ skip, detail: expect.stringMatching(detail) });
  });

  it('bounds a read', T, async () => {
    expect(readWorktreeFileSync(root, 'src/big.ts', 4096)).toMatchObject({ skip: 'too-large' });
    expect(await readWorktreeFile(root, 'src/big.ts', 4096)).toMatchObject({ skip: 'too-large' });
  });
});

describe('readRegularFile (a file the user names)', () => {
  it('follows a link when asked, to a regular file only', T, async () => {
    expect(readRegularFileSync(join(root, 'src', 'abs.ts'), { followLinks: true })).toHaveProperty('content');
    expect(readRegularFileSync(join(root, 'src', 'zero.ts'), { followLinks: true })).toMatchObject({ skip: 'not-a-file' });
    expect(await readRegularFile(join(root, 'src', 'fifo.ts'), { followLinks: true })).toMatchObject({ skip: 'not-a-file' });
    expect(await readRegularFile('/dev/urandom', { followLinks: true })).toMatchObject({ skip: 'not-a-file' });
  });
});
