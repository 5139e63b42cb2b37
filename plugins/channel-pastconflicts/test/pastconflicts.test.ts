import { describe, expect, it } from 'vitest';
import type { Agent, PastConflictsService, PastConflictsView } from '@airspace/core';
import { agent, channelTester, edit, scoreOnce } from '@airspace/core/testing';
import { resolveOptions } from '@airspace/core';
import { pastConflictsChannel } from '../src/index.js';

/** Past merges in memory: per path, [merges that touched it, merges that conflicted in it]. */
function past(counts: Record<string, readonly [number, number]>, merges = 40): PastConflictsView {
  return {
    asOf: 'c0',
    merges,
    touched: (p) => counts[p]?.[0] ?? 0,
    conflicted: (p) => counts[p]?.[1] ?? 0,
  };
}
/** The service: each agent's view by `meta.view` ('none': no view), else `fallback`. */
function service(fallback: PastConflictsView, views: Record<string, PastConflictsView> = {}): PastConflictsService {
  return {
    viewFor: async (a) => {
      const name = a.meta?.['view'] as string | undefined;
      if (name === 'none') return undefined;
      return name ? views[name] : fallback;
    },
  };
}

// CHANGELOG.md conflicted in 6 of the 9 merges that touched it; src/a.ts in 1 of 20; src/b.ts in 2 of 30.
const hot = past({ 'CHANGELOG.md': [9, 6], 'src/a.ts': [20, 1], 'src/b.ts': [30, 2] });
const alice = (...paths: string[]): Agent =>
  agent(
    'alice',
    paths.map((p) => edit(p)),
  );
const bob = (...paths: string[]): Agent =>
  agent(
    'bob',
    paths.map((p) => edit(p)),
  );

channelTester.run('past-conflicts', pastConflictsChannel(), {
  high: [
    {
      name: 'both change a file that conflicted in 6 of 9 past merges',
      a: alice('CHANGELOG.md', 'src/x.ts'),
      b: bob('CHANGELOG.md'),
      services: { pastConflicts: service(hot) },
      kind: 'past-conflicts',
      min: 0.59, // 6 / (9 + 1)
    },
    {
      name: 'no view for one agent: the other side’s view counts',
      a: agent('alice', [edit('CHANGELOG.md')], { meta: { view: 'none' } }),
      b: bob('CHANGELOG.md'),
      services: { pastConflicts: service(hot) },
      kind: 'past-conflicts',
      min: 0.59,
    },
  ],
  low: [
    {
      name: 'a hot file only one side changes',
      a: alice('CHANGELOG.md'),
      b: bob('src/a.ts'),
      services: { pastConflicts: service(hot) },
      max: 0,
    },
    {
      name: 'a shared file that conflicted once (below minConflicts)',
      a: alice('src/a.ts'),
      b: bob('src/a.ts'),
      services: { pastConflicts: service(hot) },
      max: 0,
    },
    {
      name: 'a shared file that rarely conflicts scores low',
      a: alice('src/b.ts'),
      b: bob('src/b.ts'),
      services: { pastConflicts: service(hot) },
      max: 0.07, // 2 / 31
    },
    {
      name: 'without the service: 0 and a problem',
      a: alice('CHANGELOG.md'),
      b: bob('CHANGELOG.md'),
      max: 0,
      check: (r) => expect(r.problems?.map((p) => p.code)).toContain('MISSING_SERVICE'),
    },
  ],
});

describe('past-conflicts scoring', () => {
  it('names the file, the counts and both agents; combines files by noisy-OR', async () => {
    const view = past({ 'CHANGELOG.md': [9, 6], 'package.json': [3, 3] });
    const r = await scoreOnce(pastConflictsChannel(), alice('CHANGELOG.md', 'package.json'), bob('package.json', 'CHANGELOG.md'), {
      services: { pastConflicts: service(view) },
    });
    expect(r.risk).toBeCloseTo(1 - (1 - 6 / 10) * (1 - 3 / 4), 9);
    expect(r.evidence.map((e) => e.message)).toEqual([
      "package.json conflicted in 3 of the 3 past merges that touched it (before alice's work); alice and bob both change it.",
      "CHANGELOG.md conflicted in 6 of the 9 past merges that touched it (before alice's work); alice and bob both change it.",
    ]);
    expect(r.evidence[0]).toMatchObject({
      kind: 'past-conflicts',
      a: { agent: 'alice', path: 'package.json' },
      b: { agent: 'bob', path: 'package.json' },
    });
  });

  it('reads each side as of its own view and keeps the stronger', async () => {
    const older = past({ 'CHANGELOG.md': [3, 0] });
    const newer = past({ 'CHANGELOG.md': [5, 4] });
    const a = agent('alice', [edit('CHANGELOG.md')], { meta: { view: 'older' } });
    const b = agent('bob', [edit('CHANGELOG.md')], { meta: { view: 'newer' } });
    const r = await scoreOnce(pastConflictsChannel(), a, b, { services: { pastConflicts: service(older, { older, newer }) } });
    expect(r.risk).toBeCloseTo(4 / 6, 9);
    expect(r.evidence[0]!.message).toContain("before bob's work");
  });

  it('caps the risk at maxRisk and honours minConflicts and prior', async () => {
    const view = past({ 'a.txt': [2, 2], 'b.txt': [2, 2], 'c.txt': [2, 2] });
    const s = { pastConflicts: service(view) };
    // 1 − (1/3)³ = 0.96 without the cap.
    const capped = await scoreOnce(pastConflictsChannel(), alice('a.txt', 'b.txt', 'c.txt'), bob('a.txt', 'b.txt', 'c.txt'), {
      services: s,
    });
    expect(capped.risk).toBe(0.9);
    const strict = await scoreOnce(pastConflictsChannel(), alice('a.txt'), bob('a.txt'), { services: s, options: { minConflicts: 3 } });
    expect(strict.risk).toBe(0);
    const noPrior = await scoreOnce(pastConflictsChannel(), alice('a.txt'), bob('a.txt'), {
      services: s,
      options: { prior: 0, maxRisk: 1 },
    });
    expect(noPrior.risk).toBe(1);
  });

  it('reports a bad option and uses its default', () => {
    const channel = pastConflictsChannel();
    const { options, problems } = resolveOptions(channel.id, channel.defaultOptions, channel.optionsSchema, {
      minConflicts: 0,
      prior: -1,
      window: 50,
    });
    expect(options.minConflicts).toBe(2);
    expect(options.prior).toBe(1);
    expect(options.window).toBe(50);
    expect(problems.map((p) => p.code)).toEqual(['INVALID_OPTION', 'INVALID_OPTION']);
  });
});

describe('past-conflicts candidates', () => {
  it('names only the pairs that change one path (old paths of renames included)', async () => {
    const channel = pastConflictsChannel();
    const agents = [
      alice('CHANGELOG.md', 'src/x.ts'),
      bob('CHANGELOG.md'),
      agent('carol', [edit('src/y.ts')]),
      agent('dave', [{ ...edit('src/z.ts'), oldPath: 'src/x.ts' }]),
    ];
    const services = { pastConflicts: service(hot) };
    const ctx = { options: channel.defaultOptions, now: 0, logger: console, services } as never;
    const prepared = await channel.prepare!(agents, ctx);
    const pairs = [...(await channel.candidates!(agents, { ...(ctx as object), prepared } as never))].map((p) => [...p].sort().join('+'));
    expect(pairs.sort()).toEqual(['alice+bob', 'alice+dave']);
    const onlyCarol = [...(await channel.candidates!(agents, { ...(ctx as object), prepared } as never, new Set(['carol'])))];
    expect(onlyCarol).toEqual([]);
  });
});
