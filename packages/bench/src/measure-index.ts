/**
 * One measurement of `@airspace/analysis` in its own process (so that peak memory is this run's):
 *   node dist/measure-index.js <repo> <cacheDir> <cold|warm|change|parse|extract|extract-parse|extract-all> [workers] [subdir] [all|imports]
 * Prints one JSON line, with the parser that ran (`AIRSPACE_PARSER` chooses: native or wasm). `imports` extracts what the import graph needs only, as `airspace graph`
 * does (`IndexOptions.facts`). `parse` is the baseline: every source file parsed by tree-sitter in
 * this thread, nothing extracted; `extract` the import graph's facts as a worker extracts them (the
 * import scanner, tree-sitter where it declines); `extract-parse` the same by tree-sitter alone;
 * `extract-all` every fact a scan's symbol channels need (`extractFacts` with no option).
 * `change` edits one file of <repo> (appending lines, restored at the end):
 * point it at a scratch clone. It re-indexes once after listing the worktree again, then seven
 * times through the editor path (`patchSnapshot` with the saved file, no listing).
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_MAX_FILE_BYTES,
  createFactsStore,
  extractFacts,
  prestartParseWorkers,
  buildIndex,
  languageOf,
  loadParser,
  parseTree,
  patchSnapshot,
  sourceText,
  worktreeSnapshot,
  type AnalysisIndex,
  type Language,
  type Snapshot,
} from '@airspace/analysis';
import { inSubdirs } from './subdirs.js';
import { median } from './report.js';

const [repo, cacheDir, mode = 'cold', workersArg, subdir, factsArg] = process.argv.slice(2);
if (!repo || !cacheDir) {
  console.error('usage: measure-index <repo> <cacheDir> <cold|warm|change|parse> [workers] [subdir] [all|imports]');
  process.exit(2);
}
const workers = workersArg === undefined || workersArg === '' ? undefined : Number(workersArg);
const facts = factsArg === 'imports' ? 'imports' : 'all';

const within = (snap: Snapshot): Snapshot => (subdir ? { ...snap, files: snap.files.filter((f) => inSubdirs(f.path, subdir)) } : snap);
const edgeCount = (ix: AnalysisIndex) => {
  let n = 0;
  for (const list of ix.imports.values()) n += list.length;
  return n;
};

/**
 * Tree-sitter's parse alone, one thread, over the files the index would parse (the baseline); in
 * mode `extract`, the import graph's extraction (`importsOnly`) as a worker does it: the import
 * scanner, tree-sitter where it declines; mode `extract-parse`, the same by tree-sitter alone.
 */
async function parseOnly(): Promise<Record<string, unknown>> {
  const snap = within(await worktreeSnapshot(repo!));
  const sources: { language: Language; text: string }[] = [];
  for (const f of snap.files) {
    const language = languageOf(f.path);
    if (!language || /(^|\/)node_modules\//.test(f.path)) continue;
    const buf = await f.read();
    if (buf.length <= DEFAULT_MAX_FILE_BYTES && !buf.subarray(0, 8000).includes(0)) sources.push({ language, text: sourceText(buf) });
  }
  const bytes = sources.reduce((n, s) => n + Buffer.byteLength(s.text), 0);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (const [i, s] of sources.entries()) {
    if (mode === 'extract-all') extractFacts(s.text, s.language);
    else if (mode === 'extract') extractFacts(s.text, s.language, { importsOnly: true });
    else if (mode === 'extract-parse') extractFacts(s.text, s.language, { importsOnly: true, parse: true });
    else parseTree(s.text, s.language);
    // Back to the loop now and then: native trees are freed by finalizers that run there.
    if (i % 64 === 63) await new Promise((r) => setImmediate(r));
  }
  const usage = process.resourceUsage();
  const cpu = process.cpuUsage(cpu0);
  return {
    mode,
    files: sources.length,
    bytes,
    totalMs: performance.now() - t0,
    callCpuMs: (cpu.user + cpu.system) / 1000,
    maxRssMB: usage.maxRSS / 1024,
    cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
  };
}

async function run(): Promise<Record<string, unknown>> {
  // This thread's parser (the workers load theirs the same way); a wasm one loads asynchronously.
  const parser = await loadParser();
  if (parser.kind === 'none') throw new Error(parser.why);
  const result = await measureMode();
  return { parser: parser.kind, ...result };
}

async function measureMode(): Promise<Record<string, unknown>> {
  if (mode === 'parse' || mode === 'extract' || mode === 'extract-parse' || mode === 'extract-all') return parseOnly();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  // As `airspace graph` (the scanner's `indexWorktree`) does: with a cold cache and all facts,
  // the parse workers start while the worktree is listed.
  const store = createFactsStore({ cacheDir: cacheDir! });
  const stores = facts === 'imports' ? [store, store.importsOnly()] : [store];
  await Promise.all(stores.map((s) => s.refresh()));
  // As `airspace graph` (scanner's `indexWorktree`): no workers ahead for the import graph alone.
  if (workers !== 0 && facts !== 'imports' && stores.every((s) => s.stats.segmentsRead === 0))
    prestartParseWorkers(workers !== undefined ? { workers } : {});
  const snap = within(await worktreeSnapshot(repo!));
  const tList = performance.now();
  const ix = await buildIndex(snap, { store, facts, ...(workers !== undefined ? { workers } : {}) });
  const t1 = performance.now();
  const cpu1 = process.cpuUsage(cpu0);
  const result: Record<string, unknown> = {
    mode,
    files: ix.files.size,
    edges: edgeCount(ix),
    parsed: ix.stats.parsed,
    fromCache: ix.stats.fromCache,
    skipped: ix.skipped.length,
    partial: ix.partial.length,
    unresolved: ix.unresolved.length,
    external: ix.external.length,
    listMs: tList - t0,
    indexMs: t1 - tList,
    totalMs: t1 - t0,
    // CPU time of every thread of the process (user + system) during listing and index.
    callCpuMs: (cpu1.user + cpu1.system) / 1000,
    phases: ix.stats.ms,
  };
  if (mode === 'warm') {
    // What the symbol channels pay on first use: every file's references (segment bodies read).
    const b0 = performance.now();
    let refs = 0;
    for (const f of ix.files.values()) refs += f.facts.references.length;
    Object.assign(result, { references: refs, bodiesMs: performance.now() - b0 });
  }
  if (mode === 'change') {
    // Change one file the way an editor saves it, then re-list and re-index with the previous index.
    const changed = [...ix.files.keys()].find((p) => p.endsWith('.ts')) ?? [...ix.files.keys()][0]!;
    const full = join(repo!, changed);
    const before = readFileSync(full);
    let n = 0;
    const stamp = Date.now();
    const edit = () => appendFileSync(full, `\nexport const benchChange${stamp}_${n++} = 1;\n`);
    try {
      edit();
      const c0 = performance.now();
      const snap2 = within(await worktreeSnapshot(repo!));
      const c1 = performance.now();
      const ix2 = await buildIndex(snap2, { cacheDir: cacheDir!, previous: ix, ...(workers !== undefined ? { workers } : {}) });
      const c2 = performance.now();
      Object.assign(result, {
        changed,
        changeParsed: ix2.stats.parsed,
        changeListMs: c1 - c0,
        changeIndexMs: c2 - c1,
        changeTotalMs: c2 - c0,
        changeEdges: edgeCount(ix2),
      });
      // The editor path: the saved file is known, the snapshot is patched instead of listed.
      let prevIx = ix2;
      let prevSnap = snap2;
      const editor: number[] = [];
      const parsed: number[] = [];
      for (let i = 0; i < 7; i++) {
        edit();
        const e0 = performance.now();
        prevSnap = await patchSnapshot(prevSnap, [changed]);
        prevIx = await buildIndex(prevSnap, { cacheDir: cacheDir!, previous: prevIx, ...(workers !== undefined ? { workers } : {}) });
        editor.push(performance.now() - e0);
        parsed.push(prevIx.stats.parsed);
      }
      Object.assign(result, {
        editorFirstMs: editor[0],
        editorMedianMs: median(editor),
        editorRuns: editor.length,
        editorParsed: Math.max(...parsed),
        editorEdges: edgeCount(prevIx),
      });
    } finally {
      writeFileSync(full, before);
    }
  }
  const usage = process.resourceUsage();
  result.maxRssMB = usage.maxRSS / 1024;
  // CPU time of every thread of the process (user + system), to tell idle cores from busy ones.
  result.cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
  return result;
}

run().then(
  (r) => console.log(JSON.stringify(r)),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
