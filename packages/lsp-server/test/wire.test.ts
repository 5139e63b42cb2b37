/** The wire (wire.ts): frames, JSON and the lifecycle, as tables; then the built server over stdio. */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createRepoFixture } from '@airspace/git/fixture';
import { FrameDecoder, LifecycleGate, WireErrors, type Frame } from '../src/wire.js';
import { TestClient, uriOf } from './support/client.js';

const frame = (body: string, sep = '\r\n') => `Content-Length: ${Buffer.byteLength(body)}${sep}${sep}${body}`;
const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
const decode = (...chunks: string[]): Frame[] => {
  const d = new FrameDecoder(1000);
  return chunks.flatMap((c) => d.push(Buffer.from(c, 'utf8')));
};
const kinds = (frames: Frame[]) => frames.map((f) => (f.kind === 'message' ? f.body : 'BAD'));

describe('FrameDecoder', () => {
  it('reads frames split anywhere, LF-only separators, extra headers and stray blank lines', () => {
    const two = frame(ping(1)) + '\r\n' + `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n${frame(ping(2))}`;
    for (let cut = 0; cut <= two.length; cut += 7) expect(kinds(decode(two.slice(0, cut), two.slice(cut)))).toEqual([ping(1), ping(2)]);
    expect(kinds(decode(frame(ping(3), '\n')))).toEqual([ping(3)]);
    expect(kinds(decode(frame('{"a":"é"}')))).toEqual(['{"a":"é"}']);
  });

  it.each([
    ['a length that is not a number', 'Content-Length: abc\r\n\r\n{"x":1}'],
    ['a negative length', 'Content-Length: -5\r\n\r\n{"x":1}'],
    ['a length beyond the limit', 'Content-Length: 99999999999\r\n\r\n{"x":1}'],
    ['no length', 'Content-Type: x\r\n\r\n{"x":1}'],
    ['garbage', 'hello there\r\n\r\n'],
    ['garbage glued to the next frame', 'xyz'],
  ])('reports %s and reads the next frame', (_what, bad) => {
    const frames = decode(bad, frame(ping(7)));
    expect(frames[0]).toMatchObject({ kind: 'malformed' });
    expect(kinds(frames).at(-1)).toBe(ping(7));
  });

  it('cuts a body shorter than its length at the next frame, whole or in pieces', () => {
    const short = 'Content-Length: 500\r\n\r\n{"jsonrpc":"2.0","id":1';
    expect(kinds(decode(short + frame(ping(2))))).toEqual(['BAD', ping(2)]);
    const all = short + frame(ping(3));
    expect(kinds(decode(...all.match(/.{1,5}/gs)!))).toEqual(['BAD', ping(3)]);
    // Text that mentions a header inside a JSON string is not a frame start.
    const quoted = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { text: 'Content-Length: 12\\r\\n' } });
    expect(kinds(decode(frame(quoted)))).toEqual([quoted]);
  });
});

describe('LifecycleGate', () => {
  const request = (id: number, method: string) => JSON.stringify({ jsonrpc: '2.0', id, method, params: {} });
  const note = (method: string) => JSON.stringify({ jsonrpc: '2.0', method, params: {} });
  const codeOf = (v: ReturnType<LifecycleGate['admit']>) => (v.pass ? 'pass' : v.reply ? v.reply.error!.code : 'dropped');

  it('answers −32700 to what is not JSON and −32600 to what is not a message', () => {
    const gate = new LifecycleGate();
    expect(codeOf(gate.admit('{bad json'))).toBe(WireErrors.ParseError);
    for (const bad of ['42', '[]', '{"jsonrpc":"2.0"}', '{"id":1,"method":5}', '{"id":{},"method":"x"}'])
      expect(codeOf(gate.admit(bad))).toBe(WireErrors.InvalidRequest);
  });

  it('refuses requests before initialize, a second initialize, and requests after shutdown', () => {
    const gate = new LifecycleGate();
    const before = gate.admit(request(1, 'airspace/scan'));
    expect(before).toMatchObject({ pass: false, reply: { id: 1, error: { code: WireErrors.ServerNotInitialized } } });
    expect(codeOf(gate.admit(note('textDocument/didOpen')))).toBe('dropped');
    expect(codeOf(gate.admit(request(2, 'initialize')))).toBe('pass');
    expect(codeOf(gate.admit(request(3, 'initialize')))).toBe(WireErrors.InvalidRequest);
    expect(codeOf(gate.admit(note('initialized')))).toBe('pass');
    expect(codeOf(gate.admit(note('initialized')))).toBe('dropped');
    expect(codeOf(gate.admit(request(4, 'airspace/scan')))).toBe('pass');
    expect(codeOf(gate.admit('{"jsonrpc":"2.0","id":9,"result":null}'))).toBe('pass'); // a response to the server
    expect(codeOf(gate.admit(request(5, 'shutdown')))).toBe('pass');
    expect(codeOf(gate.admit(request(6, 'airspace/scan')))).toBe(WireErrors.InvalidRequest);
    expect(codeOf(gate.admit(note('exit')))).toBe('pass');
  });
});

describe('the built server over stdio, fed malformed frames', () => {
  const SERVER = fileURLToPath(new URL('./support/fake-server.mjs', import.meta.url));

  it('answers every malformed frame with an error and keeps serving', async () => {
    const repo = createRepoFixture({ 'x.ts': 'a\n' });
    const client = new TestClient(process.execPath, [SERVER, '--stdio']);
    try {
      await expect(client.connection.sendRequest('airspace/scan', {})).rejects.toMatchObject({ code: WireErrors.ServerNotInitialized });
      await client.initialize([repo.dir]);
      await expect(client.connection.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} })).rejects.toMatchObject(
        { code: WireErrors.InvalidRequest },
      );
      const bad = [
        'Content-Length: abc\r\n\r\n{}',
        'Content-Length: -5\r\n\r\n{}',
        'Content-Length: 99999999999\r\n\r\n{}',
        'Content-Type: x\r\n\r\n{}',
        'Content-Length: 9\r\n\r\n{bad json',
        'Content-Length: 400\r\n\r\n{"jsonrpc":',
      ];
      for (const b of bad) {
        client.toServer.write(b);
        const scan = (await client.connection.sendRequest('airspace/scan', { folder: uriOf(repo.dir) })) as { version: number };
        expect(scan.version).toBe(1);
      }
      // LF-only separators are read as the client meant them.
      client.toServer.write(`Content-Length: ${Buffer.byteLength(ping(99))}\n\n${ping(99)}`);
      await client.until(
        'six malformed-frame reports',
        () => (client.stderr.match(/malformed frame|not JSON/g)?.length ?? 0) >= 6 || undefined,
      );
      expect(client.child.exitCode).toBeNull();
      await client.connection.sendRequest('shutdown');
      await expect(client.connection.sendRequest('airspace/scan', {})).rejects.toMatchObject({ code: WireErrors.InvalidRequest });
      const exited = new Promise<number | null>((r) => client.child.once('exit', (code) => r(code)));
      await client.connection.sendNotification('exit');
      expect(await exited).toBe(0);
    } finally {
      client.connection.dispose();
      client.child.kill();
      repo.dispose();
    }
  });

  it('exits with 1 and says why when its input ends without shutdown', async () => {
    const repo = createRepoFixture({ 'x.ts': 'a\n' });
    const client = new TestClient(process.execPath, [SERVER, '--stdio']);
    try {
      await client.initialize([repo.dir]);
      const exited = new Promise<number | null>((r) => client.child.once('exit', (code) => r(code)));
      client.toServer.end();
      expect(await exited).toBe(1);
      expect(client.stderr).toMatch(/exiting with 1/);
    } finally {
      client.connection.dispose();
      client.child.kill();
      repo.dispose();
    }
  });
});
