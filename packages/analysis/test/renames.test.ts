import { describe, expect, test } from 'vitest';
import { agent, edit } from '@airspace/core/builders';
import type { Range } from '@airspace/core';
import { buildIndex } from '../src/indexing/build.js';
import { baseView, overlay } from '../src/indexing/view.js';
import { memorySnapshot } from '../src/snapshot.js';
import { agentWrites } from '../src/symbols/working-set.js';

/** The writes of an agent that changed `path` from `before` to `after` (lines `base` → `now`). */
async function writesOf(path: string, before: string, after: string, base: Range[], now: Range[]) {
  const idx = await buildIndex(memorySnapshot({ [path]: before }), { workers: 0 });
  const own = await overlay(idx, [{ path, read: () => Buffer.from(after) }], { workers: 0 });
  return agentWrites(agent('alice', [edit(path, base, { newRanges: now })]), own, baseView(idx));
}

describe('renames (docs/channels.md, "Renames")', () => {
  test('a Python body of five names or more may change a little and still be a rename', async () => {
    const before = 'def referer_str(req, default):\n    value = req.headers.get("referer", default)\n    return value.strip().lower()\n';
    const after = before.replace('referer_str', 'referrer_str').replace('lower()', 'casefold()');
    const writes = await writesOf('m.py', before, after, [[1, 3]], [[1, 3]]);
    expect(writes.find((w) => w.qualifiedName === 'referer_str')).toMatchObject({
      change: 'deleted',
      renamedTo: { qualifiedName: 'referrer_str', range: [1, 3] },
    });
    expect(writes.find((w) => w.qualifiedName === 'referrer_str')).toMatchObject({ change: 'added', renamedFrom: 'referer_str' });
  });

  test('a recursive TypeScript function that calls itself by its new name is a rename', async () => {
    const before = 'export function walk(n: number): number {\n  return n <= 0 ? 0 : walk(n - 1);\n}\n';
    const writes = await writesOf('a.ts', before, before.replaceAll('walk', 'visit'), [[1, 2]], [[1, 2]]);
    expect(writes.find((w) => w.qualifiedName === 'walk')!.renamedTo?.qualifiedName).toBe('visit');
  });

  test('two deleted definitions with the body of one added definition stay deletions (no unique pairing)', async () => {
    const body = (name: string) => `export function ${name}(x: number) {\n  return Math.abs(x);\n}\n`;
    const writes = await writesOf('a.ts', body('f') + body('g'), body('h'), [[1, 6]], [[1, 3]]);
    expect(writes.filter((w) => w.change === 'deleted').map((w) => [w.qualifiedName, w.renamedTo])).toEqual([
      ['f', undefined],
      ['g', undefined],
    ]);
  });
});
