/**
 * A long-running client (language server, `watch`, `view`) that finds a newer Airspace's engine
 * leaves it alone: it says so once and stays in its own process rather than race it for the lock.
 */
import { describe, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import { createEngineScans } from '../src/remote.js';
import { newerEngineText, type ConnectOptions, type EngineConnection, type EngineLookup } from '../src/client.js';

describe('engine scans of a long-running client', () => {
  it('stays in-process for good beside a newer engine, saying so once', async () => {
    const lookups: string[] = [];
    const logged: string[] = [];
    let local = 0;
    const newer = { pid: 4242, version: 99 };
    const scans = createEngineScans({
      cwd: '.',
      disabled: false,
      ensure: (cwd): Promise<EngineLookup> => {
        lookups.push(cwd);
        return Promise.resolve({ reason: 'a newer engine', newer });
      },
      inProcess: () => ({
        scan: () => Promise.resolve({ agents: [], links: [], scanned: ++local } as unknown as ScanResult),
        dispose: () => undefined,
      }),
      log: (m) => logged.push(m),
    });
    expect(await scans.ready()).toEqual({ kind: 'in-process', reason: 'a newer engine' });
    for (let i = 0; i < 3; i++) await scans.scan({});
    expect(local).toBe(3);
    expect(lookups).toHaveLength(1);
    expect(logged).toEqual([newerEngineText(newer)]);
    await scans.dispose();
  });

  it('starts one next engine when the engine goes away under a scan, not two', async () => {
    let lookups = 0;
    let told: ConnectOptions | undefined;
    let failFirst!: (error: Error) => void;
    const connection = (pid: number, answer: Promise<unknown>): EngineConnection =>
      ({ hello: { pid, version: 3 }, request: () => answer, close: () => undefined }) as unknown as EngineConnection;
    const scans = createEngineScans({
      cwd: '.',
      disabled: false,
      onChange: () => undefined,
      ensure: (_cwd, how): Promise<EngineLookup> => {
        lookups++;
        told = how;
        // The first engine never answers its scan (it is killed); the next one answers.
        const answer =
          lookups === 1
            ? new Promise((_, reject) => (failFirst = reject))
            : Promise.resolve({ agents: [], links: [] } as unknown as ScanResult);
        return Promise.resolve({ connection: connection(lookups, answer), started: true });
      },
      inProcess: () => ({ scan: () => Promise.reject(new Error('not expected in-process')), dispose: () => undefined }),
    });
    const first = scans.scan({});
    await scans.ready();
    // The engine dies: its connection closes (told to the subscriber as a change), the client
    // rescans and finds the next engine, and only then does the first scan's request fail.
    told!.onClose!();
    await scans.scan({});
    failFirst(new Error('socket closed'));
    await first;
    expect(lookups).toBe(2);
    expect(scans.mode()).toEqual({ kind: 'engine', pid: 2 });
    await scans.dispose();
  });
});
