import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agent, channelTester, edit, scoreOnce } from '@airspace/core/testing';
import tree, { treeCloseness } from '../src/index.js';

const a = (...paths: string[]) =>
  agent(
    'alice',
    paths.map((p) => edit(p)),
  );
const b = (...paths: string[]) =>
  agent(
    'bob',
    paths.map((p) => edit(p)),
  );

channelTester.run('tree', tree, {
  low: [
    { name: 'disjoint roots', a: a('src/core/a.ts'), b: b('docs/guide.md'), max: 0 },
    { name: 'root files share no directory', a: a('README.md'), b: b('package.json'), max: 0 },
    { name: 'no files', a: a(), b: b('src/a.ts'), max: 0 },
  ],
  high: [
    { name: 'same file', a: a('src/a.ts'), b: b('src/a.ts'), min: 1, kind: 'tree' },
    { name: 'siblings deep in one directory', a: a('src/engine/scan/pairs.ts'), b: b('src/engine/scan/links.ts'), min: 0.66, kind: 'tree' },
    { name: 'siblings in src/', a: a('src/a.ts'), b: b('src/b.ts'), min: 0.5, kind: 'tree' },
  ],
});

describe('tree channel', () => {
  it('matches model eq. 6 exactly', () => {
    expect(treeCloseness('src/a.ts', 'src/a.ts')).toBe(1);
    expect(treeCloseness('src/a.ts', 'src/b.ts')).toBe(0.5);
    expect(treeCloseness('src/x/a.ts', 'src/b.ts')).toBeCloseTo(2 / 5);
    expect(treeCloseness('a.ts', 'b.ts')).toBe(0);
  });

  it('equals the brute-force maximum over all pairs, with recency weights', async () => {
    const pathsA = ['src/core/a.ts', 'src/cli/b.ts', 'docs/x.md', 'test/deep/er/c.ts'];
    const pathsB = ['src/core/sub/z.ts', 'src/cli/b2.ts', 'test/deep/q.ts', 'lib/y.ts'];
    const weightsA = [0.4, 1, 0.9, 0.7];
    const weightsB = [1, 0.3, 0.8, 1];
    const alice = agent(
      'alice',
      pathsA.map((p, i) => edit(p, 'whole', { weight: weightsA[i]! })),
    );
    const bob = agent(
      'bob',
      pathsB.map((p, i) => edit(p, 'whole', { weight: weightsB[i]! })),
    );
    let best = 0;
    pathsA.forEach((p, i) => pathsB.forEach((q, j) => (best = Math.max(best, weightsA[i]! * weightsB[j]! * treeCloseness(p, q)))));
    const result = await scoreOnce(tree, alice, bob);
    expect(result.risk).toBeCloseTo(best, 12);
    expect(result.evidence[0]!.a!.path).toBe('test/deep/er/c.ts');
    expect(result.evidence[0]!.b!.path).toBe('test/deep/q.ts');
    expect(result.evidence[0]!.message).toContain('share the directory test/deep/');
  });

  it('equals brute force on random trees', async () => {
    const path = fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
    const files = fc.array(fc.tuple(path, fc.double({ min: 0.1, max: 1, noNaN: true })), { maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(files, files, async (fa, fb) => {
        let best = 0;
        for (const [p, w] of fa) for (const [q, v] of fb) best = Math.max(best, w * v * treeCloseness(p, q));
        const alice = agent(
          'alice',
          fa.map(([p, w]) => edit(p, 'whole', { weight: w })),
        );
        const bob = agent(
          'bob',
          fb.map(([p, w]) => edit(p, 'whole', { weight: w })),
        );
        expect((await scoreOnce(tree, alice, bob)).risk).toBeCloseTo(best, 12);
        expect((await scoreOnce(tree, bob, alice)).risk).toBeCloseTo(best, 12);
      }),
    );
  });

  it('names the closest pair of paths and honours minCloseness', async () => {
    const result = await scoreOnce(tree, a('src/a.ts', 'lib/q.ts'), b('src/b.ts'));
    expect(result.evidence[0]).toMatchObject({ a: { agent: 'alice', path: 'src/a.ts' }, b: { agent: 'bob', path: 'src/b.ts' } });
    expect((await scoreOnce(tree, a('src/a.ts'), b('src/b.ts'), { options: { minCloseness: 0.6 } })).risk).toBe(0);
  });
});
