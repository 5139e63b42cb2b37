/**
 * `airspace publish`: this worktree's state (committed, staged, unstaged, untracked) and its
 * observation, pushed to `refs/airspace/agents/<id>` on the team's remote — the only thing that
 * ever leaves the machine, and only when asked. `--watch` republishes on change, rate-limited.
 */
import { Command } from 'commander';
import { createChangeTracker, publishAgent, TeamError, watchTargets, withdrawAgent, type PublishResult } from '@airspace/git';
import { configuredBase } from '@airspace/scanner';
import { resolve } from 'node:path';
import { CliError } from '../errors.js';
import type { Io } from '../io.js';
import { printable } from '../report/printable.js';
import { untilSignal } from '../signals.js';

interface PublishFlags {
  readonly repo: string;
  readonly remote: string;
  readonly agent?: string;
  readonly label?: string;
  readonly base?: string;
  readonly intent?: string[];
  readonly ttl: string;
  readonly watch?: boolean;
  readonly interval: string;
  readonly json?: boolean;
  readonly withdraw?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function positive(value: string, flag: string, unit: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new CliError(`${flag} must be a positive number of ${unit}, got "${value}".`);
  return n;
}

function describe(r: PublishResult): string {
  if (r.unchanged) return `${r.id}: unchanged since ${r.observation.publishedAt}, not pushed`;
  const files = r.observation.paths.length;
  return `published ${r.id} to ${r.remote} ${r.ref} (${r.commit.slice(0, 12)}${r.previous ? `, was ${r.previous.slice(0, 12)}` : ', new'}): ${files} file${files === 1 ? '' : 's'} changed, ${r.observation.dirty ? 'with' : 'no'} uncommitted work, expires ${r.observation.expiresAt}`;
}

export function publishCommand(io: Io): Command {
  return new Command('publish')
    .description(
      "push this worktree's state (uncommitted work included) and its observation to refs/airspace/agents/<id> on the team's remote",
    )
    .option('--repo <dir>', 'any directory inside the worktree to publish', '.')
    .option('--remote <name>', 'remote name or URL to publish to', 'origin')
    .option('--agent <id>', 'agent id (default: as a local scan names this worktree: its branch, else its folder)')
    .option('--label <text>', 'display name (default: the id)')
    .option('--base <ref>', "base the agent is compared against (default: the config's base, else origin/HEAD, main or master)")
    .option('--intent <path>', 'a path this agent is about to touch (repeatable)', collect)
    .option('--ttl <hours>', 'the observation expires (counts as unknown) this long after publishing unless republished', '8')
    .option('--watch', 'republish when the worktree changes (at most once per --interval), and before expiry')
    .option('--interval <ms>', 'with --watch: least time between two publishes', '10000')
    .option('--json', 'print each publish as one JSON line')
    .option('--withdraw', "delete this agent's published state from the remote (only if it is still what this clone published)")
    .action((flags: PublishFlags) => runPublish(io, flags));
}

async function runPublish(io: Io, flags: PublishFlags): Promise<void> {
  for (const [flag, value] of [
    ['--repo', flags.repo],
    ['--remote', flags.remote],
    ['--agent', flags.agent],
    ['--base', flags.base],
  ] as const) {
    if (value !== undefined && value.trim() === '')
      throw new CliError(`${flag} was given an empty value; leave the flag out to use the default.`);
  }
  const ttlMs = positive(flags.ttl, '--ttl', 'hours') * 3600_000;
  const intervalMs = positive(flags.interval, '--interval', 'milliseconds');
  const repo = resolve(io.cwd, flags.repo);
  if (flags.withdraw) {
    if (flags.watch) throw new CliError('--withdraw and --watch cannot be used together.');
    return runWithdraw(io, flags, repo);
  }
  // The base a scan of this repository uses: --base, else the config's, else the default.
  const base = flags.base ?? (await configuredBase(repo).catch(() => undefined));
  const once = (skipUnchanged: boolean): Promise<PublishResult> =>
    publishAgent({
      repo,
      remote: flags.remote,
      ttlMs,
      skipUnchanged,
      ...(flags.agent ? { agent: flags.agent } : {}),
      ...(flags.label ? { label: flags.label } : {}),
      ...(base ? { base } : {}),
      ...(flags.intent?.length ? { intent: flags.intent } : {}),
    }).catch((error: unknown) => {
      throw error instanceof TeamError ? new CliError(error.message) : error;
    });
  const report = publishReporter(io, flags);
  if (flags.watch) await republishOnChange(io, { repo, intervalMs, ttlMs, json: flags.json === true }, once, report);
  else report(await once(false));
}

async function runWithdraw(io: Io, flags: PublishFlags, repo: string): Promise<void> {
  const done = await withdrawAgent({ repo, remote: flags.remote, ...(flags.agent ? { agent: flags.agent } : {}) }).catch(
    (error: unknown) => {
      throw error instanceof TeamError ? new CliError(error.message) : error;
    },
  );
  if (flags.json) io.stdout.write(JSON.stringify({ id: done.id, ref: done.ref, withdrawn: done.withdrawn ?? null }) + '\n');
  else
    io.stdout.write(
      printable(
        done.withdrawn
          ? `withdrew ${done.id}: deleted ${done.ref} (${done.withdrawn.slice(0, 12)}) from ${flags.remote}`
          : `${done.id}: this clone has published nothing to ${flags.remote}; nothing to withdraw`,
      ) + '\n',
    );
}

function publishReporter(io: Io, flags: PublishFlags): (r: PublishResult) => void {
  return (r) => {
    if (flags.json)
      io.stdout.write(
        JSON.stringify({
          id: r.id,
          remote: r.remote,
          ref: r.ref,
          commit: r.commit,
          previous: r.previous ?? null,
          unchanged: r.unchanged,
          observation: r.observation,
        }) + '\n',
      );
    else io.stdout.write(printable(describe(r)) + '\n');
    for (const path of r.oversized) io.stderr.write(printable(`airspace publish: ${path} is over the size limit and was left out`) + '\n');
  };
}

/** `--watch`: republish on change, at most once per interval; a failure is reported and retried later. */
async function republishOnChange(
  io: Io,
  o: { repo: string; intervalMs: number; ttlMs: number; json: boolean },
  once: (skipUnchanged: boolean) => Promise<PublishResult>,
  report: (r: PublishResult) => void,
): Promise<void> {
  let last = Date.now();
  let running = false;
  let pending = false;
  let timer: NodeJS.Timeout | undefined;
  const attempt = async (): Promise<void> => {
    if (running) {
      pending = true;
      return;
    }
    running = true;
    try {
      report(await once(true));
    } catch (error) {
      io.stderr.write(`airspace publish: ${printable(error instanceof Error ? error.message : String(error))}\n`);
    } finally {
      last = Date.now();
      running = false;
    }
    if (pending) {
      pending = false;
      schedule();
    }
  };
  const schedule = (): void => {
    if (timer) return;
    const wait = Math.max(0, last + o.intervalMs - Date.now());
    timer = setTimeout(() => {
      timer = undefined;
      void attempt();
    }, wait);
  };
  // Watching starts before the first publish, so an edit made while it runs is not missed.
  // The change tracking `watch` and `view` use: this worktree's files and git's state.
  const targets = await watchTargets(o.repo);
  const source = createChangeTracker({
    worktrees: [o.repo],
    commonDir: targets.commonDir,
    pollMs: Math.max(2000, o.intervalMs),
    onChange: schedule,
    onWarning: (m) => io.stderr.write(`airspace publish: ${printable(m)}\n`),
  });
  try {
    running = true;
    report(await once(false));
  } catch (error) {
    source.close();
    throw error;
  } finally {
    last = Date.now();
    running = false;
  }
  // A quiet agent is refreshed before it expires (publish skips what is unchanged and fresh).
  const heartbeat = setInterval(schedule, Math.max(o.intervalMs, o.ttlMs / 4));
  if (!o.json) io.stderr.write(`airspace publish: watching ${printable(o.repo)}; Ctrl-C to stop\n`);
  await untilSignal();
  source.close();
  clearInterval(heartbeat);
  if (timer) clearTimeout(timer);
}
