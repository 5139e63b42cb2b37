/**
 * Entry of the engine process (`node dist/daemon.js --common-dir DIR --repo DIR --idle-ms N`),
 * started detached by a front end (client.ts `spawnEngine`) or by `airspace engine start`. Its
 * stdout and stderr are the engine log.
 */
import { runEngineServer } from './server.js';

function opt(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const commonDir = opt('common-dir');
const repo = opt('repo') ?? process.cwd();
const idleMs = Number(opt('idle-ms') ?? 600_000);
if (!commonDir) {
  process.stderr.write('airspace engine: --common-dir is required.\n');
  process.exit(1);
}
try {
  await runEngineServer({ commonDir, repo, idleMs: Number.isFinite(idleMs) && idleMs > 0 ? idleMs : 600_000 });
  process.exit(0);
} catch (error) {
  process.stderr.write(`airspace engine: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
