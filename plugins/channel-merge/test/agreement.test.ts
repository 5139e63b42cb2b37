import { afterEach, expect, it } from 'vitest';
import { overlapChannel } from '@airspace/channel-overlap';
import type { Agent, AnyChannel, ChannelScore } from '@airspace/core';
import { scoreOnce } from '@airspace/core/testing';
import { loadAgents, type LoadAgentsResult } from '@airspace/git';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { mergeChannel } from '../src/index.js';

let repo: RepoFixture | undefined;
let result: LoadAgentsResult | undefined;
afterEach(() => {
  result?.git.dispose();
  repo?.dispose();
});

/** Deterministic pseudo-random numbers (LCG), so a failure names a reproducible case. */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

const LINES = 12;
type Change = { start: number; length: number; added: number }; // base lines start..start+length-1 replaced by `added` lines

/** One or two disjoint random changes: replacements, deletions, pure insertions. */
function changes(next: (n: number) => number, lines = LINES): Change[] {
  const out: Change[] = [];
  for (let k = 1 + next(2); k > 0; k--) {
    const start = 1 + next(lines);
    const length = Math.min(next(4), lines - start + 1);
    const added = length === 0 ? 1 + next(2) : next(3);
    if (length === 0 && added === 0) continue;
    // Keep one agent's own changes apart (git would join them into one hunk otherwise).
    if (out.some((c) => start <= c.start + c.length + 1 && c.start <= start + length + 1)) continue;
    out.push({ start, length, added });
  }
  return out;
}

function apply(base: readonly string[], cs: readonly Change[], tag: string): string {
  const out: string[] = [];
  const sorted = [...cs].sort((x, y) => x.start - y.start);
  let line = 1;
  for (const c of sorted) {
    while (line < c.start) out.push(base[line++ - 1]!);
    for (let i = 0; i < c.added; i++) out.push(`${tag} ${c.start}.${i}`);
    line = c.start + c.length;
  }
  while (line <= base.length) out.push(base[line++ - 1]!);
  return out.join('\n') + '\n';
}

/** Paths the merge channel and the overlap channel (conflict kinds only) flag for a × b. */
async function flagged(a: Agent, b: Agent): Promise<{ git: Set<string | undefined>; overlap: Set<string | undefined> }> {
  const merged = await score(mergeChannel(), a, b);
  const overlapped = await score(overlapChannel(), a, b, { proximityRisk: 0 });
  return {
    git: new Set(merged.evidence.map((e) => e.a?.path)),
    overlap: new Set(
      overlapped.evidence.filter((e) => ['overlap', 'touching', 'same-insertion-point'].includes(e.kind ?? '')).map((e) => e.a?.path),
    ),
  };
}

function score(channel: AnyChannel, a: Agent, b: Agent, options?: unknown): Promise<ChannelScore> {
  return scoreOnce(channel, a, b, { options, services: { git: result!.git }, now: Date.now() });
}

it("the overlap channel (base coordinates, git's rule) flags exactly the files git merge-tree conflicts on", async () => {
  const FILES = 60;
  const next = rng(Number(process.env.AGREEMENT_SEED ?? 20261202));
  const base = (f: number) => Array.from({ length: LINES }, (_, i) => `file ${f} line ${i + 1}`);
  repo = createRepoFixture(Object.fromEntries(Array.from({ length: FILES }, (_, f) => [`f${f}.txt`, base(f).join('\n') + '\n'])));
  const x = repo.worktree('x');
  const y = repo.worktree('y');
  const plan: Record<string, [Change[], Change[]]> = {};
  for (let f = 0; f < FILES; f++) {
    const [cx, cy] = [changes(next), changes(next)];
    plan[`f${f}.txt`] = [cx, cy];
    x.write(`f${f}.txt`, apply(base(f), cx, 'x'));
    y.write(`f${f}.txt`, apply(base(f), cy, 'y'));
  }
  x.commit('x'); // one side committed, the other left in the work tree
  result = await loadAgents({ repo: repo.dir });
  const [ax, ay] = ['x', 'y'].map((id) => result!.agents.find((a) => a.id === id)!);
  const { git: mergePaths, overlap: overlapPaths } = await flagged(ax!, ay!);
  const disagreements = Object.keys(plan)
    .filter((p) => mergePaths.has(p) !== overlapPaths.has(p))
    .map((p) => ({ path: p, git: mergePaths.has(p), overlap: overlapPaths.has(p), x: plan[p]![0], y: plan[p]![1] }));
  expect(disagreements).toEqual([]);
  if (process.env.AGREEMENT_SEED) console.log(`conflicts ${mergePaths.size}/${FILES}`);
  expect(mergePaths.size).toBeGreaterThan(5); // the sample holds conflicts…
  expect(mergePaths.size).toBeLessThan(FILES); // …and clean merges
});

it('…and still does when the agents started from different commits of main (pair merge base)', async () => {
  const FILES = 40;
  const next = rng(Number(process.env.AGREEMENT_SEED ?? 7));
  const base = (f: number) => Array.from({ length: LINES }, (_, i) => `file ${f} line ${i + 1}`);
  repo = createRepoFixture(Object.fromEntries(Array.from({ length: FILES }, (_, f) => [`f${f}.txt`, base(f).join('\n') + '\n'])));
  const x = repo.worktree('x');
  // main moves on before y starts: lines inserted at the top of some files, a line changed in others.
  const moved = (f: number) => {
    const l = base(f);
    if (f % 3 === 0) l.unshift(`main ${f} a`, `main ${f} b`);
    if (f % 4 === 1) l[5] = `main ${f} changed`;
    return l;
  };
  for (let f = 0; f < FILES; f++) repo.write(`f${f}.txt`, moved(f).join('\n') + '\n');
  repo.commit('main moves');
  const y = repo.worktree('y');
  for (let f = 0; f < FILES; f++) {
    x.write(`f${f}.txt`, apply(base(f), changes(next), 'x'));
    y.write(`f${f}.txt`, apply(moved(f), changes(next, moved(f).length), 'y'));
  }
  y.commit('y');
  result = await loadAgents({ repo: repo.dir });
  const [ax, ay] = ['x', 'y'].map((id) => result!.agents.find((a) => a.id === id)!);
  expect(ax!.base).not.toBe(ay!.base);
  const { git, overlap } = await flagged(ax!, ay!);
  const disagreements = Array.from({ length: FILES }, (_, f) => `f${f}.txt`).filter((p) => git.has(p) !== overlap.has(p));
  expect(disagreements).toEqual([]);
  if (process.env.AGREEMENT_SEED) console.log(`conflicts ${git.size}/${FILES}`);
  expect(git.size).toBeGreaterThan(5);
  expect(git.size).toBeLessThan(FILES);
});
