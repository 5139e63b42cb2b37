/**
 * The typecheck channel on a real repository: one pair of worktrees (agent ids `--a` and `--b`),
 * a cold first check, then `--runs` warm checks, each after a line is appended to `--file` (a
 * file of agent b's worktree, so every run has a new state tree and merge: nothing comes from
 * the result cache, while blob texts and SourceFiles stay warm as in a resident engine). Prints
 * each run's time and CPU (this process's, git's not counted), the channel's first evidence or
 * problem, and the medians of the warm runs.
 *
 *   node dist/measure-typecheck.js --repo DIR --a ann --b ben --file DIR-ben/src/x.ts [--runs 9]
 *
 * (A Python `--file` gets a `#` comment.)
 */
import { appendFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { loadAgents } from '@airspace/git';
import { typecheckChannel } from '@airspace/channel-typecheck';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const repo = opt('repo');
const a = opt('a');
const b = opt('b');
const file = opt('file');
const runs = Number(opt('runs') ?? 9);
if (!repo || !a || !b || !file) {
  console.error('usage: measure-typecheck --repo DIR --a ID --b ID --file PATH [--runs N]');
  process.exit(1);
}

const channel = typecheckChannel();
const silent = { debug() {}, info() {}, warn() {} };
const warm: number[] = [];
const warmCpu: number[] = [];
for (let i = 0; i <= runs; i++) {
  if (i > 0) appendFileSync(file, `${/\.pyi?$/.test(file) ? '#' : '//'} airspace bench edit ${i}\n`);
  const loaded = await loadAgents({ repo });
  try {
    const options = { ...channel.defaultOptions!, timeLimitMs: 600_000, budgetMs: 600_000 };
    const ctx = { options, now: Date.now(), logger: silent, services: { git: loaded.git }, repository: { id: 'bench', root: repo } };
    const prepared = await channel.prepare!(loaded.agents, ctx);
    const agentA = loaded.agents.find((x) => x.id === a);
    const agentB = loaded.agents.find((x) => x.id === b);
    if (!agentA || !agentB) throw new Error(`no agents ${a} and ${b} in ${repo}`);
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const score = await channel.score(agentA, agentB, { ...ctx, prepared });
    const took = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const said = score.evidence[0]?.message ?? score.problems?.[0]?.message ?? '';
    console.log(`${i === 0 ? 'cold' : 'warm'} ${took.toFixed(0)} ms (CPU ${cpuMs.toFixed(0)} ms), risk ${score.risk}: ${said}`);
    if (i > 0) (warm.push(took), warmCpu.push(cpuMs));
  } finally {
    loaded.git.dispose();
  }
}
warm.sort((x, y) => x - y);
warmCpu.sort((x, y) => x - y);
const median = warm[Math.floor(warm.length / 2)]!;
console.log(
  `median warm ${median.toFixed(0)} ms over ${warm.length} runs (min ${warm[0]!.toFixed(0)}, max ${warm.at(-1)!.toFixed(0)}); ` +
    `CPU median ${warmCpu[Math.floor(warmCpu.length / 2)]!.toFixed(0)} ms (this process; git's not counted); ` +
    `rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`,
);
