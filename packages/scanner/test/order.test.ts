import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { mergeOrder, searchOrder, type OrderMerger } from '../src/index.js';

const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
const edit = (from: number, to: number, tag: string): string =>
  lines.map((l, i) => (i + 1 >= from && i + 1 <= to ? `${tag} ${i + 1}` : l)).join('\n') + '\n';
const builtinsOnlyMerge = {
  channels: {
    overlap: { enabled: false },
    tree: { enabled: false },
    dependency: { enabled: false },
    symbols: { enabled: false },
    'call-graph': { enabled: false },
  },
};

/**
 * A pure model of merging: each agent changes base ranges of one file; a step conflicts when its
 * range touches a range merged before (git's rule: [s−1, e] intersect).
 */
function rangeMerger(ranges: Record<string, [number, number]>, calls: { n: number }): OrderMerger {
  return {
    async merge(state, agent) {
      calls.n++;
      const merged = state === 'base' ? [] : state.split(',');
      const [s, e] = ranges[agent]!;
      const hit = merged.some((m) => {
        const [t, u] = ranges[m]!;
        return s - 1 <= u && t - 1 <= e;
      });
      const next = [...merged, agent];
      return { state: next.join(','), key: [...next].sort().join(','), conflicted: hit ? ['f'] : [] };
    },
  };
}

describe('searchOrder', () => {
  it('finds the order meeting the fewest conflicts, which greedy misses', async () => {
    // a spans b and c; b and c are apart. Merging a first costs two conflicts; b, c, then a costs one.
    const ranges: Record<string, [number, number]> = { a: [2, 12], b: [3, 4], c: [9, 10] };
    const calls = { n: 0 };
    const exact = await searchOrder(['a', 'b', 'c'], 'base', rangeMerger(ranges, calls));
    expect(exact).toEqual({ order: ['b', 'c', 'a'], exact: true });
    // Greedy takes a first (nothing conflicts yet) and then meets two conflicts.
    expect(await searchOrder(['a', 'b', 'c'], 'base', rangeMerger(ranges, calls), { exactLimit: 2 })).toEqual({
      order: ['a', 'b', 'c'],
      exact: false,
    });
    // Ties keep the given (priority) order: two independent agents stay as given.
    expect((await searchOrder(['x', 'y'], 'base', rangeMerger({ x: [1, 1], y: [20, 20] }, calls))).order).toEqual(['x', 'y']);
  });

  it('prunes with the pairwise conflicts as a lower bound, and finds the same optimum', async () => {
    // A chain: each agent overlaps the next; every third spans two windows.
    const ranges: Record<string, [number, number]> = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [`c${i}`, [i * 10 + 1, i * 10 + (i % 3 === 2 ? 25 : 11)] as [number, number]]),
    );
    const touch = (a: string, b: string) => {
      const [s, e] = ranges[a]!;
      const [t, u] = ranges[b]!;
      return s - 1 <= u && t - 1 <= e;
    };
    const plain = { n: 0 };
    const bounded = { n: 0 };
    const without = await searchOrder(Object.keys(ranges), 'base', rangeMerger(ranges, plain));
    const withBound = await searchOrder(Object.keys(ranges), 'base', rangeMerger(ranges, bounded), { conflicts: touch });
    const cost = async (order: string[]) => {
      let state = 'base';
      let n = 0;
      for (const a of order) {
        const step = await rangeMerger(ranges, { n: 0 }).merge(state, a);
        n += step.conflicted.length;
        state = step.state;
      }
      return n;
    };
    expect(withBound.exact).toBe(true);
    expect(await cost(withBound.order)).toBe(await cost(without.order));
    // The bound cuts the search at least fivefold here.
    expect(bounded.n * 5).toBeLessThan(plain.n);
  });

  it('matches brute force over every order on 120 seeded random instances', async () => {
    let seed = 12345;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const costOf = async (merger: OrderMerger, order: readonly string[]): Promise<number> => {
      let state = 'base';
      let n = 0;
      for (const a of order) {
        const step = await merger.merge(state, a);
        n += step.conflicted.length;
        state = step.state;
      }
      return n;
    };
    const permutations = (xs: string[]): string[][] =>
      xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    for (let instance = 0; instance < 120; instance++) {
      const n = 2 + Math.floor(random() * 5);
      const ranges: Record<string, [number, number]> = {};
      for (let i = 0; i < n; i++) {
        const start = 1 + Math.floor(random() * 40);
        ranges[`a${i}`] = [start, start + Math.floor(random() * 12)];
      }
      const touch = (x: string, y: string) => ranges[x]![0] - 1 <= ranges[y]![1] && ranges[y]![0] - 1 <= ranges[x]![1];
      const merger = rangeMerger(ranges, { n: 0 });
      const found = await searchOrder(Object.keys(ranges), 'base', merger, { conflicts: touch });
      let best = Infinity;
      for (const order of permutations(Object.keys(ranges))) best = Math.min(best, await costOf(merger, order));
      expect(await costOf(merger, found.order), JSON.stringify(ranges)).toBe(best);
    }
  });

  it('stops at the first order that meets no conflict, and falls back to greedy past its budget', async () => {
    const apart: Record<string, [number, number]> = Object.fromEntries(
      Array.from({ length: 7 }, (_, i) => [`g${i}`, [i * 10 + 1, i * 10 + 2] as [number, number]]),
    );
    const calls = { n: 0 };
    const found = await searchOrder(Object.keys(apart), 'base', rangeMerger(apart, calls));
    expect(found).toEqual({ order: Object.keys(apart), exact: true });
    expect(calls.n).toBe(7);
    const chain: Record<string, [number, number]> = Object.fromEntries(
      Array.from({ length: 7 }, (_, i) => [`c${i}`, [i * 10 + 1, i * 10 + 11] as [number, number]]),
    );
    const small = await searchOrder(Object.keys(chain), 'base', rangeMerger(chain, { n: 0 }), { maxMerges: 10 });
    expect(small.exact).toBe(false);
    expect([...small.order].sort()).toEqual(Object.keys(chain).sort());
    const greedy = await searchOrder(Object.keys(chain), 'base', rangeMerger(chain, { n: 0 }), { exactLimit: 3 });
    expect(greedy.exact).toBe(false);
  });
});

describe('mergeOrder on a repository', () => {
  let repo: RepoFixture | undefined;
  let replay: string | undefined;
  afterEach(() => {
    repo?.dispose();
    repo = undefined;
    if (replay) rmSync(replay, { recursive: true, force: true });
    replay = undefined;
  });

  it('orders by conflicts met, and its conflicts are the ones git meets replaying the merges', async () => {
    repo = createRepoFixture({ 'f.txt': lines.join('\n') + '\n', 'g.txt': 'g\n', 'h.txt': 'h\n' });
    repo
      .worktree('alice')
      .write('f.txt', edit(2, 12, 'alice'))
      .commit('alice 1')
      .write('h.txt', 'alice\n')
      .commit('alice 2');
    repo
      .worktree('bob')
      .write('f.txt', edit(3, 4, 'bob'))
      .write('h.txt', 'bob\n')
      .commit('bob');
    repo
      .worktree('carol')
      .write('f.txt', edit(9, 10, 'carol'))
      .commit('carol');
    repo.worktree('dave').write('g.txt', 'dave\n').commit('dave');
    const before =
      execFileSync('git', ['for-each-ref'], { cwd: repo.dir, encoding: 'utf8' }) +
      execFileSync('git', ['count-objects', '-v'], { cwd: repo.dir, encoding: 'utf8' });
    const { order } = await mergeOrder({ repo: repo.dir, config: builtinsOnlyMerge });
    expect(
      execFileSync('git', ['for-each-ref'], { cwd: repo.dir, encoding: 'utf8' }) +
        execFileSync('git', ['count-objects', '-v'], { cwd: repo.dir, encoding: 'utf8' }),
    ).toBe(before);
    expect(order.exact).toBe(true);
    // alice conflicts with bob (f, h) and carol (f); bob and carol merge cleanly together.
    expect(order.order.slice(0, 3)).toEqual(['bob', 'carol', 'alice']);
    expect(order.steps[2]!.conflicts).toEqual([
      { with: 'bob', paths: ['f.txt', 'h.txt'] },
      { with: 'carol', paths: ['f.txt'] },
    ]);
    expect(order.steps[2]!.advice).toMatch(
      /^alice should rebase onto the base after bob, carol have merged and resolve 2 paths \(f\.txt, h\.txt\)/,
    );

    // Replay with git itself in a clone: merge in that order, resolving each conflict with the
    // content merged before (as the search models it); each step must conflict exactly where it said.
    replay = mkdtempSync(join(tmpdir(), 'airspace-replay-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=r', '-c', 'user.email=r@x', ...args], {
        cwd: replay,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    execFileSync('git', ['clone', '-q', repo.dir, replay]);
    for (const step of order.steps) {
      let conflicted: string[] = [];
      try {
        git('merge', '-q', '--no-edit', `origin/${step.agent}`);
      } catch {
        conflicted = git('diff', '--name-only', '--diff-filter=U').split('\n').filter(Boolean).sort();
        git('checkout', '--ours', '--', ...conflicted);
        git('commit', '-qam', `resolve ${step.agent}`);
      }
      expect(conflicted, step.agent).toEqual([...new Set(step.conflicts.flatMap((c) => c.paths))].sort());
    }
  });
});
