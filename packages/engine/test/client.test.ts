/**
 * The client checks every line the engine's socket sends: an answer of the wrong shape, a line
 * that is no JSON or an error without a kind rejects the question at once with an
 * `EngineAnswerError` naming what is wrong (never a wait until the question's timeout, never the
 * answer handed on); a long-running client then scans in its own process for good.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import { connect, EngineAnswerError, EngineRequestError, type EngineConnection, type EngineLookup } from '../src/client.js';
import { createEngineScans } from '../src/remote.js';
import { PROTOCOL_VERSION } from '../src/protocol.js';

let server: Server | undefined;
let dir: string | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A socket that shakes hands and answers every other request with `answer(id)`, never hanging up. */
async function fakeEngine(answer: (id: number) => string): Promise<string> {
  dir = mkdtempSync(join(tmpdir(), 'airspace-client-'));
  const socket = join(dir, 'engine.sock');
  server = createServer((s) => {
    s.on('error', () => undefined);
    s.on('data', (d) => {
      for (const line of String(d).split('\n').filter(Boolean)) {
        const { id, method } = JSON.parse(line) as { id: number; method: string };
        s.write(
          (method === 'hello' ? JSON.stringify({ id, result: { version: PROTOCOL_VERSION, pid: 1, commonDir: '' } }) : answer(id)) + '\n',
        );
      }
    });
  });
  await new Promise<void>((ok) => server!.listen(socket, ok));
  return socket;
}

describe('answers from the engine socket', () => {
  it.each([
    [
      'a scan of the wrong shape',
      (id: number) => JSON.stringify({ id, result: { links: [{ level: 'fine' }] } }),
      /answer to scan is malformed: version/,
    ],
    ['no result', (id: number) => JSON.stringify({ id }), /neither result nor error/],
    ['an error without a kind', (id: number) => JSON.stringify({ id, error: { message: 'x' } }), /an error without a kind/],
    ['a line that is no JSON', () => 'Cannot read properties of undefined', /not JSON/],
    ['a line that is no object', () => '[1, 2]', /not an object/],
    ['a response without an id', () => JSON.stringify({ result: {} }), /without a request id/],
  ])('rejects %s at once, naming it', async (_name, answer, named) => {
    const connection = await connect(await fakeEngine(answer), 2000);
    const started = Date.now();
    const error = await connection.request('scan', { cwd: '/' }, 60_000).catch((e: unknown) => e);
    connection.close();
    expect(error).toBeInstanceOf(EngineAnswerError);
    expect((error as Error).message).toMatch(named);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('hands on a well-formed error of the request', async () => {
    const connection = await connect(
      await fakeEngine((id) => JSON.stringify({ id, error: { kind: 'INPUT', message: 'no such ref' } })),
      2000,
    );
    await expect(connection.request('scan', { cwd: '/' })).rejects.toBeInstanceOf(EngineRequestError);
    connection.close();
  });

  it('makes a long-running client scan in-process for good after a malformed answer', async () => {
    const logged: string[] = [];
    let asked = 0;
    let local = 0;
    const malformed: EngineConnection = {
      hello: { pid: 7, version: PROTOCOL_VERSION, commonDir: '' },
      request: () => {
        asked++;
        return Promise.reject(new EngineAnswerError('editorScan', 'links[0].level is not a level'));
      },
      close: () => undefined,
    };
    const scans = createEngineScans({
      cwd: '.',
      disabled: false,
      ensure: (): Promise<EngineLookup> => Promise.resolve({ connection: malformed, started: false }),
      inProcess: () => ({ scan: () => Promise.resolve({ scanned: ++local } as unknown as ScanResult), dispose: () => undefined }),
      log: (m) => logged.push(m),
    });
    for (let i = 0; i < 3; i++) await scans.scan({});
    expect([asked, local]).toEqual([1, 3]);
    expect(scans.mode()).toMatchObject({ kind: 'in-process' });
    expect(logged.at(-1)).toMatch(
      /^The engine's answer to editorScan is malformed: links\[0\]\.level is not a level\. Scanning in this process from now on\.$/,
    );
    await scans.dispose();
  });
});
