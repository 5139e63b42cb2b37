/**
 * `airspace view`: the 3D view (`@airspace/view`) of a scan — served on localhost with live
 * updates as worktrees change (uncommitted edits included), or written to one self-contained HTML
 * file with `--out`. Live, it scans as `watch` does (watch/followed.ts): through the repository's
 * resident engine, which tells it when something moved, else with a scanner and change tracker of
 * its own; `--out` scans once as `airspace scan` does.
 */
import { statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command } from 'commander';
import { CliError } from '../errors.js';
import type { Io } from '../io.js';
import { addRepoOptions, scannerOptions, type RepoFlags } from '../options.js';
import { untilSignal } from '../signals.js';
import { printable } from '../report/printable.js';
import { followChanges } from '../watch/followed.js';
import { runScan } from './scan.js';

interface ViewFlags extends RepoFlags {
  readonly out?: string;
  readonly port: string;
  readonly host: string;
  readonly interval: string;
  readonly poll?: boolean;
  /** `--no-engine`: scan in this process. */
  readonly engine?: boolean;
}

/** `--out` resolved, refused when it is a folder, empty, or its folder does not exist (never created behind the user's back). */
function outputFile(cwd: string, given: string): string {
  if (given.trim() === '') throw new CliError('--out needs a file name, got an empty one.');
  const out = resolve(cwd, given);
  if (statSync(out, { throwIfNoEntry: false })?.isDirectory())
    throw new CliError(`--out ${given} is a folder; give a file name, e.g. ${given.replace(/\/$/, '')}/airspace.html.`);
  const parent = statSync(dirname(out), { throwIfNoEntry: false });
  if (!parent) throw new CliError(`--out ${given}: the folder ${dirname(out)} does not exist.`);
  if (!parent.isDirectory()) throw new CliError(`--out ${given}: ${dirname(out)} is a file, not a folder.`);
  return out;
}

export function viewCommand(io: Io): Command {
  const command = new Command('view')
    .description('show the airspace in 3D: serve it on localhost with live updates, or write one HTML file with --out')
    .option('--out <file>', 'write one self-contained HTML file instead of serving')
    .option('--port <n>', 'port to listen on (0 = any free port)', '0')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option(
      '--interval <ms>',
      'polling interval when file events are unavailable (or with --poll); in-process only, the engine follows changes itself',
      '2000',
    )
    .option('--poll', 'poll instead of using file events (scans in this process, not through the engine)')
    .option('--no-engine', "scan in this process, not through the repository's resident engine (also AIRSPACE_ENGINE=off)");
  addRepoOptions(command).action(async (flags: ViewFlags) => {
    const options = scannerOptions(flags);
    const port = Number(flags.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number, got "${flags.port}".`);
    const pollMs = Number(flags.interval);
    if (!Number.isInteger(pollMs) || pollMs <= 0)
      throw new CliError(`--interval must be a positive number of milliseconds, got "${flags.interval}".`);

    // Before the scan: a file name that cannot be written fails fast.
    const out = flags.out === undefined ? undefined : outputFile(io.cwd, flags.out);

    // The view bundle (three.js inlined) is loaded only by this command.
    const { renderViewHtml, startViewServer } = await import('@airspace/view');
    if (out) {
      // One scan, as `airspace scan` runs it (through the engine when it can answer).
      const result = await runScan(io, flags);
      try {
        writeFileSync(out, renderViewHtml(result));
      } catch (error) {
        throw new CliError(`Cannot write ${out}: ${(error as Error).message}.`);
      }
      io.stdout.write(
        `Wrote ${out} (${result.counts.agents} agents, ${result.counts.resolution} resolution, ${result.counts.traffic} traffic).\n`,
      );
      return;
    }

    // Live: as `watch` follows the repository (the engine, else a change tracker of this process).
    let server: Awaited<ReturnType<typeof startViewServer>> | undefined;
    const followed = followChanges({
      options,
      io,
      engine: flags.engine !== false,
      pollMs,
      ...(flags.poll ? { forcePoll: true } : {}),
      onChange: () => void server?.update(),
      onWarning: (message) => io.stderr.write(`airspace view: ${printable(message)}\n`),
      say: (message) => io.stderr.write(`airspace view: ${printable(message)}\n`),
      tolerant: true,
    });
    try {
      await followed.start();
      server = await startViewServer({
        scan: () => followed.scan(),
        port,
        host: flags.host,
        onError: (error) => io.stderr.write(`airspace view: scan failed: ${(error as Error).message}\n`),
      });
    } catch (error) {
      await followed.dispose();
      throw error;
    }
    // Edits made during the first scan.
    if (followed.pending()) void server.update();
    // Teammates' published states change without a local event: refresh every 30 s when named.
    const published = (flags.source ?? []).some((s) => s.startsWith('published:'));
    const fetchTimer = published ? setInterval(() => followed.touch('fetch interval'), 30_000) : undefined;
    if (server.exposed)
      io.stderr.write(
        `airspace view: warning: listening on ${printable(flags.host)}, not loopback: anyone who can reach ${server.url} reads every agent, path and diff of this scan (no authentication); requests naming another host are refused.\n`,
      );
    io.stdout.write(`Airspace view at ${server.url} (live; Ctrl-C to stop)\n`);
    await untilSignal();
    if (fetchTimer) clearInterval(fetchTimer);
    await server.close();
    await followed.dispose();
  });
  return command;
}
