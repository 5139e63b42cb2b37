/** The built `airspace` CLI as a child process, for the end-to-end tests. */
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = resolve(dirname(fileURLToPath(import.meta.url)), '../packages/cli/dist/bin.js');
/**
 * In-process by default: a test that starts the resident engine says so (test/engine.test.ts),
 * and stops every engine it started.
 */
export const ENV = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', AIRSPACE_ENGINE: 'off' };

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  timeoutMs?: number;
  /** Replaces the environment (default `ENV`). */
  env?: NodeJS.ProcessEnv;
  /** Close the reading end of stdout at once, as `| head` does once it has read enough. */
  closeStdout?: boolean;
  /** Written to the command's standard input (closed after it); none by default. */
  input?: string;
}

export function airspace(args: string[], options: RunOptions = {}): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: options.env ?? ENV,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
    // Both are pipes (`stdio` above); the types cannot know it.
    const out = child.stdout!;
    const err = child.stderr!;
    if (options.closeStdout) out.destroy();
    let stdout = '';
    let stderr = '';
    out.on('data', (d: Buffer) => (stdout += d.toString()));
    err.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`airspace ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}
