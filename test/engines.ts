/**
 * What the end-to-end tests of the resident engine share: the environment that lets the built
 * CLI use an engine (long idle time, so none exits mid-test; full answers, never a partial first
 * answer while the index warms up), whether a process lives, and the
 * teardown that leaves no engine of a test's repository running.
 */
import { airspace, ENV } from './run-cli.js';

export const ENGINE_ENV = { ...ENV, AIRSPACE_ENGINE: 'on', AIRSPACE_ENGINE_IDLE_MS: '120000', AIRSPACE_FIRST_ANSWER_MS: 'off' };

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops the repository's engine and kills any engine process a test saw start. */
export async function stopEngines(repoDir: string, started: ReadonlySet<number>): Promise<void> {
  await airspace(['engine', 'stop', '--repo', repoDir], { env: ENGINE_ENV, timeoutMs: 20_000 }).catch(() => undefined);
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
}
