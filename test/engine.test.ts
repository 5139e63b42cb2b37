/**
 * The resident engine end to end, with the built CLI: `airspace check` answered by the engine
 * equals a cold in-process `airspace check --no-engine` on a generated repository with several
 * agents, through saves (the check right after the save), a second save of a dirty file, commits,
 * a new worktree, a removed one and a revert; nothing is written to any worktree; one engine per
 * repository, a stale lock is taken over, an idle engine exits. Every engine started here is
 * stopped (and killed by pid if it does not stop).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { generateRepo } from '@airspace/bench';
import { airspace, type Run } from './run-cli.js';
import { alive, ENGINE_ENV, stopEngines } from './engines.js';
import { repoFingerprint } from './fingerprint.js';

let repo: RepoFixture;
let files: Record<string, string>;
const started = new Set<number>();

/** A line-level edit of `path`: lines [from, to] get a tag. */
function edited(path: string, from: number, to: number, tag: string): string {
  return files[path]!.split('\n')
    .map((line, i) => (i + 1 >= from && i + 1 <= to ? `${line} // ${tag}` : line))
    .join('\n');
}

function lockOf(dir: string): { pid: number; socket: string } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, '.git', 'airspace', 'engine.json'), 'utf8')) as { pid: number; socket: string };
  } catch {
    return undefined;
  }
}

async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return condition();
}

const json = (run: Run): unknown => JSON.parse(run.stdout);

/** The same check through the engine and cold in-process: equal answers, equal exit codes, nothing written. */
async function same(cwd: string, args: string[]): Promise<{ level: string; conflicts: { with: string; level: string }[] }> {
  const before = repoFingerprint(repo.dir);
  const engine = await airspace(['check', ...args, '--json', '--verbose'], { cwd, env: ENGINE_ENV, timeoutMs: 120_000 });
  const lock = lockOf(repo.dir);
  if (lock) started.add(lock.pid);
  const cold = await airspace(['check', ...args, '--json', '--no-engine'], { cwd, timeoutMs: 120_000 });
  expect(engine.stderr).not.toMatch(/in-process/);
  expect(cold.stderr).toBe('');
  expect(engine.code).toBe(cold.code);
  expect(json(engine)).toEqual(json(cold));
  expect(repoFingerprint(repo.dir)).toEqual(before);
  return json(engine) as { level: string; conflicts: { with: string; level: string }[] };
}

beforeAll(() => {
  files = generateRepo({ files: 120, seed: 3 }).files as Record<string, string>;
  repo = createRepoFixture(files, { epoch: Math.floor(Date.now() / 1000) - 600 });
});

afterAll(async () => {
  await stopEngines(repo.dir, started);
  repo.dispose();
});

describe('airspace check through the resident engine', () => {
  const ts = () =>
    Object.keys(files)
      .filter((p) => p.endsWith('.ts') && !p.endsWith('index.ts'))
      .sort();

  it('answers as a cold check does, through saves, commits, new and removed worktrees', { timeout: 600_000 }, async () => {
    const [shared, other, third] = ts();
    const alice = repo
      .worktree('alice')
      .write(shared!, edited(shared!, 3, 5, 'alice'))
      .commit('alice');
    const bob = repo.worktree('bob').write(shared!, edited(shared!, 10, 12, 'bob'));
    const carol = repo.worktree('carol').write(other!, edited(other!, 1, 2, 'carol'));

    // The first check starts the engine.
    const first = await same(alice.dir, [shared!, '--lines', '10-11']);
    expect(first.level).toBe('resolution');
    expect(await airspace(['engine', 'status', '--json', '--repo', repo.dir], { env: ENGINE_ENV })).toMatchObject({ code: 0 });
    await same(alice.dir, [other!]);
    await same(carol.dir, ['brand-new.ts']);

    // A save just before the check counts: bob moves to alice's lines.
    bob.write(shared!, edited(shared!, 3, 4, 'bob'));
    const moved = await same(alice.dir, [shared!, '--lines', '3-3']);
    expect(moved.conflicts.find((c) => c.with === 'bob')?.level).toBe('resolution');
    // A second save of a file already dirty (same status line, new content): bob leaves.
    bob.write(shared!, edited(shared!, 30, 31, 'bob'));
    const left = await same(alice.dir, [shared!, '--lines', '3-3']);
    expect(left.conflicts.find((c) => c.with === 'bob')?.level).not.toBe('resolution');
    // A commit (HEAD moves) and an untracked file.
    carol.write(third!, edited(third!, 2, 2, 'carol')).commit('carol');
    carol.write('scratch/notes.ts', 'export const note = 1;\n');
    await same(bob.dir, [third!, '--lines', '2-2']);
    await same(bob.dir, ['scratch/notes.ts']);
    // A new worktree, then a removed one.
    const dave = repo.worktree('dave').write(other!, edited(other!, 1, 1, 'dave'));
    const near = await same(carol.dir, [other!, '--lines', '1-1']);
    expect(near.conflicts.map((c) => c.with)).toContain('dave');
    // A harness's pre-edit hook: the tool call on stdin, an edit's old_string located in the file,
    // advice for the model on stderr, exit 2 only on resolution (or at --fail-on).
    const hook = (call: object, ...flags: string[]) =>
      airspace(['check', '--tool-call', ...flags], { cwd: carol.dir, env: ENGINE_ENV, input: JSON.stringify(call) });
    const edit = {
      cwd: carol.dir,
      tool_name: 'Edit',
      tool_input: { file_path: join(carol.dir, other!), old_string: `${files[other!]!.split('\n')[0]!} // carol`, new_string: 'x' },
    };
    const hooked = await hook(edit, '--json');
    expect(JSON.parse(hooked.stdout)).toEqual(near);
    expect(hooked.code).toBe(near.level === 'resolution' ? 2 : 0);
    expect(hooked.stderr).toMatch(/^(RESOLUTION|TRAFFIC): editing .*:1 as carol would come close to .*\nNext: /s);
    expect((await hook(edit, '--fail-on', 'traffic')).code).toBe(2);
    const elsewhere = await hook({ tool_name: 'Write', tool_input: { file_path: join(carol.dir, 'brand-new.ts'), content: '' } });
    expect([elsewhere.code, elsewhere.stderr]).toEqual([0, '']);
    expect((await hook({ tool_name: 'Bash', tool_input: { command: 'ls' } })).code).toBe(0);
    repo.git('worktree', 'remove', '--force', carol.dir);
    await same(dave.dir, [other!, '--lines', '1-1']);
    // A revert: the path leaves git status.
    bob.write(shared!, files[shared!]!);
    await same(alice.dir, [shared!, '--lines', '30-31']);
    // Errors are the same sentence and exit code either way.
    const error = await airspace(['check', 'no-such-dir/', '--json'], { cwd: alice.dir, env: ENGINE_ENV });
    const coldError = await airspace(['check', 'no-such-dir/', '--json', '--no-engine'], { cwd: alice.dir });
    expect([error.code, error.stderr]).toEqual([coldError.code, coldError.stderr]);
    const typo = await airspace(['check', shared!, '--agent', 'nobody'], { cwd: alice.dir, env: ENGINE_ENV });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/No agent "nobody"/);

    // One engine served every check.
    const status = JSON.parse((await airspace(['engine', 'status', '--json', '--repo', dave.dir], { env: ENGINE_ENV })).stdout) as {
      running: boolean;
      pid: number;
      requests: number;
      socket: string;
    };
    expect(status.running).toBe(true);
    expect([...started]).toEqual([status.pid]);
    expect(status.requests).toBeGreaterThanOrEqual(12);
  });

  it('keeps its socket owner-only, takes over a stale lock, and exits when idle', { timeout: 120_000 }, async () => {
    const stopped = await airspace(['engine', 'stop', '--repo', repo.dir], { env: ENGINE_ENV, timeoutMs: 20_000 });
    expect(stopped.code).toBe(0);
    for (const pid of started) expect(alive(pid)).toBe(false);
    // A lock held by a live process that does not answer (and is not stale yet): the check is
    // answered in-process, with the same answer, and says so in verbose mode.
    const { writeFileSync, statSync } = await import('node:fs');
    const dir = join(repo.dir, '.git', 'airspace');
    // It stands for an engine of this repository starting (its command line says so).
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)', '--', '--common-dir', join(repo.dir, '.git')], {
      stdio: 'ignore',
    });
    writeFileSync(
      join(dir, 'engine.json'),
      JSON.stringify({ pid: holder.pid, socket: join(dir, 'nobody.sock'), version: 1, startedAt: new Date().toISOString(), log: '' }),
    );
    const target = Object.keys(files)
      .filter((p) => p.endsWith('.ts'))
      .sort()[0]!;
    const fallback = await airspace(['check', target, '--json', '--verbose'], { cwd: repo.dir, env: ENGINE_ENV, timeoutMs: 60_000 });
    expect(fallback.stderr).toMatch(/checking in-process: the engine exited at start/);
    const cold = await airspace(['check', target, '--json', '--no-engine'], { cwd: repo.dir });
    expect([fallback.code, json(fallback)]).toEqual([cold.code, json(cold)]);
    expect(lockOf(repo.dir)?.pid).toBe(holder.pid);
    holder.kill();

    // A lock left by a process that is gone.
    writeFileSync(
      join(dir, 'engine.json'),
      JSON.stringify({ pid: 999_999, socket: join(dir, 'engine.sock'), version: 1, startedAt: new Date().toISOString(), log: '' }),
    );
    const start = await airspace(['engine', 'start', '--idle', '1500', '--json', '--repo', repo.dir], {
      env: ENGINE_ENV,
      timeoutMs: 60_000,
    });
    expect(start.code).toBe(0);
    const status = JSON.parse(start.stdout) as { pid: number; socket: string; started: boolean };
    started.add(status.pid);
    expect(status.started).toBe(true);
    expect(status.pid).not.toBe(999_999);
    expect(statSync(status.socket).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    // No request for 1.5 s: it exits and removes its lock and socket.
    expect(await waitFor(() => !alive(status.pid), 20_000)).toBe(true);
    expect(lockOf(repo.dir)).toBeUndefined();
    const none = await airspace(['engine', 'status', '--repo', repo.dir], { env: ENGINE_ENV });
    expect(none.stdout).toMatch(/no engine is running/);
  });
});
