/**
 * The stdio transport: a line over the limit, or one that is not JSON-RPC, is answered with a
 * JSON-RPC error and skipped; the lines after it are read as usual, and only the end of input
 * closes the transport.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedStdioTransport, sniffId } from '../src/stdio-transport.js';

function setup(maxLineBytes: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const logged: string[] = [];
  const transport = new BoundedStdioTransport(stdin, stdout, maxLineBytes, (m) => logged.push(m));
  const received: JSONRPCMessage[] = [];
  let closed = false;
  transport.onmessage = (m) => received.push(m);
  transport.onclose = () => (closed = true);
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  const answers = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; message: string } });
  return { stdin, transport, received, logged, answers, closed: () => closed };
}

const request = (id: number, extra = {}) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { ...extra } });

describe('BoundedStdioTransport', () => {
  it('answers a line over the limit with an error naming its id, and reads the next line', async () => {
    const t = setup(1000);
    await t.transport.start();
    const long = request(7, { pad: 'x'.repeat(5000) });
    // In pieces, as a pipe delivers it, the next request in the same chunk as its end.
    t.stdin.write(long.slice(0, 600));
    t.stdin.write(long.slice(600, 3000));
    t.stdin.write(long.slice(3000) + '\n' + request(8) + '\n');
    await new Promise((r) => setImmediate(r));
    expect(t.answers()).toMatchObject([{ id: 7, error: { code: -32600 } }]);
    expect(t.answers()[0]!.error!.message).toMatch(/over the limit of 1000 bytes/);
    expect(t.received).toMatchObject([{ id: 8, method: 'tools/list' }]);
    expect(t.logged.join('\n')).toMatch(/skipped/);
    expect(t.closed()).toBe(false);
    t.stdin.end();
    await new Promise((r) => setImmediate(r));
    expect(t.closed()).toBe(true);
  });

  it('answers a line that is not JSON-RPC with a parse error and goes on', async () => {
    const t = setup(1000);
    await t.transport.start();
    t.stdin.write('{ not json\n' + JSON.stringify({ id: 3, what: 'no method' }) + '\n\n' + request(4) + '\n');
    await new Promise((r) => setImmediate(r));
    expect(t.answers()).toMatchObject([
      { id: null, error: { code: -32700 } },
      { id: 3, error: { code: -32700 } },
    ]);
    expect(t.received).toMatchObject([{ id: 4 }]);
  });

  it('sniffId reads the id before params, and nothing from inside them', () => {
    expect(sniffId('{"jsonrpc":"2.0","id":"a-1","method":"x","params":{')).toBe('a-1');
    expect(sniffId('{"jsonrpc":"2.0","method":"x","params":{"id":5')).toBeNull();
    expect(sniffId('{"id": 12, "params"')).toBe(12);
  });
});
