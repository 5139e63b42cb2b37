/**
 * The indexing benchmark (`npm run bench`): `@airspace/analysis` cold, warm and after one change,
 * with peak memory, side by side with dependency-cruiser and madge on the same TypeScript tree,
 * and the agreement of the relative-import edge sets. Every figure comes from one run, each tool
 * in its own process.
 *
 *   node dist/bench.js [--files 10000] [--seed 42] [--repo DIR --subdir SRC[,SRC2…]] [--no-peers]
 *                      [--runs N] [--write ../../docs/benchmarks.md]
 *
 * `--runs N` repeats each cold measurement on the shared tree (airspace and each peer) N times,
 * alternating the tools, and reports the fastest of each: on a shared machine the slowest runs
 * measure the neighbours.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFactsStore, buildIndex, worktreeSnapshot } from '@airspace/analysis';
import { createRepoFixture } from '@airspace/git/fixture';
import { generateRepo } from './generate.js';
import { writeMarkedBlock } from './report.js';
import { inSubdirs, subdirList } from './subdirs.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

const here = fileURLToPath(new URL('.', import.meta.url));
const node = process.execPath;

function measure(script: string, argv: string[]): Record<string, any> {
  const out = execFileSync(node, ['--max-old-space-size=4096', join(here, script), ...argv], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}

const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const fmtMB = (mb: number) => `${mb.toFixed(0)} MiB`;

interface BenchRepository {
  readonly repoDir: string;
  readonly subdir: string | undefined;
  readonly label: string;
  readonly dispose: () => void;
}

/** A generated repository (default), or a clone of `--repo` (the one-change measurement edits files). */
function prepareRepository(): BenchRepository {
  const repoDir = opt('repo');
  const tGen = performance.now();
  if (!repoDir) {
    const files = Number(opt('files') ?? 10_000);
    const seed = Number(opt('seed') ?? 42);
    const gen = generateRepo({ files, seed });
    const fixture = createRepoFixture(gen.files);
    const bytes = Object.values(gen.files).reduce((n, c) => n + c.length, 0);
    const label = `generated repository: ${Object.keys(gen.files).length} files, ${(bytes / 1e6).toFixed(1)} MB (seed ${seed}; TypeScript/TSX/JavaScript under \`${gen.tsRoot}/\`, Python under \`${gen.pyRoot}/\`)`;
    console.error(`generated ${label} in ${fmtMs(performance.now() - tGen)} at ${fixture.dir}`);
    // Let the fixture's writes reach the disk first, or the first measurement pays for them.
    execFileSync('sync');
    return { repoDir: fixture.dir, subdir: opt('subdir') ?? gen.tsRoot, label, dispose: fixture.dispose };
  }
  const label = `repository at \`${opt('label') ?? repoDir}\``;
  // The one-change measurement edits a file: it runs on a clone (its committed state), never on the given repository.
  const clone = mkdtempSync(join(tmpdir(), 'airspace-bench-repo-'));
  execFileSync('git', ['clone', '-q', repoDir, clone], { stdio: 'inherit' });
  return { repoDir: clone, subdir: opt('subdir'), label, dispose: () => rmSync(clone, { recursive: true, force: true }) };
}

/** Airspace's own rows: cold, one thread, warm, and re-indexing after one change. */
function measureAirspace(repoDir: string, cache: string, cores: number): string[] {
  console.error('airspace: cold …');
  const cold = measure('measure-index.js', [repoDir, cache, 'cold']);
  console.error('airspace: warm …');
  const warm = measure('measure-index.js', [repoDir, cache, 'warm']);
  console.error('airspace: one change …');
  const change = measure('measure-index.js', [repoDir, cache, 'change']);
  let single: Record<string, any> | undefined;
  if (!flag('no-single')) {
    console.error('airspace: cold, one thread …');
    const c1 = mkdtempSync(join(tmpdir(), 'airspace-bench-cache-1-'));
    single = measure('measure-index.js', [repoDir, c1, 'cold', '0']);
    rmSync(c1, { recursive: true, force: true });
  }
  const rows: string[] = [];
  rows.push(
    `| airspace cold, all facts (as a scan needs; ${cores} worker threads) | ${fmtMs(cold.totalMs)} | ${fmtMB(cold.maxRssMB)} | ${cold.files} files, ${cold.edges} edges, ${cold.parsed} parsed, ${cold.partial} partial, ${cold.skipped} skipped |`,
  );
  if (single)
    rows.push(
      `| airspace cold, parsing in one thread | ${fmtMs(single.totalMs)} | ${fmtMB(single.maxRssMB)} | parse ${fmtMs(single.phases.parse)} |`,
    );
  rows.push(
    `| airspace warm, new process, nothing changed | ${fmtMs(warm.totalMs)} | ${fmtMB(warm.maxRssMB)} | ${warm.parsed} parsed; listing ${fmtMs(warm.listMs)}, index ${fmtMs(warm.indexMs)} (facts ${fmtMs(warm.phases.facts)}, resolve ${fmtMs(warm.phases.resolve)}, adjacency ${fmtMs(warm.phases.graph)}); then every file's references on first use ${fmtMs(warm.bodiesMs)} |`,
  );
  rows.push(
    `| airspace re-index after one change (same process, worktree listed again) | ${fmtMs(change.changeTotalMs)} | — | ${change.changeParsed} parsed; listing ${fmtMs(change.changeListMs)}, index ${fmtMs(change.changeIndexMs)} |`,
  );
  rows.push(
    `| airspace re-index after one change (editor path: \`patchSnapshot\` with the saved file) | ${fmtMs(change.editorMedianMs)} | ${fmtMB(change.maxRssMB)} | median of ${change.editorRuns} saves (first ${fmtMs(change.editorFirstMs)}); ${change.editorParsed} parsed each |`,
  );
  return rows;
}

/** `airspace graph` against the parser's floor and the peers (dependency-cruiser, madge), fastest of `--runs`. */
async function measurePeers(
  repoDir: string,
  subdir: string,
  cache: string,
  cacheTs: string,
  cores: number,
): Promise<{ peerRows: string[]; agreement: string }> {
  const peerRows: string[] = [];
  const runs = Math.max(1, Number(opt('runs') ?? 1));
  const fastest = (a: Record<string, any> | undefined, b: Record<string, any>, key: string) => (a && a[key] <= b[key] ? a : b);
  let tsCold: Record<string, any> | undefined;
  let parse: Record<string, any> | undefined;
  let extract: Record<string, any> | undefined;
  let extractParse: Record<string, any> | undefined;
  const peers: Record<string, Record<string, any>> = {};
  const failed: Record<string, string> = {};
  for (let run = 1; run <= runs; run++) {
    console.error(`airspace on ${subdir}/ (run ${run} of ${runs}) …`);
    rmSync(cacheTs, { recursive: true, force: true });
    // What `airspace graph` pays: the import graph's facts only.
    tsCold = fastest(tsCold, measure('measure-index.js', [repoDir, cacheTs, 'cold', '', subdir, 'imports']), 'totalMs');
    // The parser's floor, in the same alternation (so the same load): tree-sitter alone, one thread.
    console.error(`tree-sitter parse alone on ${subdir}/ (run ${run} of ${runs}) …`);
    parse = fastest(parse, measure('measure-index.js', [repoDir, cacheTs, 'parse', '0', subdir]), 'totalMs');
    // What a cold graph does per file (the import scanner, tree-sitter where it declines),
    // and the same by tree-sitter alone (as before the scanner), one thread.
    extract = fastest(extract, measure('measure-index.js', [repoDir, cacheTs, 'extract', '0', subdir]), 'totalMs');
    extractParse = fastest(extractParse, measure('measure-index.js', [repoDir, cacheTs, 'extract-parse', '0', subdir]), 'totalMs');
    for (const tool of ['depcruise', 'madge']) {
      if (failed[tool]) continue;
      console.error(`${tool} on ${subdir}/ (run ${run} of ${runs}) …`);
      const out = join(cache, `${tool}-edges.json`);
      try {
        peers[tool] = fastest(peers[tool], { ...measure('measure-peer.js', [tool, repoDir, subdir, out]), out }, 'ms');
      } catch (e) {
        failed[tool] = e instanceof Error ? e.message.split('\n')[0]! : String(e);
      }
    }
  }
  const best = runs > 1 ? ` (fastest of ${runs})` : '';
  peerRows.push(
    `| airspace graph (cold, import facts only)${best} | ${fmtMs(tsCold!.totalMs)} | ${fmtMB(tsCold!.maxRssMB)} | ${tsCold!.files} files, ${tsCold!.edges} edges; CPU ${fmtMs(tsCold!.callCpuMs)} in the call (all threads: ${(tsCold!.callCpuMs / tsCold!.totalMs).toFixed(1)} cores busy on average) | 1× |`,
  );
  // The parser's floor: tree-sitter alone in one thread, divided by the cores.
  const floor = parse!.totalMs / cores;
  peerRows.push(
    `| tree-sitter parse alone, one thread (baseline)${best} | ${fmtMs(parse!.totalMs)} | ${fmtMB(parse!.maxRssMB)} | ${parse!.files} files (CPU ${fmtMs(parse!.callCpuMs)}); ÷ ${cores} cores = ${fmtMs(floor)} | airspace graph at ${(tsCold!.totalMs / floor).toFixed(2)}× that (CPU: ${(tsCold!.callCpuMs / parse!.callCpuMs).toFixed(2)}× the parse's) |`,
  );
  const extractFloor = extract!.totalMs / cores;
  peerRows.push(
    `| imports extraction, one thread (what a cold graph does per file: the import scanner, tree-sitter where it declines)${best} | ${fmtMs(extract!.totalMs)} | ${fmtMB(extract!.maxRssMB)} | ${(extract!.totalMs / parse!.totalMs).toFixed(2)}× the parse (CPU ${fmtMs(extract!.callCpuMs)}, ${(extract!.callCpuMs / parse!.callCpuMs).toFixed(2)}× the parse's); ÷ ${cores} cores = ${fmtMs(extractFloor)} | airspace graph at ${(tsCold!.totalMs / extractFloor).toFixed(2)}× that (CPU: ${(tsCold!.callCpuMs / extract!.callCpuMs).toFixed(2)}×) |`,
  );
  peerRows.push(
    `| imports extraction by tree-sitter alone, one thread (parse and imports query, as before the scanner)${best} | ${fmtMs(extractParse!.totalMs)} | ${fmtMB(extractParse!.maxRssMB)} | ${(extractParse!.totalMs / parse!.totalMs).toFixed(2)}× the parse (CPU ${fmtMs(extractParse!.callCpuMs)}) | the scanner's path ${(extractParse!.callCpuMs / extract!.callCpuMs).toFixed(1)}× less CPU |`,
  );
  for (const tool of ['depcruise', 'madge']) {
    const p = peers[tool];
    if (!p) {
      peerRows.push(`| ${tool} | failed | — | ${failed[tool]} | — |`);
      continue;
    }
    peerRows.push(
      `| ${tool === 'depcruise' ? 'dependency-cruiser 17.4.3' : 'madge 8.0.0'}${best} | ${fmtMs(p.ms)} | ${fmtMB(p.maxRssMB)} | ${p.modules} modules, ${p.edges} ${tool === 'depcruise' ? 'relative-import ' : ''}edges; CPU ${fmtMs(p.cpuMs)} | airspace ${(p.ms / tsCold!.totalMs).toFixed(1)}× faster (CPU: ${(p.cpuMs / tsCold!.callCpuMs).toFixed(1)}× less) |`,
    );
  }
  const agreement = peers.depcruise ? await relativeImportAgreement(repoDir, subdir, cacheTs, peers.depcruise.out) : '';
  return { peerRows, agreement };
}

async function relativeImportAgreement(repoDir: string, subdir: string, cacheTs: string, depcruiseOut: string): Promise<string> {
  // Agreement on relative imports: airspace's edges whose specifier is relative.
  const snap = await worktreeSnapshot(repoDir);
  const ix = await buildIndex(
    { files: snap.files.filter((f) => inSubdirs(f.path, subdir)) },
    { store: createFactsStore({ cacheDir: cacheTs }) },
  );
  const ours = new Set<string>();
  for (const f of ix.files.values())
    for (const imp of f.imports)
      if (imp.specifier.startsWith('.')) for (const t of imp.targets) if (inSubdirs(t, subdir)) ours.add(`${f.path} ${t}`);
  const theirs = new Set((JSON.parse(readFileSync(depcruiseOut, 'utf8')) as [string, string][]).map(([a, b]) => `${a} ${b}`));
  const both = [...ours].filter((e) => theirs.has(e)).length;
  const onlyOurs = [...ours].filter((e) => !theirs.has(e));
  const onlyTheirs = [...theirs].filter((e) => !ours.has(e));
  return (
    `Relative-import edges: airspace ${ours.size}, dependency-cruiser ${theirs.size}, both ${both} ` +
    `(Jaccard ${(both / Math.max(1, ours.size + theirs.size - both)).toFixed(4)}); only airspace ${onlyOurs.length}, only dependency-cruiser ${onlyTheirs.length}.` +
    (onlyOurs.length
      ? `\nExamples only airspace: ${onlyOurs
          .slice(0, 3)
          .map((e) => `\`${e.replace(' ', ' → ')}\``)
          .join(', ')}.`
      : '') +
    (onlyTheirs.length
      ? `\nExamples only dependency-cruiser: ${onlyTheirs
          .slice(0, 3)
          .map((e) => `\`${e.replace(' ', ' → ')}\``)
          .join(', ')}.`
      : '')
  );
}

function report(
  label: string,
  cores: number,
  loadStart: number,
  rows: string[],
  peerRows: string[],
  agreement: string,
  subdir: string | undefined,
): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const command = `node dist/bench.js ${args.join(' ')}`.trim();
  return [
    `### Indexing: ${label}`,
    '',
    `Command: \`${command}\` in \`packages/bench\` — ${cores} cores (${cpu}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ` +
      `load average ${loadStart.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end (a load above the core count slows every tool alike; compare ratios).`,
    '',
    '| run | time | peak memory (RSS) | notes |',
    '|---|---|---|---|',
    ...rows,
    '',
    ...(peerRows.length
      ? [
          `Same TypeScript/JavaScript tree (${subdirList(subdir!)
            .map((d) => `\`${d}/\``)
            .join(', ')}), each tool in its own process, time of the API call:`,
          '',
          '| tool | time | peak memory (RSS) | result | ratio |',
          '|---|---|---|---|---|',
          ...peerRows,
          '',
          agreement,
          '',
        ]
      : []),
  ].join('\n');
}

async function main() {
  const loadStart = loadavg()[0]!;
  const { repoDir, subdir, label, dispose } = prepareRepository();
  const cache = mkdtempSync(join(tmpdir(), 'airspace-bench-cache-'));
  const cacheTs = mkdtempSync(join(tmpdir(), 'airspace-bench-cache-ts-'));
  try {
    const cores = availableParallelism();
    const rows = measureAirspace(repoDir, cache, cores);
    const { peerRows, agreement } =
      subdir && !flag('no-peers') ? await measurePeers(repoDir, subdir, cache, cacheTs, cores) : { peerRows: [], agreement: '' };
    const md = report(label, cores, loadStart, rows, peerRows, agreement, subdir);
    console.log(md);
    const write = opt('write');
    if (write) writeMarkedBlock(write, 'bench:analysis', md);
  } finally {
    rmSync(cache, { recursive: true, force: true });
    rmSync(cacheTs, { recursive: true, force: true });
    dispose();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
