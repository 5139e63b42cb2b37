/**
 * Options shared by every command that scans (scan, watch, check, graph) and their translation
 * into scanner options.
 */
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { ScannerOptions } from '@airspace/scanner';
import { CliError } from './errors.js';

export interface RepoFlags {
  readonly repo?: string;
  readonly base?: string;
  readonly source?: string[];
  readonly config?: string;
  readonly calibration?: string;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function addRepoOptions(command: Command, what: { config?: boolean } = { config: true }): Command {
  command
    .option('--repo <dir>', 'any directory inside the repository', '.')
    .option('--base <ref>', 'base to compare agents against (default: origin/HEAD, main or master)')
    .addOption(
      new Option(
        '--source <spec>',
        "where agents come from: worktrees, branches, remote:PATTERN, published:REMOTE (teammates' published states), or json:FILE (observations; repeatable)",
      ).argParser(collect),
    );
  if (what.config !== false) {
    command
      .option('--config <file>', "config file (default: airspace.config.* at this worktree's root, else the main worktree's)")
      .option('--calibration <file>', 'calibration file written by `airspace eval --fit`');
  }
  return command;
}

/** An empty value (`--base ''`, often an unset shell variable) is refused, never read as the default. */
export function refuseEmpty(flags: RepoFlags): void {
  const given: [string, string | undefined][] = [
    ['--repo', flags.repo],
    ['--base', flags.base],
    ['--config', flags.config],
    ['--calibration', flags.calibration],
    ...(flags.source ?? []).map((s): [string, string] => ['--source', s]),
  ];
  for (const [flag, value] of given)
    if (value !== undefined && value.trim() === '')
      throw new CliError(`${flag} was given an empty value; leave the flag out to use the default.`);
}

export function scannerOptions(flags: RepoFlags): ScannerOptions {
  refuseEmpty(flags);
  return {
    repo: resolve(flags.repo ?? '.'),
    ...(flags.base ? { base: flags.base } : {}),
    ...(flags.source && flags.source.length > 0 ? { sources: flags.source } : {}),
    ...(flags.config ? { config: resolve(flags.config) } : {}),
    ...(flags.calibration ? { calibration: resolve(flags.calibration) } : {}),
  };
}
