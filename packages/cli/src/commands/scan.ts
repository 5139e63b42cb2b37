import { Command, Option } from 'commander';
import type { ScanResult } from '@airspace/core';
import { scanRepository } from '@airspace/scanner';
import { ExitCode } from '../errors.js';
import { addRepoOptions, scannerOptions, type RepoFlags } from '../options.js';
import { colorWanted, createStyle } from '../report/color.js';
import { createProgressBar } from '../report/progress.js';
import { renderTable } from '../report/table.js';
import type { Io } from '../io.js';

interface ScanFlags extends RepoFlags {
  readonly json?: boolean;
  readonly failOn?: 'traffic' | 'resolution';
  readonly all?: boolean;
}

/** Exit code for `--fail-on`: ADVISORY when any advisory reaches the given level. */
export function failOnExit(result: ScanResult, failOn?: 'traffic' | 'resolution'): number {
  if (!failOn) return ExitCode.OK;
  const hit = failOn === 'traffic' ? result.counts.traffic + result.counts.resolution : result.counts.resolution;
  return hit > 0 ? ExitCode.ADVISORY : ExitCode.OK;
}

/** The human or JSON report of one scan, as `scan` and `demo` print it. */
export function printResult(io: Io, result: ScanResult, flags: { json?: boolean; all?: boolean }): void {
  if (flags.json) io.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else io.stdout.write(renderTable(result, { style: createStyle(colorWanted(io.stdout, io.env)), ...(flags.all ? { all: true } : {}) }));
}

export function scanCommand(io: Io): Command {
  const command = new Command('scan')
    .description('scan the repository once: every pair of agents by risk, with level, channels and evidence')
    .option('--json', 'print the scan result as JSON (the stable contract)')
    .option('--all', 'also list clear pairs with a non-zero risk')
    .addOption(new Option('--fail-on <level>', 'exit 2 when an advisory at or above this level exists').choices(['traffic', 'resolution']));
  addRepoOptions(command).action(async (flags: ScanFlags) => {
    const options = scannerOptions(flags);
    const bar = createProgressBar(io.stderr);
    let result: ScanResult;
    try {
      result = await scanRepository({ ...options, onProgress: (p) => bar.update(p) });
    } finally {
      bar.done();
    }
    // The code first: a reader that goes away mid-output (`| head`) must not turn a failing gate into 0.
    io.exitCode(failOnExit(result, flags.failOn));
    printResult(io, result, flags);
  });
  return command;
}
