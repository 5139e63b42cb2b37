/**
 * The MCP transport over stdio: one JSON-RPC message per line, as the SDK's StdioServerTransport,
 * but a bad line never ends the server. A line longer than MAX_LINE_BYTES is skipped to its end
 * and answered with a JSON-RPC error (the SDK's transport closed at 10 MB, and the server exited
 * 0 in silence); a line that is not JSON-RPC is answered with a parse error. Either way the
 * server goes on reading the next line. The end of stdin closes the transport.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The longest request line read; a real request is a few kilobytes. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** How much of a skipped line is kept to find its request id. */
const ID_PREFIX_BYTES = 64 * 1024;

type Id = string | number | null;

/**
 * The request id of a line that was not parsed, read from its start: the `"id"` member when it
 * comes before `"params"` (as clients write it), else null.
 */
export function sniffId(prefix: string): Id {
  const head = prefix.split('"params"')[0]!;
  const match = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})/.exec(head);
  if (!match) return null;
  try {
    return JSON.parse(match[1]!) as string | number;
  } catch {
    return null;
  }
}

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while the rest of an over-long line is being skipped: its start, and its length so far. */
  private skipping: { prefix: string; bytes: number } | undefined;
  private closed = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxLineBytes = MAX_LINE_BYTES,
    private readonly log: (message: string) => void = (m) => void process.stderr.write(`airspace mcp: ${m}\n`),
  ) {}

  private readonly onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let nl = data.indexOf(10); ; nl = data.indexOf(10)) {
      const part = nl === -1 ? data : data.subarray(0, nl);
      if (this.skipping) this.skipping.bytes += part.length;
      else if (this.size + part.length > this.maxLineBytes) {
        const start = Buffer.concat([...this.chunks, part])
          .subarray(0, ID_PREFIX_BYTES)
          .toString('utf8');
        this.skipping = { prefix: start, bytes: this.size + part.length };
        this.chunks = [];
        this.size = 0;
      } else {
        this.chunks.push(part);
        this.size += part.length;
      }
      if (nl === -1) return;
      this.endLine();
      data = data.subarray(nl + 1);
    }
  };

  private readonly onEnd = (): void => void this.close();
  private readonly onError = (error: Error): void => this.onerror?.(error);

  private endLine(): void {
    if (this.skipping) {
      const { prefix, bytes } = this.skipping;
      this.skipping = undefined;
      const message = `a request line of ${bytes} bytes is over the limit of ${this.maxLineBytes} bytes; it was skipped`;
      this.log(`${message}.`);
      void this.send({ jsonrpc: '2.0', id: sniffId(prefix), error: { code: -32600, message: `Invalid Request: ${message}.` } } as never);
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (error) {
      const why = error instanceof SyntaxError ? 'it is not JSON' : 'it is not a JSON-RPC message';
      this.log(`a request line was skipped: ${why}.`);
      void this.send({
        jsonrpc: '2.0',
        id: sniffId(line.slice(0, ID_PREFIX_BYTES)),
        error: { code: -32700, message: `Parse error: ${why}.` },
      } as never);
      return;
    }
    this.onmessage?.(message);
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('error', this.onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + '\n')) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('error', this.onError);
    this.stdin.pause();
    this.onclose?.();
  }
}
