/**
 * Starting a process forks the parent, and the fork copies the parent's page tables: from a
 * process holding a large index, every git command costs several times what it costs from a
 * small one (measured here: 18 ms at 50 MB, 63 ms at 1.1 GB). A long-lived scanner (the language
 * server, a watcher) therefore starts its git commands through a small child process, the
 * launcher, once its own memory is large; a small process spawns git itself.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ProcessRequest, ProcessResult } from './run-process.js';

/** Above this resident size, git is started through the launcher. */
export const LAUNCHER_MIN_RSS = 256 * 1024 * 1024;
let threshold = LAUNCHER_MIN_RSS;

/** Changes the resident size above which the launcher is used (0: always; tests). */
export function setLauncherThreshold(bytes: number): void {
  threshold = bytes;
}

/** Commands run through the launcher so far (tests, benchmarks). */
export const launcherStats = { launched: 0 };

export type LaunchRequest = ProcessRequest;
export type LaunchResult = ProcessResult;

let child: ChildProcess | undefined;
let broken = false;
let nextId = 0;
const pending = new Map<number, (r: LaunchResult) => void>();

function childScript(): string | undefined {
  const own = fileURLToPath(new URL('./launcher-child.js', import.meta.url));
  if (existsSync(own)) return own;
  // Running from src/ (tests): the compiled child under dist/.
  const built = own.replace(/([\\/])src([\\/]launcher-child\.js)$/, '$1dist$2');
  return existsSync(built) ? built : undefined;
}

function start(): ChildProcess | undefined {
  const script = childScript();
  if (!script) {
    broken = true;
    return undefined;
  }
  try {
    const c = fork(script, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced', execArgv: [] });
    c.on('message', (m: LaunchResult & { id: number }) => {
      const done = pending.get(m.id);
      pending.delete(m.id);
      if (pending.size === 0) c.channel?.unref();
      // A Buffer crosses the channel as a plain Uint8Array: make it a Buffer again (no copy).
      done?.('stdout' in m ? { ...m, stdout: Buffer.from(m.stdout.buffer, m.stdout.byteOffset, m.stdout.byteLength) } : m);
    });
    const fail = (why: string) => {
      if (child === c) child = undefined;
      for (const done of pending.values()) done({ error: why });
      pending.clear();
    };
    c.on('exit', (code) => fail(`the git launcher exited (${code})`));
    c.on('error', (e) => {
      broken = true;
      fail(`the git launcher failed: ${e.message}`);
    });
    c.unref();
    c.channel?.unref();
    return c;
  } catch {
    broken = true;
    return undefined;
  }
}

/** Whether this process should start git through the launcher now. */
export function useLauncher(): boolean {
  return !broken && process.memoryUsage.rss() >= threshold;
}

/** Runs one git command in the launcher; undefined when the launcher cannot be used. */
export function launch(request: LaunchRequest): Promise<LaunchResult> | undefined {
  child ??= start();
  const c = child;
  if (!c?.connected) return undefined;
  const id = ++nextId;
  launcherStats.launched++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    c.channel?.ref();
    c.send({ id, ...request }, (e) => {
      if (!e) return;
      pending.delete(id);
      resolve({ error: `the git launcher is gone: ${e.message}` });
    });
  });
}
