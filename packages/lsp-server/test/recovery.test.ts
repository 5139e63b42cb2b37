/**
 * The server recovers from what used to stop it for good (issue 16): an engine whose scan never
 * answers, replaced by a configuration change; a worker scanner disposed during a scan.
 */
import { describe, expect, it } from 'vitest';
import { createRepoFixture } from '@airspace/git/fixture';
import type { ScanResult } from '@airspace/core';
import { createWorkerScanner, type CreateLspScanner } from '../src/lsp-scanner.js';
import { createScanner as createFakeScanner } from './support/fake-scanner.mjs';
import { InProcessClient } from './support/in-process.js';
import { uriOf } from './support/client.js';

const within = <T>(ms: number, p: Promise<T>, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms))]);

describe('a scan that never answers', () => {
  it('is settled when the worker scanner is disposed', async () => {
    const scanner = createWorkerScanner({ repo: '.' }, new URL('./support/silent-engine.mjs', import.meta.url));
    const scan = scanner.scan().then(
      () => 'answered',
      (e: Error) => e.message,
    );
    await new Promise((r) => setTimeout(r, 100));
    await scanner.dispose();
    expect(await within(2000, scan, 'the pending scan')).toMatch(/disposed/);
    await expect(scanner.scan()).rejects.toThrow(/disposed/);
  });

  it('is rejected when its worker exits, and the next call starts a new worker', async () => {
    const scanner = createWorkerScanner({ repo: '.' }, new URL('data:text/javascript,process.exit(3)'));
    await expect(within(5000, scanner.scan(), 'the scan of a worker that exits')).rejects.toThrow(/exit 3/);
    await expect(within(5000, scanner.scan(), 'the second scan')).rejects.toThrow(/exit 3/);
    await scanner.dispose();
  });

  it('does not stop scanning when the configuration changes during the first scan', async () => {
    const repo = createRepoFixture({ 'x.ts': 'a\nb\n' });
    let made = 0;
    // The first engine hangs, and ignores dispose (as an engine stuck in a native call would).
    const createScanner: CreateLspScanner = (options) =>
      ++made === 1 ? { scan: () => new Promise<ScanResult>(() => undefined), dispose: () => undefined } : createFakeScanner(options);
    const client = new InProcessClient({ createScanner });
    try {
      await client.initialize([repo.dir], { workspace: { configuration: true } });
      // The first scan is running (and will never answer).
      for (const t0 = Date.now(); made === 0 && Date.now() - t0 < 10_000;) await new Promise((r) => setTimeout(r, 10));
      await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: { airspace: { base: 'main' } } });
      const result = (await within(
        10_000,
        client.connection.sendRequest('airspace/scan', { folder: uriOf(repo.dir) }),
        'airspace/scan',
      )) as ScanResult;
      expect(result.version).toBe(1);
      expect(made).toBe(2);
      // The same settings again (eglot sends them on every connect): the scanner is kept.
      await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: { airspace: { base: 'main' } } });
      await client.connection.sendRequest('airspace/scan', { folder: uriOf(repo.dir) });
      expect(made).toBe(2);
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});

describe("a client that never answers the server's requests", () => {
  it('does not keep the server from adding its folders and scanning', async () => {
    const repo = createRepoFixture({ 'x.ts': 'a\n' });
    const client = new InProcessClient({ createScanner: createFakeScanner });
    // Advertises configuration and dynamic registration, then answers neither.
    client.connection.onRequest('workspace/configuration', () => new Promise(() => undefined));
    client.connection.onRequest('client/registerCapability', () => new Promise(() => undefined));
    try {
      await client.initialize([repo.dir], { workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } } });
      const result = (await within(15_000, client.connection.sendRequest('airspace/scan', {}), 'airspace/scan')) as ScanResult | null;
      expect(result?.version).toBe(1);
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});
