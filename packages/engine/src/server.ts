/**
 * The resident engine process of one repository: holds the lock, listens on the socket
 * (owner-only, in an owner-only directory), answers newline-delimited JSON requests through one
 * `EngineCore`, follows file and git events (`@airspace/git`'s change tracker) to keep its
 * scanners warm and tells its subscribers (an editor, `watch`, `view`) when an answer may have
 * moved, and exits after an idle period, on `stop`, on SIGTERM/SIGINT, or when another process
 * holds the lock.
 */
import { chmodSync, existsSync, mkdirSync, openSync, statSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, isAbsolute } from 'node:path';
import { createChangeTracker, watchTargets, type ChangeTracker, type TrackedChange } from '@airspace/git';
import { BUSY_ENGINE_MS, connectPatiently, engineProcess, pidAlive, readLock, socketListens, type LockInfo } from './client.js';
import { EngineCore } from './questions.js';
import { InputError } from './errors.js';
import { within } from './bounded.js';
import { enginePaths, type EnginePaths } from './paths.js';
import {
  lineReader,
  PROTOCOL_VERSION,
  type EngineChange,
  type EngineErrorBody,
  type EngineNotification,
  type EngineRequest,
  type EngineStatus,
} from './protocol.js';

export interface EngineServerOptions {
  readonly commonDir: string;
  /** A directory of the repository to start watching from. */
  readonly repo: string;
  readonly idleMs: number;
  /** A lock this young whose engine does not answer yet is starting, not stale (ms). */
  readonly startupGraceMs?: number;
  readonly log?: (message: string) => void;
}

/**
 * Takes the lock, or says who holds it. A lock of a dead process, or of one that no longer answers
 * (its socket refuses, or it accepts but no handshake comes within `busyMs`), is taken over.
 */
export async function acquireLock(
  paths: EnginePaths,
  info: LockInfo,
  graceMs: number,
  busyMs = BUSY_ENGINE_MS,
): Promise<{ acquired: true } | { acquired: false; holder: LockInfo }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = openSync(paths.lock, 'wx', 0o600);
      writeSync(fd, JSON.stringify(info) + '\n');
      closeSync(fd);
      return { acquired: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readLock(paths);
    if (holder && holder.pid !== info.pid && pidAlive(holder.pid)) {
      // A newer Airspace's engine is never taken over (it would take the lock back at its next
      // question): only one of an older protocol gives way. Unless it is hung (its socket refuses).
      if (typeof holder.version === 'number' && holder.version > info.version && (await socketListens(holder.socket)))
        return { acquired: false, holder };
      // A young lock is an engine starting, unless its process is none of ours (pid 1, a reused
      // pid) or its start time lies ahead; a busy holder (its socket accepts, the handshake waits
      // for a scan) is not silent either.
      const age = Date.now() - Date.parse(holder.startedAt);
      if (age >= 0 && age < graceMs && engineProcess(holder.pid, paths.commonDir) !== false) return { acquired: false, holder };
      const connection = await connectPatiently(holder.socket, 1000, busyMs);
      connection?.close();
      if (connection) return { acquired: false, holder };
    }
    // Dead, silent or unreadable: take it over.
    removeJudgedLock(paths, holder);
  }
  const holder = readLock(paths);
  return holder ? { acquired: false, holder } : { acquired: false, holder: info };
}

/** How long stopping waits for the scanners to close before the engine exits without them (ms). */
const STOP_GRACE_MS = 3000;

/** How long the first file event after a quiet period waits for the rest of its save (ms). */
const NOTIFY_LEADING_MS = 20;

/** A takeover mark older than this was left by a process that died taking over (ms). */
const TAKEOVER_MARK_STALE_MS = 10_000;

const sameLock = (a: LockInfo | undefined, b: LockInfo | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && a.pid === b.pid && a.startedAt === b.startedAt && a.socket === b.socket);

/**
 * Removes the lock file if it still names `judged`, the holder found dead, silent or unreadable.
 * Judging and removing are not one step (judging a silent holder waits for seconds): two engines
 * that judged the same dead lock would each remove "it", the second one the lock the first had
 * just written, and both would run. So the removal happens under a takeover mark created
 * exclusively, after reading the lock again; whoever finds the mark taken leaves the lock alone.
 */
export function removeJudgedLock(paths: EnginePaths, judged: LockInfo | undefined): void {
  const mark = `${paths.lock}.takeover`;
  try {
    closeSync(openSync(mark, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    try {
      if (Date.now() - statSync(mark).mtimeMs > TAKEOVER_MARK_STALE_MS) unlinkSync(mark);
    } catch {
      // Gone meanwhile: its maker finished.
    }
    return;
  }
  try {
    if (sameLock(readLock(paths), judged)) unlinkSync(paths.lock);
  } catch {
    // Already gone.
  } finally {
    try {
      unlinkSync(mark);
    } catch {
      // Cleared as stale by another process: nothing to undo.
    }
  }
}

const isInputError = (error: unknown): boolean =>
  error instanceof InputError ||
  (error as { name?: string })?.name === 'ScannerError' ||
  (error as { name?: string })?.name === 'GitSourceError';

/** Parameters from the socket: an object whose `cwd` is an absolute path (the rest is checked where it is used). */
function requestParams(request: EngineRequest): any {
  const params = request.params;
  if (request.method === 'status' || request.method === 'stop') return {};
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw new InputError(`${request.method} needs an object of parameters.`);
  const cwd = (params as { cwd?: unknown }).cwd;
  if (typeof cwd !== 'string' || !isAbsolute(cwd)) throw new InputError(`${request.method} needs cwd, an absolute directory.`);
  return params;
}

export async function runEngineServer(options: EngineServerOptions): Promise<void> {
  const log = options.log ?? ((m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`));
  const paths = enginePaths(options.commonDir);
  ownerOnlyDirectories(paths);
  const startedAt = new Date();
  const info: LockInfo = {
    pid: process.pid,
    socket: paths.socket,
    version: PROTOCOL_VERSION,
    startedAt: startedAt.toISOString(),
    log: paths.log,
  };
  const lock = await acquireLock(paths, info, options.startupGraceMs ?? 10_000);
  if (!lock.acquired) {
    log(`engine ${process.pid}: another engine (pid ${lock.holder.pid}) holds ${paths.lock}; exiting.`);
    return;
  }
  log(`engine ${process.pid}: started for ${options.commonDir} (idle timeout ${options.idleMs} ms).`);
  if (existsSync(paths.socket)) unlinkSync(paths.socket);
  const engine = new ResidentEngine(options, paths, startedAt, log);
  await engine.listen();
  // An engine started with no question (`airspace engine start`) watches from the start.
  setTimeout(() => void engine.startWatching(), 2000).unref();
  await engine.done;
}

/** The engine's directory, and the socket's when apart, made owner-only. */
function ownerOnlyDirectories(paths: EnginePaths): void {
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  chmodSync(paths.dir, 0o700);
  if (dirname(paths.socket) !== paths.dir) {
    mkdirSync(dirname(paths.socket), { recursive: true, mode: 0o700 });
    chmodSync(dirname(paths.socket), 0o700);
  }
}

/** The running engine, once it holds the lock: its connections, its change source, its one `EngineCore`. */
class ResidentEngine {
  private source: ChangeTracker | undefined;
  private readonly core: EngineCore;
  private server: Server | undefined;
  private lastActivity = Date.now();
  private stopping: Promise<void> | undefined;
  private readonly sockets = new Set<Socket>();
  /** Connections that keep the engine from its idle exit (an editor's language server). */
  private readonly holders = new Set<Socket>();
  /** Connections told of every change (`subscribe: true`). */
  private readonly subscribers = new Set<Socket>();
  private notified = 0;
  private resolveDone!: () => void;
  readonly done = new Promise<void>((r) => (this.resolveDone = r));
  private readonly ticker: NodeJS.Timeout;
  // Changes seen while a refresh runs are taken by the next round of it; subscribers are told
  // once the warm scanners caught up (their next question is then answered from memory), when
  // anything was read again since they were last told — by this refresh, or by a question that
  // came first (an agent's check right after the save).
  private refreshing = false;
  private told: number;
  private waiting: EngineChange | undefined;
  private watching: Promise<void> | undefined;

  constructor(
    private readonly options: EngineServerOptions,
    private readonly paths: EnginePaths,
    private readonly startedAt: Date,
    private readonly log: (message: string) => void,
  ) {
    this.core = new EngineCore({
      commonDir: options.commonDir,
      resident: true,
      // Only once the change source exists: file events before it were not counted.
      changes: {
        events: () => (this.source ? this.source.events() : Number.NaN),
        counts: () => this.source?.eventCounts() ?? { all: Number.NaN, worktrees: new Map() },
        pathsSince: (worktree, count) => this.source?.pathsSince(worktree, count),
        watching: () => this.source?.watching() ?? [],
      },
      // A pair's merge type-checked in the background: scan again, then tell the subscribers.
      onTypecheck: () => void this.refresh({ reason: 'a type-check ended', all: false }),
    });
    this.told = this.core.generation;
    // Idle exit, a lock taken by someone else, or a repository that was deleted.
    this.ticker = setInterval(
      () => {
        if (!existsSync(options.commonDir)) void this.stop('the repository is gone');
        else if (!this.ownsLock()) void this.stop('the lock file no longer names this process');
        else if (this.holders.size === 0 && Date.now() - this.lastActivity > options.idleMs)
          void this.stop(`idle for ${options.idleMs} ms`);
      },
      Math.max(50, Math.min(5_000, Math.floor(options.idleMs / 4))),
    );
    process.once('SIGTERM', () => void this.stop('SIGTERM'));
    process.once('SIGINT', () => void this.stop('SIGINT'));
  }

  private notify(change: EngineChange): void {
    if (this.subscribers.size === 0) return;
    this.notified++;
    const line = JSON.stringify({ notification: 'changed', params: change } satisfies EngineNotification) + '\n';
    for (const socket of this.subscribers) if (!socket.destroyed) socket.write(line);
  }

  private ownsLock(): boolean {
    return readLock(this.paths)?.pid === process.pid;
  }

  private stop(why: string): Promise<void> {
    return (this.stopping ??= (async () => {
      this.log(`engine ${process.pid}: stopping (${why}).`);
      clearInterval(this.ticker);
      this.source?.close();
      this.server?.close();
      for (const s of this.sockets) s.destroy();
      // A scan that never ends (a wedged plugin or config) must not keep the engine from stopping.
      await within(this.core.dispose(), STOP_GRACE_MS, () => new Error(`its scanners did not close within ${STOP_GRACE_MS} ms`)).catch(
        (error: Error) => this.log(`engine ${process.pid}: stopping without waiting: ${error.message}.`),
      );
      if (this.ownsLock()) {
        for (const file of [this.paths.socket, this.paths.lock]) {
          try {
            unlinkSync(file);
          } catch {
            // Already gone.
          }
        }
      }
      this.resolveDone();
    })());
  }

  private async refresh(change: EngineChange): Promise<void> {
    this.waiting = this.waiting ? { reason: this.waiting.reason, all: this.waiting.all || change.all } : change;
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      while (this.waiting && !this.stopping) {
        const taken = this.waiting;
        this.waiting = undefined;
        await this.core.refresh();
        if (this.core.generation !== this.told) {
          this.told = this.core.generation;
          this.notify(taken);
        }
        // Worktrees come and go only with a change of git's state (its worktrees directory): a
        // save leaves the list as it was.
        if (taken.all) {
          const targets = await watchTargets(this.options.repo).catch(() => undefined);
          if (targets) this.source?.setWorktrees(targets.worktrees);
        }
      }
    } finally {
      this.refreshing = false;
    }
  }

  private status(): EngineStatus {
    const state = this.core.state();
    const source = this.source;
    return {
      pid: process.pid,
      version: PROTOCOL_VERSION,
      commonDir: this.options.commonDir,
      socket: this.paths.socket,
      log: this.paths.log,
      startedAt: this.startedAt.toISOString(),
      uptimeMs: Date.now() - this.startedAt.getTime(),
      idleTimeoutMs: this.options.idleMs,
      agents: state.agents,
      scanners: state.scanners,
      ...(state.lastScan
        ? { lastScan: { at: new Date(state.lastScan.at).toISOString(), ms: state.lastScan.ms, kind: state.lastScan.kind } }
        : {}),
      requests: this.core.requests,
      holders: this.holders.size,
      subscribers: this.subscribers.size,
      notified: this.notified,
      mode: source?.mode() ?? 'poll',
      directories: source?.directories() ?? 0,
      ...(source?.lostTrack() !== undefined ? { lostTrack: source.lostTrack()! } : {}),
      events: source?.events() ?? 0,
      stamps: { ...this.core.stamps },
    };
  }

  private async handle(request: EngineRequest): Promise<unknown> {
    const params = requestParams(request);
    const core = this.core;
    switch (request.method) {
      case 'status':
        return this.status();
      case 'stop':
        setImmediate(() => void this.stop('asked to stop'));
        return { stopping: true, pid: process.pid };
      case 'check':
        return core.check(params);
      case 'scan':
        return core.scanFor(params);
      case 'editorScan':
        return core.editorScan(params);
      case 'advisories':
        return core.advisories(params);
      case 'declareIntent': {
        // Intent counts at once: whoever follows the airspace asks again.
        const declared = await core.declareIntent(params);
        this.notify({ reason: `${declared.declared.agent} declared intent`, all: false });
        return declared;
      }
      case 'acknowledge':
        return core.acknowledge(params);
      default:
        throw new InputError(`Unknown method ${String(request.method)}.`);
    }
  }

  /** Listens on the socket (owner-only). */
  async listen(): Promise<void> {
    const server = createServer((socket) => this.serve(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.paths.socket, () => resolve());
    });
    chmodSync(this.paths.socket, 0o600);
    server.on('error', (error) => this.log(`engine ${process.pid}: socket error: ${error.message}`));
  }

  /** One connection: a hello with the protocol version, then requests, one JSON object per line. */
  private serve(socket: Socket): void {
    this.sockets.add(socket);
    let greeted = false;
    socket.on('close', () => {
      this.sockets.delete(socket);
      // The idle time of an engine an editor held counts from the editor's leaving.
      this.subscribers.delete(socket);
      if (this.holders.delete(socket)) this.lastActivity = Date.now();
    });
    socket.on('error', () => undefined);
    const reply = (body: object): void => {
      if (!socket.destroyed) socket.write(JSON.stringify(body) + '\n');
    };
    socket.on(
      'data',
      lineReader((line) => {
        this.lastActivity = Date.now();
        let request: EngineRequest;
        try {
          request = JSON.parse(line) as EngineRequest;
        } catch {
          reply({ id: 0, error: { kind: 'INPUT', message: 'A request must be one JSON object per line.' } satisfies EngineErrorBody });
          return;
        }
        if (request.method === 'hello') {
          const hello = request.params as { version?: unknown; hold?: unknown; subscribe?: unknown } | undefined;
          greeted = hello?.version === PROTOCOL_VERSION;
          if (greeted && hello?.hold === true) this.holders.add(socket);
          if (greeted && hello?.subscribe === true) this.subscribers.add(socket);
          reply({ id: request.id, result: { version: PROTOCOL_VERSION, pid: process.pid, commonDir: this.options.commonDir } });
          if (!greeted) socket.end();
          return;
        }
        if (!greeted) {
          reply({
            id: request.id,
            error: { kind: 'INPUT', message: 'Say hello with the protocol version first.' } satisfies EngineErrorBody,
          });
          return;
        }
        this.answer(request, reply);
      }),
    );
  }

  /** Answers one request of a greeted connection. */
  private answer(request: EngineRequest, reply: (body: object) => void): void {
    this.core.requests++;
    // Let file events already queued reach the watcher first (a save just before the question):
    // they are read in this turn's poll phase; two turns also cover a watcher that re-emits later.
    setImmediate(() =>
      setImmediate(() => {
        this.handle(request).then(
          (result) => {
            this.lastActivity = Date.now();
            reply({ id: request.id, result });
            void this.startWatching();
          },
          (error: unknown) => {
            this.lastActivity = Date.now();
            const message = error instanceof Error ? error.message : String(error);
            if (!isInputError(error))
              this.log(`engine ${process.pid}: ${request.method} failed: ${error instanceof Error ? (error.stack ?? message) : message}`);
            reply({ id: request.id, error: { kind: isInputError(error) ? 'INPUT' : 'ENGINE', message } satisfies EngineErrorBody });
          },
        );
      }),
    );
  }

  /**
   * Follows the worktrees and refs: each burst of changes brings the warm scanners up to date.
   * Started after the first answer: setting up recursive watches of every worktree blocks the
   * event loop (seconds on a large repository), which must not keep the first client waiting.
   */
  startWatching(): Promise<void> {
    return (this.watching ??= watchTargets(this.options.repo)
      .catch(() => undefined)
      .then((targets) => {
        if (this.stopping) return;
        if (!targets) return;
        this.source = createChangeTracker({
          worktrees: targets.worktrees,
          commonDir: targets.commonDir,
          pollMs: 2000,
          // A save is told within NOTIFY_LEADING_MS (its few events are one change), the rest of
          // a burst (a checkout, a formatter over many files) once it is over.
          debounceMs: 150,
          leadingMs: NOTIFY_LEADING_MS,
          onChange: (change) => void this.refresh(changeOf(change)),
          onWarning: (m) => this.log(`engine ${process.pid}: ${m}`),
        });
        // What moved between the last answer and the first event followed (an edit made while the
        // first scan ran) is found by comparing with git, and told.
        void this.refresh({ reason: 'the engine started following the worktrees', all: true });
      }));
  }
}

const changeOf = (tracked: TrackedChange): EngineChange => ({ reason: tracked.reason, all: tracked.all });
