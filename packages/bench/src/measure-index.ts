/**
 * One measurement of `@airspace/analysis` in its own process (so that peak memory is this run's):
 *   node dist/measure-index.js <repo> <cacheDir> <cold|warm|change> [workers] [subdir]
 * Prints one JSON line. `change` edits one file of <repo> (appending lines, restored at the end):
 * point it at a scratch clone. It re-indexes once after listing the worktree again, then seven
 * times through the editor path (`patchSnapshot` with the saved file, no listing).
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { index, patchSnapshot, worktreeSnapshot, type AnalysisIndex, type Snapshot } from '@airspace/analysis';

const [repo, cacheDir, mode = 'cold', workersArg, subdir] = process.argv.slice(2);
if (!repo || !cacheDir) {
  console.error('usage: measure-index <repo> <cacheDir> <cold|warm|change> [workers] [subdir]');
  process.exit(2);
}
const workers = workersArg === undefined || workersArg === '' ? undefined : Number(workersArg);

const within = (snap: Snapshot): Snapshot => (subdir ? { ...snap, files: snap.files.filter((f) => f.path.startsWith(`${subdir}/`)) } : snap);
const edgeCount = (ix: AnalysisIndex) => {
  let n = 0;
  for (const list of ix.imports.values()) n += list.length;
  return n;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function run(): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  const snap = within(await worktreeSnapshot(repo!));
  const tList = performance.now();
  const ix = await index(snap, { cacheDir: cacheDir!, ...(workers !== undefined ? { workers } : {}) });
  const t1 = performance.now();
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
      const ix2 = await index(snap2, { cacheDir: cacheDir!, previous: ix, ...(workers !== undefined ? { workers } : {}) });
      const c2 = performance.now();
      Object.assign(result, { changed, changeParsed: ix2.stats.parsed, changeListMs: c1 - c0, changeIndexMs: c2 - c1, changeTotalMs: c2 - c0, changeEdges: edgeCount(ix2) });
      // The editor path: the saved file is known, the snapshot is patched instead of listed.
      let prevIx = ix2;
      let prevSnap = snap2;
      const editor: number[] = [];
      const parsed: number[] = [];
      for (let i = 0; i < 7; i++) {
        edit();
        const e0 = performance.now();
        prevSnap = await patchSnapshot(prevSnap, [changed]);
        prevIx = await index(prevSnap, { cacheDir: cacheDir!, previous: prevIx, ...(workers !== undefined ? { workers } : {}) });
        editor.push(performance.now() - e0);
        parsed.push(prevIx.stats.parsed);
      }
      Object.assign(result, { editorFirstMs: editor[0], editorMedianMs: median(editor), editorRuns: editor.length, editorParsed: Math.max(...parsed), editorEdges: edgeCount(prevIx) });
    } finally {
      writeFileSync(full, before);
    }
  }
  result.maxRssMB = process.resourceUsage().maxRSS / 1024;
  return result;
}

run().then(
  (r) => console.log(JSON.stringify(r)),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
