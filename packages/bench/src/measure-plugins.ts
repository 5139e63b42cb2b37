/**
 * What running config plugins in worker threads costs, against loading them in-process: on the
 * demo repository (7 agents, 21 pairs) and on a generated repository with many agents. Three
 * plugins: `trivial` (scores 0; the floor, nothing but the messages), `shared-dirs` (a `prepare`
 * over every agent's files and a score with evidence, as a real plugin does) and `imports`
 * (requires `importGraph`: one service call per changed file in `prepare`, reaching across
 * threads through service-bridge.ts when in a worker).
 *
 *   node dist/measure-plugins.js [--files 2000] [--agents 30] [--runs 7]
 *
 * Reported per repository: the first scan (plugins loaded), the median warm scan with no plugin,
 * in-process and in workers, and the plugins' own time (scanAirspace with only the plugins, on
 * the scan's agents), each as a ratio worker ÷ in-process.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPlugins, type Isolation } from '@airspace/config';
import { scanAirspace, type Agent } from '@airspace/core';
import { createRepoFixture } from '@airspace/git/fixture';
import { importGraphService, buildIndex, worktreeSnapshot } from '@airspace/analysis';
import { createScanner } from '@airspace/scanner';
import { generateRepo, prng } from './generate.js';
import { median } from './report.js';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const RUNS = opt('runs', 7);

const PLUGINS = {
  'imports.mjs': `
export default {
  id: 'imports',
  defaultWeight: 0.3,
  requires: ['importGraph'],
  prepare: (agents, ctx) => new Map(agents.map((a) => [a.id, new Set(a.files.flatMap((f) => ctx.services.importGraph.forAgent(a.id).importsOf(f.path)))])),
  score(a, b, ctx) {
    const hit = b.files.find((f) => ctx.prepared.get(a.id).has(f.path)) ?? a.files.find((f) => ctx.prepared.get(b.id).has(f.path));
    return hit ? { risk: 0.5, evidence: [{ message: a.label + ' and ' + b.label + ' are one import apart at ' + hit.path }] } : { risk: 0, evidence: [] };
  },
};
`,
  'trivial.mjs': "export default { id: 'trivial', defaultWeight: 0.5, score: () => ({ risk: 0, evidence: [] }) };\n",
  'shared-dirs.mjs': `
const dir = (p) => p.slice(0, p.lastIndexOf('/') + 1) || '/';
export default {
  id: 'shared-dirs',
  defaultWeight: 0.3,
  meta: { precision: 'file' },
  prepare: (agents) => new Map(agents.map((a) => [a.id, new Set(a.files.map((f) => dir(f.path)))])),
  score(a, b, ctx) {
    const mine = ctx.prepared.get(a.id);
    const shared = [...ctx.prepared.get(b.id)].filter((d) => mine.has(d));
    if (shared.length === 0) return { risk: 0, evidence: [] };
    return { risk: Math.min(1, 0.2 * shared.length), evidence: shared.slice(0, 3).map((d) => ({ kind: 'shared-dir', message: a.label + ' and ' + b.label + ' both edit files in ' + d })) };
  },
};
`,
};

const ms = (x: number): string => `${x.toFixed(x < 10 ? 2 : 0)} ms`;

async function timed<T>(run: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await run();
  return [performance.now() - start, value];
}

interface Figures {
  readonly first: number;
  readonly warm: number;
  readonly agents: readonly Agent[];
}

async function scans(repo: string, plugins: readonly string[], isolation: Isolation | undefined): Promise<Figures> {
  const scanner = createScanner({ repo, config: { plugins: [...plugins] }, ...(isolation ? { pluginIsolation: isolation } : {}) });
  try {
    const [first, result] = await timed(() => scanner.scan());
    const bad = result.problems.filter((p) => p.channel !== undefined && Object.keys(PLUGINS).includes(`${p.channel}.mjs`));
    if (bad.length > 0) throw new Error(`plugin problems: ${bad.map((p) => p.message).join('; ')}`);
    const warm: number[] = [];
    for (let i = 0; i < RUNS; i++) warm.push((await timed(() => scanner.scan()))[0]);
    return { first, warm: median(warm), agents: result.agents };
  } finally {
    await scanner.dispose();
  }
}

/** The plugins alone: scanAirspace over the same agents with only them, median of RUNS. */
async function pluginsAlone(
  dir: string,
  plugins: readonly string[],
  agents: readonly Agent[],
  isolation: Isolation,
  services: Record<string, unknown>,
): Promise<{ load: number; scan: number }> {
  const [load, loaded] = await timed(() => loadPlugins(plugins, dir, { isolation }));
  try {
    const channels = loaded.channels.map((c) => c.channel);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const [time, result] = await timed(() => scanAirspace(agents, { channels, services }));
      if (result.problems.length > 0) throw new Error(`plugin problems: ${result.problems.map((p) => p.message).join('; ')}`);
      times.push(time);
    }
    return { load, scan: median(times) };
  } finally {
    await loaded.dispose();
  }
}

async function measure(label: string, repo: string, pluginDir: string): Promise<string[]> {
  const plugins = Object.keys(PLUGINS).map((name) => join(pluginDir, name));
  const none = await scans(repo, [], undefined);
  // The plugins alone first: an in-process import is cached by the module system afterwards.
  // Their import graph is the repository's base graph (as the scanner's would be, overlays aside).
  const services = { importGraph: importGraphService(await buildIndex(await worktreeSnapshot(repo))) };
  const aloneIn = await pluginsAlone(pluginDir, plugins, none.agents, 'in-process', services);
  const aloneWorker = await pluginsAlone(pluginDir, plugins, none.agents, 'worker', services);
  const inProcess = await scans(repo, plugins, 'in-process');
  const worker = await scans(repo, plugins, 'worker');
  const n = inProcess.agents.length;
  const pairs = (n * (n - 1)) / 2;
  const ratio = (w: number, i: number): string => `${(w / i).toFixed(2)}×`;
  return [
    `| ${label}: ${n} agents, ${pairs} pairs | no plugin | in-process | worker | worker ÷ in-process |`,
    '| --- | --- | --- | --- | --- |',
    `| first scan (loads the plugins) | ${ms(none.first)} | ${ms(inProcess.first)} | ${ms(worker.first)} | ${ratio(worker.first, inProcess.first)} |`,
    `| warm scan, median of ${RUNS} | ${ms(none.warm)} | ${ms(inProcess.warm)} | ${ms(worker.warm)} | ${ratio(worker.warm, inProcess.warm)} |`,
    `| loading the three plugins | | ${ms(aloneIn.load)} | ${ms(aloneWorker.load)} | ${ratio(aloneWorker.load, aloneIn.load)} |`,
    `| the three plugins alone (prepare + every pair), median of ${RUNS} | | ${ms(aloneIn.scan)} | ${ms(aloneWorker.scan)} | ${ratio(aloneWorker.scan, aloneIn.scan)} |`,
    `| the same per pair and plugin | | ${((aloneIn.scan / pairs / 3) * 1000).toFixed(1)} µs | ${((aloneWorker.scan / pairs / 3) * 1000).toFixed(1)} µs | |`,
    '',
  ];
}

async function main(): Promise<void> {
  const pluginDir = mkdtempSync(join(tmpdir(), 'airspace-bench-plugins-'));
  for (const [name, text] of Object.entries(PLUGINS)) writeFileSync(join(pluginDir, name), text);
  const lines: string[] = [];
  // The CLI's demo repository, imported at run time: @airspace/cli depends (through lsp-server)
  // on this package, so it cannot be a build dependency. `npm run build` has built it.
  const cli = '@airspace/cli';
  const { createDemoRepository } = (await import(cli)) as { createDemoRepository: () => { root: string; fixture: { dispose(): void } } };
  const demo = createDemoRepository();
  try {
    lines.push(...(await measure('demo', demo.root, pluginDir)));
  } finally {
    demo.fixture.dispose();
  }

  // A generated repository; each agent appends a line to a few files, mostly in one package.
  const files = opt('files', 2000);
  const agents = opt('agents', 30);
  const gen = generateRepo({ files, seed: 42 });
  const fixture = createRepoFixture(gen.files);
  try {
    const paths = Object.keys(gen.files)
      .filter((p) => /\.(ts|tsx|js|py)$/.test(p))
      .sort();
    const rand = prng(7);
    for (let k = 0; k < agents; k++) {
      const worktree = fixture.worktree(`agent-${String(k).padStart(2, '0')}`);
      const home = Math.floor(rand() * paths.length);
      for (let j = 0; j < 6; j++) {
        const path = paths[(home + Math.floor(rand() * (j < 4 ? 40 : paths.length))) % paths.length]!;
        worktree.write(path, `${gen.files[path]}\n// agent ${k}\n`);
      }
    }
    lines.push(...(await measure(`generated (${files} files)`, fixture.dir, pluginDir)));
  } finally {
    fixture.dispose();
    rmSync(pluginDir, { recursive: true, force: true });
  }
  console.log(lines.join('\n'));
}

await main();
