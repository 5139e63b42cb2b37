/** What benchmarks that start the resident engine do at the end: stop it, for sure. */
import { findEngine, pidAlive, readLock, type EnginePaths } from '@airspace/engine/client';

/** Stops the engine at `paths`: asked to stop, then killed by pid if it has not stopped within 5 s. */
export async function stopEngineAt(paths: EnginePaths): Promise<void> {
  const info = readLock(paths);
  const engine = await findEngine(paths);
  if (engine) {
    await engine.request('stop', undefined, 5000).catch(() => undefined);
    engine.close();
  }
  for (let i = 0; info && pidAlive(info.pid) && i < 100; i++) await new Promise((r) => setTimeout(r, 50));
  if (info && pidAlive(info.pid)) process.kill(info.pid, 'SIGKILL');
}
