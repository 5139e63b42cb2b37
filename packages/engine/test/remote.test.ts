/**
 * A long-running client (language server, `watch`, `view`) that finds a newer Airspace's engine
 * leaves it alone: it says so once and stays in its own process rather than race it for the lock.
 */
import { describe, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import { createEngineScans } from '../src/remote.js';
import { newerEngineText, type EngineLookup } from '../src/client.js';

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
});
