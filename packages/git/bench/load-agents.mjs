// loadAgents on 20 worktrees × 50 changed files, against the cheapest git reads of the same
// worktrees; and the merge channel's batched merges against one merge-tree process per pair.
// Run after `npm run build`: node bench/load-agents.mjs [agents] [files]
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createRepoFixture } from '../dist/fixture.js';
import { loadAgents, runGit, runGitRaw } from '../dist/index.js';

const AGENTS = Number(process.argv[2] ?? 20);
const FILES = Number(process.argv[3] ?? 50);
const LINES = 200;

const lines = (f) => Array.from({ length: LINES }, (_, i) => `export const v${f}_${i} = ${i};`);
const files = Object.fromEntries(Array.from({ length: FILES * 2 }, (_, f) => [`src/m${f}.ts`, lines(f).join('\n') + '\n']));
const repo = createRepoFixture(files);
const dirs = [];
for (let a = 0; a < AGENTS; a++) {
  const w = repo.worktree(`agent-${a}`);
  // Each agent touches FILES files: half committed, a quarter unstaged, a quarter untracked.
  for (let k = 0; k < FILES; k++) {
    const f = (a * 7 + k) % (FILES * 2);
    const l = lines(f);
    l[(a * 13 + k) % LINES] = `export const v${f} = 'agent ${a}';`;
    if (k < FILES / 2) w.write(`src/m${f}.ts`, l.join('\n') + '\n');
    else if (k < (FILES * 3) / 4) {
      if (k === Math.floor(FILES / 2)) w.commit('committed half');
      w.write(`src/m${f}.ts`, l.join('\n') + '\n');
    } else w.write(`src/new-${a}-${k}.ts`, 'export const fresh = 1;\n');
  }
  dirs.push(w.dir);
}

/**
 * CPU time of this process and its finished children (ms), from /proc (Linux): on a shared
 * machine wall time measures the neighbours; git's own work is in the children's time.
 */
function cpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // After the command name: state is field 3, utime..cstime are fields 14–17.
    const ticks = [11, 12, 13, 14].reduce((n, i) => n + Number(fields[i]), 0);
    return (ticks * 1000) / 100;
  } catch {
    return NaN;
  }
}

async function time(label, fn, runs = 3) {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const c = cpuMs();
    await fn();
    samples.push({ wall: performance.now() - t, cpu: cpuMs() - c });
  }
  samples.sort((x, y) => x.cpu - y.cpu || x.wall - y.wall);
  const mid = samples[Math.floor(runs / 2)];
  return { label, ms: mid.wall, cpu: mid.cpu };
}

const results = [];
results.push(
  await time('git status --porcelain=v2 per worktree (baseline)', async () => {
    for (const d of dirs) await runGit(['status', '--porcelain=v2', '-z', '--untracked-files=all'], { cwd: d });
  }),
);
results.push(
  await time('git diff -U0 main per worktree (tracked only, no untracked)', async () => {
    for (const d of dirs) await runGit(['diff', '-U0', '--no-color', 'main'], { cwd: d });
  }),
);
let loaded;
results.push(
  await time('loadAgents, cold (new scratch store)', async () => {
    loaded?.git.dispose();
    loaded = await loadAgents({ repo: repo.dir });
  }),
);
const warm = await time('loadAgents, reusing the service', () => loadAgents({ repo: repo.dir, git: loaded.git }));
results.push(warm);

const agents = loaded.agents;
const pairs = [];
for (let i = 0; i < agents.length; i++) for (let j = i + 1; j < agents.length; j++) pairs.push([agents[i], agents[j]]);
const commits = await Promise.all(agents.map((a) => loaded.git.stateCommit(a)));
results.push(
  await time(
    `${pairs.length} merges, one merge-tree process per pair`,
    async () => {
      for (let i = 0; i < agents.length; i++) {
        for (let j = i + 1; j < agents.length; j++) {
          await runGitRaw(['merge-tree', '--write-tree', '--name-only', '-z', commits[i], commits[j]], {
            cwd: repo.dir,
            env: loaded.git.scratch.env(),
            okCodes: [1],
          });
        }
      }
    },
    1,
  ),
);
results.push(await time(`${pairs.length} merges, one merge-tree --stdin batch (mergeMany)`, () => loaded.git.mergeMany(pairs), 1));
results.push(await time(`${pairs.length} merges again, cached`, () => Promise.all(pairs.map(([a, b]) => loaded.git.merge(a, b))), 1));

const baseline = results[0];
console.log(
  `loadAgents bench: ${AGENTS} worktrees × ${FILES} changed files (${agents.length} agents, ${agents.reduce((n, a) => n + a.files.length, 0)} file edits)`,
);
console.log(
  `${'(CPU = this process + git children; ratios against the baseline)'.padEnd(64)} ${'wall'.padStart(8)} ${'CPU'.padStart(8)}  CPU ratio`,
);
for (const r of results)
  console.log(
    `${r.label.padEnd(64)} ${r.ms.toFixed(0).padStart(6)} ms ${r.cpu.toFixed(0).padStart(6)} ms  ${(r.cpu / baseline.cpu).toFixed(2)}×`,
  );
console.log(
  `batched merges vs one process per pair: ${(results[4].cpu / results[5].cpu).toFixed(1)}× less CPU, ${(results[4].ms / results[5].ms).toFixed(1)}× less wall time`,
);
loaded.git.dispose();
repo.dispose();
