import { afterEach, describe, expect, it } from 'vitest';
import type { Agent, ChannelScore } from '@airspace/core';
import { scoreOnce } from '@airspace/core/testing';
import { loadAgents, runGitRaw, type LoadAgentsResult } from '@airspace/git';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { mergeChannel } from '../src/index.js';

let repo: RepoFixture | undefined;
let result: LoadAgentsResult | undefined;
afterEach(() => {
  result?.git.dispose();
  repo?.dispose();
  result = undefined;
  repo = undefined;
});

const numbered = (n: number, p = 'line') => Array.from({ length: n }, (_, i) => `${p} ${i + 1}`);
const text = (l: readonly string[]) => l.join('\n') + '\n';
const replaced = (l: readonly string[], from: number, to: number, tag: string) =>
  l.map((x, i) => (i + 1 >= from && i + 1 <= to ? `${tag} ${i + 1}` : x));
const inserted = (l: readonly string[], after: number, add: readonly string[]) => [...l.slice(0, after), ...add, ...l.slice(after)];
const silent = { debug() {}, info() {}, warn() {} };
const base = numbered(40);

function agentOf(id: string): Agent {
  const a = result!.agents.find((x) => x.id === id);
  if (!a) throw new Error(`no agent ${id}`);
  return a;
}

/** prepare over all agents, then score each requested pair. */
async function scorePairs(pairs: [string, string][]): Promise<ChannelScore[]> {
  const channel = mergeChannel();
  const ctx = { options: channel.defaultOptions!, now: 0, logger: silent, services: { git: result!.git } };
  const prepared = await channel.prepare!(result!.agents, ctx);
  return Promise.all(pairs.map(([x, y]) => channel.score(agentOf(x), agentOf(y), { ...ctx, prepared })));
}

/** What `git merge-tree` says about the two branches themselves (all work committed). */
async function realMergeConflicts(x: string, y: string): Promise<boolean> {
  const r = await runGitRaw(['merge-tree', '--write-tree', x, y], { cwd: repo!.dir, okCodes: [1] });
  return r.code === 1;
}

describe('merge channel on real worktrees', () => {
  it('(3) agrees with git merge on touching hunks, same-point insertions and a one-line gap', async () => {
    repo = createRepoFixture({ 'a.ts': text(base) });
    repo
      .worktree('a10')
      .write('a.ts', text(replaced(base, 10, 12, 'a')))
      .commit('a');
    repo
      .worktree('b13')
      .write('a.ts', text(replaced(base, 13, 15, 'b')))
      .commit('b'); // touches a10
    repo
      .worktree('c14')
      .write('a.ts', text(replaced(base, 14, 15, 'c')))
      .commit('c'); // one line from a10
    repo
      .worktree('i20')
      .write('a.ts', text(inserted(base, 20, ['x'])))
      .commit('i');
    repo
      .worktree('j20')
      .write('a.ts', text(inserted(base, 20, ['y'])))
      .commit('j'); // same point as i20
    repo
      .worktree('k20')
      .write('a.ts', text(inserted(base, 20, ['x'])))
      .commit('k'); // identical to i20
    result = await loadAgents({ repo: repo.dir });
    const pairs: [string, string][] = [
      ['a10', 'b13'],
      ['a10', 'c14'],
      ['i20', 'j20'],
      ['i20', 'k20'],
      ['a10', 'i20'],
    ];
    const scores = await scorePairs(pairs);
    const expected = [1, 0, 1, 0, 0];
    expect(scores.map((s) => s.risk)).toEqual(expected);
    for (const [i, [x, y]] of pairs.entries()) expect(await realMergeConflicts(x, y)).toBe(expected[i] === 1);
    expect(scores[0]!.evidence[0]).toMatchObject({
      kind: 'merge-conflict',
      a: { agent: 'a10', path: 'a.ts', baseRange: [10, 12], range: [10, 12] },
      b: { agent: 'b13', path: 'a.ts', baseRange: [13, 15], range: [13, 15] },
    });
    expect(scores[2]!.evidence[0]).toMatchObject({ a: { baseRange: [21, 20], range: [21, 21] }, b: { baseRange: [21, 20] } });
  });

  it('gives several small conflicting changes inside one large change one evidence line', async () => {
    repo = createRepoFixture({ 'a.ts': text(base) });
    // big rewrites lines 5–30; small changes lines 6, 12, 18 and 24 (each a hunk of its own).
    repo
      .worktree('big')
      .write('a.ts', text(replaced(base, 5, 30, 'big')))
      .commit('big');
    let small = base;
    for (const n of [6, 12, 18, 24]) small = replaced(small, n, n, 'small');
    repo.worktree('small').write('a.ts', text(small)).commit('small');
    result = await loadAgents({ repo: repo.dir });
    const [score] = await scorePairs([['big', 'small']]);
    expect(score!.evidence.map((e) => e.message.replace(/ \(CONFLICT.*$/, ''))).toEqual([
      'git merge of big and small conflicts in a.ts where big (lines 5–30) and small (lines 6–24, 4 changes) change the base',
    ]);
    expect(score!.evidence[0]).toMatchObject({ a: { baseRange: [5, 30] }, b: { baseRange: [6, 24] } });
  });

  it('(4) two agents adding the same file: conflict unless the content is identical', async () => {
    repo = createRepoFixture({ 'a.ts': 'a\n' });
    repo.worktree('p').write('new.ts', 'export const p = 1;\n').commit('p');
    repo.worktree('q').write('new.ts', 'export const q = 2;\n').commit('q');
    repo.worktree('r').write('new.ts', 'export const p = 1;\n').commit('r');
    result = await loadAgents({ repo: repo.dir });
    const [pq, pr] = await scorePairs([
      ['p', 'q'],
      ['p', 'r'],
    ]);
    expect(pq!.risk).toBe(1);
    expect(pq!.evidence[0]!.message).toMatch(/new\.ts.*add\/add/);
    expect(pr!.risk).toBe(0);
    expect(await realMergeConflicts('p', 'q')).toBe(true);
  });

  it('(5) a rename on one side and an edit on the other merge cleanly', async () => {
    repo = createRepoFixture({ 'a.ts': text(base) });
    repo.worktree('mover').remove('a.ts').write('b.ts', text(base)).commit('move');
    repo
      .worktree('editor')
      .write('a.ts', text(replaced(base, 5, 5, 'e')))
      .commit('edit');
    repo.worktree('deleter').remove('a.ts').commit('delete');
    result = await loadAgents({ repo: repo.dir });
    expect(agentOf('mover').files).toEqual([expect.objectContaining({ path: 'b.ts', oldPath: 'a.ts', status: 'renamed', baseRanges: [] })]);
    const [moveEdit, deleteEdit] = await scorePairs([
      ['mover', 'editor'],
      ['editor', 'deleter'],
    ]);
    expect(moveEdit!.risk).toBe(0);
    expect(await realMergeConflicts('mover', 'editor')).toBe(false);
    expect(deleteEdit!.risk).toBe(1); // modify/delete
    expect(deleteEdit!.evidence[0]!.message).toMatch(/modify\/delete/);
  });

  it('(6) sees uncommitted and untracked work, and a second scan with nothing changed runs no merge', async () => {
    repo = createRepoFixture({ 'a.ts': text(base) });
    repo.worktree('u').write('a.ts', text(replaced(base, 7, 7, 'unstaged')));
    repo
      .worktree('s')
      .write('a.ts', text(replaced(base, 7, 8, 'staged')))
      .stage();
    repo.worktree('n1').write('notes.md', 'one\n');
    repo.worktree('n2').write('notes.md', 'two\n');
    result = await loadAgents({ repo: repo.dir });
    const scores = await scorePairs([
      ['u', 's'],
      ['n1', 'n2'],
      ['u', 'n1'],
    ]);
    expect(scores.map((s) => s.risk)).toEqual([1, 1, 0]);
    const merges = result.git.stats.merges;
    expect(merges).toBe(2); // u × n1 share no path: no merge at all
    const again = await loadAgents({ repo: repo.dir, git: result.git });
    result = { ...again, git: result.git };
    await scorePairs([
      ['u', 's'],
      ['n1', 'n2'],
    ]);
    expect(result.git.stats.merges).toBe(merges);
  });

  it('reports a missing git service as a problem, not a throw', async () => {
    const channel = mergeChannel();
    const agent = (id: string): Agent => ({
      id,
      label: id,
      startedAt: 0,
      committedWork: 0,
      files: [{ path: 'a', status: 'modified', weight: 1, baseRanges: [[1, 1]], newRanges: [[1, 1]] }],
    });
    const score = await scoreOnce(channel, agent('x'), agent('y'));
    expect(score).toMatchObject({ risk: 0, problems: [{ code: 'MISSING_SERVICE' }] });
  });
});
