/**
 * `airspace scan`: one scan of the repository, as a table or as JSON.
 *
 * Asked through the repository's resident engine (found, or started detached) and, when it cannot
 * start or answer, or with `--no-engine` / `AIRSPACE_ENGINE=off`, in-process: the same function
 * (`@airspace/engine`'s `EngineCore.scanFor`), the same answer — declared intent counted, every
 * flag honoured. This module loads only the engine's light client; the scanner is loaded when the
 * scan runs in this process.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { ScanResult } from '@airspace/core';
import type { ScanRequest } from '@airspace/engine';
import { engineDisabled } from '@airspace/engine/client';
import { answerThroughEngine } from '../engine-answer.js';
import { CliError, ExitCode } from '../errors.js';
import { addRepoOptions, refuseEmpty, type RepoFlags } from '../options.js';
import { colorWanted, createStyle } from '../report/color.js';
import { createProgressBar } from '../report/progress.js';
import { renderTable } from '../report/table.js';
import type { Io } from '../io.js';

interface ScanFlags extends RepoFlags {
  readonly json?: boolean;
  readonly failOn?: 'traffic' | 'resolution';
  readonly all?: boolean;
  /** `--no-engine`: scan in-process. */
  readonly engine?: boolean;
  readonly verbose?: boolean;
}

/**
 * Exit code for `--fail-on`: ADVISORY when any advisory reaches the given level; ERROR when the
 * scan could not check what the gate asks (no parser loaded: the channels needing code facts
 * were not checked), since a gate must not pass on what nobody looked at.
 */
export function failOnExit(result: ScanResult, failOn?: 'traffic' | 'resolution'): number {
  if (!failOn) return ExitCode.OK;
  if (result.problems.some((p) => p.code === 'PARSER_UNAVAILABLE')) return ExitCode.ERROR;
  const hit = failOn === 'traffic' ? result.counts.traffic + result.counts.resolution : result.counts.resolution;
  return hit > 0 ? ExitCode.ADVISORY : ExitCode.OK;
}

/** For `--verbose`, when the scan's facts did not come from the native parser: `parser: wasm (why)` or `parser: none (why)`. */
export function parserLine(result: Pick<ScanResult, 'problems'>): string | undefined {
  const wasm = result.problems.find((p) => p.code === 'PARSER_WASM');
  if (wasm) return `parser: wasm (${wasm.message})`;
  const none = result.problems.find((p) => p.code === 'PARSER_UNAVAILABLE' && p.channel === undefined);
  return none ? `parser: none (${none.message})` : undefined;
}

/** The human or JSON report of one scan, as `scan` and `demo` print it. */
export function printResult(io: Io, result: ScanResult, flags: { json?: boolean; all?: boolean }): void {
  if (flags.json) io.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else io.stdout.write(renderTable(result, { style: createStyle(colorWanted(io.stdout, io.env)), ...(flags.all ? { all: true } : {}) }));
}

/** How long a scan waits for the engine's answer before scanning in-process (a first one indexes the repository). */
const ENGINE_ANSWER_MS = 15 * 60_000;

/** The flags of scan as a request, relative paths relative to `cwd`. */
export function scanRequest(cwd: string, flags: RepoFlags): ScanRequest {
  refuseEmpty(flags);
  return {
    cwd,
    ...(flags.repo !== undefined && flags.repo !== '.' ? { repo: flags.repo } : {}),
    ...(flags.base ? { base: flags.base } : {}),
    ...(flags.source?.length ? { sources: flags.source } : {}),
    ...(flags.config ? { config: flags.config } : {}),
    ...(flags.calibration ? { calibration: flags.calibration } : {}),
  };
}

/**
 * Why the engine cannot answer this request the way this process would, if it cannot: a `--repo`
 * that is no directory (the error is this process's to give), a source spelled as a bare file
 * name (its hint looks for the file where this process runs).
 */
function engineCannotServe(request: ScanRequest): string | undefined {
  const dir = resolve(request.cwd, request.repo ?? '.');
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return `${dir} is not a directory`;
  const known = /^(worktrees|branches|(remote|published|json):.+)$/;
  const odd = request.sources?.find((s) => !known.test(s));
  return odd === undefined ? undefined : `the source "${odd}" is read in this process`;
}

/** The engine's answer, or undefined (with a note in verbose mode) when it has none to give. */
export async function scanThroughEngine(io: Io, request: ScanRequest, verbose: boolean): Promise<ScanResult | undefined> {
  const cannot = engineCannotServe(request);
  if (cannot) {
    if (verbose) io.stderr.write(`airspace: scanning in-process: ${cannot}.\n`);
    return undefined;
  }
  return answerThroughEngine<ScanResult>(io, {
    cwd: resolve(request.cwd, request.repo ?? '.'),
    method: 'scan',
    request,
    answerMs: ENGINE_ANSWER_MS,
    verbose,
    doing: 'scanning',
    // A person at a terminal sees why the first scan takes a while (no progress bar from the engine).
    startedText: (pid) =>
      verbose || io.stderr.isTTY ? `started the repository's engine (pid ${pid}); its first scan indexes the repository.` : undefined,
  });
}

/** One scan: through the engine when it can answer, else in this process (with a progress bar). */
export async function runScan(io: Io, flags: ScanFlags): Promise<ScanResult> {
  const request = scanRequest(io.cwd, flags);
  const verbose = flags.verbose === true || Boolean(io.env.AIRSPACE_VERBOSE);
  if (flags.engine !== false && !engineDisabled(io.env)) {
    const answer = await scanThroughEngine(io, request, verbose);
    if (answer) return answer;
  } else if (verbose) io.stderr.write('airspace: scanning in-process (engine off).\n');
  const { scanInProcess, InputError } = await import('@airspace/engine');
  const bar = createProgressBar(io.stderr);
  try {
    return await scanInProcess(request, (p) => bar.update(p));
  } catch (error) {
    throw error instanceof InputError ? new CliError(error.message) : error;
  } finally {
    bar.done();
  }
}

export function scanCommand(io: Io): Command {
  const command = new Command('scan')
    .description('scan the repository once: every pair of agents by risk, with level, channels and evidence')
    .option('--json', 'print the scan result as JSON (the stable contract)')
    .option('--all', 'also list clear pairs with a non-zero risk')
    .addOption(
      new Option('--fail-on <level>', 'exit 2 when an advisory at or above this level exists, 1 when no parser loaded').choices([
        'traffic',
        'resolution',
      ]),
    )
    .option('--no-engine', "scan in-process instead of asking the repository's resident engine (also AIRSPACE_ENGINE=off)")
    .option('--verbose', 'say on stderr whether the engine answered, and why not');
  addRepoOptions(command).action(async (flags: ScanFlags) => {
    const result = await runScan(io, flags);
    const parser = flags.verbose === true || io.env.AIRSPACE_VERBOSE ? parserLine(result) : undefined;
    if (parser) io.stderr.write(`airspace: ${parser}\n`);
    // The code first: a reader that goes away mid-output (`| head`) must not turn a failing gate into 0.
    io.exitCode(failOnExit(result, flags.failOn));
    printResult(io, result, flags);
  });
  return command;
}
