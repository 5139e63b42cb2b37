/**
 * The WebAssembly parser's cost against the native one (`AIRSPACE_PARSER=wasm|native`), in the
 * same run, alternating the two run by run so that both see the same load:
 *   node dist/measure-parser.js --repo DIR [--subdir src,test] [--runs 3] [--write FILE]
 * Each measurement is `measure-index.js` in its own process: parse and extract every fact in one
 * thread (MB/s), the imports by tree-sitter alone in one thread (MB/s), a cold index with every
 * fact (the parse workers) and a cold `airspace graph` (import facts only). Prints a Markdown
 * section; `--write FILE` replaces the one between the `bench:parser` markers.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeMarkedBlock } from './report.js';

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const repo = opt('repo');
if (!repo) {
  console.error('usage: measure-parser --repo DIR [--subdir a,b] [--runs N] [--label TEXT] [--write FILE]');
  process.exit(2);
}
const subdir = opt('subdir') ?? '';
const runs = Math.max(1, Number(opt('runs') ?? 3));
const here = fileURLToPath(new URL('.', import.meta.url));
const PARSERS = ['native', 'wasm'] as const;
type Parser = (typeof PARSERS)[number];

function measure(parser: Parser, argv: string[]): Record<string, any> {
  const out = execFileSync(process.execPath, ['--max-old-space-size=4096', join(here, 'measure-index.js'), ...argv], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    env: { ...process.env, AIRSPACE_PARSER: parser },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const result = JSON.parse(out.trim().split('\n').pop()!) as Record<string, any>;
  if (result.parser !== parser) throw new Error(`asked for the ${parser} parser, ${String(result.parser)} ran`);
  return result;
}

interface Row {
  readonly label: string;
  readonly argv: (cache: string) => string[];
  /** Whether the run's bytes give a throughput (one-thread modes). */
  readonly throughput: boolean;
}

const ROWS: readonly Row[] = [
  { label: 'parse and extract every fact, one thread', argv: (c) => [repo, c, 'extract-all', '0', subdir], throughput: true },
  { label: 'imports by tree-sitter alone, one thread', argv: (c) => [repo, c, 'extract-parse', '0', subdir], throughput: true },
  { label: 'cold index, every fact (parse workers)', argv: (c) => [repo, c, 'cold', '', subdir, 'all'], throughput: false },
  { label: 'cold `airspace graph` (import facts only)', argv: (c) => [repo, c, 'cold', '', subdir, 'imports'], throughput: false },
];

// CPU time (all threads, in the call) is what to compare on a loaded machine; wall time follows the load.
const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const mbps = (r: Record<string, any>) => r.bytes / 1e6 / (r.totalMs / 1000);

function main(): void {
  const loadStart = loadavg()[0]!;
  const best = new Map<string, Record<string, any>>();
  for (let run = 1; run <= runs; run++) {
    for (const [i, row] of ROWS.entries()) {
      // Alternate which parser goes first, run by run.
      const order = (run + i) % 2 === 0 ? PARSERS : ([...PARSERS].reverse() as Parser[]);
      for (const parser of order) {
        console.error(`${row.label}: ${parser} (run ${run} of ${runs}) …`);
        const cache = mkdtempSync(join(tmpdir(), 'airspace-parser-bench-'));
        try {
          const r = measure(parser, row.argv(cache));
          const key = `${i} ${parser}`;
          const seen = best.get(key);
          if (!seen || r.totalMs < seen.totalMs) best.set(key, r);
        } finally {
          rmSync(cache, { recursive: true, force: true });
        }
      }
    }
  }
  const fastest = runs > 1 ? ` (fastest of ${runs})` : '';
  const lines = ROWS.map((row, i) => {
    const n = best.get(`${i} native`)!;
    const w = best.get(`${i} wasm`)!;
    const what = row.throughput
      ? `${n.files} files, ${(n.bytes / 1e6).toFixed(1)} MB`
      : `${n.files} files, ${n.edges} edges (wasm: ${w.files}, ${w.edges}); ${n.parsed} parsed`;
    const cell = (r: Record<string, any>) =>
      `${fmtMs(r.totalMs)}${row.throughput ? ` (${mbps(r).toFixed(2)} MB/s)` : ''}; CPU ${fmtMs(r.callCpuMs)}${row.throughput ? ` (${(r.bytes / 1e3 / r.callCpuMs).toFixed(2)} MB per CPU-second)` : ''}; ${r.maxRssMB.toFixed(0)} MiB`;
    return `| ${row.label}${fastest} | ${what} | ${cell(n)} | ${cell(w)} | ${(w.totalMs / n.totalMs).toFixed(2)}× | ${(w.callCpuMs / n.callCpuMs).toFixed(2)}× |`;
  });
  // The clone's path is this machine's: the label names the repository and its commit.
  const shown = args.map((a, i) => (args[i - 1] === '--repo' ? 'CLONE' : args[i - 1] === '--label' ? `'${a}'` : a));
  const command = `node dist/measure-parser.js ${shown.filter((a, i) => shown[i - 1] !== '--write' && a !== '--write').join(' ')}`;
  const label = opt('label') ?? repo;
  const md = [
    `### Parser: ${label}${subdir ? ` (${subdir})` : ''}`,
    '',
    `Command: \`${command}\` in \`packages/bench\` — ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
      `${new Date().toISOString().slice(0, 10)}, load average ${loadStart.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end.`,
    '',
    '| measurement | input | native: time (throughput); CPU in the call; peak RSS | wasm: the same | wasm/native time | wasm/native CPU |',
    '|---|---|---|---|---|---|',
    ...lines,
    '',
  ].join('\n');
  console.log(md);
  const write = opt('write');
  if (write) {
    writeMarkedBlock(write, 'bench:parser', md);
  }
}

main();
