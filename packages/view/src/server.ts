/**
 * The live view: an HTTP server on localhost that serves the page and pushes each new scan to it
 * as a server-sent event. Loopback only by default. Whatever the address, a request whose Host is
 * not a name or address the server is bound to is refused (a web page elsewhere cannot read the
 * scan through DNS rebinding); on an address other than loopback the server says it is `exposed`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import type { ScanResult } from '@airspace/core';
import { renderViewHtml } from './html.js';

export interface ViewServerOptions {
  /** Produces a scan; called once at start, on `update()` without a result, and every `intervalMs`. */
  readonly scan: () => Promise<ScanResult>;
  /** Port to listen on; 0 (the default) picks a free one. */
  readonly port?: number;
  /** Address to listen on. Default `127.0.0.1`. */
  readonly host?: string;
  /** Re-scan this often (ms) and push the result when it changed. Default: only on `update()`. */
  readonly intervalMs?: number;
  /** Told about a scan that failed after start (the page keeps the last good result). */
  readonly onError?: (error: unknown) => void;
  readonly title?: string;
}

export interface ViewServer {
  /** `http://host:port/` of the page. */
  readonly url: string;
  /**
   * Push `result` to every open page; without one, run `scan()` and push its result when it
   * differs from the current one by more than its timestamp (a save that changes nothing redraws nothing).
   */
  update(result?: ScanResult): Promise<void>;
  /** Number of pages listening for updates. */
  readonly clients: number;
  /** Listening on an address other than loopback: anyone who can reach it reads every path and diff of the scan. */
  readonly exposed: boolean;
  close(): Promise<void>;
}

const EVENTS_PATH = '/events';
const HEARTBEAT_MS = 15_000;

/** The scan without its timestamp: two scans that differ only in time are the same picture. */
function fingerprint(result: ScanResult): string {
  return JSON.stringify({ ...result, generatedAt: undefined });
}

/** Whether `host` (an address or name to listen on) is loopback only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || h.startsWith('127.') || h.startsWith('::ffff:127.');
}

/**
 * The `Host` values a request may carry (lower case, with the port): the bound address and the
 * loopback names; for a wildcard address (`0.0.0.0`, `::`), every address of this machine and its
 * name. Any other name is refused, loopback or not: DNS rebinding lends a page elsewhere one.
 */
export function allowedHostHeaders(host: string, port: number): Set<string> {
  const bracket = (a: string): string => (a.includes(':') ? `[${a}]` : a);
  const names = new Set(['localhost', '127.0.0.1', '::1', host.replace(/^\[|\]$/g, '').toLowerCase()]);
  if (host === '0.0.0.0' || host === '::' || host === '[::]') {
    names.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(a.address.toLowerCase());
  }
  return new Set([...names].map((n) => `${bracket(n)}:${port}`));
}

/** What the server shows now: the current result, its fingerprint and its number in the stream. */
interface Current {
  result: ScanResult;
  print: string;
  seq: number;
}

function scanEvent(current: Current): string {
  return `id: ${current.seq}\nevent: scan\ndata: ${JSON.stringify(current.result)}\n\n`;
}

/** The pages listening on `/events`. */
function createClients() {
  const clients = new Set<ServerResponse>();
  const send = (res: ServerResponse, text: string): void => {
    if (!res.writableEnded) res.write(text);
  };
  return {
    clients,
    send,
    broadcast: (text: string): void => {
      for (const res of clients) send(res, text);
    },
  };
}

/** Serves `/`, `/scan.json` and `/events`, to requests whose Host is one of `allowed()`. */
function requestHandler(
  current: Current,
  stream: ReturnType<typeof createClients>,
  allowed: () => ReadonlySet<string>,
  title: string | undefined,
) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (!allowed().has((req.headers.host ?? '').toLowerCase())) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end('Forbidden: unexpected Host header.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method not allowed.\n');
      return;
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/' || path === '/index.html') {
      const html = renderViewHtml(current.result, { eventsPath: EVENTS_PATH, seq: current.seq, ...(title ? { title } : {}) });
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
    } else if (path === '/scan.json') {
      res
        .writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
        .end(JSON.stringify(current.result));
    } else if (path === EVENTS_PATH) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
      stream.clients.add(res);
      stream.send(res, 'retry: 2000\n\n');
      stream.send(res, scanEvent(current));
      req.on('close', () => stream.clients.delete(res));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found.\n');
    }
  };
}

/** Listens on `port` and `host`; resolves with the port it got. */
async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/**
 * Re-scans on request and publishes a result that changed (or any result, forced). A request
 * while a scan runs gets one more scan after it, so a change made during a scan is not missed.
 */
function createRescan(options: ViewServerOptions, current: Current, broadcast: (text: string) => void) {
  function publish(result: ScanResult, force: boolean): void {
    const print = fingerprint(result);
    if (!force && print === current.print) return;
    current.result = result;
    current.print = print;
    current.seq += 1;
    broadcast(scanEvent(current));
  }
  let scanning: Promise<void> | null = null;
  let again: Promise<void> | null = null;
  function rescan(force: boolean): Promise<void> {
    if (scanning)
      return (again ??= scanning.then(() => {
        again = null;
        return rescan(force);
      }));
    scanning = options
      .scan()
      .then(
        (result) => publish(result, force),
        (error: unknown) => {
          options.onError?.(error);
          broadcast(
            `event: problem\ndata: ${JSON.stringify(`scan failed: ${error instanceof Error ? error.message : String(error)}`)}\n\n`,
          );
        },
      )
      .finally(() => {
        scanning = null;
      });
    return scanning;
  }
  return { publish, rescan };
}

/**
 * Starts the server after a first successful scan; rejects (and listens on nothing) when that scan
 * fails, so a command can report "not a repository" and exit.
 */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const host = options.host ?? '127.0.0.1';
  const first = await options.scan();
  const current: Current = { result: first, print: fingerprint(first), seq: 0 };
  const stream = createClients();
  let allowed = new Set<string>();
  const server = createServer(requestHandler(current, stream, () => allowed, options.title));
  server.on('clientError', (_error, socket) => socket.destroy());
  const port = await listen(server, options.port ?? 0, host);
  allowed = allowedHostHeaders(host, port);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
  const { publish, rescan } = createRescan(options, current, stream.broadcast);

  const timers: NodeJS.Timeout[] = [];
  if (options.intervalMs && options.intervalMs > 0) timers.push(setInterval(() => void rescan(false), options.intervalMs));
  timers.push(setInterval(() => stream.broadcast(': ping\n\n'), HEARTBEAT_MS));
  for (const t of timers) t.unref();

  let closed: Promise<void> | null = null;
  return {
    url,
    exposed: !isLoopbackHost(host),
    get clients() {
      return stream.clients.size;
    },
    async update(result?: ScanResult): Promise<void> {
      if (result) publish(result, true);
      else await rescan(false);
    },
    close(): Promise<void> {
      closed ??= new Promise<void>((resolve) => {
        for (const t of timers) clearInterval(t);
        for (const res of stream.clients) res.end();
        stream.clients.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
