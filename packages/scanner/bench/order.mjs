#!/usr/bin/env node
/**
 * Cost of `airspace order` as agents that can conflict grow: `node bench/order.mjs [max agents]`.
 * A generated repository (one 400-line file and one other file per agent); agent i rewrites a
 * window of lines that overlaps its neighbours' in a deterministic pattern, so most pairs are
 * clean and some conflict. Prints, per agent count, the merges the exact search ran and the wall
 * time of planning (after the scan), with the greedy order's cost beside it. Needs a build.
 */
import { performance } from 'node:perf_hooks';
import { createRepoFixture } from '@airspace/git/fixture';
import { createScanner, planOrder } from '../dist/index.js';

const max = Number(process.argv[2] ?? 10);
const lines = Array.from({ length: 400 }, (_, i) => `line ${i + 1}`);
const only = {
  channels: {
    overlap: { enabled: false },
    tree: { enabled: false },
    dependency: { enabled: false },
    symbols: { enabled: false },
    'call-graph': { enabled: false },
  },
};
const conflictsOf = (o) => o.steps.reduce((n, s) => n + new Set(s.conflicts.flatMap((c) => c.paths)).size, 0);

for (let n = 2; n <= max; n += 2) {
  const repo = createRepoFixture({ 'shared.txt': lines.join('\n') + '\n' });
  try {
    for (let i = 0; i < n; i++) {
      // Windows of 12 lines every 10: each overlaps the next; every third agent spans two windows.
      const from = i * 10 + 1;
      const to = from + (i % 3 === 2 ? 25 : 11);
      const text = lines.map((l, k) => (k + 1 >= from && k + 1 <= to ? `agent ${i} ${k + 1}` : l)).join('\n') + '\n';
      const wt = repo
        .worktree(`agent-${String(i).padStart(2, '0')}`)
        .write('shared.txt', text)
        .write(`own-${i}.txt`, `${i}\n`);
      for (let c = 0; c <= i % 4; c++) wt.commit(`agent ${i} commit ${c}`);
    }
    const scanner = createScanner({ repo: repo.dir, config: only });
    const result = await scanner.scan();
    const state = scanner.scanned();
    let t = performance.now();
    const exact = await planOrder(result, state, { exactLimit: 12 });
    const exactMs = Math.round(performance.now() - t);
    t = performance.now();
    const greedy = await planOrder(result, state, { exactLimit: 1 });
    const greedyMs = Math.round(performance.now() - t);
    console.log(
      JSON.stringify({
        agents: n,
        exact: exact.exact,
        exactMerges: exact.merges,
        exactMs,
        exactConflicts: conflictsOf(exact),
        greedyMerges: greedy.merges,
        greedyMs,
        greedyConflicts: conflictsOf(greedy),
      }),
    );
    await scanner.dispose();
  } finally {
    repo.dispose();
  }
}
