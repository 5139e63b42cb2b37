import { expect, test } from 'vitest';
import { generateRepo } from '../src/generate.js';
import { buildIndex, memorySnapshot } from '@airspace/analysis';

test('the generated repository is deterministic, mixed, and its imports resolve', async () => {
  const a = generateRepo({ files: 200, seed: 7 });
  const b = generateRepo({ files: 200, seed: 7 });
  expect(a.files).toEqual(b.files);
  expect(generateRepo({ files: 200, seed: 8 }).files).not.toEqual(a.files);
  const exts = new Set(Object.keys(a.files).map((p) => p.slice(p.lastIndexOf('.') + 1)));
  for (const e of ['ts', 'tsx', 'js', 'py', 'json']) expect(exts).toContain(e);
  const ix = await buildIndex(memorySnapshot(a.files), { workers: 0 });
  expect(ix.unresolved).toEqual([]);
  expect(ix.graph.size).toBeGreaterThan(ix.files.size);
  expect(new Set(ix.external.map((e) => e.package))).toContain('react');
});
