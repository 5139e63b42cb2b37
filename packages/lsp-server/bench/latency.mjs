// Save → updated diagnostics latency of the language server on the generated repository of the
// analysis benchmark (@airspace/bench),
// against a bare `loadAgents` of the same repository in the same run. Then the other agent saves
// in its own worktree (no editor there): the time until the editor's diagnostics follow — told by
// the engine (through it), or seen by the server's own change tracker (AIRSPACE_ENGINE=off).
//
//   npm run bench -w @airspace/lsp-server            (10,000 files, 20 saves)
//   AIRSPACE_BENCH_FILES=2000 AIRSPACE_BENCH_SAVES=10 npm run bench -w @airspace/lsp-server
//   AIRSPACE_BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' …   (profiles the server and its engine)
//
// The server is the built bin with its default engine: the repository's resident engine (started
// by the server), or @airspace/scanner in a worker thread with AIRSPACE_ENGINE=off.
import { spawn } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createProtocolConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver-protocol/node';
import { createRepoFixture } from '@airspace/git/fixture';
import { loadAgents } from '@airspace/git';
import { generateRepo } from '@airspace/bench';

const FILES = Number(process.env.AIRSPACE_BENCH_FILES ?? 10_000);
const SAVES = Number(process.env.AIRSPACE_BENCH_SAVES ?? 20);
const here = (p) => fileURLToPath(new URL(p, import.meta.url));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];

const t0 = performance.now();
// The analysis benchmark's deterministic generated repository (mixed TS/TSX/JS/Python).
const { files: base } = generateRepo({ files: FILES });
const repo = createRepoFixture(base);
const target = Object.keys(base)
  .filter((p) => p.endsWith('.ts') && String(base[p]).split('\n').length >= 20)
  .sort()[0];
const baseLines = String(base[target]).split('\n');
const LINE = Math.floor(baseLines.length / 2);
const edit = (lines, at, text) => lines.map((l, i) => (i === at - 1 ? text : l));
const alice = repo.worktree('alice');
alice.write(target, edit(baseLines, LINE, '// alice was here').join('\n')).commit('alice');
const bob = repo.worktree('bob');
const bobFile = join(realpathSync(bob.dir), target);
const bobText = (top) => [...Array.from({ length: top }, (_, k) => `// ${k}`), ...edit(baseLines, LINE, '// bob was here')].join('\n');
writeFileSync(bobFile, bobText(0));
console.error(`generated ${FILES} files in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

// Baseline: a bare loadAgents of the same repository (warm: the second and later runs).
const loads = [];
for (let i = 0; i < 6; i++) {
  const s = performance.now();
  const r = await loadAgents({ repo: repo.dir });
  loads.push(performance.now() - s);
  r.git.dispose();
}
const loadWarm = loads.slice(1);
console.error(`loadAgents: ${loads.map((x) => Math.round(x)).join(', ')} ms`);

// AIRSPACE_BENCH_NODE_ARGS: extra node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=DIR` to profile it.
const args = [...(process.env.AIRSPACE_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), here('../dist/bin.js'), '--stdio'];
const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
const uri = pathToFileURL(bobFile).href;
let waiter;
connection.onNotification('textDocument/publishDiagnostics', (p) => {
  if (p.uri === uri && waiter) waiter(p.diagnostics);
});
connection.onRequest('workspace/configuration', () => [null]);
connection.listen();
const nextDiagnostics = (line, limitMs = 120_000, present = true) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${present ? 'no' : 'still a'} diagnostic on line ${line + 1} within ${limitMs / 1000} s`)),
      limitMs,
    );
    waiter = (diags) => {
      if (diags.some((d) => d.source === 'airspace' && d.range.start.line === line) === present) {
        clearTimeout(timer);
        waiter = undefined;
        resolve();
      }
    };
  });

await connection.sendRequest('initialize', {
  processId: process.pid,
  rootUri: null,
  capabilities: {},
  workspaceFolders: [{ uri: pathToFileURL(bob.dir).href, name: 'bob' }],
  initializationOptions: { settings: { debounceMs: 0 } },
});
await connection.sendNotification('initialized', {});
let s = performance.now();
// The first scan indexes the whole repository (cold): allow it ten minutes.
let first = nextDiagnostics(LINE - 1, 600_000);
await connection.sendNotification('textDocument/didOpen', {
  textDocument: { uri, languageId: 'typescript', version: 0, text: bobText(0) },
});
await first;
const coldMs = performance.now() - s;
console.error(`first diagnostics after ${Math.round(coldMs)} ms`);

const saves = [];
const hovers = [];
for (let i = 1; i <= SAVES; i++) {
  writeFileSync(bobFile, bobText(i));
  const next = nextDiagnostics(LINE - 1 + i);
  s = performance.now();
  await connection.sendNotification('textDocument/didChange', {
    textDocument: { uri, version: i },
    contentChanges: [{ text: bobText(i) }],
  });
  await connection.sendNotification('textDocument/didSave', { textDocument: { uri } });
  // While that scan runs, the editor keeps getting answers: time a hover sent right after the save.
  const h = performance.now();
  await connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: LINE - 1 + i - 1, character: 0 } });
  hovers.push(performance.now() - h);
  await next;
  saves.push(performance.now() - s);
  console.error(`save ${i}: ${Math.round(saves.at(-1))} ms`);
}
// The other agent saves in its worktree: its edit undone (the pair clears), then made again.
const aliceFile = join(realpathSync(alice.dir), target);
const others = [];
const bobLine = LINE - 1 + SAVES;
await new Promise((r) => setTimeout(r, 3000)); // the engine follows the worktrees from its first answers
for (let i = 1; i <= Math.min(SAVES, 10); i++) {
  const undone = i % 2 === 1;
  const next = nextDiagnostics(bobLine, 120_000, !undone);
  s = performance.now();
  writeFileSync(aliceFile, undone ? baseLines.join('\n') : edit(baseLines, LINE, '// alice was here').join('\n'));
  await next;
  others.push(performance.now() - s);
  console.error(`other worktree save ${i}: ${Math.round(others.at(-1))} ms`);
}
await Promise.race([connection.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 10_000))]);
await connection.sendNotification('exit').catch(() => undefined);
// Let the server exit by itself (a profile, when asked for, is written at exit).
await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(r, 5000))]);
connection.dispose();
child.kill();
repo.dispose();

const report = {
  repository: `${FILES} generated files (@airspace/bench generateRepo), two agents colliding in ${target} line ${LINE}`,
  engine:
    process.env.AIRSPACE_ENGINE === 'off' ? '@airspace/scanner (worker thread)' : 'the resident engine (started and held by the server)',
  firstDiagnosticsMs: Math.round(coldMs),
  saveToDiagnostics: { runs: saves.length, medianMs: Math.round(median(saves)), p95Ms: Math.round(p95(saves)) },
  hoverDuringScan: { runs: hovers.length, medianMs: Math.round(median(hovers)), p95Ms: Math.round(p95(hovers)) },
  otherWorktreeSaveToDiagnostics: { runs: others.length, medianMs: Math.round(median(others)), p95Ms: Math.round(p95(others)) },
  loadAgentsWarm: { runs: loadWarm.length, medianMs: Math.round(median(loadWarm)) },
  ratioSaveMedianToLoadAgents: Number((median(saves) / median(loadWarm)).toFixed(2)),
  target: 'save → diagnostics < 200 ms median once warm',
};
console.log(JSON.stringify(report, null, 2));
