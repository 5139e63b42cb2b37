import { describe, expect, it } from 'vitest';
import type { Agent, CoChangeService } from '@airspace/core';
import { agent, channelTester, edit, scoreOnce } from '@airspace/core/testing';
import { HistoryGraph } from '@airspace/git';
import { coChangeChannel } from '../src/index.js';

/** A history in memory (the graph the git history service builds), newest commit last. */
function history(commits: readonly (readonly string[])[]): { service: CoChangeService; head: string } {
  const graph = new HistoryGraph();
  // Mined newest first, as git log walks.
  const ids = commits.map((_, i) => `c${i}`);
  for (let i = commits.length - 1; i >= 0; i--)
    graph.add({ id: ids[i]!, time: 1000 + i, parents: i > 0 ? [ids[i - 1]!] : [], files: commits[i]! });
  const head = ids[ids.length - 1]!;
  return {
    head,
    service: {
      viewFor: async (a, options) =>
        a.meta?.['noHistory'] ? undefined : graph.view((a.meta?.['asOf'] as string | undefined) ?? head, options),
    },
  };
}

const repeat = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);
// a.ts and b.ts changed together 14 times; a.ts alone twice (16 commits of a.ts), b.ts alone 6 times (20).
const coupled = history([
  ...repeat(14, ['src/a.ts', 'src/b.ts']),
  ['src/a.ts'],
  ['src/a.ts'],
  ...repeat(6, ['src/b.ts']),
  ['src/c.py'],
  ['src/d.py'],
]);
// Loosely coupled: 2 of 10 commits of a.ts.
const loose = history([...repeat(2, ['src/a.ts', 'src/b.ts']), ...repeat(8, ['src/a.ts']), ...repeat(8, ['src/b.ts'])]);
// x and y each change with h.json, never with each other.
const viaThird = history([...repeat(4, ['x.go', 'h.json']), ...repeat(4, ['y.rs', 'h.json'])]);
// a huge commit pairs everything once; a.ts and b.ts otherwise never together.
const big = history([
  Array.from({ length: 40 }, (_, i) => `f${i}`).concat(['src/a.ts', 'src/b.ts']),
  ['src/a.ts', 'src/b.ts'],
  ['src/a.ts'],
]);

const alice = (path: string, extra: Partial<Agent> = {}) => agent('alice', [edit(path)], extra);
const bob = (path: string, extra: Partial<Agent> = {}) => agent('bob', [edit(path)], extra);

channelTester.run('co-change', coChangeChannel(), {
  high: [
    {
      name: 'files changed together in 14 of 16 commits',
      a: alice('src/a.ts'),
      b: bob('src/b.ts'),
      services: { coChange: coupled.service },
      kind: 'co-change',
      min: 0.87,
    },
    {
      name: 'a file both change still meets its partner on the other side',
      a: alice('src/a.ts'),
      b: agent('bob', [edit('src/a.ts'), edit('src/b.ts')]),
      services: { coChange: coupled.service },
      kind: 'co-change',
      min: 0.87,
    },
    {
      name: 'indirect, when asked: both files change with a third',
      a: alice('x.go'),
      b: bob('y.rs'),
      services: { coChange: viaThird.service },
      options: { indirect: true },
      kind: 'co-change-indirect',
      min: 0.79,
    },
  ],
  low: [
    { name: 'files never changed together', a: alice('src/c.py'), b: bob('src/d.py'), services: { coChange: coupled.service }, max: 0 },
    {
      name: 'confidence below minConfidence (2 of 10)',
      a: alice('src/a.ts'),
      b: bob('src/b.ts'),
      services: { coChange: loose.service },
      max: 0,
    },
    {
      name: 'the same file on both sides is the overlap channel’s',
      a: alice('src/a.ts'),
      b: bob('src/a.ts'),
      services: { coChange: coupled.service },
      max: 0,
    },
    {
      name: 'a third file shared by coupling does not count unless asked',
      a: alice('x.go'),
      b: bob('y.rs'),
      services: { coChange: viaThird.service },
      max: 0,
    },
    {
      name: 'a commit over maxFilesPerCommit is left out (support 1 < 2)',
      a: alice('src/a.ts'),
      b: bob('src/b.ts'),
      services: { coChange: big.service },
      max: 0,
    },
    {
      name: 'no view for an agent: it predicts nothing',
      a: alice('src/a.ts', { meta: { noHistory: true } }),
      b: bob('src/b.ts'),
      services: { coChange: coupled.service },
      max: 0,
      symmetric: false,
    },
    {
      name: 'without the service: 0 and a problem',
      a: alice('src/a.ts'),
      b: bob('src/b.ts'),
      max: 0,
      check: (r) => expect(r.problems?.map((p) => p.code)).toContain('MISSING_SERVICE'),
    },
  ],
});

describe('co-change evidence', () => {
  it('names both files, both agents and the counts', async () => {
    const r = await scoreOnce(coChangeChannel(), alice('src/a.ts'), bob('src/b.ts'), { services: { coChange: coupled.service } });
    // One meeting per pair of files, in its stronger direction: a.ts → b.ts (14 of 16) over b.ts → a.ts (14 of 20).
    expect(r.risk).toBeCloseTo(14 / 16, 9);
    expect(r.evidence).toHaveLength(1);
    const messages = r.evidence.map((e) => e.message);
    expect(messages.some((m) => m.includes('src/a.ts and src/b.ts changed together in 14 of the 16 commits that changed src/a.ts'))).toBe(
      true,
    );
    expect(r.evidence[0]!.a).toEqual({ agent: 'alice', path: 'src/a.ts' });
    expect(r.evidence[0]!.b).toEqual({ agent: 'bob', path: 'src/b.ts' });
  });

  it('reads each agent as of its own commit: a coupling after it does not count', async () => {
    const h = history([['src/c.py'], ['src/c.py'], ...repeat(5, ['src/a.ts', 'src/b.ts'])]);
    const before = { meta: { asOf: 'c1' } };
    const r = await scoreOnce(coChangeChannel(), alice('src/a.ts', before), bob('src/b.ts', before), { services: { coChange: h.service } });
    expect(r.risk).toBe(0);
    const now = await scoreOnce(coChangeChannel(), alice('src/a.ts'), bob('src/b.ts'), { services: { coChange: h.service } });
    expect(now.risk).toBeGreaterThan(0.5);
  });

  it('weighs stale files down by their recency weight only when asked (`recency`)', async () => {
    const staleAlice = agent('alice', [edit('src/a.ts', 'whole', { weight: 0.5 })]);
    const options = { minConfidence: 0.1, recency: true };
    const fresh = await scoreOnce(coChangeChannel(), alice('src/a.ts'), bob('src/b.ts'), {
      services: { coChange: loose.service },
      options,
    });
    const stale = await scoreOnce(coChangeChannel(), staleAlice, bob('src/b.ts'), { services: { coChange: loose.service }, options });
    expect(fresh.risk).toBeCloseTo(0.2, 9);
    expect(stale.risk).toBeCloseTo(0.1, 9);
    const byDefault = await scoreOnce(coChangeChannel(), staleAlice, bob('src/b.ts'), {
      services: { coChange: loose.service },
      options: { minConfidence: 0.1 },
    });
    expect(byDefault.risk).toBeCloseTo(0.2, 9);
  });

  it('takes the stronger direction: a file changed in few commits, nearly always with a busy one', async () => {
    // pyproject.toml: 3 commits, all with CHANGES.rst (30 commits): 3 of 3 one way, 3 of 30 the other.
    const h = history([...repeat(3, ['pyproject.toml', 'CHANGES.rst']), ...repeat(27, ['CHANGES.rst', 'src/x.py'])]);
    const r = await scoreOnce(coChangeChannel(), alice('CHANGES.rst'), bob('pyproject.toml'), { services: { coChange: h.service } });
    expect(r.risk).toBeCloseTo(0.9, 9); // 3 of 3, capped at maxRisk
    expect(r.evidence[0]!.message).toContain('changed together in 3 of the 3 commits that changed pyproject.toml');
  });

  it('reports a bad option and uses its default', async () => {
    const r = await scoreOnce(coChangeChannel(), alice('src/a.ts'), bob('src/b.ts'), {
      services: { coChange: coupled.service },
      options: { minSupport: 0, minConfidence: 2 },
    });
    expect(r.problems?.filter((p) => p.code === 'INVALID_OPTION')).toHaveLength(2);
    expect(r.risk).toBeCloseTo(14 / 16, 9);
  });
});
