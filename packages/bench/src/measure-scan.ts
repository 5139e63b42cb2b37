/**
 * The scan benchmark: `scanAirspace` with the overlap, tree and dependency channels on the import
 * graph of the generated repository (10,000 files), for growing numbers of agents that each change
 * 50 files; a rescan after one agent changed (the previous scan's pair scores reused); peak memory;
 * and, in the same run on the same agents, the seed's algorithm (`seed-baseline.ts`: one BFS per
 * pair of touched files) as the baseline the ratios are taken against.
 *
 *   node dist/measure-scan.js [--agents 3,10,100,300,1000] [--files 50] [--graph 10000]
 *                             [--seed-agents 3,10] [--exhaustive 100] [--write ../../docs/benchmarks.md]
 *
 * `--exhaustive N`: also the straightforward scan (every pair, every channel, evidence for every
 * non-zero risk) up to N agents, the algorithm before pair candidates and deferred evidence.
 *
 * `--one-shot 3,100` (`--runs R`, default 3): those counts again, each scan in a new process (the
 * code cold, the base graph numbered within the scan), as a one-off `airspace scan` pays it and as
 * the figures of issue 21 were taken; alternated, the fastest of R kept.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpus, loadavg } from 'node:os';
import { scanAirspace, createPairCache, type Agent, type AnyChannel, type ScanResult } from '@airspace/core';
import { dependencyChannel } from '@airspace/channel-dependency';
import { overlapChannel } from '@airspace/channel-overlap';
import { treeChannel } from '@airspace/channel-tree';
import { generateAgents, generatedGraph, graphService, type GraphEdges } from './scan-graph.js';
import { writeMarkedBlock } from './report.js';
import { seedScan } from './seed-baseline.js';

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const list = (s: string) => s.split(',').filter(Boolean).map(Number);
const COUNTS = list(opt('agents') ?? '3,10,100,300,1000');
const PER_AGENT = Number(opt('files') ?? 50);
const GRAPH_FILES = Number(opt('graph') ?? 10_000);
const SEED_COUNTS = list(opt('seed-agents') ?? '3,10');
const EXHAUSTIVE_MAX = Number(opt('exhaustive') ?? 100);
const ONE_SHOT = list(opt('one-shot') ?? '3,100');
const ONE_SHOT_RUNS = Math.max(1, Number(opt('runs') ?? 3));
/** Small scans after the first, before the rows; and runs of each row of at most 10 agents (the median is kept). */
const WARM_UP_SCANS = 5;
const SMALL_RUNS = 5;

const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms >= 10 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`);
const peakMiB = () => process.resourceUsage().maxRSS / 1024;

function channels(): AnyChannel[] {
  return [overlapChannel(), treeChannel(), dependencyChannel()];
}

async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; cpu: number; out: T }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const out = await fn();
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpu: (c.user + c.system) / 1000, out };
}

interface Row {
  readonly agents: number;
  readonly pairs: number;
  readonly scored: number;
  readonly advisories: number;
  readonly full: number;
  readonly fullCpu: number;
  readonly rescan?: number;
  readonly rescanCpu?: number;
  readonly exhaustive?: number;
  readonly seed?: number;
  readonly rss: number;
}

/** `--child-one-shot N`: one scan of N agents in this new process; prints its CPU and wall time. */
async function oneShotChild(n: number): Promise<void> {
  const graph = await generatedGraph(GRAPH_FILES, 42);
  const importGraph = graphService(graph);
  const agents = generateAgents(graph.files, n, PER_AGENT);
  const scan = await timed(() => scanAirspace(agents, { channels: channels(), services: { importGraph }, now: 0 }));
  console.log(JSON.stringify({ agents: n, ms: scan.ms, cpu: scan.cpu, links: scan.out.links.length }));
}

/** Each count of `--one-shot` in new processes, alternated; the fastest (CPU) of `runs` per count. */
function oneShots(counts: readonly number[], runs: number): Map<number, { ms: number; cpu: number }> {
  const best = new Map<number, { ms: number; cpu: number }>();
  const script = fileURLToPath(import.meta.url);
  for (let run = 0; run < runs; run++)
    for (const n of counts) {
      const out = execFileSync(
        process.execPath,
        [script, '--child-one-shot', String(n), '--files', String(PER_AGENT), '--graph', String(GRAPH_FILES)],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const r = JSON.parse(out.trim().split('\n').pop()!) as { ms: number; cpu: number };
      const known = best.get(n);
      if (!known || r.cpu < known.cpu) best.set(n, r);
      console.error(`one-shot ${n} agents (run ${run + 1} of ${runs}): ${fmtMs(r.cpu)} CPU (${fmtMs(r.ms)})`);
    }
  return best;
}

/** One row: a full scan of the first `n` agents, a rescan after one changed, and the baselines. */
async function measureRow(n: number, all: readonly Agent[], graph: GraphEdges, importGraph: ReturnType<typeof graphService>): Promise<Row> {
  const agents = all.slice(0, n);
  const chs = channels();
  const context = { channels: chs, services: { importGraph }, now: 0 };
  let lastProgress = 0;
  let cache = createPairCache();
  const scanOnce = (c: ReturnType<typeof createPairCache>, ctx: typeof context) =>
    timed(() =>
      scanAirspace(agents, ctx, {
        reuse: c,
        onProgress: (done, total) => {
          if (n >= 300 && performance.now() - lastProgress > 1000) {
            lastProgress = performance.now();
            console.error(`  ${n} agents: ${done}/${total} pairs`);
          }
        },
      }),
    );
  let full = await scanOnce(cache, context);
  // Small scans take milliseconds: the median of a few (each with new channels and cache) is the row.
  if (n <= 10) {
    const runs = [full];
    for (let i = 1; i < SMALL_RUNS; i++) {
      const c = createPairCache();
      runs.push(await scanOnce(c, { ...context, channels: channels() }));
    }
    full = [...runs].sort((a, b) => a.cpu - b.cpu)[runs.length >> 1]!;
    cache = createPairCache();
    await scanAirspace(agents, context, { reuse: cache });
  }
  // Only the counts are kept: the rescan's memory is the scanner's (its cache), not two results.
  const result = {
    counts: full.out.counts,
    links: { length: full.out.links.length },
    advisories: { length: full.out.advisories.length },
  };
  (full as { out?: ScanResult | undefined }).out = undefined;
  // Rescan after one agent changed: a new object for it (one more changed file), the cache of the scan before.
  const changed = agents.map((a, i) =>
    i === Math.floor(n / 2)
      ? { ...a, files: [...a.files.slice(1), { ...a.files[0]!, baseRanges: [[1, 3]] as const, newRanges: [[1, 3]] as const }] }
      : a,
  );
  const rescan = await timed(() => scanAirspace(changed, context, { reuse: cache }));
  let exhaustive: number | undefined;
  if (n <= EXHAUSTIVE_MAX)
    exhaustive = (await timed(() => scanAirspace(agents, { ...context, channels: channels() }, { exhaustive: true }))).cpu;
  let seed: number | undefined;
  if (SEED_COUNTS.includes(n)) seed = (await timed(() => seedScan(agents, graph))).cpu;
  const row: Row = {
    agents: n,
    pairs: result.counts.pairs,
    scored: result.links.length,
    advisories: result.advisories.length,
    full: full.ms,
    fullCpu: full.cpu,
    rescan: rescan.ms,
    rescanCpu: rescan.cpu,
    ...(exhaustive !== undefined ? { exhaustive } : {}),
    ...(seed !== undefined ? { seed } : {}),
    rss: peakMiB(),
  };
  console.error(
    `${n} agents: ${row.pairs} pairs, ${row.scored} links, ${row.advisories} advisories; full ${fmtMs(row.full)} (cpu ${fmtMs(full.cpu)}), rescan ${fmtMs(rescan.ms)}` +
      `${exhaustive !== undefined ? `, exhaustive ${fmtMs(exhaustive)}` : ''}${seed !== undefined ? `, seed ${fmtMs(seed)}` : ''}; peak RSS ${row.rss.toFixed(0)} MiB`,
  );
  return row;
}

/** The Markdown of the run: the rows, then the one-shot scans. */
function scanTable(rows: readonly Row[], graph: GraphEdges, warmCpu: number, loadStart: number): string {
  const shots = ONE_SHOT.length ? oneShots(ONE_SHOT, ONE_SHOT_RUNS) : new Map<number, { ms: number; cpu: number }>();
  const shotBase = shots.get(ONE_SHOT[0]!);
  const shotLines = shots.size
    ? [
        `One scan per new process (code cold; the base graph numbered within the scan, as a one-off \`airspace scan\` and the figures of issue 21 pay it), the same agents, alternated, the fastest CPU time of ${ONE_SHOT_RUNS}:`,
        '',
        `| agents | one-shot scan, CPU (wall) | CPU ÷ ${ONE_SHOT[0]} agents |`,
        '|---|---|---|',
        ...ONE_SHOT.map((n) => {
          const r = shots.get(n)!;
          return `| ${n} | ${fmtMs(r.cpu)} (${fmtMs(r.ms)}) | ${(r.cpu / shotBase!.cpu).toFixed(1)}× |`;
        }),
        '',
      ]
    : [];
  const base = rows[0]!;
  const lines = [
    `### Scan: ${PER_AGENT} files per agent on the import graph of the generated repository (${graph.files.length} files, ${graph.edges.length} edges)`,
    '',
    `Command: \`node dist/measure-scan.js --agents ${COUNTS.join(',')} --seed-agents ${SEED_COUNTS.join(',')} --exhaustive ${EXHAUSTIVE_MAX} --one-shot ${ONE_SHOT.join(',')} --runs ${ONE_SHOT_RUNS}\` in \`packages/bench\` — ${cpus().length} cores, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${loadStart.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end. Channels overlap, tree, dependency with the shipped weights. CPU time of this process (user + system) and wall time of one scan; the first scan of the graph (numbering it, once per base commit) took ${fmtMs(warmCpu)} CPU and is not in the rows. The straightforward scan and the seed's algorithm are CPU time too.`,
    '',
    `| agents | pairs | links kept | advisories | full scan, CPU (wall) | CPU ÷ ${base.agents} agents | rescan after one agent changed, CPU (wall) | straightforward scan (every pair, all evidence), CPU | seed's algorithm (baseline), CPU | seed ÷ full | peak RSS |`,
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.agents} | ${r.pairs} | ${r.scored} | ${r.advisories} | ${fmtMs(r.fullCpu)} (${fmtMs(r.full)}) | ${(r.fullCpu / base.fullCpu).toFixed(1)}× | ${r.rescanCpu !== undefined ? `${fmtMs(r.rescanCpu)} (${fmtMs(r.rescan!)})` : '—'} | ${r.exhaustive !== undefined ? `${fmtMs(r.exhaustive)} (${(r.exhaustive / r.fullCpu).toFixed(1)}×)` : '—'} | ${r.seed !== undefined ? fmtMs(r.seed) : '—'} | ${r.seed !== undefined ? `${(r.seed / r.fullCpu).toFixed(0)}×` : '—'} | ${r.rss.toFixed(0)} MiB |`,
    ),
    '',
    ...shotLines,
  ];
  return lines.join('\n');
}

async function main() {
  const loadStart = loadavg()[0]!;
  const t0 = performance.now();
  const graph = await generatedGraph(GRAPH_FILES, 42);
  console.error(`graph: ${graph.files.length} files, ${graph.edges.length} edges (${fmtMs(performance.now() - t0)})`);
  const importGraph = graphService(graph);
  const all = generateAgents(graph.files, Math.max(...COUNTS), PER_AGENT);
  // First scan of this base graph (other agents): numbers the graph once, as a scanner does once
  // per base commit, and warms up the code. Every row below scans with new channel objects, so
  // no agent's import reach is kept from an earlier row.
  const warm = await timed(() =>
    scanAirspace(generateAgents(graph.files, 2, PER_AGENT, 99), { channels: channels(), services: { importGraph }, now: 0 }),
  );
  console.error(`first scan of the graph (numbering it; 2 agents): ${fmtMs(warm.ms)} (cpu ${fmtMs(warm.cpu)})`);
  // A few more small scans, so that the first rows do not pay the JIT's warm-up: the ratio of
  // 100 agents to 3 would otherwise look better than it is.
  for (let i = 0; i < WARM_UP_SCANS; i++)
    await scanAirspace(generateAgents(graph.files, 3, PER_AGENT, 100 + i), { channels: channels(), services: { importGraph }, now: 0 });
  const rows: Row[] = [];
  for (const n of COUNTS) rows.push(await measureRow(n, all, graph, importGraph));
  const text = scanTable(rows, graph, warm.cpu, loadStart);
  console.log(text);
  const write = opt('write');
  if (write) {
    writeMarkedBlock(write, 'bench:scan', text);
  }
}

const child = opt('child-one-shot');
await (child ? oneShotChild(Number(child)) : main());
