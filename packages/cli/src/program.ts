/**
 * The `airspace` program: commander, one module per command. `run` never throws: every error
 * becomes one sentence on stderr and a non-zero exit code. The runner itself is in runner.ts, so
 * that `airspace check` can start with the check command alone (bin.ts).
 */
import { channelsCommand } from './commands/channels.js';
import { checkCommand } from './commands/check.js';
import { declareCommand } from './commands/declare.js';
import { demoCommand } from './commands/demo.js';
import { doctorCommand } from './commands/doctor.js';
import { engineCommand } from './commands/engine.js';
import { evalCommand } from './commands/eval.js';
import { graphCommand } from './commands/graph.js';
import { lspCommand } from './commands/lsp.js';
import { mcpCommand } from './commands/mcp.js';
import { orderCommand } from './commands/order.js';
import { publishCommand } from './commands/publish.js';
import { scanCommand } from './commands/scan.js';
import { trailCommand } from './commands/trail.js';
import { viewCommand } from './commands/view.js';
import { watchCommand } from './commands/watch.js';
import { processIo, type Io } from './io.js';
import { buildProgram, runProgram, type CommandFactory } from './runner.js';
import type { Command } from 'commander';

export { VERSION, type CommandFactory } from './runner.js';

export const COMMANDS: readonly CommandFactory[] = [
  scanCommand,
  watchCommand,
  checkCommand,
  declareCommand,
  viewCommand,
  graphCommand,
  publishCommand,
  orderCommand,
  channelsCommand,
  evalCommand,
  trailCommand,
  demoCommand,
  lspCommand,
  engineCommand,
  mcpCommand,
  doctorCommand,
];

export function createProgram(io: Io = processIo(), extra: readonly CommandFactory[] = []): Command {
  return buildProgram(io, [...COMMANDS, ...extra]);
}

export async function run(argv: readonly string[], io: Io = processIo(), extra: readonly CommandFactory[] = []): Promise<void> {
  await runProgram(createProgram(io, extra), argv, io);
}
