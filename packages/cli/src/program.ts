/**
 * The `airspace` program: commander, one module per command. `run` never throws: every error
 * becomes one sentence on stderr and a non-zero exit code.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { channelsCommand } from './commands/channels.js';
import { checkCommand } from './commands/check.js';
import { demoCommand } from './commands/demo.js';
import { evalCommand } from './commands/eval.js';
import { graphCommand } from './commands/graph.js';
import { lspCommand } from './commands/lsp.js';
import { orderCommand } from './commands/order.js';
import { publishCommand } from './commands/publish.js';
import { scanCommand } from './commands/scan.js';
import { trailCommand } from './commands/trail.js';
import { viewCommand } from './commands/view.js';
import { watchCommand } from './commands/watch.js';
import { describeError, ExitCode } from './errors.js';
import { processIo, type Io } from './io.js';
import { printable } from './report/printable.js';

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Extra subcommands an embedder adds to the built-in ones (no package of ours contributes any). */
export type CommandFactory = (io: Io) => Command;

export function createProgram(io: Io = processIo(), extra: readonly CommandFactory[] = []): Command {
  const program = new Command('airspace')
    .description('TCAS for code: how close concurrent coding agents in git worktrees are to colliding, with evidence.')
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  for (const make of [scanCommand, watchCommand, checkCommand, viewCommand, graphCommand, publishCommand, orderCommand, channelsCommand, evalCommand, trailCommand, demoCommand, lspCommand, ...extra]) program.addCommand(make(io));
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

export async function run(argv: readonly string[], io: Io = processIo(), extra: readonly CommandFactory[] = []): Promise<void> {
  const program = createProgram(io, extra);
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
