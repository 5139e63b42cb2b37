/**
 * `watch --exec`: runs the command for each trigger, one at a time and in order, apart from the
 * scan loop (a slow or stuck command never holds up the next scan or the next advisory). Each
 * run is bounded: past its time the command's whole process group is stopped (SIGTERM, then
 * SIGKILL) and the failure is reported. Triggers that arrive while too many wait are reported
 * and dropped, never queued without end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { triggerSinkFailed, type Problem, type Trigger } from '@airspace/core';

/** Default longest run of one trigger command. */
export const DEFAULT_EXEC_TIMEOUT_MS = 30_000;
/** Triggers waiting for the command beyond this many are dropped (and reported). */
const MAX_WAITING = 64;
/** Between SIGTERM and SIGKILL. */
const GRACE_MS = 2000;

export interface ExecRun {
  readonly done: Promise<void>;
  /** Stops the command's process group now. */
  kill(): void;
}

/** Signals the process group the command leads (it and whatever it started), else the command alone. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // Already gone.
  }
}

/**
 * Runs `command` in a shell, in a process group of its own, with the trigger as JSON on stdin;
 * `done` resolves when it exits 0 and rejects when it fails or outlives `timeoutMs`.
 */
export function execTrigger(command: string, trigger: Trigger, cwd: string, timeoutMs = DEFAULT_EXEC_TIMEOUT_MS): ExecRun {
  const child = spawn(command, {
    shell: true,
    cwd,
    detached: true,
    stdio: ['pipe', 'inherit', 'inherit'],
    env: { ...process.env, AIRSPACE_TRIGGER_TO: trigger.to, AIRSPACE_TRIGGER_TYPE: trigger.type },
  });
  let timedOut = false;
  let exited = false;
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (): void => {
    if (exited) return;
    killGroup(child, 'SIGTERM');
    graceTimer = setTimeout(() => killGroup(child, 'SIGKILL'), GRACE_MS);
    graceTimer.unref();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, timeoutMs);
  const what = `for the ${trigger.type} trigger to ${trigger.to}`;
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // 'exit', not 'close': a background process the command left holding our stdout must not
    // hold up the next trigger.
    child.on('exit', (code, signal) => {
      exited = true;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      // A command stopped for its time takes what it started in its group with it.
      if (timedOut) killGroup(child, 'SIGKILL');
      if (timedOut) reject(new Error(`--exec command did not finish within ${timeoutMs} ms ${what}; it was stopped`));
      else if (code === 0) resolve();
      else reject(new Error(`--exec command exited with ${code ?? signal ?? 'a signal'} ${what}`));
    });
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(JSON.stringify(trigger) + '\n');
  return { done, kill: stop };
}

/** The trigger commands of one `watch`: a queue run one at a time, never awaited by the scan loop. */
export class TriggerCommands {
  private readonly waiting: Trigger[] = [];
  private running: ExecRun | undefined;
  private stopped = false;
  private drained: Promise<void> = Promise.resolve();

  constructor(
    private readonly command: string,
    private readonly cwd: string,
    private readonly timeoutMs: number,
    private readonly report: (problem: Problem) => void,
  ) {}

  /** Queues `trigger`; returns at once. */
  enqueue(trigger: Trigger): void {
    if (this.stopped) return;
    if (this.waiting.length >= MAX_WAITING) {
      this.report(
        triggerSinkFailed(
          new Error(`${MAX_WAITING} triggers are waiting for --exec; the ${trigger.type} trigger to ${trigger.to} was dropped`),
        ),
      );
      return;
    }
    this.waiting.push(trigger);
    if (!this.running) this.drained = this.drain();
  }

  private async drain(): Promise<void> {
    for (let trigger = this.waiting.shift(); trigger && !this.stopped; trigger = this.waiting.shift()) {
      const run = execTrigger(this.command, trigger, this.cwd, this.timeoutMs);
      this.running = run;
      await run.done.catch((error: unknown) => this.report(triggerSinkFailed(error)));
      this.running = undefined;
    }
  }

  /** Resolves when every queued command has run. */
  idle(): Promise<void> {
    return this.drained;
  }

  /** Drops what waits and stops the running command. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waiting.length = 0;
    this.running?.kill();
    await this.drained;
  }
}
