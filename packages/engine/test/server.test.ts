/**
 * The engine process's protocol and lifecycle, in this process (a short idle timeout): the
 * handshake, a refused version, status, stop; the lock taken over from a dead process and kept
 * from a live one.
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { connect, ensureEngine, findEngine, readLock } from '../src/client.js';
import { enginePaths, findCommonDir } from '../src/paths.js';
import { acquireLock, removeJudgedLock, runEngineServer } from '../src/server.js';
import { PROTOCOL_VERSION, type EngineChange, type EngineStatus } from '../src/protocol.js';
import type { ScanResult } from '@airspace/core';

let repo: RepoFixture;

/** A live process that stands for an engine of the repository at `commonDir` (its command line says so). */
const sleeper = (commonDir: string) =>
  spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', '--', '--common-dir', commonDir], { stdio: 'ignore' });

beforeAll(() => {
  repo = createRepoFixture({ 'a.ts': 'export const a = 1;\n' });
});
afterAll(() => repo.dispose());

describe('the engine process', () => {
  it('finds the common directory from a linked worktree without git', () => {
    const wt = repo.worktree('alice');
    expect(findCommonDir(join(wt.dir))).toBe(join(repo.dir, '.git'));
    expect(findCommonDir(repo.dir)).toBe(join(repo.dir, '.git'));
  });

  it('shakes hands, refuses another protocol version, reports status and stops', { timeout: 30_000 }, async () => {
    const commonDir = join(repo.dir, '.git');
    const running = runEngineServer({ commonDir, repo: repo.dir, idleMs: 60_000, log: () => undefined });
    const paths = enginePaths(commonDir);
    let engine = await findEngine(paths);
    for (let i = 0; !engine && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      engine = await findEngine(paths);
    }
    expect(engine?.hello.pid).toBe(process.pid);
    expect(statSync(paths.socket).mode & 0o777).toBe(0o600);
    const status = await engine!.request<EngineStatus>('status');
    expect(status).toMatchObject({ pid: process.pid, socket: paths.socket, agents: [], requests: 1 });
    await expect(engine!.request('check', { target: 'a.ts' })).rejects.toThrow(/needs cwd, an absolute directory/);

    // A client of another version is answered with the engine's version and disconnected.
    const answer = await new Promise<string>((resolve) => {
      const raw = createConnection(paths.socket);
      let text = '';
      raw.on('data', (d) => (text += d.toString()));
      raw.on('close', () => resolve(text));
      raw.write(JSON.stringify({ id: 1, method: 'hello', params: { version: 999 } }) + '\n');
    });
    expect(JSON.parse(answer)).toMatchObject({ id: 1, result: { version: PROTOCOL_VERSION } });

    await engine!.request('stop');
    await running;
    expect(existsSync(paths.lock)).toBe(false);
    expect(existsSync(paths.socket)).toBe(false);
    await expect(connect(paths.socket, 500)).rejects.toThrow();
  });

  it('exits by itself when idle', { timeout: 30_000 }, async () => {
    const commonDir = join(repo.dir, '.git');
    const t = Date.now();
    await runEngineServer({ commonDir, repo: repo.dir, idleMs: 300, log: () => undefined });
    expect(Date.now() - t).toBeLessThan(10_000);
    expect(readLock(enginePaths(commonDir))).toBeUndefined();
  });

  it('stays while an editor holds it, and exits idle once the editor left', { timeout: 30_000 }, async () => {
    const commonDir = join(repo.dir, '.git');
    const paths = enginePaths(commonDir);
    let exited = 0;
    const running = runEngineServer({ commonDir, repo: repo.dir, idleMs: 300, log: () => undefined }).then(() => (exited = Date.now()));
    let editor = await findEngine(paths, 1000, true);
    for (let i = 0; !editor && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      editor = await findEngine(paths, 1000, true);
    }
    // Held for four idle periods: still there.
    await new Promise((r) => setTimeout(r, 1200));
    expect(exited).toBe(0);
    expect(await editor!.request<EngineStatus>('status')).toMatchObject({ holders: 1 });
    const left = Date.now();
    editor!.close();
    await running;
    expect(exited - left).toBeGreaterThanOrEqual(250);
    expect(readLock(paths)).toBeUndefined();
  });

  it('tells a subscribed client of a save in another worktree; it follows nothing itself', { timeout: 60_000 }, async () => {
    const local = createRepoFixture({ 'src/a.ts': Array.from({ length: 12 }, (_, i) => `export const a${i} = ${i};`).join('\n') + '\n' });
    try {
      const alice = local.worktree('alice').write('src/a.ts', 'export const a0 = 100;\n' + 'export const a1 = 1;\n'.repeat(11));
      const bob = local.worktree('bob');
      const commonDir = join(local.dir, '.git');
      const paths = enginePaths(commonDir);
      const running = runEngineServer({ commonDir, repo: local.dir, idleMs: 60_000, log: () => undefined });
      const changes: EngineChange[] = [];
      const how = { hold: true, onChange: (c: EngineChange) => changes.push(c) };
      let editor = await findEngine(paths, 1000, how);
      for (let i = 0; !editor && i < 100; i++) {
        await new Promise((r) => setTimeout(r, 50));
        editor = await findEngine(paths, 1000, how);
      }
      const scan = () => editor!.request<ScanResult>('editorScan', { cwd: alice.dir });
      expect((await scan()).agents.map((a) => a.id)).toEqual(['alice']);
      // The engine follows the worktrees from its first answer on (its change tracker starts then).
      await new Promise((r) => setTimeout(r, 2500));
      const before = changes.length;
      // bob saves an edit in his worktree: the subscriber is told, without asking.
      bob.write('src/a.ts', 'export const a0 = 200;\n' + 'export const a1 = 1;\n'.repeat(11));
      const deadline = Date.now() + 20_000;
      while (changes.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      expect(changes.length).toBeGreaterThan(before);
      const after = await scan();
      expect(after.agents.map((a) => a.id).sort()).toEqual(['alice', 'bob']);
      expect(after.links[0]?.level).not.toBe('clear');
      const status = await editor!.request<EngineStatus>('status');
      expect(status).toMatchObject({ subscribers: 1, holders: 1 });
      expect(status.notified).toBeGreaterThan(0);
      await editor!.request('stop');
      await running;
    } finally {
      local.dispose();
    }
  });

  it('takes over the lock of a dead process, never that of a live one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-lock-'));
    // Stand-ins for an engine of this repository starting, and one of another repository.
    const starting = sleeper(dir);
    const other = sleeper(tmpdir());
    try {
      mkdirSync(join(dir, 'airspace'));
      const paths = enginePaths(dir);
      const info = (pid: number, startedAt = new Date().toISOString()) => ({
        pid,
        socket: paths.socket,
        version: 1,
        startedAt,
        log: paths.log,
      });
      writeFileSync(paths.lock, JSON.stringify(info(999_999)));
      expect(await acquireLock(paths, info(4242), 10_000)).toEqual({ acquired: true });
      expect(readLock(paths)?.pid).toBe(4242);
      // A live holder that is starting (young lock) keeps it; so does one that answers.
      writeFileSync(paths.lock, JSON.stringify(info(starting.pid!)));
      expect(await acquireLock(paths, info(4343), 10_000)).toMatchObject({ acquired: false, holder: { pid: starting.pid } });
      // A live holder that has been silent for longer than the grace period is taken over.
      writeFileSync(paths.lock, JSON.stringify(info(starting.pid!, new Date(Date.now() - 60_000).toISOString())));
      expect(await acquireLock(paths, info(4444), 10_000)).toEqual({ acquired: true });
      // A start time ahead is no start: a silent holder is taken over at once.
      writeFileSync(paths.lock, JSON.stringify(info(starting.pid!, new Date(Date.now() + 3_600_000).toISOString())));
      expect(await acquireLock(paths, info(4545), 10_000)).toEqual({ acquired: true });
      // A young lock naming a live process that is no engine of this repository: pid 1, or one
      // of another repository.
      if (process.platform === 'linux')
        for (const pid of [1, process.pid, other.pid!]) {
          writeFileSync(paths.lock, JSON.stringify(info(pid)));
          expect(await acquireLock(paths, info(4646), 10_000)).toEqual({ acquired: true });
        }
    } finally {
      starting.kill();
      other.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves alone a lock written after the dead one was judged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-judged-'));
    try {
      mkdirSync(join(dir, 'airspace'));
      const paths = enginePaths(dir);
      const info = (pid: number) => ({
        pid,
        socket: paths.socket,
        version: PROTOCOL_VERSION,
        startedAt: new Date().toISOString(),
        log: paths.log,
      });
      const dead = info(999_999);
      // Judged dead, then another engine took over and wrote its own lock: that one stays.
      writeFileSync(paths.lock, JSON.stringify(info(process.pid)));
      removeJudgedLock(paths, dead);
      expect(readLock(paths)?.pid).toBe(process.pid);
      // Still the judged one: removed.
      writeFileSync(paths.lock, JSON.stringify(dead));
      removeJudgedLock(paths, dead);
      expect(existsSync(paths.lock)).toBe(false);
      // Someone else is taking over (a fresh mark): the lock is left to them.
      writeFileSync(paths.lock, JSON.stringify(dead));
      writeFileSync(`${paths.lock}.takeover`, '');
      removeJudgedLock(paths, dead);
      expect(readLock(paths)?.pid).toBe(999_999);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives a silent holder’s lock to exactly one of several engines starting at once', { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-race-'));
    // Live processes to stand for the silent holder and for the engines starting at once.
    const sleepers = Array.from({ length: 4 }, () => sleeper(dir));
    try {
      mkdirSync(join(dir, 'airspace'));
      const paths = enginePaths(dir);
      const info = (pid: number, startedAt = new Date().toISOString()) => ({
        pid,
        socket: paths.socket,
        version: PROTOCOL_VERSION,
        startedAt,
        log: paths.log,
      });
      // Alive, past its start-up grace, and its socket refuses: silent, so it is taken over. Each
      // contender judges it (an await) before any removes it.
      writeFileSync(paths.lock, JSON.stringify(info(sleepers[0]!.pid!, new Date(Date.now() - 60_000).toISOString())));
      const contenders = [sleepers[1]!.pid!, sleepers[2]!.pid!, sleepers[3]!.pid!];
      const outcomes = await Promise.all(contenders.map((pid) => acquireLock(paths, info(pid), 10_000, 200)));
      expect(outcomes.filter((o) => o.acquired)).toHaveLength(1);
      const winner = contenders[outcomes.findIndex((o) => o.acquired)];
      expect(readLock(paths)?.pid).toBe(winner);
      for (const o of outcomes) if (!o.acquired) expect(o.holder.pid).toBe(winner);
    } finally {
      for (const s of sleepers) s.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("never takes the lock of a newer protocol's engine; an older one's gives way", { timeout: 30_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'airspace-newer-'));
    const dir = join(root, '.git');
    // An engine of another Airspace: it answers every handshake with its own protocol and hangs up.
    let version = PROTOCOL_VERSION + 1;
    const other = createServer((socket) =>
      socket.on('data', (chunk) => {
        const { id } = JSON.parse(String(chunk).split('\n')[0]!) as { id: number };
        socket.end(JSON.stringify({ id, result: { version, pid: process.pid } }) + '\n');
      }),
    );
    try {
      mkdirSync(join(dir, 'airspace'), { recursive: true });
      writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
      const paths = enginePaths(dir);
      await new Promise<void>((r) => other.listen(paths.socket, r));
      const held = (v: number) =>
        writeFileSync(
          paths.lock,
          JSON.stringify({
            pid: process.pid,
            socket: paths.socket,
            version: v,
            startedAt: new Date(Date.now() - 60_000).toISOString(),
            log: paths.log,
          }),
        );
      const mine = { pid: 4747, socket: paths.socket, version: PROTOCOL_VERSION, startedAt: new Date().toISOString(), log: paths.log };
      held(version);
      expect(await acquireLock(paths, mine, 10_000, 500)).toMatchObject({ acquired: false, holder: { pid: process.pid } });
      // A client finds no engine it can use, and leaves this one alone without starting its own.
      expect(await ensureEngine({ cwd: root, waitMs: 2000 })).toEqual({
        reason: `a newer Airspace's engine (pid ${process.pid}, protocol ${version}) serves the repository`,
        newer: { pid: process.pid, version },
      });
      expect(readLock(paths)?.version).toBe(version);
      version = PROTOCOL_VERSION - 1;
      held(version);
      expect(await acquireLock(paths, mine, 10_000, 500)).toEqual({ acquired: true });
    } finally {
      await new Promise((r) => other.close(r));
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('waits for a busy engine (socket accepts, handshake late) instead of taking its lock', { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-busy-'));
    // An engine in the middle of a long scan: it answers the handshake only after `delayMs`.
    let delayMs = 1_500;
    const busy = createServer((socket) => {
      socket.on('data', (chunk) => {
        const { id } = JSON.parse(String(chunk).split('\n')[0]!) as { id: number };
        if (Number.isFinite(delayMs))
          setTimeout(() => socket.write(JSON.stringify({ id, result: { version: PROTOCOL_VERSION, pid: process.pid } }) + '\n'), delayMs);
      });
    });
    try {
      mkdirSync(join(dir, 'airspace'));
      const paths = enginePaths(dir);
      await new Promise<void>((r) => busy.listen(paths.socket, r));
      const old = new Date(Date.now() - 60_000).toISOString();
      writeFileSync(
        paths.lock,
        JSON.stringify({ pid: process.pid, socket: paths.socket, version: PROTOCOL_VERSION, startedAt: old, log: paths.log }),
      );
      // A client reaches it rather than concluding there is none (and starting a rival).
      const found = await findEngine(paths, 200);
      expect(found?.hello.pid).toBe(process.pid);
      found?.close();
      // A starting rival leaves its lock alone.
      expect(
        await acquireLock(
          paths,
          { pid: 4545, socket: paths.socket, version: PROTOCOL_VERSION, startedAt: new Date().toISOString(), log: paths.log },
          10_000,
        ),
      ).toMatchObject({
        acquired: false,
        holder: { pid: process.pid },
      });
      // Hung (accepts, never answers): taken over once `busyMs` has passed.
      delayMs = Infinity;
      expect(await findEngine(paths, 200, false, 500)).toBeUndefined();
      expect(
        await acquireLock(
          paths,
          { pid: 4646, socket: paths.socket, version: PROTOCOL_VERSION, startedAt: new Date().toISOString(), log: paths.log },
          10_000,
          500,
        ),
      ).toEqual({
        acquired: true,
      });
    } finally {
      await new Promise((r) => busy.close(r));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
