/**
 * The client side of the engine, kept light (node built-ins only) so that `airspace check`
 * costs little more than Node's start before it asks: find the repository's engine from its lock
 * file, connect, shake hands, send requests; start the engine detached when none answers.
 * Anything that goes wrong returns `undefined` with a reason, and the caller scans in-process.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, realpathSync, statSync, unlinkSync } from 'node:fs';
import { createConnection } from 'node:net';
import { fileURLToPath } from 'node:url';
import { enginePaths, findCommonDir, type EnginePaths } from './paths.js';
import { lineReader, PROTOCOL_VERSION, type EngineErrorBody, type EngineChange, type EngineMethod, type HelloResult } from './protocol.js';
import { answerProblem, isChange, isErrorBody } from './shapes.js';

export { enginePaths, findCommonDir, inWorkTree, nearestDirectory, type EnginePaths } from './paths.js';
export { PROTOCOL_VERSION, type EngineChange, type EngineStatus } from './protocol.js';

/** How a connection takes part: `hold` keeps the engine from its idle exit; `onChange` subscribes to its change notifications. */
export interface ConnectOptions {
  readonly hold?: boolean;
  readonly onChange?: (change: EngineChange) => void;
  /** Called once when the connection closes (either side). */
  readonly onClose?: () => void;
}

const connectOptions = (given: boolean | ConnectOptions | undefined): ConnectOptions =>
  typeof given === 'object' ? given : { hold: given === true };

/** What the lock file says about the engine holding it. */
export interface LockInfo {
  readonly pid: number;
  readonly socket: string;
  readonly version: number;
  readonly startedAt: string;
  readonly log: string;
}

/** The engine answered the handshake with another protocol version (an engine of an older or newer Airspace). */
export class EngineVersionError extends Error {
  constructor(
    readonly version: number,
    readonly pid: number,
  ) {
    super(`The engine (pid ${pid}) speaks protocol ${version}, this client ${PROTOCOL_VERSION}.`);
    this.name = 'EngineVersionError';
  }
}

/**
 * The engine's answer did not have the shape of one (or was no JSON): its process is not to be
 * trusted for this question. Front ends answer in-process instead, and say so.
 */
export class EngineAnswerError extends Error {
  readonly code = 'ENGINE_ANSWER_MALFORMED';
  constructor(
    readonly method: string,
    readonly problem: string,
  ) {
    super(`The engine's answer to ${method} is malformed: ${problem}.`);
    this.name = 'EngineAnswerError';
  }
}

/** An error the engine returned for a request. */
export class EngineRequestError extends Error {
  constructor(readonly body: EngineErrorBody) {
    super(body.message);
    this.name = 'EngineRequestError';
  }
}

export interface EngineConnection {
  readonly hello: HelloResult;
  request<T>(method: EngineMethod, params?: unknown, timeoutMs?: number): Promise<T>;
  close(): void;
}

/** Default idle timeout of an engine started by a front end. */
export const DEFAULT_IDLE_MS = 10 * 60_000;

/** True when the front end must scan in-process (`AIRSPACE_ENGINE=off`, or a flag). */
export function engineDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env.AIRSPACE_ENGINE ?? '').trim().toLowerCase();
  return value === 'off' || value === '0' || value === 'false' || value === 'no';
}

/** `AIRSPACE_ENGINE_IDLE_MS`: the idle timeout of engines started on demand (tests, short sessions). */
export function idleFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const ms = Number(env.AIRSPACE_ENGINE_IDLE_MS);
  return Number.isInteger(ms) && ms > 0 ? ms : undefined;
}

export function readLock(paths: EnginePaths): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(paths.lock, 'utf8')) as LockInfo;
    // A pid of 0 or below names a process group, or every process: never a holder.
    return Number.isInteger(info.pid) && info.pid > 0 && typeof info.socket === 'string' ? info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether process `pid` is an engine of the repository at `commonDir`, where the system says
 * (Linux: its command line names `--common-dir` of this repository); undefined where it cannot be
 * told. A lock naming a live process that is no engine of ours (pid 1, a pid reused after a
 * crash) is not waited for as an engine starting, and that process is never signalled.
 */
export function engineProcess(pid: number, commonDir: string): boolean | undefined {
  if (process.platform !== 'linux') return undefined;
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? false : undefined;
  }
  const at = args.indexOf('--common-dir');
  if (at < 0 || args[at + 1] === undefined) return false;
  return realOr(args[at + 1]!) === realOr(commonDir);
}

const realOr = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** Removes the lock file if it still names `pid` (an engine that was ended, or a stale holder). */
export function removeLockOf(paths: EnginePaths, pid: number): void {
  try {
    if (readLock(paths)?.pid === pid) unlinkSync(paths.lock);
  } catch {
    // Already gone.
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface Waiting {
  readonly method: EngineMethod;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: Error) => void;
  readonly timer?: NodeJS.Timeout;
}

/** The requests of one connection waiting for their answers, and the lines that answer them. */
class RequestTable {
  private readonly pending = new Map<number, Waiting>();
  private next = 1;
  private closed = false;

  constructor(
    private readonly conn: ReturnType<typeof createConnection>,
    private readonly onChange: ((change: EngineChange) => void) | undefined,
  ) {}

  failAll(error: Error): void {
    this.closed = true;
    for (const p of this.pending.values()) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(error);
    }
    this.pending.clear();
  }

  /**
   * A line that is no response nor notification breaks the protocol: every question waiting on
   * this connection gets the named problem at once (not a wait until its timeout), and the
   * connection is dropped.
   */
  private broken(problem: string): void {
    const first = this.pending.values().next().value;
    this.failAll(new EngineAnswerError(first?.method ?? 'a request', problem));
    this.conn.destroy();
  }

  /** One line from the engine: a notification, or the answer to a request. */
  read(line: string): void {
    let response: unknown;
    try {
      response = JSON.parse(line);
    } catch {
      return this.broken('a line that is not JSON');
    }
    if (typeof response !== 'object' || response === null || Array.isArray(response)) return this.broken('a line that is not an object');
    const message = response as Record<string, unknown>;
    if ('notification' in message) {
      // A change said in a shape of its own is still a change: ask again about everything.
      if (message.notification === 'changed')
        this.onChange?.(isChange(message.params) ? message.params : { reason: 'the engine saw the repository move', all: true });
      return;
    }
    if (typeof message.id !== 'number') return this.broken('a response without a request id');
    const p = this.pending.get(message.id);
    if (!p) return;
    this.pending.delete(message.id);
    if (p.timer) clearTimeout(p.timer);
    if ('error' in message) {
      if (isErrorBody(message.error)) p.reject(new EngineRequestError(message.error));
      else p.reject(new EngineAnswerError(p.method, 'an error without a kind and message'));
      return;
    }
    const problem = 'result' in message ? answerProblem(p.method, message.result) : 'a response with neither result nor error';
    if (problem) p.reject(new EngineAnswerError(p.method, problem));
    else p.resolve(message.result);
  }

  request<T>(method: EngineMethod, params?: unknown, ms?: number): Promise<T> {
    return new Promise<T>((res, rej) => {
      if (this.closed) return rej(new Error('The engine connection is closed.'));
      const id = this.next++;
      const timer = ms
        ? setTimeout(() => {
            this.pending.delete(id);
            rej(new Error(`The engine did not answer ${method} within ${ms} ms.`));
          }, ms)
        : undefined;
      this.pending.set(id, { method, resolve: res as (v: unknown) => void, reject: rej, ...(timer ? { timer } : {}) });
      this.conn.write(JSON.stringify({ id, method, ...(params === undefined ? {} : { params }) }) + '\n');
    });
  }
}

/**
 * Connects to an engine's socket and shakes hands; rejects on any failure or after `timeoutMs`.
 * `hold`: this connection keeps the engine from its idle exit while it is open (an editor);
 * `onChange`: told whenever the engine saw the repository move.
 */
export function connect(socket: string, timeoutMs = 1000, how: boolean | ConnectOptions = false): Promise<EngineConnection> {
  const { hold, onChange, onClose } = connectOptions(how);
  return new Promise((resolve, reject) => {
    const conn = createConnection(socket);
    const table = new RequestTable(conn, onChange);
    conn.on(
      'data',
      lineReader((line) => table.read(line)),
    );
    conn.on('error', (error) => table.failAll(error));
    conn.on('close', () => {
      table.failAll(new Error('The engine closed the connection.'));
      onClose?.();
    });
    const request = <T>(method: EngineMethod, params?: unknown, ms?: number): Promise<T> => table.request<T>(method, params, ms);
    const timer = setTimeout(() => {
      conn.destroy();
      reject(new Error(`The engine at ${socket} did not answer within ${timeoutMs} ms.`));
    }, timeoutMs);
    conn.once('connect', () => {
      request<HelloResult>('hello', {
        version: PROTOCOL_VERSION,
        ...(hold ? { hold } : {}),
        ...(onChange ? { subscribe: true } : {}),
      }).then(
        (hello) => {
          clearTimeout(timer);
          if (hello.version !== PROTOCOL_VERSION) {
            conn.destroy();
            return reject(new EngineVersionError(hello.version, hello.pid));
          }
          resolve({ hello, request, close: () => closeConnection(conn) });
        },
        (error: Error) => {
          clearTimeout(timer);
          conn.destroy();
          reject(error);
        },
      );
    });
    conn.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/**
 * Ends a connection without waiting on the engine: one that never closes its side (hung, or not
 * an engine at all) must not keep a one-shot command from exiting.
 */
function closeConnection(conn: ReturnType<typeof createConnection>): void {
  conn.end();
  conn.unref();
  setTimeout(() => conn.destroy(), 1000).unref();
}

/**
 * How long an engine whose socket accepts connections may take to answer the handshake before it
 * counts as hung (ms). A scan keeps the engine's event loop busy for seconds on a loaded machine:
 * that engine is busy, not gone, and starting a rival would only take its lock and its warm state.
 */
export const BUSY_ENGINE_MS = 30_000;

/** Whether a process listens on the socket: the kernel accepts the connection even while that process is busy. */
export function socketListens(socket: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const conn = createConnection(socket);
    const done = (listens: boolean): void => {
      clearTimeout(timer);
      conn.destroy();
      resolve(listens);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    conn.once('connect', () => done(true));
    conn.once('error', () => done(false));
  });
}

/**
 * Connects to the engine at `socket`: within `timeoutMs`, or, when it does not answer that fast but
 * its socket accepts connections (busy), within `busyMs`.
 */
export async function connectPatiently(
  socket: string,
  timeoutMs: number,
  busyMs: number,
  hold: boolean | ConnectOptions = false,
): Promise<EngineConnection | undefined> {
  const quick = await connect(socket, timeoutMs, hold).catch(() => undefined);
  if (quick) return quick;
  if (!(await socketListens(socket))) return undefined;
  return connect(socket, busyMs, hold).catch(() => undefined);
}

/** The running engine of this repository, if one answers (waiting for a busy one; see `BUSY_ENGINE_MS`). */
export async function findEngine(
  paths: EnginePaths,
  timeoutMs = 1000,
  hold: boolean | ConnectOptions = false,
  busyMs = BUSY_ENGINE_MS,
): Promise<EngineConnection | undefined> {
  const info = readLock(paths);
  if (!info || !pidAlive(info.pid)) return undefined;
  return connectPatiently(info.socket, timeoutMs, busyMs, hold);
}

export interface StartOptions {
  /** A directory of the repository (the engine's first worktree to watch). */
  readonly repo: string;
  readonly idleMs?: number;
}

/** Starts an engine process for the repository, detached, its output appended to the engine log. */
export function spawnEngine(paths: EnginePaths, options: StartOptions): number | undefined {
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const log = openSync(paths.log, 'a', 0o600);
  try {
    const entry = fileURLToPath(new URL('./daemon.js', import.meta.url));
    const args = [entry, '--common-dir', paths.commonDir, '--repo', options.repo, '--idle-ms', String(options.idleMs ?? DEFAULT_IDLE_MS)];
    const child = spawn(process.execPath, args, {
      detached: true,
      stdio: ['ignore', log, log],
      cwd: options.repo,
      env: { ...process.env, AIRSPACE_ENGINE_CHILD: '1' },
    });
    child.unref();
    return child.pid;
  } finally {
    closeSync(log);
  }
}

/** An engine of another protocol version (an older Airspace) that a started engine took the place of. */
export interface ReplacedEngine {
  readonly pid: number;
  readonly version: number;
}

/** An engine of a newer protocol (a newer Airspace) that this client leaves alone, scanning in-process. */
export interface NewerEngine {
  readonly pid: number;
  readonly version: number;
}

export type EngineLookup =
  | { readonly connection: EngineConnection; readonly started: boolean; readonly replaced?: ReplacedEngine }
  | { readonly reason: string; readonly newer?: NewerEngine };

/**
 * What a front end says, once, when it leaves a newer Airspace's engine running and scans
 * in-process: taking it over would have the newer Airspace take it back at its next question.
 */
export function newerEngineText(newer: NewerEngine): string {
  return `The repository's engine (pid ${newer.pid}) speaks protocol ${newer.version}, newer than this Airspace's ${PROTOCOL_VERSION}, so this Airspace leaves it running and scans in its own process.`;
}

/** Whether a live engine holding the lock belongs to a newer Airspace (one to leave alone). */
export function isNewerEngine(info: LockInfo | undefined): boolean {
  return info !== undefined && typeof info.version === 'number' && info.version > PROTOCOL_VERSION && pidAlive(info.pid);
}

/** What a front end says, once, when the engine it started took the place of one of another version. */
export function replacedEngineText(replaced: ReplacedEngine, pid: number): string {
  return `The repository's engine (pid ${replaced.pid}) spoke protocol ${replaced.version} and this Airspace speaks ${PROTOCOL_VERSION}, so a new engine (pid ${pid}) took its place and the old one exits.`;
}

export interface EnsureOptions {
  readonly cwd: string;
  /** Start one when none answers (default true). */
  readonly autostart?: boolean;
  readonly idleMs?: number;
  /** How long to wait for a started engine to answer (ms). */
  readonly waitMs?: number;
  /** Keep the engine from its idle exit while the connection is open (an editor's language server). */
  readonly hold?: boolean;
  /** Subscribe: told whenever the engine saw the repository move. */
  readonly onChange?: (change: EngineChange) => void;
  readonly onClose?: () => void;
}

/** The repository's engine: found, or started and waited for; a reason when there is none. */
export async function ensureEngine(options: EnsureOptions): Promise<EngineLookup> {
  const commonDir = findCommonDir(options.cwd);
  if (!commonDir || !existsSync(commonDir)) return { reason: 'not inside a git repository' };
  const paths = enginePaths(commonDir);
  const hold: ConnectOptions = {
    hold: options.hold === true,
    ...(options.onChange ? { onChange: options.onChange } : {}),
    ...(options.onClose ? { onClose: options.onClose } : {}),
  };
  const found = await findEngine(paths, 1000, hold);
  if (found) return { connection: found, started: false };
  // A live engine of another version refuses this client. One of an older Airspace gives way to
  // the one started now (it takes the lock); one of a newer Airspace is left alone, or the two
  // Airspaces would replace each other's engine at every question.
  const before = readLock(paths);
  if (before && isNewerEngine(before)) {
    const newer = { pid: before.pid, version: before.version };
    return { reason: `a newer Airspace's engine (pid ${newer.pid}, protocol ${newer.version}) serves the repository`, newer };
  }
  const other = before && pidAlive(before.pid) && before.version !== PROTOCOL_VERSION ? before : undefined;
  if (options.autostart === false) return { reason: 'no engine is running for this repository' };
  const repo = options.cwd;
  try {
    if (!statSync(repo).isDirectory()) return { reason: `${repo} is not a directory` };
  } catch {
    return { reason: `${repo} does not exist` };
  }
  const idleMs = options.idleMs ?? idleFromEnv(process.env);
  const pid = spawnEngine(paths, { repo, ...(idleMs !== undefined ? { idleMs } : {}) });
  const deadline = Date.now() + (options.waitMs ?? 15_000);
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    const info = readLock(paths);
    if (info) {
      const connection = await connect(info.socket, 1000, hold).catch(() => undefined);
      if (connection)
        return {
          connection,
          started: true,
          ...(other && connection.hello.pid !== other.pid ? { replaced: { pid: other.pid, version: other.version } } : {}),
        };
    }
    // Ours exited: it failed, or another process holds the lock without answering (yet).
    if (pid !== undefined && !pidAlive(pid)) {
      const holder = readLock(paths);
      if (holder && holder.pid !== pid && pidAlive(holder.pid))
        return {
          reason: `the engine exited at start: pid ${holder.pid} holds the lock ${paths.lock} and does not answer on ${holder.socket} (\`airspace engine stop\` ends an engine that is stuck; if no engine runs, removing that file lets one start)`,
        };
      return { reason: `the engine exited at start (see ${paths.log})` };
    }
  }
  return { reason: `the engine did not answer within ${options.waitMs ?? 15_000} ms (see ${paths.log})` };
}
