/**
 * `airspace view`: the 3D view (`@airspace/view`) of a scan — served on localhost with live
 * updates as worktrees change (uncommitted edits included, through the change tracking `watch`
 * uses), or written to one self-contained HTML file with `--out`.
 */
import { statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command } from 'commander';
import type { ScanResult } from '@airspace/core';
import { createChangeTracker, watchTargets } from '@airspace/git';
import { createScanner, scanRepository, watchConfigFiles } from '@airspace/scanner';
import { CliError } from '../errors.js';
import type { Io } from '../io.js';
import { addRepoOptions, scannerOptions, type RepoFlags } from '../options.js';
import { printable } from '../report/printable.js';
import { createProgressBar } from '../report/progress.js';
import { createPendingChanges, scanExtraFor, worktreesToWatch } from '../watch/tracked.js';

interface ViewFlags extends RepoFlags {
  readonly out?: string;
  readonly port: string;
  readonly host: string;
  readonly interval: string;
  readonly poll?: boolean;
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
    .option('--interval <ms>', 'polling interval when file events are unavailable (or with --poll)', '2000')
    .option('--poll', 'poll instead of using file events');
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
      const bar = createProgressBar(io.stderr);
      const result = await scanRepository({ ...options, onProgress: (p) => bar.update(p) }).finally(() => bar.done());
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

    // Live: the same change tracking as `watch` (file events in every worktree, git's state),
    // each scan re-reading only the paths that changed (see watch/tracked.ts).
    const repo = options.repo ?? io.cwd;
    const config = await watchConfigFiles(options);
    let scanner = createScanner(options);
    const pending = createPendingChanges();
    const targets = await watchTargets(repo).catch(() => undefined);
    let server: Awaited<ReturnType<typeof startViewServer>> | undefined;
    let watched = targets?.worktrees ?? [];
    const tracker = targets
      ? createChangeTracker({
          worktrees: watched,
          commonDir: targets.commonDir,
          pollMs,
          ...(flags.poll ? { forcePoll: true } : {}),
          onChange: (change) => {
            pending.add(change);
            void server?.update();
          },
          onWarning: (message) => io.stderr.write(`airspace view: ${printable(message)}\n`),
        })
      : undefined;
    const scan = async (): Promise<ScanResult> => {
      let change = pending.take();
      try {
        if (config.changed()) {
          // A config created, edited or removed: a new scanner reads it, and every agent again.
          await scanner.dispose();
          scanner = createScanner(options);
          change = { all: true, reason: 'configuration changed' };
        }
        const result = await scanner.scan(undefined, scanExtraFor(change));
        // Worktrees come and go: after a change of git's state, watch git's list (and agents') again.
        if (tracker && (!change || change.all)) tracker.setWorktrees((watched = await worktreesToWatch(repo, result, watched)));
        return result;
      } catch (error) {
        pending.failed();
        throw error;
      }
    };
    server = await startViewServer({
      scan,
      port,
      host: flags.host,
      onError: (error) => io.stderr.write(`airspace view: scan failed: ${(error as Error).message}\n`),
    }).catch(async (error: unknown) => {
      tracker?.close();
      await scanner.dispose();
      throw error;
    });
    // Edits made during the first scan.
    if (pending.has()) void server.update();
    // Teammates' published states change without a local event: refresh every 30 s when named.
    const published = (flags.source ?? []).some((s) => s.startsWith('published:'));
    const fetchTimer = published
      ? setInterval(() => {
          pending.add({ all: true, reason: 'fetch interval' });
          void server?.update();
        }, 30_000)
      : undefined;
    io.stdout.write(`Airspace view at ${server.url} (live; Ctrl-C to stop)\n`);
    await new Promise<void>((done) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        done();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    tracker?.close();
    if (fetchTimer) clearInterval(fetchTimer);
    await server.close();
    await scanner.dispose();
  });
  return command;
}
