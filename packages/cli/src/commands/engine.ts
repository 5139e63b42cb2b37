/**
 * `airspace engine status|start|stop`: the repository's resident engine (one per repository,
 * socket and lock in `<git common dir>/airspace/`). `check` starts it on demand; it exits by
 * itself after `--idle` without requests.
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import {
  DEFAULT_IDLE_MS,
  enginePaths,
  engineProcess,
  ensureEngine,
  findCommonDir,
  findEngine,
  pidAlive,
  readLock,
  removeLockOf,
  type EngineStatus,
} from '@airspace/engine/client';
import { CliError } from '../errors.js';
import type { Io } from '../io.js';

interface EngineFlags {
  readonly repo: string;
  readonly json?: boolean;
  readonly idle?: string;
}

function pathsOf(io: Io, flags: EngineFlags): ReturnType<typeof enginePaths> {
  const dir = resolve(io.cwd, flags.repo);
  const common = findCommonDir(dir);
  if (!common) throw new CliError(`${dir} is not inside a git repository.`);
  return enginePaths(common);
}

function following(status: EngineStatus): string {
  if (status.mode !== 'watch') return 'polling';
  // An engine of an older Airspace does not count its directories.
  return typeof status.directories === 'number' ? `file events (${status.directories} directories)` : 'file events';
}

function describe(status: EngineStatus): string {
  const last = status.lastScan ? `${status.lastScan.at} (${status.lastScan.kind}, ${status.lastScan.ms} ms)` : 'none yet';
  return [
    `engine pid ${status.pid}, up ${Math.round(status.uptimeMs / 1000)} s, exits after ${Math.round(status.idleTimeoutMs / 1000)} s idle${
      status.holders > 0 ? ` once the ${status.holders === 1 ? 'client' : `${status.holders} clients`} holding it leave` : ''
    }`,
    `socket   ${status.socket}`,
    `log      ${status.log}`,
    `agents   ${status.agents.length > 0 ? status.agents.join(', ') : 'none yet'} (${status.scanners} warm ${status.scanners === 1 ? 'scanner' : 'scanners'})`,
    `last scan ${last}; ${status.requests} requests; following changes by ${following(status)}${
      status.subscribers > 0
        ? `, told to ${status.subscribers} ${status.subscribers === 1 ? 'subscriber' : 'subscribers'} (${status.notified} notifications)`
        : ''
    }`,
    ...(status.lostTrack !== undefined ? [`lost track: ${status.lostTrack}; polling instead`] : []),
    ...(status.stamps?.missed
      ? [
          `${status.stamps.missed} ${status.stamps.missed === 1 ? 'change was' : 'changes were'} seen before a file event said so (answered from git)`,
        ]
      : []),
  ].join('\n');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether `pid` exits within `ms`. */
async function exits(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (pidAlive(pid) && Date.now() < deadline) await sleep(50);
  return !pidAlive(pid);
}

/** How long an engine asked to stop has before it is ended (ms), and how long SIGTERM has before SIGKILL. */
const STOP_WAIT_MS = 10_000;
const TERM_GRACE_MS = 3000;

type Stopped =
  | { readonly stopped: true; readonly pid: number; readonly signal?: 'SIGTERM' | 'SIGKILL'; readonly text: string }
  | { readonly stopped: false; readonly text: string };

/**
 * Stops the repository's engine: asks it, and ends an engine that does not stop when asked (or
 * does not answer at all) with SIGTERM, then SIGKILL after a grace, before its lock is removed,
 * so that no engine is left running without a lock. Only a process that is an engine of this
 * repository is ever signalled (`engineProcess`); a lock naming anything else is stale, and removed.
 */
async function stopEngine(paths: ReturnType<typeof enginePaths>): Promise<Stopped> {
  const lock = readLock(paths);
  const engine = await findEngine(paths, 1000, false, 5000);
  const none = `no engine is running for ${paths.commonDir}`;
  if (!engine && !(lock && pidAlive(lock.pid))) {
    if (lock) removeLockOf(paths, lock.pid);
    return { stopped: false, text: lock ? `${none} (removed the stale lock of pid ${lock.pid})` : none };
  }
  const pid = engine?.hello.pid ?? lock!.pid;
  if (engine) {
    await engine.request('stop', undefined, 5000).catch(() => undefined);
    engine.close();
    if (await exits(pid, STOP_WAIT_MS)) return { stopped: true, pid, text: `stopped the engine (pid ${pid})` };
  }
  const ours = engineProcess(pid, paths.commonDir);
  if (ours === false) {
    removeLockOf(paths, pid);
    return { stopped: false, text: `${none}: the lock named pid ${pid}, which is no engine of this repository (removed the stale lock)` };
  }
  if (ours === undefined && !engine)
    throw new CliError(
      `pid ${pid} holds ${paths.lock} but does not answer on ${lock!.socket}; if it is an engine, end it (kill ${pid}), else remove that file.`,
    );
  let signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM';
  process.kill(pid, signal);
  if (!(await exits(pid, TERM_GRACE_MS))) {
    signal = 'SIGKILL';
    process.kill(pid, signal);
    if (!(await exits(pid, TERM_GRACE_MS))) throw new CliError(`The engine (pid ${pid}) did not end after SIGKILL.`);
  }
  removeLockOf(paths, pid);
  return {
    stopped: true,
    pid,
    signal,
    text: `ended the engine (pid ${pid}) with ${signal}: it did not ${engine ? 'stop when asked' : 'answer'}`,
  };
}

export function engineCommand(io: Io): Command {
  const command = new Command('engine').description(
    "the repository's resident engine that answers check, scan, the MCP server and editors from a warm scanner",
  );
  const repo = (c: Command): Command => c.option('--repo <dir>', 'any directory inside the repository', '.').option('--json', 'print JSON');
  const print = (flags: EngineFlags, value: object, text: string): void => {
    io.stdout.write(flags.json ? JSON.stringify(value, null, 2) + '\n' : text + '\n');
  };

  command.addCommand(
    repo(new Command('status').description('is an engine running for this repository: pid, uptime, agents, last scan, socket')).action(
      async (flags: EngineFlags) => {
        const paths = pathsOf(io, flags);
        const engine = await findEngine(paths);
        if (!engine) return print(flags, { running: false, commonDir: paths.commonDir }, `no engine is running for ${paths.commonDir}`);
        try {
          const status = await engine.request<EngineStatus>('status', undefined, 5000);
          print(flags, { running: true, ...status }, describe(status));
        } finally {
          engine.close();
        }
      },
    ),
  );

  command.addCommand(
    repo(new Command('start').description('start the engine now (check starts it on demand)'))
      .option('--idle <ms>', 'exit after this long without requests', String(DEFAULT_IDLE_MS))
      .action(async (flags: EngineFlags) => {
        const idleMs = Number(flags.idle);
        if (!Number.isInteger(idleMs) || idleMs <= 0)
          throw new CliError(`--idle must be a positive number of milliseconds, got "${flags.idle}".`);
        const dir = resolve(io.cwd, flags.repo);
        const found = await ensureEngine({ cwd: dir, idleMs });
        if ('reason' in found) throw new CliError(`Could not start the engine: ${found.reason}.`);
        try {
          const status = await found.connection.request<EngineStatus>('status', undefined, 5000);
          print(
            flags,
            { running: true, started: found.started, ...status },
            `${found.started ? 'started' : 'already running'}: ${describe(status)}`,
          );
        } finally {
          found.connection.close();
        }
      }),
  );

  command.addCommand(
    repo(new Command('stop').description('stop the engine of this repository (ending it when it does not stop when asked)')).action(
      async (flags: EngineFlags) => {
        const paths = pathsOf(io, flags);
        const result = await stopEngine(paths);
        if (!result.stopped) return print(flags, { stopped: false, running: false }, result.text);
        print(
          flags,
          { stopped: true, pid: result.pid, ...(result.signal ? { signal: result.signal } : {}), lock: readLock(paths) ?? null },
          result.text,
        );
      },
    ),
  );
  return command;
}
