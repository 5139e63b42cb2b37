// Benchmark: scanAirspace on 100 agents × 50 files with two trivial channels, against the same
// channel work (prepare once, score every pair) called directly. The ratio is the scan's overhead
// factor: the loop, combination, classification, evidence ranking, links, advisories, embedding.
//
//   npm run bench -w @airspace/core            (after `npm run build`)
//   node bench/scan.bench.mjs --agents 100 --files 50 --runs 15
//   node bench/scan.bench.mjs --channels @airspace/channel-overlap,@airspace/channel-tree   (real channels)
import { defineChannel, scanAirspace } from '../dist/index.js';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((out, arg, i, all) => (arg.startsWith('--') ? [...out, [arg.slice(2), all[i + 1]]] : out), []),
);
const AGENTS = Number(args.agents ?? 100);
const FILES = Number(args.files ?? 50);
const RUNS = Number(args.runs ?? 15);

// Deterministic pseudo-random (mulberry32).
let seed = 42;
const rand = () => {
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

// A repository of 2,000 files in 40 directories; each agent edits 50 of them, biased to a few
// directories so that some pairs share files (traffic/resolution) and most do not.
const paths = Array.from({ length: 2000 }, (_, i) => `src/mod${i % 40}/sub${i % 7}/file${i}.ts`);
const agents = Array.from({ length: AGENTS }, (_, k) => {
  const home = Math.floor(rand() * 40);
  const files = new Map();
  while (files.size < FILES) {
    const dir = rand() < 0.7 ? home : Math.floor(rand() * 40);
    const i = dir + 40 * Math.floor(rand() * 50);
    const start = 1 + Math.floor(rand() * 300);
    files.set(paths[i], {
      path: paths[i],
      status: 'modified',
      weight: 0.5 + rand() / 2,
      baseRanges: [[start, start + 5]],
      newRanges: [[start, start + 5]],
    });
  }
  return { id: `agent-${String(k).padStart(3, '0')}`, label: `agent ${k}`, startedAt: k, committedWork: k % 5, files: [...files.values()] };
});

/** Line-precise: shares a file (by a prepared path set); evidence names it. */
const shared = defineChannel({
  id: 'shared-file',
  defaultWeight: 0.8,
  meta: { precision: 'line' },
  prepare: (all) => new Map(all.map((a) => [a.id, new Set(a.files.map((f) => f.path))])),
  score(a, b, ctx) {
    const other = ctx.prepared.get(b.id);
    let hits = 0;
    let first;
    for (const f of a.files) if (other.has(f.path)) (hits++, (first ??= f.path));
    if (hits === 0) return { risk: 0, evidence: [] };
    return {
      risk: Math.min(1, hits / 3),
      evidence: [
        {
          message: `${a.id} and ${b.id} both edit ${first}`,
          kind: 'shared',
          a: { agent: a.id, path: first },
          b: { agent: b.id, path: first },
        },
      ],
    };
  },
});

/** File-precise: share a top-level module directory. */
const sameModule = defineChannel({
  id: 'same-module',
  defaultWeight: 0.25,
  meta: { precision: 'file' },
  prepare: (all) => new Map(all.map((a) => [a.id, new Set(a.files.map((f) => f.path.split('/')[1]))])),
  score(a, b, ctx) {
    const mine = ctx.prepared.get(a.id);
    for (const m of ctx.prepared.get(b.id)) if (mine.has(m)) return { risk: 0.5, evidence: [{ message: `both in ${m}`, kind: 'module' }] };
    return { risk: 0, evidence: [] };
  },
});
// Channel modules named on the command line (default exports), else the two trivial channels.
const channels = args.channels
  ? await Promise.all(
      String(args.channels)
        .split(',')
        .map(async (spec) => (await import(spec)).default),
    )
  : [shared, sameModule];

async function direct() {
  const ctx = { options: undefined, now: 0, logger: { debug() {}, info() {}, warn() {} }, services: {} };
  const sorted = [...agents].sort((x, y) => (x.id < y.id ? -1 : 1));
  const contexts = channels.map((c) => {
    const withOptions = { ...ctx, options: c.defaultOptions };
    return { ...withOptions, prepared: c.prepare ? c.prepare(sorted, withOptions) : undefined };
  });
  let sink = 0;
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      for (let c = 0; c < channels.length; c++) sink += channels[c].score(sorted[i], sorted[j], contexts[c]).risk;
    }
  }
  return sink;
}

async function scan() {
  return scanAirspace(agents, { channels, now: 0 });
}

async function bare() {
  return scanAirspace(agents, { channels: [], now: 0 });
}

// CPU time of this process (user + system), not wall time: on a shared, loaded machine wall time
// mostly measures the other processes.
async function time(fn) {
  const c0 = process.cpuUsage();
  const out = await fn();
  const c = process.cpuUsage(c0);
  return { ms: (c.user + c.system) / 1000, out };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Warm up both, then interleave runs so that both see the same machine load.
for (let i = 0; i < 3; i++) {
  await direct();
  await scan();
}
const directMs = [];
const scanMs = [];
const bareMs = [];
let last;
for (let i = 0; i < RUNS; i++) {
  directMs.push((await time(direct)).ms);
  bareMs.push((await time(bare)).ms);
  const s = await time(scan);
  scanMs.push(s.ms);
  last = s.out;
}
const d = median(directMs);
const s = median(scanMs);
console.log(
  `scanAirspace: ${AGENTS} agents × ${FILES} files, ${last.counts.pairs} pairs, channels ${channels.map((c) => c.id).join(' + ')}, ${RUNS} runs (median CPU time)`,
);
console.log(`  counts: ${JSON.stringify(last.counts)}`);
console.log(`  channel work called directly: ${d.toFixed(1)} ms`);
console.log(`  scanAirspace (same channels):  ${s.toFixed(1)} ms`);
console.log(`  scanAirspace with no channels:  ${median(bareMs).toFixed(1)} ms  (pairs, links, levels, embedding)`);
console.log(
  `  ratio scan / direct: ${(s / d).toFixed(2)}×  (overhead ${(s - d).toFixed(1)} ms, ${(((s - d) / last.counts.pairs) * 1000).toFixed(2)} µs per pair)`,
);
