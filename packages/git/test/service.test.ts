import { afterEach, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';
import { loadAgents, type LoadAgentsResult } from '../src/load-agents.js';
import { agent, numbered, replaced, text } from './helpers.js';

let repo: RepoFixture | undefined;
let result: LoadAgentsResult | undefined;
afterEach(() => {
  result?.git.dispose();
  repo?.dispose();
  result = undefined;
  repo = undefined;
});

describe('GitService.pairEdits', () => {
  it("re-diffs the side whose merge base differs against the pair's merge base, once", async () => {
    const lines = numbered(100);
    repo = createRepoFixture({ 'a.ts': text(lines) });
    const m0 = repo.head();
    repo
      .worktree('alice')
      .write('a.ts', text(replaced(lines, 50, 50, 'alice')))
      .commit('alice');
    // main moves on: 10 lines inserted at the top; bob starts from there and edits old line 45.
    const moved = [...numbered(10, 'main'), ...lines];
    repo.write('a.ts', text(moved)).commit('main inserts at the top');
    repo.worktree('bob').write('a.ts', text(replaced(moved, 55, 55, 'bob')));
    result = await loadAgents({ repo: repo.dir });
    const alice = agent(result.agents, 'alice');
    const bob = agent(result.agents, 'bob');
    expect(alice.base).toBe(m0);
    expect(bob.base).toBe(repo.head());
    expect(bob.files[0]!.baseRanges).toEqual([[55, 55]]); // bob's own coordinates: the moved main

    const paired = await result.git.pairEdits(alice, bob, 'a.ts');
    expect(paired?.base).toBe(m0);
    expect(paired?.a.baseRanges).toEqual([[50, 50]]);
    // In the pair's base, bob's side also carries main's insertion, and his edit is at line 45.
    expect(paired?.b.baseRanges).toEqual([
      [1, 0],
      [45, 45],
    ]);
    expect(paired?.b.weight).toBe(bob.files[0]!.weight);
    const diffs = result.git.stats.diffs;
    await result.git.pairEdits(bob, alice, 'a.ts');
    expect(result.git.stats.diffs).toBe(diffs); // cached per (path, base, state)

    // A probe of bob's current line 30 (airspace check): only that line, in the pair's base
    // (main's 10 inserted lines above it: base line 20), not bob's real edit nor main's insertion.
    const { hunks: _hunks, ...probed30 } = bob.files[0]!;
    const probe = {
      ...bob,
      files: [{ ...probed30, baseRanges: [[30, 30]] as const, newRanges: [[30, 30]] as const }],
      meta: { ...bob.meta, probe: true },
    };
    const probed = await result.git.pairEdits(alice, probe, 'a.ts');
    expect(probed?.b.baseRanges).toEqual([[20, 20]]);
    // A declared edit is intent, not bob's state: a declared whole file stays whole and declared.
    const declared = { ...bob, files: [{ ...bob.files[0]!, baseRanges: 'whole' as const, newRanges: 'whole' as const, declared: true }] };
    expect((await result.git.pairEdits(alice, declared, 'a.ts'))?.b).toMatchObject({ baseRanges: 'whole', declared: true });
  });

  it("returns the agents' own edits without git when they share a merge base", async () => {
    repo = createRepoFixture({ 'a.ts': text(numbered(20)) });
    repo.worktree('x').write('a.ts', text(replaced(numbered(20), 2, 2, 'x')));
    repo.worktree('y').write('a.ts', text(replaced(numbered(20), 3, 3, 'y')));
    result = await loadAgents({ repo: repo.dir });
    const [x, y] = [agent(result.agents, 'x'), agent(result.agents, 'y')];
    const before = { ...result.git.stats };
    const paired = await result.git.pairEdits(x, y, 'a.ts');
    expect(paired).toMatchObject({ a: x.files[0], b: y.files[0], base: repo.head(), rediffed: false });
    expect(result.git.stats).toEqual(before);
    expect(await result.git.pairEdits(x, y, 'other.ts')).toBeUndefined();
  });
});

describe('GitService.merge', () => {
  it("names the agents, not their state commits, in git's conflict messages", async () => {
    repo = createRepoFixture({ 'old.ts': text(numbered(5)) });
    const alice = repo.worktree('alice');
    alice.git('mv', 'old.ts', 'new.ts');
    const bob = repo.worktree('bob');
    bob.git('rm', '-q', 'old.ts');
    result = await loadAgents({ repo: repo.dir });
    const outcome = await result.git.merge(agent(result.agents, 'alice'), agent(result.agents, 'bob'));
    expect(outcome.clean).toBe(false);
    const messages = outcome.conflicts.map((c) => c.message ?? '').join('\n');
    expect(messages).toMatch(/renamed to new\.ts in alice, but deleted in bob/);
    expect(messages).not.toMatch(/[0-9a-f]{40}/);
    // The other order names them the other way round (the merge itself is cached once).
    const swapped = await result.git.merge(agent(result.agents, 'bob'), agent(result.agents, 'alice'));
    expect(swapped.conflicts.map((c) => c.message ?? '').join('\n')).not.toMatch(/[0-9a-f]{40}/);
  });
});

describe('GitService.pairTrees', () => {
  it("gives the pair's base, both states (uncommitted work included) and their merge, readable file by file", async () => {
    repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n' });
    const base = repo.head();
    repo.worktree('alice').write('src/a.ts', 'export const a = 2;\n').commit('alice');
    const bob = repo.worktree('bob').write('src/new.ts', 'export const n = 3;\n'); // untracked, not committed
    result = await loadAgents({ repo: repo.dir });
    const trees = await result.git.pairTrees(agent(result.agents, 'alice'), agent(result.agents, 'bob'));
    expect(trees.base).toBe(base);
    expect(trees.merge.clean).toBe(true);
    const read = async (tree: string, path: string) => {
      const id = (await result!.git.listTree(tree)).get(path);
      return id === undefined ? undefined : result!.git.readBlob(id);
    };
    expect(await read(trees.base!, 'src/a.ts')).toBe('export const a = 1;\n');
    expect(await read(trees.b, 'src/new.ts')).toBe('export const n = 3;\n');
    expect(await read(trees.a, 'src/new.ts')).toBeUndefined();
    expect(await read(trees.merge.tree!, 'src/a.ts')).toBe('export const a = 2;\n');
    expect(await read(trees.merge.tree!, 'src/new.ts')).toBe('export const n = 3;\n');
    expect([...(await result.git.listTree(trees.merge.tree!)).keys()].sort()).toEqual(['src/a.ts', 'src/b.ts', 'src/new.ts']);
    // The user's work tree and object store are untouched: bob's file is still untracked.
    expect(bob.git('status', '--porcelain')).toContain('?? src/new.ts');
  });
});
