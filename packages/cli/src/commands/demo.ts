import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { CliError } from '../errors.js';
import { scanRepository } from '@airspace/scanner';
import { createDemoRepository } from '../demo/fixture.js';
import { colorWanted, createStyle } from '../report/color.js';
import { createProgressBar } from '../report/progress.js';
import type { Io } from '../io.js';
import { printResult } from './scan.js';

interface DemoFlags {
  readonly keep?: boolean;
  readonly json?: boolean;
  readonly dir?: string;
}

/** `--dir` must be an existing folder: the demo creates only its own repository inside it, never a tree of parents. */
function existingFolder(cwd: string, given: string): string {
  if (given.trim() === '') throw new CliError('--dir needs a folder, got an empty one.');
  const dir = resolve(cwd, given);
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st) throw new CliError(`--dir ${given} does not exist; create it first (the demo adds only its own repository inside it).`);
  if (!st.isDirectory()) throw new CliError(`--dir ${given} is a file, not a folder.`);
  return dir;
}

export function demoCommand(io: Io): Command {
  return new Command('demo')
    .description('build a temporary repository with agents in worktrees that collide in different ways, scan it, print the table')
    .option('--keep', 'keep the repository afterwards (its path is printed) to explore with scan, watch and check')
    .option('--json', 'print the scan result as JSON instead of the table')
    .option('--dir <parent>', 'create the repository under this directory (default: the system temp directory)')
    .action(async (flags: DemoFlags) => {
      const style = createStyle(colorWanted(io.stdout, io.env));
      const demo = createDemoRepository(flags.dir === undefined ? undefined : existingFolder(io.cwd, flags.dir));
      try {
        if (!flags.json) {
          io.stdout.write(style.bold(`Demo repository with ${demo.agents.length} agents in worktrees:\n`));
          for (const a of demo.agents) io.stdout.write(`  ${a.id.padEnd(6)} ${a.does}\n`);
          io.stdout.write('\n');
        }
        const bar = createProgressBar(io.stderr);
        try {
          const result = await scanRepository({ repo: demo.root, base: 'main', onProgress: (p) => bar.update(p) });
          bar.done();
          printResult(io, result, flags);
        } finally {
          bar.done();
        }
        if (flags.keep) {
          const hint = `\nKept the demo repository at ${demo.root} (worktrees in ${demo.root}-wt).\nTry: airspace scan --repo ${demo.root}\n`;
          // With --json, stdout carries only the JSON document.
          (flags.json ? io.stderr : io.stdout).write(hint);
        }
      } finally {
        if (!flags.keep) demo.fixture.dispose();
      }
    });
}
