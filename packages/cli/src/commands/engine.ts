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
  ensureEngine,
  findCommonDir,
  findEngine,
  pidAlive,
  readLock,
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
          `lost track: file events missed ${status.stamps.missed} ${status.stamps.missed === 1 ? 'change' : 'changes'}; every answer asks git now`,
        ]
      : []),
  ].join('\n');
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
    repo(new Command('stop').description('stop the engine of this repository')).action(async (flags: EngineFlags) => {
      const paths = pathsOf(io, flags);
      const engine = await findEngine(paths);
      if (!engine) return print(flags, { stopped: false, running: false }, `no engine is running for ${paths.commonDir}`);
      const pid = engine.hello.pid;
      await engine.request('stop', undefined, 5000).catch(() => undefined);
      engine.close();
      const deadline = Date.now() + 10_000;
      while (pidAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (pidAlive(pid)) throw new CliError(`The engine (pid ${pid}) did not stop within 10 s.`);
      print(flags, { stopped: true, pid, lock: readLock(paths) ?? null }, `stopped the engine (pid ${pid})`);
    }),
  );
  return command;
}
