/**
 * `airspace check PATH [--lines A-B]`: the write-time guard for agent harnesses. The answer is
 * about the edit about to happen (the checking agent's working set replaced by "this file, these
 * lines"), scored against every other agent; exit 0 clear, 2 traffic or resolution, 1 error.
 *
 * Asked through the repository's resident engine (started detached on the first check) and,
 * when it cannot start or answer, or with `--no-engine` / `AIRSPACE_ENGINE=off`, in-process: the
 * same function (`@airspace/engine`'s `runCheck`), the same answer. This module loads only the
 * engine's light client, so a check through the engine costs little more than Node's start.
 */
import { isAbsolute, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { engineDisabled, nearestDirectory } from '@airspace/engine/client';
import { checkText } from '@airspace/engine/advice';
import type { CheckRequest, CheckResult } from '@airspace/engine';
import { levelRank } from '@airspace/core';
import { answerThroughEngine } from '../engine-answer.js';
import { CliError, ExitCode } from '../errors.js';
import type { Io } from '../io.js';
import { addRepoOptions, refuseEmpty, type RepoFlags } from '../options.js';
import { colorWanted, createStyle } from '../report/color.js';
import { printable, printableDeep } from '../report/printable.js';
import { createProgressBar } from '../report/progress.js';
import { formatChannels, formatEvidence, formatRange } from '../report/table.js';
import { parserLine } from './scan.js';
import { toolCallTarget } from './tool-call.js';

export type { CheckConflict, CheckResult, DiffHunk } from '@airspace/engine';

interface CheckFlags extends RepoFlags {
  readonly lines?: string;
  readonly agent?: string;
  readonly json?: boolean;
  /** `--no-engine`: scan in-process. */
  readonly engine?: boolean;
  readonly verbose?: boolean;
  readonly toolCall?: boolean;
  /** `--with-mcp`: the model also has Airspace's MCP tools, so the advice may name them. */
  readonly withMcp?: boolean;
  readonly failOn?: 'traffic' | 'resolution';
}

/** How long a check waits for the engine's answer before scanning in-process (the first one is a cold scan). */
const ENGINE_ANSWER_MS = 180_000;

/** The engine's answer, or undefined (with a note in verbose mode) when it has none to give. */
function checkThroughEngine(io: Io, request: CheckRequest, verbose: boolean): Promise<CheckResult | undefined> {
  return answerThroughEngine<CheckResult>(io, {
    cwd: nearestDirectory(resolve(request.cwd, request.target)),
    method: 'check',
    request,
    answerMs: ENGINE_ANSWER_MS,
    verbose,
    doing: 'checking',
    startedText: (pid) => (verbose ? `started the engine (pid ${pid}).` : undefined),
  });
}

export async function runCheck(io: Io, target: string, flags: CheckFlags, cwd = io.cwd): Promise<CheckResult> {
  refuseEmpty(flags);
  const request: CheckRequest = {
    cwd,
    target,
    ...(flags.lines !== undefined ? { lines: flags.lines } : {}),
    ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
    ...(flags.repo !== undefined && flags.repo !== '.' ? { repo: flags.repo } : {}),
    ...(flags.base ? { base: flags.base } : {}),
    ...(flags.source?.length ? { source: flags.source } : {}),
    ...(flags.config ? { config: flags.config } : {}),
    ...(flags.calibration ? { calibration: flags.calibration } : {}),
  };
  const verbose = flags.verbose === true || Boolean(io.env.AIRSPACE_VERBOSE);
  // The engine serves the repository's own configuration; explicit scanner flags are answered in-process.
  const custom = Boolean(flags.base || flags.source?.length || flags.config || flags.calibration || request.repo);
  if (flags.engine !== false && !engineDisabled(io.env) && !custom && target.trim() !== '') {
    const answer = await checkThroughEngine(io, request, verbose);
    if (answer) return answer;
  } else if (verbose)
    io.stderr.write(
      `airspace: checking in-process (${flags.engine === false || engineDisabled(io.env) ? 'engine off' : 'explicit scanner flags'}).\n`,
    );
  const { checkInProcess, InputError } = await import('@airspace/engine');
  const bar = createProgressBar(io.stderr);
  try {
    return await checkInProcess(request, (p) => bar.update(p));
  } catch (error) {
    throw error instanceof InputError ? new CliError(error.message) : error;
  } finally {
    bar.done();
  }
}

function readStdin(): Promise<string> {
  return new Promise((resolveText, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d: string) => (text += d));
    process.stdin.on('end', () => resolveText(text));
    process.stdin.on('error', reject);
  });
}

/**
 * Claude Code's structured answer of a PreToolUse hook that lets the call through: the advice as
 * `additionalContext`, which the harness adds to the model's context before the tool runs (plain
 * stdout of a passing hook reaches only the transcript). Harnesses that read no JSON ignore it.
 */
export function hookAnswer(advice: string): object {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: advice } };
}

/** Shown escaped, never obeyed: ids, paths and the other side's lines may hold escape sequences (a hunk keeps its line breaks). */
function printableCheck(answer: CheckResult): CheckResult {
  const conflicts = answer.conflicts.map((c) => ({
    ...printableDeep({ ...c, hunks: [] }),
    hunks: c.hunks.map((h) => ({ ...printableDeep(h), text: h.text.split('\n').map(printable).join('\n') })),
  }));
  return { ...printableDeep({ ...answer, conflicts: [] }), conflicts };
}

/**
 * The exit code of an answer below the gate's level: ERROR when `--fail-on` was given and no
 * parser loaded (the channels needing code facts were not checked: the gate cannot pass), else OK.
 */
function unchecked(io: Io, answer: CheckResult, failOn: CheckFlags['failOn']): number {
  const none = failOn ? answer.problems.find((p) => p.code === 'PARSER_UNAVAILABLE' && p.channel === undefined) : undefined;
  if (!none) return ExitCode.OK;
  io.stderr.write(`airspace: ${printable(none.message)}\n`);
  return ExitCode.ERROR;
}

export function checkCommand(io: Io): Command {
  const command = new Command('check')
    .description('would editing PATH (these lines) now collide with another agent? exit 0 clear, 2 traffic or resolution, 1 error')
    .argument(
      '[path]',
      'file about to be edited (relative to --repo DIR when given, else to the current directory); PATH:A-B also names its lines',
    )
    .option('--lines <A-B>', 'the lines about to change, in the file as it is now (default: the whole file); several ranges as A-B,C-D')
    .option('--agent <id>', 'the agent about to edit (default: the agent whose worktree holds PATH)')
    .option('--json', "print the answer as JSON, with the other side's diff hunks")
    .option('--no-engine', "scan in-process instead of asking the repository's resident engine (also AIRSPACE_ENGINE=off)")
    .option('--verbose', 'say on stderr whether the engine answered, and why not')
    .option(
      '--tool-call',
      "a pre-edit hook: read the edit from the harness's tool call as JSON on standard input (Claude Code's PreToolUse input); exit 2 with advice on stderr on resolution, else exit 0 with traffic advice as Claude Code's additionalContext on stdout",
    )
    .option('--with-mcp', "with --tool-call: the model also has Airspace's MCP tools (declare_intent, acknowledge); the advice names them")
    .addOption(
      new Option(
        '--fail-on <level>',
        'exit 2 when the answer reaches this level (default: traffic; resolution with --tool-call); given, 1 when no parser loaded',
      ).choices(['traffic', 'resolution']),
    );
  addRepoOptions(command).action(async (given: string | undefined, flags: CheckFlags) => {
    if (flags.toolCall) {
      if (given !== undefined) throw new CliError('--tool-call reads the file from the tool call on standard input; leave out PATH.');
      // Nothing to judge (a Read, a file outside the work tree or in .git, an edit that changes nothing): silent, exit 0.
      const call = toolCallTarget(await readStdin(), io.cwd);
      if (!call) return;
      const answer = await runCheck(
        io,
        call.target,
        { ...flags, ...(call.lines && flags.lines === undefined ? { lines: call.lines } : {}) },
        call.cwd,
      );
      const failOn = flags.failOn ?? 'resolution';
      const blocks = levelRank(answer.level) >= levelRank(failOn);
      io.exitCode(blocks ? ExitCode.ADVISORY : unchecked(io, answer, flags.failOn));
      if (answer.level !== 'traffic' && answer.level !== 'resolution') {
        if (flags.json) io.stdout.write(JSON.stringify(answer, null, 2) + '\n');
        // A clear answer given while the index warms up is not the full answer: the model is told.
        else if (answer.problems.some((p) => p.code === 'WARMING_UP' && p.channel === undefined))
          io.stdout.write(JSON.stringify(hookAnswer(checkText(answer).text.split('\n').map(printable).join('\n'))) + '\n');
        return;
      }
      const text = checkText(answer, { tools: flags.withMcp ? 'mcp' : 'cli' })
        .text.split('\n')
        .map(printable)
        .join('\n');
      // A blocking hook's stderr reaches the model (exit 2); a passing one's does not, so the
      // advice goes to it as Claude Code's structured answer on stdout (additionalContext), unless
      // --json asks for the answer itself.
      io.stderr.write(text + '\n');
      if (flags.json) io.stdout.write(JSON.stringify(answer, null, 2) + '\n');
      else if (!blocks) io.stdout.write(JSON.stringify(hookAnswer(text)) + '\n');
      return;
    }
    if (given === undefined) throw new CliError('check needs PATH, the file about to be edited (or --tool-call).');
    // With --repo DIR, a relative PATH names a file of DIR (as DIR is the repository read), not of the shell's directory.
    const inRepo = flags.repo !== undefined && flags.repo !== '.' && given.trim() !== '' && !isAbsolute(given);
    const target = inRepo ? resolve(io.cwd, flags.repo!, given) : given;
    const answer = await runCheck(io, target, flags);
    const parser = flags.verbose === true || io.env.AIRSPACE_VERBOSE ? parserLine(answer) : undefined;
    if (parser) io.stderr.write(`airspace: ${printable(parser)}\n`);
    // The code first: a reader that goes away mid-output (`| head`) must not turn an advisory into 0.
    io.exitCode(levelRank(answer.level) >= levelRank(flags.failOn ?? 'traffic') ? ExitCode.ADVISORY : unchecked(io, answer, flags.failOn));
    if (flags.json) io.stdout.write(JSON.stringify(answer, null, 2) + '\n');
    else {
      const result = printableCheck(answer);
      const style = createStyle(colorWanted(io.stdout, io.env));
      const lines = result.ranges ?? (result.lines ? [result.lines] : []);
      const what = `${result.path}${lines.length ? `:${lines.map(formatRange).join(',')}` : ''}${result.new ? ' (new file)' : ''}`;
      if (result.new) io.stdout.write(style.dim(`${result.path} does not exist yet: checking ${result.agent} creating it.\n`));
      // A partial answer (the index still warming up): its CLEAR is not the full answer's, and it says why.
      const partial = result.problems.find((p) => p.code === 'WARMING_UP' && p.channel === undefined);
      if (result.conflicts.length === 0)
        io.stdout.write(
          partial
            ? `${style.level('clear', 'CLEAR')}  ${what}: no other agent is close by the channels checked so far.\n`
            : `${style.level('clear', 'CLEAR')}  ${what}: no other agent is close.\n`,
        );
      for (const c of result.conflicts) {
        io.stdout.write(
          `${style.level(c.level, c.level.toUpperCase())}  ${what} × ${c.with}  risk ${c.risk.toFixed(2)}  ${formatChannels(c)}\n`,
        );
        for (const e of c.evidence.slice(0, 3)) io.stdout.write(`  ${style.dim('·')} ${formatEvidence(e)}\n`);
        if (c.steer && c.hold) io.stdout.write(`  ${style.dim('→')} ${c.steer} steers away, ${c.hold} holds course\n`);
        for (const h of c.hunks.slice(0, 3))
          io.stdout.write(
            `  ${style.dim(`${c.with}'s change to ${h.path}:`)}\n${h.text
              .split('\n')
              .map((l) => `    ${l}`)
              .join('\n')}\n`,
          );
      }
      // Say which channels could not judge a hypothetical edit (the merge channel).
      for (const p of result.problems) if (p.code === 'PROBE_WITHOUT_CHANNEL') io.stdout.write(`${style.dim(`note: ${p.message}`)}\n`);
      if (partial) io.stdout.write(`${partial.message}\n`);
      // Everything else that shaped the answer (a config that could not be read, or which one
      // applies), as `scan` prints it; each channel not yet checked is named by the partial note.
      const shown = (p: { code: string }): boolean => p.code !== 'PROBE_WITHOUT_CHANNEL' && p.code !== 'WARMING_UP';
      for (const p of result.problems) if (shown(p)) io.stdout.write(`${style.dim(`! ${p.message}`)}\n`);
    }
  });
  return command;
}
