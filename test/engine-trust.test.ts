/**
 * The engine's socket is another process's word, and the engine's own waits are bounded: end to
 * end with the built CLI. A process that holds the repository's engine lock and speaks the
 * protocol but answers `check` and `scan` with the wrong shape (a level that is none, a missing
 * field, a "clear" level over a resolution conflict, a line that is not JSON, an error without a
 * kind) and never hangs up: the CLI names the malformed answer and answers in-process with the
 * same answer and exit code as `--no-engine`, and exits. Every process started here is killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { airspace } from './run-cli.js';
import { ENGINE_ENV } from './engines.js';

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

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  repo.dispose();
});

/**
 * A fake engine: shakes hands as protocol 3 and answers every other request with `line(id)`;
 * it never closes a connection. Its lock names it, as a live engine's would.
 */
async function fakeEngine(line: string): Promise<ChildProcess> {
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
       }).listen(${JSON.stringify(socket)}, () => console.log('listening'));`,
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
