/**
 * One process run to completion with its output collected: what `runGitRaw` does in this process
 * and what the git launcher's child does on its behalf (launcher.ts).
 */
import { spawn } from 'node:child_process';

export interface ProcessRequest {
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly input?: string | Uint8Array;
  /** Output beyond this many bytes kills the process. */
  readonly maxBuffer: number;
  /** A process still running after this many milliseconds is killed (a network that never answers). */
  readonly timeoutMs?: number;
}

/** `code` is null when the process was killed; `error` when it could not be started. */
export type ProcessResult = { readonly stdout: Buffer; readonly stderr: string; readonly code: number | null } | { readonly error: string };

export function runProcess(file: string, r: ProcessRequest): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = spawn(file, r.args as string[], { cwd: r.cwd, env: r.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let failed: string | undefined;
    const timer =
      r.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            failed = `no answer after ${Math.round(r.timeoutMs! / 1000)} s; stopped`;
            child.kill('SIGKILL');
          }, r.timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      size += d.length;
      if (size > r.maxBuffer) child.kill();
      else out.push(d);
    });
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => {
      failed = e.message;
    });
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      if (failed !== undefined) resolve({ error: failed });
      else resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), code });
    });
    child.stdin.on('error', () => undefined);
    if (r.input !== undefined) child.stdin.end(typeof r.input === 'string' ? r.input : Buffer.from(r.input));
    else child.stdin.end();
  });
}
