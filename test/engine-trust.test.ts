/**
 * The engine's socket is another process's word, and the engine's own waits are bounded: end to
 * end with the built CLI. A process that holds the repository's engine lock and speaks the
 * protocol but answers `check` and `scan` with the wrong shape (a level that is none, a missing
 * field, a "clear" level over a resolution conflict, a line that is not JSON, an error without a
 * kind) and never hangs up: the CLI names the malformed answer and answers in-process with the
 * same answer and exit code as `--no-engine`, and exits. A config module that never finishes
 * loading fails each question with a named problem (the engine stays usable, and answers again
 * once the config is gone); `engine stop` ends an engine that does not stop when asked; a lock
 * naming a process that is no engine (pid 1) does not keep an engine from starting. Every process
 * started here is killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { airspace } from './run-cli.js';
import { alive, ENGINE_ENV, stopEngines } from './engines.js';

let repo: RepoFixture;
let frank: string;
const children: ChildProcess[] = [];

const base = Array.from({ length: 40 }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n';
const edit = (from: number, to: number, tag: string): string =>
  base
    .split('\n')
    .map((line, i) => (i + 1 >= from && i + 1 <= to ? `${line} // ${tag}` : line))
    .join('\n');

beforeAll(() => {
  repo = createRepoFixture(
    { 'src/shared.ts': base, 'src/other.ts': 'export const o = 1;\n' },
    { epoch: Math.floor(Date.now() / 1000) - 600 },
  );
  repo
    .worktree('erin')
    .write('src/shared.ts', edit(3, 6, 'erin'))
    .commit('erin');
  frank = repo.worktree('frank').write('src/shared.ts', edit(4, 5, 'frank')).dir;
});

const engines = new Set<number>();
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await stopEngines(repo.dir, engines);
  repo.dispose();
});

const lockFile = (): string => join(repo.dir, '.git', 'airspace', 'engine.json');
function lockPid(): number | undefined {
  try {
    return (JSON.parse(readFileSync(lockFile(), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}
async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return condition();
}

/**
 * A fake engine: shakes hands as protocol 3 and answers every other request with `line(id)`;
 * it never closes a connection. Its lock names it, as a live engine's would.
 */
async function fakeEngine(line: string, args: string[] = []): Promise<ChildProcess> {
  const dir = join(repo.dir, '.git', 'airspace');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const socket = join(dir, 'engine.sock');
  rmSync(socket, { force: true });
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const net = require('node:net');
       const answer = (id) => ${line};
       net.createServer((s) => {
         let buf = '';
         s.on('data', (d) => {
           buf += d;
           let at;
           while ((at = buf.indexOf('\\n')) >= 0) {
             const req = JSON.parse(buf.slice(0, at)); buf = buf.slice(at + 1);
             if (req.method === 'hello') s.write(JSON.stringify({ id: req.id, result: { version: 3, pid: process.pid, commonDir: '' } }) + '\\n');
             else s.write(answer(req.id) + '\\n');
           }
         });
         s.on('error', () => {});
       }).listen(${JSON.stringify(socket)}, () => console.log('listening'));
       process.on('SIGTERM', () => {});`,
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  await new Promise<void>((ok) => child.stdout!.once('data', () => ok()));
  writeFileSync(
    join(dir, 'engine.json'),
    JSON.stringify({ pid: child.pid, socket, version: 3, startedAt: new Date().toISOString(), log: join(dir, 'engine.log') }),
  );
  return child;
}

const resultLine = (result: string): string => `JSON.stringify({ id, result: ${result} })`;

describe('a malformed engine answer', () => {
  const cases: [string, string][] = [
    ['an empty object', resultLine('{}')],
    ['null', resultLine('null')],
    [
      'a check that says clear over a resolution conflict',
      resultLine(
        `{ path: 'src/shared.ts', agent: 'frank', level: 'clear', problems: [], conflicts: [{ with: 'erin', level: 'resolution', risk: 1, channels: [], evidence: [], hunks: [] }],
           version: 1, generatedAt: 'x', thresholds: { traffic: 0.5, resolution: 0.8 }, weights: {}, agents: [], advisories: [], links: [{ a: 'x', b: 'y', level: 'clear', risk: 0, distance: 1, channels: [], evidence: [] }],
           positions: {}, fileCoordinates: {}, counts: { agents: 0, pairs: 0, clear: 0, traffic: 0, resolution: 0, unknown: 0 } }`,
      ),
    ],
    [
      'a level that is none',
      resultLine(`{ path: 'src/shared.ts', agent: 'frank', level: 'fine', conflicts: [], problems: [], links: [] }`),
    ],
    ['a line that is not JSON', `'not json'`],
    ['an error without a kind', `JSON.stringify({ id, error: 'no' })`],
  ];

  it.each(cases)('(%s) is named, and check and scan answer in-process as --no-engine does', { timeout: 120_000 }, async (_name, line) => {
    const coldCheck = await airspace(['check', 'src/shared.ts', '--no-engine'], { cwd: frank });
    const coldScan = await airspace(['scan', '--fail-on', 'traffic', '--no-engine'], { cwd: frank });
    expect(coldCheck.code, coldCheck.stdout + coldCheck.stderr).not.toBe(0); // a real collision
    const fake = await fakeEngine(line);
    try {
      const check = await airspace(['check', 'src/shared.ts'], { cwd: frank, env: ENGINE_ENV, timeoutMs: 60_000 });
      expect(check.stderr).toMatch(/^airspace: The engine's answer to check is malformed: .*\. Checking in-process instead\.\n$/);
      expect([check.code, check.stdout]).toEqual([coldCheck.code, coldCheck.stdout]);
      const scan = await airspace(['scan', '--fail-on', 'traffic'], { cwd: frank, env: ENGINE_ENV, timeoutMs: 60_000 });
      expect(scan.stderr).toMatch(/^airspace: The engine's answer to scan is malformed: .*\. Scanning in-process instead\.\n$/);
      expect([scan.code, scan.stdout]).toEqual([coldScan.code, coldScan.stdout]);
    } finally {
      fake.kill('SIGKILL');
      rmSync(join(repo.dir, '.git', 'airspace', 'engine.json'), { force: true });
    }
  });
});

describe('the engine waits a bounded time', () => {
  it('fails a question with a named problem while the config never loads, and answers once it is gone', { timeout: 240_000 }, async () => {
    const config = join(repo.dir, 'airspace.config.mjs');
    writeFileSync(config, 'await new Promise(() => {});\nexport default {};\n');
    const env = { ...ENGINE_ENV, AIRSPACE_CONFIG_TIMEOUT_MS: '1000' };
    try {
      for (let i = 0; i < 2; i++) {
        const run = await airspace(['check', 'src/shared.ts'], { cwd: frank, env, timeoutMs: 60_000 });
        const pid = lockPid();
        if (pid) engines.add(pid);
        expect(run.code).toBe(1);
        expect(run.stdout).toBe('');
        expect(run.stderr).toContain(`Config file ${config} did not finish loading within`);
      }
      // A wedged config does not keep the engine from stopping when asked.
      const pid = lockPid()!;
      const stop = await airspace(['engine', 'stop', '--repo', repo.dir], { env, timeoutMs: 30_000 });
      expect(stop.stdout).toBe(`stopped the engine (pid ${pid})\n`);
      expect(alive(pid)).toBe(false);
      // An engine that met the config, then sees it removed: the next question is answered, as in-process.
      expect((await airspace(['check', 'src/shared.ts'], { cwd: frank, env, timeoutMs: 60_000 })).code).toBe(1);
      engines.add(lockPid()!);
      rmSync(config);
      const check = await airspace(['check', 'src/shared.ts', '--json'], { cwd: frank, env, timeoutMs: 60_000 });
      const cold = await airspace(['check', 'src/shared.ts', '--json', '--no-engine'], { cwd: frank, timeoutMs: 60_000 });
      expect(check.stderr).toBe('');
      expect([check.code, JSON.parse(check.stdout)]).toEqual([cold.code, JSON.parse(cold.stdout)]);
      expect(check.code).not.toBe(0);
    } finally {
      rmSync(config, { force: true });
      await stopEngines(repo.dir, engines);
    }
  });

  it('ends an engine that does not stop when asked, then removes its lock', { timeout: 120_000 }, async () => {
    // It answers the handshake and the stop, ignores SIGTERM, and stays.
    const stuck = await fakeEngine(`JSON.stringify({ id, result: { stopping: true, pid: process.pid } })`, [
      '--',
      '--common-dir',
      join(repo.dir, '.git'),
    ]);
    const stop = await airspace(['engine', 'stop', '--json', '--repo', repo.dir], { env: ENGINE_ENV, timeoutMs: 60_000 });
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout)).toEqual({ stopped: true, pid: stuck.pid, signal: 'SIGKILL', lock: null });
    expect(await waitFor(() => !alive(stuck.pid!), 5000)).toBe(true);
    expect(existsSync(lockFile())).toBe(false);
  });

  it('starts an engine despite a lock naming pid 1, however young, and never signals pid 1', { timeout: 120_000 }, async () => {
    const dir = join(repo.dir, '.git', 'airspace');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const startedAt of [new Date(), new Date(Date.now() + 86_400_000)]) {
      const lock = { pid: 1, socket: join(dir, 'engine.sock'), version: 3, startedAt: startedAt.toISOString(), log: '' };
      writeFileSync(lockFile(), JSON.stringify(lock));
      const stop = await airspace(['engine', 'stop', '--repo', repo.dir], { env: ENGINE_ENV, timeoutMs: 30_000 });
      expect(stop.stdout).toMatch(/the lock named pid 1, which is no engine of this repository \(removed the stale lock\)/);
      expect(existsSync(lockFile())).toBe(false);
      writeFileSync(lockFile(), JSON.stringify(lock));
      const start = await airspace(['engine', 'start', '--json', '--repo', repo.dir], { env: ENGINE_ENV, timeoutMs: 60_000 });
      expect(start.code, start.stderr).toBe(0);
      const status = JSON.parse(start.stdout) as { pid: number; started: boolean };
      engines.add(status.pid);
      expect(status).toMatchObject({ started: true });
      await stopEngines(repo.dir, engines);
    }
  });
});
