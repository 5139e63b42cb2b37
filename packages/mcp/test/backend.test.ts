/**
 * The backend beside an engine of a newer Airspace: it leaves that engine alone (no engine of its
 * own, the lock untouched), answers in-process, and says so once in its log. Beside an engine that
 * answers with the wrong shape: it names the malformed answer and answers in-process.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, newerEngineText } from '@airspace/engine/client';
import { createBackend } from '../src/backend.js';

describe('the MCP backend', () => {
  it('answers in-process beside a newer engine, saying so once', { timeout: 60_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'airspace-mcp-newer-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], {
        cwd: root,
        stdio: 'ignore',
      });
    git('init', '-q');
    writeFileSync(join(root, 'a.ts'), 'export const a = 1;\n');
    git('add', '.');
    git('commit', '-q', '-m', 'base');
    const dir = join(root, '.git', 'airspace');
    mkdirSync(dir, { recursive: true });
    const socket = join(dir, 'engine.sock');
    const version = PROTOCOL_VERSION + 1;
    // A newer engine: answers every handshake with its own protocol and hangs up.
    const newer = createServer((s) =>
      s.on('data', (d) => {
        const { id } = JSON.parse(String(d).split('\n')[0]!) as { id: number };
        s.end(JSON.stringify({ id, result: { version, pid: process.pid } }) + '\n');
      }),
    );
    await new Promise<void>((r) => newer.listen(socket, r));
    const lock = JSON.stringify({ pid: process.pid, socket, version, startedAt: new Date(Date.now() - 60_000).toISOString(), log: '' });
    writeFileSync(join(dir, 'engine.json'), lock);
    const logged: string[] = [];
    const backend = createBackend({ cwd: root, engine: true, env: { AIRSPACE_ENGINE: 'on' }, log: (m) => logged.push(m) });
    try {
      for (let i = 0; i < 2; i++) await backend.call('scan', {});
      expect(backend.via()).toBe('in-process');
      expect(logged).toEqual([newerEngineText({ pid: process.pid, version })]);
      expect(readFileSync(join(dir, 'engine.json'), 'utf8')).toBe(lock);
    } finally {
      await backend.dispose();
      await new Promise((r) => newer.close(r));
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('answers in-process when the engine answers with the wrong shape, naming it', { timeout: 60_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'airspace-mcp-malformed-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], {
        cwd: root,
        stdio: 'ignore',
      });
    git('init', '-q');
    writeFileSync(join(root, 'a.ts'), 'export const a = 1;\n');
    git('add', '.');
    git('commit', '-q', '-m', 'base');
    const dir = join(root, '.git', 'airspace');
    mkdirSync(dir, { recursive: true });
    const socket = join(dir, 'engine.sock');
    // An engine of this protocol whose scan answers have no agents, links or anything else.
    const engine = createServer((s) =>
      s.on('data', (d) => {
        for (const line of String(d).split('\n').filter(Boolean)) {
          const { id, method } = JSON.parse(line) as { id: number; method: string };
          const result = method === 'hello' ? { version: PROTOCOL_VERSION, pid: process.pid, commonDir: '' } : { level: 'clear' };
          s.write(JSON.stringify({ id, result }) + '\n');
        }
      }),
    );
    await new Promise<void>((r) => engine.listen(socket, r));
    writeFileSync(
      join(dir, 'engine.json'),
      JSON.stringify({ pid: process.pid, socket, version: PROTOCOL_VERSION, startedAt: new Date().toISOString(), log: '' }),
    );
    const logged: string[] = [];
    const backend = createBackend({ cwd: root, engine: true, env: { AIRSPACE_ENGINE: 'on' }, log: (m) => logged.push(m) });
    try {
      const result = await backend.call<{ version: number; agents: unknown[] }>('scan', {});
      expect(result).toMatchObject({ version: 1, agents: [] });
      expect(backend.via()).toBe('in-process');
      expect(logged).toEqual(["The engine's answer to scan is malformed: version is not version 1. Answering in-process."]);
    } finally {
      await backend.dispose();
      await new Promise((r) => engine.close(r));
      rmSync(root, { recursive: true, force: true });
    }
  });
});
