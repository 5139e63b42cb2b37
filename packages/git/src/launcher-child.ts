/**
 * The git launcher's child process (see launcher.ts): runs the git commands its parent sends and
 * answers with their output. Small and long-lived, so that starting a process costs what it
 * costs in a small process, not in a parent holding a gigabyte of index.
 */
import { spawn } from 'node:child_process';

interface Request {
  readonly id: number;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly input?: string | Uint8Array;
  readonly maxBuffer: number;
}

process.on('disconnect', () => process.exit(0));
process.on('message', (r: Request) => {
  let child;
  try {
    child = spawn('git', r.args as string[], { cwd: r.cwd, env: r.env, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    process.send!({ id: r.id, error: e instanceof Error ? e.message : String(e) });
    return;
  }
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let size = 0;
  let failed: string | undefined;
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
    if (failed !== undefined && code === null) process.send!({ id: r.id, error: failed });
    else process.send!({ id: r.id, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), code: code ?? -1 });
  });
  child.stdin.on('error', () => undefined);
  if (r.input !== undefined) child.stdin.end(typeof r.input === 'string' ? r.input : Buffer.from(r.input));
  else child.stdin.end();
});
