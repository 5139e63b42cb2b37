/**
 * `airspace scan` through the resident engine, end to end with the built CLI: the JSON, the
 * table and the exit code equal those of a cold in-process `airspace scan --no-engine` on a
 * generated repository with several agents, through a save, a second save, a commit, a new
 * worktree, declared intent and scanner flags (--base, --source, --all, --fail-on), and through
 * saves by rename (an editor's atomic save, `sed -i`), in-place saves and reverts; nothing is
 * written to any worktree; one engine answers them all. Every engine started here is stopped
 * (and killed by pid if it does not stop).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { generateRepo } from '@airspace/bench';
import { airspace } from './run-cli.js';
import { alive, ENGINE_ENV, stopEngines } from './engines.js';
import { repoFingerprint } from './fingerprint.js';

let repo: RepoFixture;
let files: Record<string, string>;
const started = new Set<number>();

function edited(path: string, from: number, to: number, tag: string): string {
  return files[path]!.split('\n')
    .map((line, i) => (i + 1 >= from && i + 1 <= to ? `${line} // ${tag}` : line))
    .join('\n');
}

function lockPid(dir = repo.dir): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, '.git', 'airspace', 'engine.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

/**
 * Only times differ between two scans of one state: the scan's, and the start of an agent that
 * has only declared intent (it starts when it is read).
 */
function normalised(stdout: string): unknown {
  const result = JSON.parse(stdout) as { generatedAt?: string; agents: { worktree?: string; startedAt: number }[] };
  return {
    ...result,
    generatedAt: 'T',
    agents: result.agents.map((a) => (a.worktree === undefined ? { ...a, startedAt: 0 } : a)),
  };
}

interface Same {
  agents: string[];
  levels: Record<string, string>;
}

/** The same scan through the engine and cold in-process: equal JSON, table and exit code; nothing written. */
async function same(cwd: string, args: string[] = [], at: RepoFixture = repo): Promise<Same> {
  const before = repoFingerprint(at.dir);
  const engine = await airspace(['scan', ...args, '--json', '--verbose'], { cwd, env: ENGINE_ENV, timeoutMs: 120_000 });
  const pid = lockPid(at.dir);
  if (pid) started.add(pid);
  const cold = await airspace(['scan', ...args, '--json', '--no-engine'], { cwd, timeoutMs: 120_000 });
  expect(engine.stderr).not.toMatch(/in-process/);
  expect(engine.code).toBe(cold.code);
  expect(normalised(engine.stdout)).toEqual(normalised(cold.stdout));
  // The table and the gate's exit code, as a person and a CI job read them.
  const table = await airspace(['scan', ...args, '--all', '--fail-on', 'traffic'], { cwd, env: ENGINE_ENV, timeoutMs: 120_000 });
  const coldTable = await airspace(['scan', ...args, '--all', '--fail-on', 'traffic', '--no-engine'], { cwd, timeoutMs: 120_000 });
  expect([table.code, table.stdout]).toEqual([coldTable.code, coldTable.stdout]);
  expect(repoFingerprint(at.dir)).toEqual(before);
  const result = JSON.parse(engine.stdout) as { agents: { id: string }[]; links: { a: string; b: string; level: string }[] };
  return {
    agents: result.agents.map((a) => a.id).sort(),
    levels: Object.fromEntries(result.links.map((l) => [[l.a, l.b].sort().join('|'), l.level])),
  };
}

beforeAll(() => {
  files = generateRepo({ files: 120, seed: 5 }).files as Record<string, string>;
  // Not a TypeScript project for the typecheck channel: the engine checks pairs' merges in its
  // background and a cold scan within its time limit, so on a busy machine the two answers could
  // differ by a time limit alone (the background checks: packages/engine's questions.test.ts).
  delete files['tsconfig.json'];
  repo = createRepoFixture(files, { epoch: Math.floor(Date.now() / 1000) - 600 });
});

afterAll(async () => {
  await stopEngines(repo.dir, started);
  repo.dispose();
});

describe('airspace scan through the resident engine', () => {
  it('answers as a cold scan does, through saves, commits, new worktrees, intent and flags', { timeout: 600_000 }, async () => {
    const ts = Object.keys(files)
      .filter((p) => p.endsWith('.ts') && !p.endsWith('index.ts'))
      .sort();
    const [shared, other, third] = ts;
    const alice = repo
      .worktree('alice')
      .write(shared!, edited(shared!, 3, 5, 'alice'))
      .commit('alice');
    const bob = repo.worktree('bob').write(shared!, edited(shared!, 10, 12, 'bob'));
    const carol = repo.worktree('carol').write(other!, edited(other!, 1, 2, 'carol'));

    // The first scan starts the engine.
    const first = await same(alice.dir);
    expect(first.agents).toEqual(['alice', 'bob', 'carol']);
    // A save: bob moves onto alice's lines.
    bob.write(shared!, edited(shared!, 3, 4, 'bob'));
    expect((await same(bob.dir)).levels['alice|bob']).toBe('resolution');
    // A second save of a file already dirty: bob leaves them.
    bob.write(shared!, edited(shared!, 30, 31, 'bob'));
    await same(repo.dir);
    // A commit (HEAD moves) and an untracked file.
    carol.write(third!, edited(third!, 2, 2, 'carol')).commit('carol');
    carol.write('scratch/notes.ts', 'export const note = 1;\n');
    await same(carol.dir);
    // A new worktree, asked from a folder inside it.
    const dave = repo.worktree('dave').write(other!, edited(other!, 1, 1, 'dave'));
    const withDave = await same(join(dave.dir, other!.split('/').slice(0, -1).join('/') || '.'));
    expect(withDave.agents).toContain('dave');
    // Intent declared (as `declare_intent` writes it): an agent from the moment it declares.
    mkdirSync(join(repo.dir, '.git', 'airspace'), { recursive: true });
    const now = Date.now();
    writeFileSync(
      join(repo.dir, '.git', 'airspace', 'intents.json'),
      JSON.stringify([
        {
          agent: 'erin',
          paths: [shared!],
          symbols: [],
          declaredAt: new Date(now).toISOString(),
          expiresAt: new Date(now + 3_600_000).toISOString(),
        },
      ]),
    );
    expect((await same(alice.dir)).agents).toContain('erin');
    // Scanner flags, relative paths relative to the asker: another base, other sources, --repo.
    await same(alice.dir, ['--base', 'main']);
    await same(repo.dir, ['--source', 'branches']);
    await same(repo.dir, ['--repo', bob.dir]);
    // `view --out` scans once as `scan` does: through the engine, with the same airspace.
    const pageDir = mkdtempSync(join(tmpdir(), 'airspace-view-'));
    const page = join(pageDir, 'airspace.html');
    const viewed = await airspace(['view', '--out', page], {
      cwd: alice.dir,
      env: { ...ENGINE_ENV, AIRSPACE_VERBOSE: '1' },
      timeoutMs: 120_000,
    });
    const coldView = await airspace(['view', '--out', page, '--no-engine'], { cwd: alice.dir, timeoutMs: 120_000 });
    expect(viewed.stderr).not.toMatch(/in-process/);
    expect([viewed.code, viewed.stdout]).toEqual([coldView.code, coldView.stdout]);
    expect(viewed.stdout).toMatch(/^Wrote .* \(5 agents, /);
    rmSync(pageDir, { recursive: true, force: true });
    // Errors: the same sentence and exit code either way.
    const error = await airspace(['scan', '--base', 'no-such-ref'], { cwd: alice.dir, env: ENGINE_ENV });
    const coldError = await airspace(['scan', '--base', 'no-such-ref', '--no-engine'], { cwd: alice.dir });
    expect([error.code, error.stderr]).toEqual([coldError.code, coldError.stderr]);
    expect(error.code).toBe(1);

    // One engine answered every scan.
    const status = JSON.parse((await airspace(['engine', 'status', '--json', '--repo', repo.dir], { env: ENGINE_ENV })).stdout) as {
      running: boolean;
      pid: number;
      requests: number;
    };
    expect(status.running).toBe(true);
    expect([...started]).toEqual([status.pid]);
    expect(status.requests).toBeGreaterThanOrEqual(20);
  });

  it('answers as a cold scan does through saves by rename, sed -i, in-place saves and reverts', { timeout: 600_000 }, async () => {
    // Editors, formatters and `sed -i` save by writing a temporary file and renaming it over the
    // original; the engine must follow the file's later edits as it did before.
    const small = generateRepo({ files: 24, seed: 11 }).files as Record<string, string>;
    delete small['tsconfig.json']; // As above: no type-check to wait for.
    const saves = createRepoFixture(small, { epoch: Math.floor(Date.now() / 1000) - 600 });
    const ours = new Set<number>();
    try {
      const shared = Object.keys(small)
        .filter((p) => p.endsWith('.ts') && !p.endsWith('index.ts'))
        .sort()[0]!;
      const lines = (from: number, to: number, tag: string): string =>
        small[shared]!.split('\n')
          .map((line, i) => (i + 1 >= from && i + 1 <= to ? `${line} // ${tag}` : line))
          .join('\n');
      saves
        .worktree('erin')
        .write(shared, lines(3, 5, 'erin'))
        .commit('erin');
      const frank = saves.worktree('frank').write(shared, lines(20, 21, 'frank'));
      const file = join(frank.dir, shared);
      const step = async (expected: string, save: () => void): Promise<void> => {
        save();
        // Asked at once (the answer must count the save) and again once the engine followed it.
        for (const wait of [0, 700]) {
          await new Promise((r) => setTimeout(r, wait));
          const levels = (await same(frank.dir, [], saves)).levels;
          const pid = lockPid(saves.dir);
          if (pid) ours.add(pid);
          expect(levels['erin|frank'] ?? 'clear').toBe(expected);
          // The pre-edit hook's question: the same answer and exit code either way.
          const check = await airspace(['check', shared, '--json'], { cwd: frank.dir, env: ENGINE_ENV, timeoutMs: 120_000 });
          const cold = await airspace(['check', shared, '--json', '--no-engine'], { cwd: frank.dir, timeoutMs: 120_000 });
          expect([check.code, JSON.parse(check.stdout)]).toEqual([cold.code, JSON.parse(cold.stdout)]);
        }
      };
      const byRename = (text: string) => () => {
        writeFileSync(`${file}.tmp`, text);
        renameSync(`${file}.tmp`, file);
      };
      const inPlace = (text: string) => () => writeFileSync(file, text);
      expect((await same(frank.dir, [], saves)).levels['erin|frank'] ?? 'clear').toBe('clear');
      await step('resolution', byRename(lines(3, 4, 'frank')));
      await step('clear', inPlace(small[shared]!)); // reverted in place
      await step('resolution', inPlace(lines(4, 4, 'frank'))); // re-applied in place
      await step('clear', () => execFileSync('sed', ['-i', 's| // frank$||', file])); // sed -i saves by rename too
      await step('resolution', inPlace(lines(3, 3, 'frank')));
      await step('clear', byRename(lines(30, 30, 'frank')));
      // The engine followed every save by file events (no watch lost track), and says so.
      const status = JSON.parse((await airspace(['engine', 'status', '--json', '--repo', saves.dir], { env: ENGINE_ENV })).stdout) as {
        mode: string;
        directories: number;
        lostTrack?: string;
      };
      expect(status.mode).toBe('watch');
      expect(status.directories).toBeGreaterThan(1);
      expect(status.lostTrack).toBeUndefined();
    } finally {
      await stopEngines(saves.dir, ours);
      saves.dispose();
    }
  });

  it('says so when an engine of an older protocol gives way to a new one', { timeout: 120_000 }, async () => {
    await airspace(['engine', 'stop', '--repo', repo.dir], { env: ENGINE_ENV, timeoutMs: 20_000 });
    // An engine of an older Airspace: it answers the handshake with protocol 2 and hangs up.
    const dir = join(repo.dir, '.git', 'airspace');
    const socket = join(dir, 'engine.sock');
    const old = spawn(
      process.execPath,
      [
        '-e',
        `const net = require('node:net'); const fs = require('node:fs'); try { fs.unlinkSync(${JSON.stringify(socket)}); } catch {}
         net.createServer((s) => s.on('data', (d) => { const { id } = JSON.parse(String(d).split('\\n')[0]);
           s.end(JSON.stringify({ id, result: { version: 2, pid: process.pid } }) + '\\n'); }))
           .listen(${JSON.stringify(socket)}, () => console.log('listening'));`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((ok) => old.stdout!.once('data', () => ok()));
      writeFileSync(
        join(dir, 'engine.json'),
        JSON.stringify({ pid: old.pid, socket, version: 2, startedAt: new Date(Date.now() - 60_000).toISOString(), log: '' }),
      );
      const run = await airspace(['scan', '--json'], { cwd: repo.dir, env: ENGINE_ENV, timeoutMs: 90_000 });
      const pid = lockPid();
      if (pid) started.add(pid);
      expect(pid).not.toBe(old.pid);
      expect(run.stderr).toBe(
        `airspace: The repository's engine (pid ${old.pid}) spoke protocol 2 and this Airspace speaks 3, so a new engine (pid ${pid}) took its place and the old one exits.\n`,
      );
      const cold = await airspace(['scan', '--json', '--no-engine'], { cwd: repo.dir, timeoutMs: 120_000 });
      expect(normalised(run.stdout)).toEqual(normalised(cold.stdout));
      // The next scan finds the new engine: nothing more to say.
      expect((await airspace(['scan', '--json'], { cwd: repo.dir, env: ENGINE_ENV, timeoutMs: 90_000 })).stderr).toBe('');
    } finally {
      old.kill('SIGKILL');
    }
  });

  it('leaves an engine of a newer protocol running and scans in-process, with the same answer', { timeout: 120_000 }, async () => {
    await airspace(['engine', 'stop', '--repo', repo.dir], { env: ENGINE_ENV, timeoutMs: 20_000 });
    // An engine of a newer Airspace: it answers every handshake with protocol 4 and hangs up.
    const dir = join(repo.dir, '.git', 'airspace');
    const socket = join(dir, 'engine.sock');
    const lock = join(dir, 'engine.json');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const newer = spawn(
      process.execPath,
      [
        '-e',
        `const net = require('node:net'); const fs = require('node:fs'); try { fs.unlinkSync(${JSON.stringify(socket)}); } catch {}
         net.createServer((s) => s.on('data', (d) => { const { id } = JSON.parse(String(d).split('\\n')[0]);
           s.end(JSON.stringify({ id, result: { version: 4, pid: process.pid } }) + '\\n'); }))
           .listen(${JSON.stringify(socket)}, () => console.log('listening'));`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((ok) => newer.stdout!.once('data', () => ok()));
      const info = JSON.stringify({ pid: newer.pid, socket, version: 4, startedAt: new Date(Date.now() - 60_000).toISOString(), log: '' });
      writeFileSync(lock, info);
      const said = `airspace: The repository's engine (pid ${newer.pid}) speaks protocol 4, newer than this Airspace's 3, so this Airspace leaves it running and scans in its own process.\n`;
      const cold = await airspace(['scan', '--json', '--no-engine'], { cwd: repo.dir, timeoutMs: 120_000 });
      for (let i = 0; i < 2; i++) {
        const run = await airspace(['scan', '--json'], { cwd: repo.dir, env: ENGINE_ENV, timeoutMs: 90_000 });
        expect(run.stderr).toBe(said);
        expect(normalised(run.stdout)).toEqual(normalised(cold.stdout));
      }
      const target = Object.keys(files)[0]!;
      const check = await airspace(['check', target], { cwd: repo.dir, env: ENGINE_ENV, timeoutMs: 90_000 });
      const coldCheck = await airspace(['check', target, '--no-engine'], { cwd: repo.dir, timeoutMs: 90_000 });
      expect([check.code, check.stdout, check.stderr]).toEqual([coldCheck.code, coldCheck.stdout, said]);
      // Not replaced: the newer engine still runs and holds its lock; no engine of ours started.
      expect(alive(newer.pid!)).toBe(true);
      expect(readFileSync(lock, 'utf8')).toBe(info);
    } finally {
      newer.kill('SIGKILL');
      rmSync(lock, { force: true });
    }
  });
});
