/**
 * The commander program and its runner, without the commands: `run` never throws; every error
 * becomes one sentence on stderr and a non-zero exit code.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { describeError, ExitCode } from './errors.js';
import type { Io } from './io.js';
import { printable } from './report/printable.js';

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

/** Extra subcommands contributed by other packages (e.g. `trail`, `view`, `lsp`). */
export type CommandFactory = (io: Io) => Command;

export function buildProgram(io: Io, commands: readonly CommandFactory[]): Command {
  const program = new Command('airspace')
    .description('TCAS for code: how close concurrent coding agents in git worktrees are to colliding, with evidence.')
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  for (const make of commands) program.addCommand(make(io));
  // Every subcommand reports parse errors (unknown option, missing argument) instead of exiting itself.
  const exitOverride = (c: Command): void => {
    c.exitOverride();
    c.configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
    c.showHelpAfterError('(run with --help for usage)');
    c.commands.forEach(exitOverride);
  };
  exitOverride(program);
  return program;
}

export async function runProgram(program: Command, argv: readonly string[], io: Io): Promise<void> {
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; commander already printed parse errors.
      io.exitCode(error.exitCode === 0 ? ExitCode.OK : ExitCode.ERROR);
      return;
    }
    const message = describeError(error);
    io.stderr.write(`airspace: ${io.env.AIRSPACE_DEBUG ? message : printable(message)}\n`);
    io.exitCode(ExitCode.ERROR);
  }
}
