import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ScratchStore } from '../src/scratch.js';

it('removes scratch directories of processes that are gone, and only those', () => {
  const parent = mkdtempSync(join(tmpdir(), 'airspace-sweep-'));
  try {
    const dead = join(parent, 'airspace-scratch-999999999-abc'); // no such pid
    const mine = join(parent, `airspace-scratch-${process.pid}-old`);
    const other = join(parent, 'unrelated');
    for (const d of [dead, mine, other]) mkdirSync(d);
    const store = new ScratchStore(join(parent, 'objects-of-repo'), parent);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(mine)).toBe(true);
    expect(existsSync(other)).toBe(true);
    expect(store.dir.startsWith(join(parent, `airspace-scratch-${process.pid}-`))).toBe(true);
    store.dispose();
    expect(existsSync(store.dir)).toBe(false);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});
