/**
 * A pre-edit check through the resident engine against `git status --porcelain` in the same
 * worktree and against the cold in-process check (`--no-engine`), with the built CLI as an agent
 * harness runs it (a new process per check), on a generated repository with several agents or
 * on a repository given by path (its worktrees are the agents). Also the engine's answer alone,
 * from a client that stays connected (as the MCP server does), and Node's own start. And the
 * whole scan an orchestrator asks for: `airspace scan --json` through the warm engine (nothing
 * changed; right after a save in another worktree) against `airspace scan --json --no-engine`.
 *
 *   node dist/measure-engine.js [--files 3000] [--agents 4] [--runs 15] [--repo DIR --worktree DIR
 *                               --paths a.ts,b.ts] [--editor DIR] [--write ../../docs/benchmarks.md
 *                               [--marker NAME]]
 *
 * `--editor DIR`: the built language server is started first on the worktree DIR (another agent's,
 * as an editor open there) and its first scan awaited: it starts and holds the engine, so every
 * check is answered by the engine the editor keeps warm (what a check costs with an editor open).
 *
 * Needs the built CLI (`npm run build`; not a dependency of this package, which the language
 * server depends on). Medians of `--runs` runs, alternating the commands so that the machine's
 * drift hits all alike. The engine is stopped at the end (killed by pid if it does not stop).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRepoFixture } from '@airspace/git/fixture';
import { enginePaths, findCommonDir, findEngine } from '@airspace/engine/client';
import { stopEngineAt } from './engine-control.js';
import { generateRepo } from './generate.js';
import { median, writeMarkedBlock } from './report.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const BIN = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));
const LSP = fileURLToPath(new URL('../../lsp-server/dist/bin.js', import.meta.url));
const RUNS = Number(opt('runs') ?? 15);
const ENV = { ...process.env, NO_COLOR: '1', AIRSPACE_ENGINE: 'on', AIRSPACE_ENGINE_IDLE_MS: '600000' };

function timed(command: string, argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv = ENV): number {
  const t = performance.now();
  const r = spawnSync(command, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
  const ms = performance.now() - t;
  if (r.status !== 0 && r.status !== 2) throw new Error(`${command} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const fmt = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`);

interface Setup {
  readonly label: string;
  readonly worktree: string;
  /** Files to probe, in rotation (each is a different question). */
  readonly paths: readonly string[];
  /** A file of another agent to save between questions. */
  readonly save?: { readonly worktree: string; readonly path: string };
  readonly dispose?: () => void;
}

function generated(): Setup {
  const files = Number(opt('files') ?? 3000);
  const agents = Number(opt('agents') ?? 4);
  const gen = generateRepo({ files, seed: 11 });
  const fixture = createRepoFixture(gen.files);
  const ts = Object.keys(gen.files)
    .filter((p) => p.endsWith('.ts') && !p.endsWith('index.ts'))
    .sort();
  const dirs: string[] = [];
  for (let a = 0; a < agents; a++) {
    const w = fixture.worktree(`agent-${a}`);
    // Each agent edits 8 files, two of them shared with its neighbour; odd agents commit.
    for (let k = 0; k < 8; k++) {
      const path = ts[(a * 6 + k) % ts.length]!;
      const lines = String(gen.files[path]).split('\n');
      lines[1 + ((a + k) % Math.max(1, lines.length - 2))] += ` // agent ${a}`;
      w.write(path, lines.join('\n'));
    }
    if (a % 2 === 1) w.commit(`agent ${a}`);
    dirs.push(w.dir);
  }
  // The fixture writes files and index within one second ("racily clean" entries that git
  // re-reads on every status without optional locks); an agent's own git refreshes its index.
  for (const dir of [fixture.dir, ...dirs]) execFileSync('git', ['status', '--porcelain'], { cwd: dir, stdio: 'ignore' });
  const bytes = Object.values(gen.files).reduce((n, c) => n + String(c).length, 0);
  return {
    label: `generated repository: ${Object.keys(gen.files).length} files, ${(bytes / 1e6).toFixed(1)} MB, ${agents} agents with 8 edited files each (seed 11)`,
    worktree: dirs[0]!,
    // The first is asked again and again; the others once each (a different question every time).
    paths: [ts[6]!, ts[7]!, ...Array.from({ length: 2 * RUNS }, (_, i) => ts[40 + i * 29]!)],
    save: { worktree: dirs[1]!, path: ts[7]! },
    dispose: fixture.dispose,
  };
}

function given(repo: string): Setup {
  const worktree = opt('worktree') ?? repo;
  const paths = (opt('paths') ?? '').split(',').filter(Boolean);
  if (paths.length === 0) throw new Error('--repo needs --paths a,b,c (files of --worktree to check)');
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: worktree, encoding: 'utf8' }).trim();
  const count = execFileSync('git', ['ls-files'], { cwd: worktree, encoding: 'utf8' }).split('\n').filter(Boolean).length;
  const agents = execFileSync('git', ['worktree', 'list'], { cwd: worktree, encoding: 'utf8' }).split('\n').filter(Boolean).length;
  return { label: `${opt('name') ?? repo} at ${head}: ${count} files, ${agents} worktrees`, worktree, paths };
}

/** The built language server on `dir` over stdio, spoken to by hand (no client library here). */
interface Editor {
  readonly child: ChildProcess;
  request(method: string, params: unknown): Promise<unknown>;
  notify(method: string, params: unknown): void;
}

function startEditor(dir: string): Editor {
  const child = spawn(process.execPath, [LSP, '--stdio'], { cwd: dir, env: ENV, stdio: ['pipe', 'pipe', 'ignore'] });
  const pending = new Map<number, (result: unknown) => void>();
  let next = 1;
  let buffer = Buffer.alloc(0);
  const send = (message: object): void => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }));
    child.stdin!.write(`Content-Length: ${body.length}\r\n\r\n`);
    child.stdin!.write(body);
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const head = buffer.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, head).toString())?.[1]);
      if (buffer.length < head + 4 + length) return;
      const message = JSON.parse(buffer.subarray(head + 4, head + 4 + length).toString()) as {
        id?: number;
        method?: string;
        result?: unknown;
      };
      buffer = buffer.subarray(head + 4 + length);
      if (message.method !== undefined && message.id !== undefined)
        send({ id: message.id, result: null }); // the server's requests
      else if (message.id !== undefined) pending.get(message.id)?.(message.result);
    }
  });
  return {
    child,
    request: (method, params) =>
      new Promise((resolve) => {
        const id = next++;
        pending.set(id, resolve);
        send({ id, method, params });
      }),
    notify: (method, params) => send({ method, params }),
  };
}

/** The command line as shown in the docs: a repository given by path is named, not located. */
function shownArgs(): string {
  const repo = opt('repo');
  const worktree = opt('worktree');
  const editor = opt('editor');
  return args
    .map((a) => (a === repo ? 'REPO' : a === worktree ? 'WORKTREE' : a === editor ? 'EDITOR' : /\s/.test(a) ? JSON.stringify(a) : a))
    .join(' ');
}

/** An editor open on another worktree: it starts the engine and holds it. */
async function openEditor(editorDir: string): Promise<{ editor: Editor; firstMs: number }> {
  const t = performance.now();
  const editor = startEditor(editorDir);
  await editor.request('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: {},
    workspaceFolders: [{ uri: pathToFileURL(editorDir).href, name: 'editor' }],
  });
  editor.notify('initialized', {});
  await editor.request('airspace/scan', {});
  return { editor, firstMs: performance.now() - t };
}

/** Each sample's wall times (ms), in the order of the table. */
interface Samples {
  first: number;
  gitStatus: number[];
  nodeStart: number[];
  same: number[];
  rotating: number[];
  saved: number[];
  scanSame: number[];
  scanSaved: number[];
  scanCold: number[];
  resident: number[];
  residentRotating: number[];
  cold: number[];
}

/** `run(i)` after a save of another agent's file before each (its content restored at the end). */
function afterSaves(setup: Setup, tag: string, run: (i: number) => number): number[] {
  if (!setup.save) return [];
  const file = join(setup.save.worktree, setup.save.path);
  const original = readFileSync(file, 'utf8');
  const out: number[] = [];
  try {
    for (let i = 0; i < Math.min(RUNS, 9); i++) {
      writeFileSync(file, `${original}// ${tag} ${i}\n`);
      out.push(run(i));
    }
  } finally {
    writeFileSync(file, original);
  }
  return out;
}

async function measureAll(setup: Setup, paths: ReturnType<typeof enginePaths>): Promise<Samples> {
  const check = (path: string, extra: string[] = []): number =>
    timed(process.execPath, [BIN, 'check', path, '--json', ...extra], setup.worktree);
  // The engine starts on the first check (a cold scan); then every answer is from the warm engine.
  const first = check(setup.paths[0]!);
  const gitStatus: number[] = [];
  const nodeStart: number[] = [];
  const same: number[] = [];
  const rotating: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    gitStatus.push(timed('git', ['status', '--porcelain'], setup.worktree, process.env));
    nodeStart.push(timed(process.execPath, ['-e', ''], setup.worktree, process.env));
    same.push(check(setup.paths[0]!));
    rotating.push(check(setup.paths[1 + ((2 * i) % (setup.paths.length - 1))]!));
  }
  // A save in another agent's worktree right before each question.
  const saved = afterSaves(setup, 'save', () => check(setup.paths[1]!));
  // The whole scan (`airspace scan --json`, an orchestrator's question) through the warm engine:
  // nothing changed, and right after a save in another worktree; then cold in-process.
  const scan = (extra: string[] = []): number => timed(process.execPath, [BIN, 'scan', '--json', ...extra], setup.worktree);
  const scanSame: number[] = [];
  for (let i = 0; i < RUNS; i++) scanSame.push(scan());
  const scanSaved = afterSaves(setup, 'scan save', () => scan());
  const scanCold: number[] = [];
  for (let i = 0; i < Math.max(3, Math.floor(RUNS / 3)); i++) scanCold.push(scan(['--no-engine']));
  const { resident, residentRotating } = await measureResident(setup, paths);
  const cold: number[] = [];
  for (let i = 0; i < Math.max(3, Math.floor(RUNS / 3)); i++) cold.push(check(setup.paths[i % setup.paths.length]!, ['--no-engine']));
  return { first, gitStatus, nodeStart, same, rotating, saved, scanSame, scanSaved, scanCold, resident, residentRotating, cold };
}

/** The engine's answer alone, from a client that stays connected (the MCP server's case). */
async function measureResident(
  setup: Setup,
  paths: ReturnType<typeof enginePaths>,
): Promise<{ resident: number[]; residentRotating: number[] }> {
  const resident: number[] = [];
  const residentRotating: number[] = [];
  const engine = await findEngine(paths);
  if (!engine) return { resident, residentRotating };
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    await engine.request('check', { cwd: setup.worktree, target: setup.paths[0] }, 120_000);
    resident.push(performance.now() - t);
    t = performance.now();
    await engine.request('check', { cwd: setup.worktree, target: setup.paths[1 + ((2 * i + 1) % (setup.paths.length - 1))] }, 120_000);
    residentRotating.push(performance.now() - t);
  }
  engine.close();
  return { resident, residentRotating };
}

function tableRows(x: Samples, setup: Setup, editorFirst: number | undefined): string[] {
  const g = median(x.gitStatus);
  const row = (what: string, xs: number[], note = ''): string =>
    `| ${what} | ${fmt(median(xs))} | ${(median(xs) / g).toFixed(1)}× | ${note} |`;
  return [
    row('`git status --porcelain` (same worktree)', x.gitStatus, `${RUNS} runs`),
    row('`node -e ""` (Node\'s start, the floor of any Node client)', x.nodeStart),
    row('`airspace check` through the engine, same question again', x.same, 'nothing changed: the answer is reused, git is not asked'),
    row(
      '`airspace check` through the engine, another file each time',
      x.rotating,
      `a probe scan on the warm scanner${setup.paths.length - 1 < 2 * RUNS ? ' (files repeat: answers reused)' : ''}`,
    ),
    ...(x.saved.length
      ? [
          row(
            '`airspace check` through the engine right after a save in another worktree',
            x.saved,
            `${x.saved.length} saves; that agent is patched`,
          ),
        ]
      : []),
    ...(x.resident.length
      ? [
          row('engine answer alone, connected client, same question', x.resident),
          row('engine answer alone, connected client, another file each time', x.residentRotating),
        ]
      : []),
    row('`airspace check --no-engine` (cold, in-process; facts cache warm on disk)', x.cold, `${x.cold.length} runs`),
    row(
      '`airspace scan --json` through the engine, nothing changed',
      x.scanSame,
      `${(median(x.scanCold) / median(x.scanSame)).toFixed(1)}× faster than \`--no-engine\``,
    ),
    ...(x.scanSaved.length
      ? [
          row(
            '`airspace scan --json` through the engine right after a save in another worktree',
            x.scanSaved,
            `${x.scanSaved.length} saves; ${(median(x.scanCold) / median(x.scanSaved)).toFixed(1)}× faster than \`--no-engine\``,
          ),
        ]
      : []),
    row('`airspace scan --json --no-engine` (cold, in-process; facts cache warm on disk)', x.scanCold, `${x.scanCold.length} runs`),
    editorFirst !== undefined
      ? `| first \`airspace check\` (the engine the editor started: its scanner warm, a probe scan) | ${fmt(x.first)} | ${(x.first / g).toFixed(1)}× | once; the editor's own first scan (starting the engine, cold) took ${fmt(editorFirst)} |`
      : `| first \`airspace check\` (starts the engine: cold scan) | ${fmt(x.first)} | ${(x.first / g).toFixed(1)}× | once |`,
  ];
}

/** Close the editor, stop the engine (killed by pid if it does not stop), remove the repository. */
async function tearDown(editor: Editor | undefined, paths: ReturnType<typeof enginePaths>, setup: Setup): Promise<void> {
  if (editor) {
    await Promise.race([editor.request('shutdown', null), new Promise((r) => setTimeout(r, 5000))]);
    editor.notify('exit', null);
    await Promise.race([new Promise((r) => editor.child.once('exit', r)), new Promise((r) => setTimeout(r, 5000))]);
    editor.child.kill();
  }
  await stopEngineAt(paths);
  setup.dispose?.();
}

async function main(): Promise<void> {
  const repo = opt('repo');
  const setup = repo ? given(repo) : generated();
  const paths = enginePaths(findCommonDir(setup.worktree)!);
  const loadStart = loadavg()[0]!;
  const editorDir = opt('editor');
  let opened: { editor: Editor; firstMs: number } | undefined;
  let rows: string[];
  try {
    if (editorDir) opened = await openEditor(editorDir);
    rows = tableRows(await measureAll(setup, paths), setup, opened?.firstMs);
  } finally {
    await tearDown(opened?.editor, paths, setup);
  }
  const md = [
    `### Pre-edit check: ${setup.label}${editorDir ? ', an editor open on another worktree' : ''}`,
    '',
    `Command: \`node dist/measure-engine.js ${shownArgs()}\` — ${cpus().length} cores, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${loadStart.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end. Wall time of each command as a harness runs it (a new process each time), median; ratio to \`git status\` in the same run.`,
    '',
    '| what | median | × git status | notes |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  console.log(md);
  const write = opt('write');
  if (write) writeMarkedBlock(write, opt('marker') ?? (repo ? 'bench:engine-repo' : 'bench:engine'), md);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
