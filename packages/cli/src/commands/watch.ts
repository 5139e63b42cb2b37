/**
 * `airspace watch`: scan on every change, and report what the TCAS tracker says changed —
 * advisories raised, changed (escalated, downgraded) and cleared — and the triggers they imply,
 * through core's dispatcher with its per-pair cooldown. Scans go through the repository's
 * resident engine, which tells watch when something moved; without one, watch scans and follows
 * the worktrees itself (watch/followed.ts).
 */
import { Command } from 'commander';
import {
  AdvisoryTracker,
  pairKey,
  TriggerDispatcher,
  triggersFor,
  type AdvisoryEvent,
  type Agent,
  type Problem,
  type ScanResult,
  type Trigger,
} from '@airspace/core';
import { CliError } from '../errors.js';
import type { Io } from '../io.js';
import { printable, printableDeep } from '../report/printable.js';
import { addRepoOptions, scannerOptions, type RepoFlags } from '../options.js';
import { colorWanted, createStyle, type Style } from '../report/color.js';
import { formatEvidence } from '../report/table.js';
import { DEFAULT_EXEC_TIMEOUT_MS, TriggerCommands } from '../watch/exec.js';
import { followChanges } from '../watch/followed.js';
import { untilSignal } from '../signals.js';

interface WatchFlags extends RepoFlags {
  readonly jsonl?: boolean;
  readonly exec?: string;
  readonly execTimeout: string;
  readonly interval: string;
  readonly poll?: boolean;
  readonly debounce: string;
  readonly cooldown: string;
  readonly fetchInterval: string;
  /** `--no-engine`: scan in this process. */
  readonly engine?: boolean;
}

/** One line of `--jsonl`. */
export type WatchEvent =
  | {
      readonly type: 'ready';
      readonly time: string;
      readonly agents: readonly string[];
      /** How changes are followed: file events or polling (the engine's or this process's). */
      readonly mode: 'watch' | 'poll';
      /** Who scans and follows: the repository's resident engine, or this process. */
      readonly via: 'engine' | 'in-process';
    }
  | ({ readonly type: 'raised' | 'changed' | 'cleared' } & Omit<AdvisoryEvent, 'type' | 'time'> & { readonly time: string })
  | { readonly type: 'trigger'; readonly time: string; readonly trigger: Trigger }
  | { readonly type: 'problem'; readonly time: string; readonly problem: Problem }
  | { readonly type: 'error'; readonly time: string; readonly message: string };

function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(`${flag} must be a positive number of milliseconds, got "${value}".`);
  return n;
}

function clock(time: number): string {
  return new Date(time).toISOString().slice(11, 19);
}

function humanEvent(unsafe: AdvisoryEvent, style: Style): string {
  const event = printableDeep(unsafe);
  const pair = `${event.a} ↔ ${event.b}`;
  if (event.type === 'cleared') return `${clock(event.time)} ${style.level('clear', 'CLEARED')}  ${pair} (was ${event.previous})`;
  const verb = event.type === 'raised' ? 'RAISED ' : 'CHANGED';
  const lines = [
    `${clock(event.time)} ${verb}  ${style.level(event.level, event.level.toUpperCase())} ${pair} risk ${event.risk.toFixed(2)}${event.type === 'changed' ? ` (was ${event.previous})` : ''}`,
  ];
  if (event.levelReason) lines.push(`           ${style.dim(`(${event.levelReason})`)}`);
  for (const e of event.evidence.slice(0, 2)) lines.push(`           ${style.dim('·')} ${formatEvidence(e)}`);
  return lines.join('\n');
}

export function watchCommand(io: Io): Command {
  const command = new Command('watch')
    .description('scan continuously; print advisories as they are raised, change and clear, and the triggers they imply')
    .option('--jsonl', 'one JSON event per line: ready, raised, changed, cleared, trigger, problem, error')
    .option('--exec <command>', 'run this shell command for each trigger, with the trigger as JSON on its standard input')
    .option(
      '--exec-timeout <ms>',
      'stop an --exec command (and what it started) that runs longer than this',
      String(DEFAULT_EXEC_TIMEOUT_MS),
    )
    .option(
      '--interval <ms>',
      'polling interval when file events are unavailable (or with --poll); in-process only, the engine follows changes itself',
      '2000',
    )
    .option('--poll', 'poll instead of using file events (scans in this process, not through the engine)')
    .option('--debounce <ms>', 'quiet period after a change before scanning (in-process only)', '200')
    .option('--cooldown <ms>', 'a pair at an unchanged level is re-notified at most once per this period', String(10 * 60_000))
    .option('--fetch-interval <ms>', "with --source published:REMOTE: fetch teammates' states and rescan this often", '30000')
    .option('--no-engine', "scan in this process, not through the repository's resident engine");
  addRepoOptions(command).action((flags: WatchFlags) => runWatch(io, flags));
  return command;
}

/** Follow, scan, report, until SIGINT or SIGTERM. */
async function runWatch(io: Io, flags: WatchFlags): Promise<void> {
  const pollMs = positiveInt(flags.interval, '--interval');
  const debounceMs = positiveInt(flags.debounce, '--debounce');
  const cooldownMs = positiveInt(flags.cooldown, '--cooldown');
  const fetchIntervalMs = positiveInt(flags.fetchInterval, '--fetch-interval');
  const execTimeoutMs = positiveInt(flags.execTimeout, '--exec-timeout');
  // A scan between two timed rescans reuses the last fetch if it is younger than half the interval.
  const options = { ...scannerOptions(flags), fetchIntervalMs: fetchIntervalMs / 2 };
  const out = watchOutput(io, flags);
  // Trigger commands run beside the scan loop, one at a time, each within --exec-timeout.
  const commands = flags.exec
    ? new TriggerCommands(flags.exec, options.repo ?? io.cwd, execTimeoutMs, (p) => out.warn(p.message))
    : undefined;
  const handle = advisoryHandler(io, flags, out, cooldownMs, commands);

  // Held during the first scan too: what changes meanwhile waits for the loop.
  let scanning = true;
  let stopped = false;
  const rescan = async (): Promise<void> => {
    if (scanning) return; // the running scan, or loop, takes what is pending
    scanning = true;
    try {
      while (followed.pending() && !stopped) {
        try {
          const result = await followed.scan();
          if (stopped) return;
          await handle(result);
        } catch (error) {
          out.warn(`scan failed: ${(error as Error).message}`);
          break;
        }
      }
    } finally {
      scanning = false;
    }
  };
  // Following starts before the first scan, so that an edit made during it is not missed.
  const followed = followChanges({
    options,
    io,
    engine: flags.engine !== false,
    pollMs,
    debounceMs,
    ...(flags.poll ? { forcePoll: true } : {}),
    onChange: () => void rescan(),
    onWarning: out.warn,
    say: out.say,
  });
  // The first scan decides whether we can run at all (not a repository, unknown base → exit 1).
  let first: ScanResult;
  try {
    await followed.start();
    first = await followed.scan();
  } catch (error) {
    await followed.dispose();
    await commands?.stop();
    throw error;
  }
  await handle(first);
  scanning = false;
  void rescan();
  // Teammates' published states change without a local event: rescan on the fetch interval.
  // (Sources from the config file show themselves by what the first scan read.)
  const published =
    (flags.source ?? []).some((s) => s.startsWith('published:')) ||
    first.agents.some((a) => a.meta?.['source'] === 'published') ||
    first.problems.some((p) => p.code === 'PUBLISHED_UNAVAILABLE');
  const fetchTimer = published ? setInterval(() => followed.touch('fetch interval'), fetchIntervalMs) : undefined;
  announceReady(io, flags, out, first, followed.following(), pollMs);
  await untilSignal();
  stopped = true;
  if (fetchTimer) clearInterval(fetchTimer);
  await followed.dispose();
  await commands?.stop();
}

interface WatchOutput {
  /** A `--jsonl` event (nothing without `--jsonl`). */
  readonly emit: (event: WatchEvent) => void;
  /** An error event, or a line on stderr. */
  readonly warn: (message: string) => void;
  /** Only where a person reads it: a log line about the engine is no JSON event. */
  readonly say: (message: string) => void;
  /** A scan's problems (a plugin that timed out, exited, left a rejection), reported when new. */
  readonly reportProblems: (problems: readonly Problem[]) => void;
}

function watchOutput(io: Io, flags: WatchFlags): WatchOutput {
  const emit = (event: WatchEvent): void => {
    if (flags.jsonl) io.stdout.write(JSON.stringify(event) + '\n');
  };
  let seenProblems = new Set<string>();
  return {
    emit,
    warn: (message) => {
      if (flags.jsonl) emit({ type: 'error', time: new Date().toISOString(), message });
      else io.stderr.write(`airspace watch: ${printable(message)}\n`);
    },
    say: (message) => {
      if (!flags.jsonl) io.stderr.write(`airspace watch: ${printable(message)}\n`);
    },
    reportProblems: (problems) => {
      const now = new Set<string>();
      for (const problem of problems) {
        const key = `${problem.code}\u0000${problem.channel ?? ''}\u0000${problem.message}`;
        now.add(key);
        if (seenProblems.has(key)) continue;
        if (flags.jsonl) emit({ type: 'problem', time: new Date().toISOString(), problem });
        else io.stderr.write(`airspace watch: ${problem.message}\n`);
      }
      seenProblems = now;
    },
  };
}

/** Each scan's result → the tracker's events (raised, changed, cleared) and the dispatcher's triggers. */
function advisoryHandler(
  io: Io,
  flags: WatchFlags,
  out: WatchOutput,
  cooldownMs: number,
  commands: TriggerCommands | undefined,
): (result: ScanResult) => Promise<void> {
  const style = createStyle(colorWanted(io.stdout, io.env));
  let tracker: AdvisoryTracker | undefined;
  const dispatcher = new TriggerDispatcher({
    cooldownMs,
    sink: async (trigger) => {
      out.emit({ type: 'trigger', time: new Date().toISOString(), trigger });
      if (!flags.jsonl)
        io.stdout.write(printable(`${clock(Date.now())} TRIGGER  ${trigger.type} → ${trigger.to}: ${trigger.content}`) + '\n');
      commands?.enqueue(trigger);
    },
  });
  return async (result) => {
    out.reportProblems(result.problems);
    const time = Date.parse(result.generatedAt) || Date.now();
    const agents = new Map<string, Agent>(result.agents.map((a) => [a.id, a]));
    const links = new Map(result.links.map((l) => [pairKey(l.a, l.b), l]));
    // The scan's own thresholds (config, calibration) drive hysteresis and early escalation,
    // those of a config edited while watching included.
    if (tracker) tracker.setThresholds(result.thresholds);
    else tracker = new AdvisoryTracker({ thresholds: result.thresholds });
    for (const event of tracker.update(result.links, time, { complete: true })) {
      if (event.type === 'cleared') dispatcher.reset(event.a, event.b);
      if (flags.jsonl) out.emit({ ...event, time: new Date(event.time).toISOString() });
      else io.stdout.write(humanEvent(event, style) + '\n');
    }
    // Every active pair's triggers go to the dispatcher; its cooldown decides what is re-sent.
    const triggers = tracker.active().flatMap((pair) => {
      const link = links.get(pairKey(pair.a, pair.b));
      return triggersFor({ a: pair.a, b: pair.b, level: pair.level, risk: pair.risk, evidence: link?.evidence ?? [] }, agents);
    });
    const outcome = await dispatcher.dispatch(triggers, time);
    for (const p of outcome.problems) out.warn(p.message);
  };
}

function announceReady(
  io: Io,
  flags: WatchFlags,
  out: WatchOutput,
  first: ScanResult,
  following: ReturnType<ReturnType<typeof followChanges>['following']>,
  pollMs: number,
): void {
  out.emit({
    type: 'ready',
    time: new Date().toISOString(),
    agents: first.agents.map((a) => a.id),
    mode: following === 'poll' ? 'poll' : 'watch',
    via: following === 'engine' ? 'engine' : 'in-process',
  });
  if (flags.jsonl) return;
  const how =
    following === 'engine'
      ? "told of changes by the repository's engine"
      : following === 'watch'
        ? 'watching for changes'
        : `polling every ${pollMs} ms`;
  io.stderr.write(`airspace watch: ${first.agents.length} agents, ${how} (Ctrl-C to stop).\n`);
}
