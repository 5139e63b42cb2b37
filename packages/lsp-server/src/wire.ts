/**
 * The server's side of the wire, in front of vscode-jsonrpc: frames, JSON and the LSP lifecycle.
 *
 * vscode-jsonrpc's stream reader stops at the first bad frame (a `Content-Length: abc`, a missing
 * length, a body shorter than announced) and leaves the stream misaligned, so the server stays
 * alive and never answers again. Here a bad frame is reported and the reader finds the next
 * frame; a body that is not JSON gets the JSON-RPC −32700 reply; requests before `initialize`
 * get −32002, a second `initialize` and requests after `shutdown` get −32600.
 *
 * `FrameDecoder` and `LifecycleGate` are pure; `GuardedMessageReader` joins them to a stream.
 */
import type { Readable } from 'node:stream';
import { AbstractMessageReader, type DataCallback, type Disposable, type Message, type ResponseMessage } from 'vscode-languageserver/node';

export type Frame = { readonly kind: 'message'; readonly body: string } | { readonly kind: 'malformed'; readonly reason: string };

/** Larger bodies are refused (a corrupt length must not make the server buffer gigabytes). */
export const MAX_CONTENT_LENGTH = 64 * 1024 * 1024;
/** A header block longer than this is not a header. */
const MAX_HEADER_BYTES = 8 * 1024;
/**
 * The start of a frame. It cannot occur inside a JSON text: a raw line break is not allowed in a
 * JSON string, and outside strings `Content-Length` is not JSON. So finding it inside a body means
 * the body was shorter than announced, and finding it in garbage is where the next frame starts.
 */
const FRAME_START = /Content-Length:[ \t]*\d+[ \t]*\r?\n/i;
/** Bytes kept while looking for a frame start, so one split across two chunks is still found. */
const RESYNC_TAIL = 64;

/**
 * Splits a byte stream into LSP frames (`Content-Length: N` headers, a blank line, N bytes).
 * Lenient where clients differ (LF-only line ends, blank lines between frames, other headers),
 * strict where a mistake would misalign every later frame; after a bad frame it looks for the
 * next frame start instead of giving up.
 */
export class FrameDecoder {
  private buffer: Buffer = Buffer.alloc(0);
  /** Body length of the frame being read, or undefined while reading headers. */
  private bodyLength: number | undefined;
  /** Looking for the next frame start after a bad frame. */
  private resyncing = false;
  /** How far the current partial body has been searched for a frame start. */
  private searched = 0;

  constructor(private readonly maxContentLength = MAX_CONTENT_LENGTH) {}

  push(chunk: Buffer): Frame[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const frames: Frame[] = [];
    for (;;) {
      if (this.resyncing && !this.resync()) break;
      if (this.bodyLength === undefined) {
        const header = this.readHeader();
        if (header === 'wait') break;
        if (typeof header === 'object') {
          frames.push(header);
          this.resyncing = true;
          continue;
        }
        this.bodyLength = header;
        this.searched = 0;
      }
      const body = this.readBody(this.bodyLength);
      if (body === 'wait') break;
      this.bodyLength = undefined;
      frames.push(body);
    }
    return frames;
  }

  /** Drops bytes up to the next frame start; false (keeping a short tail) when there is none yet. */
  private resync(): boolean {
    const text = this.buffer.toString('latin1');
    const at = FRAME_START.exec(text)?.index;
    if (at === undefined) {
      if (this.buffer.length > RESYNC_TAIL) this.buffer = this.buffer.subarray(this.buffer.length - RESYNC_TAIL);
      return false;
    }
    this.buffer = this.buffer.subarray(at);
    this.resyncing = false;
    return true;
  }

  /** The body length of the next frame, a malformed frame, or 'wait' for more bytes. */
  private readHeader(): number | Frame | 'wait' {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const nl = this.buffer.indexOf(10, start);
      if (nl < 0) {
        if (this.buffer.length > MAX_HEADER_BYTES) return this.malformed(this.buffer.length, 'a header block longer than 8 KiB');
        return 'wait';
      }
      const line = this.buffer.toString('latin1', start, nl).replace(/\r$/, '');
      start = nl + 1;
      if (line !== '') {
        lines.push(line);
        continue;
      }
      // A blank line before any header is a stray separator between frames.
      if (lines.length === 0) {
        this.buffer = this.buffer.subarray(start);
        start = 0;
        continue;
      }
      break;
    }
    const rest = start;
    // A bad header is skipped from its second byte: a frame start glued to garbage before it
    // ("xyzContent-Length: 12") is found again by the resync.
    const skip = 1;
    let length: string | undefined;
    for (const line of lines) {
      const m = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*(.*?)[ \t]*$/.exec(line);
      if (!m) return this.malformed(skip, `a header line that is not "Name: value" (${JSON.stringify(line.slice(0, 40))})`);
      if (m[1]!.toLowerCase() === 'content-length') length = m[2]!;
    }
    if (length === undefined) return this.malformed(skip, 'a header without Content-Length');
    if (!/^\d+$/.test(length)) return this.malformed(skip, `Content-Length ${JSON.stringify(length.slice(0, 40))} is not a byte count`);
    const n = Number(length);
    if (n > this.maxContentLength)
      return this.malformed(skip, `Content-Length ${length} is larger than the ${this.maxContentLength}-byte limit`);
    this.buffer = this.buffer.subarray(rest);
    return n;
  }

  private readBody(length: number): Frame | 'wait' {
    // A frame start inside the announced body: the body was short and the next frame began.
    const from = Math.max(0, this.searched - RESYNC_TAIL);
    const upTo = Math.min(this.buffer.length, length);
    const next = FRAME_START.exec(this.buffer.toString('latin1', from, upTo))?.index;
    if (next !== undefined) {
      this.buffer = this.buffer.subarray(from + next);
      return { kind: 'malformed', reason: `a body shorter than its Content-Length of ${length} bytes` };
    }
    this.searched = upTo;
    if (this.buffer.length < length) return 'wait';
    const body = this.buffer.toString('utf8', 0, length);
    this.buffer = this.buffer.subarray(length);
    return { kind: 'message', body };
  }

  private malformed(consumed: number, what: string): Frame {
    this.buffer = this.buffer.subarray(consumed);
    return { kind: 'malformed', reason: `${what}; skipped to the next frame` };
  }
}

/** JSON-RPC and LSP error codes used here. */
export const WireErrors = { ParseError: -32700, InvalidRequest: -32600, ServerNotInitialized: -32002 } as const;

export type Verdict =
  { readonly pass: true; readonly message: Message } | { readonly pass: false; readonly reply?: ResponseMessage; readonly log: string };

type Id = number | string | null;
const isId = (v: unknown): v is number | string => typeof v === 'number' || typeof v === 'string';

function refuse(id: Id, code: number, message: string): Verdict {
  return { pass: false, reply: { jsonrpc: '2.0', id, error: { code, message } }, log: message };
}

/**
 * The lifecycle rules of LSP, applied before the connection sees a message: nothing but
 * `initialize` (and `exit`) before `initialize`; one `initialize` and one `initialized`; nothing
 * but `exit` after `shutdown`. Notifications that break a rule are dropped (the protocol has no reply for them).
 */
export class LifecycleGate {
  private state: 'new' | 'running' | 'shut down' = 'new';
  private initializedSeen = false;

  /** A frame's body → what to do with it. */
  admit(body: string): Verdict {
    let data: unknown;
    try {
      data = JSON.parse(body);
    } catch (error) {
      return refuse(
        null,
        WireErrors.ParseError,
        `Parse error: the message is not JSON (${error instanceof Error ? error.message : String(error)}).`,
      );
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      return refuse(
        null,
        WireErrors.InvalidRequest,
        `Invalid request: a message must be a JSON object${Array.isArray(data) ? ' (batches are not part of LSP)' : ''}.`,
      );
    }
    const m = data as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
    const id: Id = isId(m.id) ? m.id : null;
    if (m.method === undefined) {
      // A response to one of the server's requests.
      if (isId(m.id) && ('result' in m || 'error' in m)) return { pass: true, message: data as Message };
      return refuse(id, WireErrors.InvalidRequest, 'Invalid request: a message needs a method, or an id and a result or error.');
    }
    if (typeof m.method !== 'string') return refuse(id, WireErrors.InvalidRequest, 'Invalid request: method must be a string.');
    if ('id' in m && !isId(m.id))
      return refuse(null, WireErrors.InvalidRequest, `Invalid request: the id of ${m.method} must be a number or a string.`);
    const request = isId(m.id);
    const method = m.method;
    if (method === 'exit') return { pass: true, message: data as Message };
    if (this.state === 'new') {
      if (method === 'initialize' && request) {
        this.state = 'running';
        return { pass: true, message: data as Message };
      }
      if (!request) return { pass: false, log: `Dropped ${method}: the server is not initialized yet.` };
      return refuse(id, WireErrors.ServerNotInitialized, `The server is not initialized: send initialize before ${method}.`);
    }
    if (this.state === 'shut down') {
      if (!request) return { pass: false, log: `Dropped ${method}: the server is shutting down.` };
      return refuse(id, WireErrors.InvalidRequest, `The server is shutting down: ${method} after shutdown is refused.`);
    }
    if (method === 'initialize') return refuse(id, WireErrors.InvalidRequest, 'initialize was already received: it may be sent only once.');
    // A second `initialized` would register every handler it sets up twice.
    if (method === 'initialized' && !request) {
      if (this.initializedSeen) return { pass: false, log: 'Dropped a second initialized notification.' };
      this.initializedSeen = true;
    }
    if (method === 'shutdown' && request) this.state = 'shut down';
    return { pass: true, message: data as Message };
  }
}

export interface GuardedReaderOptions {
  /** Sends a reply the reader makes itself (through the connection's writer). */
  readonly reply: (message: ResponseMessage) => void;
  /** A line for the server's log (stderr). */
  readonly log: (line: string) => void;
  readonly maxContentLength?: number;
}

/** A MessageReader over a byte stream that survives malformed input (see the file header). */
export class GuardedMessageReader extends AbstractMessageReader {
  private readonly decoder: FrameDecoder;
  private readonly gate = new LifecycleGate();

  constructor(
    private readonly readable: Readable,
    private readonly options: GuardedReaderOptions,
  ) {
    super();
    this.decoder = new FrameDecoder(options.maxContentLength);
  }

  listen(callback: DataCallback): Disposable {
    const onData = (chunk: Buffer | string) => {
      for (const frame of this.decoder.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)) {
        if (frame.kind === 'malformed') {
          this.options.log(`airspace-lsp: malformed frame: ${frame.reason}.`);
          this.options.reply({
            jsonrpc: '2.0',
            id: null,
            error: { code: WireErrors.ParseError, message: `Parse error: ${frame.reason}.` },
          });
          continue;
        }
        const verdict = this.gate.admit(frame.body);
        if (verdict.pass) {
          callback(verdict.message);
          continue;
        }
        this.options.log(`airspace-lsp: ${verdict.log}`);
        if (verdict.reply) this.options.reply(verdict.reply);
      }
    };
    const onError = (error: Error) => this.fireError(error);
    // A closed input is the client gone: handled as `exit` (0 after shutdown, else 1), so that
    // the server cleans up through its one exit path.
    let closed = false;
    const onClose = () => {
      if (closed) return;
      closed = true;
      callback({ jsonrpc: '2.0', method: 'exit' } as Message);
    };
    this.readable.on('data', onData);
    this.readable.on('error', onError);
    this.readable.on('end', onClose);
    this.readable.on('close', onClose);
    return {
      dispose: () => {
        this.readable.off('data', onData);
        this.readable.off('error', onError);
        this.readable.off('end', onClose);
        this.readable.off('close', onClose);
      },
    };
  }
}
