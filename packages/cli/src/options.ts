/**
 * Options shared by every command that scans (scan, watch, check, graph) and their translation
 * into scanner options.
 */
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { ScannerOptions } from '@airspace/scanner';

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
    .addOption(new Option('--source <spec>', 'where agents come from: worktrees, branches, remote:PATTERN, or an observations JSON file (repeatable)').argParser(collect));
  if (what.config !== false) {
    command
      .option('--config <file>', 'config file (default: airspace.config.json at the repository root)')
      .option('--calibration <file>', 'calibration file written by `airspace eval --fit`');
  }
  return command;
}

export function scannerOptions(flags: RepoFlags): ScannerOptions {
  return {
    repo: resolve(flags.repo ?? '.'),
    ...(flags.base ? { base: flags.base } : {}),
    ...(flags.source && flags.source.length > 0 ? { sources: flags.source } : {}),
    ...(flags.config ? { config: resolve(flags.config) } : {}),
    ...(flags.calibration ? { calibration: resolve(flags.calibration) } : {}),
  };
}
