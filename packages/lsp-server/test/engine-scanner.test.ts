/**
 * The language server's scanner over the repository's engine, with stand-ins for the engine: what
 * it sends, when it falls back to scanning in this process, and how it finds the next engine.
 */
import { describe, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import { EngineRequestError, type EngineConnection, type EngineLookup } from '@airspace/engine/client';
import { createEngineScanner } from '../src/engine-scanner.js';
import type { LspScanner } from '../src/lsp-scanner.js';

const result = (tag: string) => ({ tag }) as unknown as ScanResult;

function fakeEngine(pid: number, answer: (method: string, params: unknown) => Promise<unknown>) {
  const sent: { method: string; params: unknown }[] = [];
  let closed = false;
  const connection: EngineConnection = {
    hello: { version: 2, pid, commonDir: '/repo/.git' },
    request: <T>(method: string, params?: unknown) => {
      sent.push({ method, params });
      return answer(method, params) as Promise<T>;
    },
    close: () => {
      closed = true;
    },
  };
  return { connection, sent, closed: () => closed };
}

function fallbackScanner(): LspScanner & { scans: number } {
  const scanner = {
    scans: 0,
    scan: async () => {
      scanner.scans++;
      return result('in-process');
    },
    dispose: () => undefined,
  };
  return scanner;
}

describe('createEngineScanner', () => {
  it("sends the editor's buffers, intent and settings to the engine, not the change hints", async () => {
    const engine = fakeEngine(41, async () => result('engine'));
    const scanner = createEngineScanner(
      { repo: '/repo/bob', thresholds: { traffic: 0.2 }, config: 'cfg/airspace.config.json' },
      { ensure: async () => ({ connection: engine.connection, started: true }) },
    );
    const got = await scanner.scan({
      overrides: { '/repo/bob': { 'a.ts': 'x' } },
      intent: { bob: ['b.ts'] },
      changed: ['/repo/bob'],
      changedPaths: { '/repo/bob': ['a.ts'] },
    });
    expect(got).toEqual(result('engine'));
    expect(engine.sent).toEqual([
      {
        method: 'editorScan',
        params: {
          cwd: '/repo/bob',
          overrides: { '/repo/bob': { 'a.ts': 'x' } },
          intent: { bob: ['b.ts'] },
          settings: { thresholds: { traffic: 0.2 }, config: '/repo/bob/cfg/airspace.config.json' },
        },
      },
    ]);
    expect(scanner.mode()).toEqual({ kind: 'engine', pid: 41 });
    await scanner.dispose();
    expect(engine.closed()).toBe(true);
  });

  it('scans in this process when no engine can be had, and says why', async () => {
    const fallback = fallbackScanner();
    const logged: string[] = [];
    const scanner = createEngineScanner(
      { repo: '/repo/bob' },
      {
        ensure: async (): Promise<EngineLookup> => ({ reason: 'the engine exited at start' }),
        fallback: () => fallback,
        log: (m) => logged.push(m),
      },
    );
    expect(await scanner.scan()).toEqual(result('in-process'));
    expect(await scanner.scan()).toEqual(result('in-process'));
    expect(fallback.scans).toBe(2);
    expect(scanner.mode()).toEqual({ kind: 'in-process', reason: 'the engine exited at start' });
    expect(logged).toEqual(['Scanning in this process: the engine exited at start.']);
  });

  it('finds the next engine when the one it used went away, and falls back when that one fails too', async () => {
    const gone = fakeEngine(1, async () => {
      throw new Error('The engine closed the connection.');
    });
    const next = fakeEngine(2, async () => result('next engine'));
    const lookups = [gone, next];
    const scanner = createEngineScanner(
      { repo: '/repo/bob' },
      { ensure: async () => ({ connection: lookups.shift()!.connection, started: true }), fallback: () => fallbackScanner() },
    );
    expect(await scanner.scan()).toEqual(result('next engine'));
    expect(gone.closed()).toBe(true);
    expect(scanner.mode()).toEqual({ kind: 'engine', pid: 2 });

    const dying = () =>
      fakeEngine(3, async () => {
        throw new Error('The engine closed the connection.');
      });
    const fallback = fallbackScanner();
    const twice = createEngineScanner(
      { repo: '/repo/bob' },
      { ensure: async () => ({ connection: dying().connection, started: true }), fallback: () => fallback },
    );
    expect(await twice.scan()).toEqual(result('in-process'));
    expect(twice.mode()).toMatchObject({ kind: 'in-process', reason: expect.stringMatching(/failed twice/) });
  });

  it("passes on the engine's answer about a bad request (a cold scan gives it too)", async () => {
    const engine = fakeEngine(5, async () => {
      throw new EngineRequestError({ kind: 'INPUT', message: 'Config not found.' });
    });
    const fallback = fallbackScanner();
    const scanner = createEngineScanner(
      { repo: '/repo/bob' },
      { ensure: async () => ({ connection: engine.connection, started: false }), fallback: () => fallback },
    );
    await expect(scanner.scan()).rejects.toThrow('Config not found.');
    expect(fallback.scans).toBe(0);
  });
});
