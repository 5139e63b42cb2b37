/**
 * `watch --exec` trigger commands: bounded in time (the whole process group stopped), run in
 * order one at a time, and never awaited by whoever queues them.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Problem, Trigger } from '@airspace/core';
import { execTrigger, TriggerCommands } from '../src/watch/exec.js';

let dir: string;
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'airspace-exec-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const trigger = (to: string): Trigger =>
  ({ type: 'steer', to, from: 'other', level: 'resolution', risk: 0.9, content: `steer ${to}` }) as unknown as Trigger;
/** Running, not a zombie waiting to be reaped (a container's init may never reap it). */
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('trigger commands', () => {
  it('a command that never exits is stopped at its time, with what it started, and says so', async () => {
    const pidFile = join(dir, 'pid');
    const started = Date.now();
    const run = execTrigger(`sleep 60 & echo $! > '${pidFile}'; wait`, trigger('alice'), dir, 300);
    await expect(run.done).rejects.toThrow(/did not finish within 300 ms for the steer trigger to alice; it was stopped/);
    expect(Date.now() - started).toBeLessThan(5000);
    const child = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(child)).toBe(false);
  }, 10_000);

  it('runs queued commands in order, one at a time, and a stuck one does not hold up the next', async () => {
    const problems: Problem[] = [];
    const out = join(dir, 'out');
    const commands = new TriggerCommands(
      `read line; if [ "$AIRSPACE_TRIGGER_TO" = stuck ]; then sleep 60; fi; echo "$AIRSPACE_TRIGGER_TO" >> '${out}'`,
      dir,
      300,
      (p) => problems.push(p),
    );
    const before = Date.now();
    for (const to of ['a', 'stuck', 'b']) commands.enqueue(trigger(to));
    expect(Date.now() - before).toBeLessThan(200);
    await commands.idle();
    expect(readFileSync(out, 'utf8').split('\n').filter(Boolean)).toEqual(['a', 'b']);
    expect(problems).toMatchObject([{ code: 'TRIGGER_SINK_FAILED' }]);
    expect(problems[0]!.message).toMatch(/to stuck; it was stopped/);
    await commands.stop();
    commands.enqueue(trigger('late'));
    await commands.idle();
    expect(existsSync(out) && readFileSync(out, 'utf8')).not.toMatch(/late/);
  }, 10_000);
});
