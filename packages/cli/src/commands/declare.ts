/**
 * `airspace declare PATH… [--symbol PATH#NAME]… [--note TEXT]`: declared intent from the command
 * line, for a model that has a pre-edit hook but not the MCP server (its advice names this
 * command), and for scripts. The same declaration as MCP `declare_intent`: it counts at once for
 * every other agent's check, replaces this agent's previous one, and expires; `--withdraw` takes
 * it back. Asked through the repository's engine, else in-process: the same answer.
 */
import { Command } from 'commander';
import { engineDisabled } from '@airspace/engine/client';
import { declaredText } from '@airspace/engine/advice';
import type { DeclareIntentRequest, DeclareIntentResult } from '@airspace/engine';
import { answerThroughEngine } from '../engine-answer.js';
import { CliError } from '../errors.js';
import type { Io } from '../io.js';
import { printable } from '../report/printable.js';

interface DeclareFlags {
  readonly symbol?: string[];
  readonly note?: string;
  readonly minutes?: string;
  readonly withdraw?: boolean;
  readonly agent?: string;
  readonly json?: boolean;
  readonly engine?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function declareCommand(io: Io): Command {
  return new Command('declare')
    .description(
      "declare the files (and symbols) this agent is about to change: they count at once in every other agent's check; --withdraw takes it back",
    )
    .argument('[paths...]', 'files about to change, relative to the current directory')
    .option('--symbol <path#name>', 'a definition about to change (repeatable): counts as its lines, not the whole file', collect)
    .option('--note <text>', 'one sentence for the others: what and why')
    .option('--minutes <n>', 'how long the declaration holds (default 60)')
    .option('--withdraw', "withdraw this agent's declaration")
    .option('--agent <id>', "the agent declaring (default: the agent of the current directory's worktree)")
    .option('--json', 'print the answer as JSON')
    .option('--no-engine', "answer in-process instead of through the repository's resident engine")
    .action(async (paths: string[], flags: DeclareFlags) => {
      const symbols = flags.symbol ?? [];
      if (flags.withdraw && paths.length + symbols.length > 0) throw new CliError('--withdraw takes no paths or symbols.');
      if (!flags.withdraw && paths.length + symbols.length === 0)
        throw new CliError('declare needs the paths (or --symbol) about to change, or --withdraw.');
      const minutes = flags.minutes === undefined ? undefined : Number(flags.minutes);
      if (minutes !== undefined && !(minutes > 0 && minutes <= 24 * 60))
        throw new CliError(`--minutes needs a number of minutes between 1 and 1440, got "${flags.minutes}".`);
      const request: DeclareIntentRequest = {
        cwd: io.cwd,
        paths,
        symbols,
        ...(flags.note ? { note: flags.note } : {}),
        ...(minutes ? { ttlMs: minutes * 60_000 } : {}),
        ...(flags.agent ? { agent: flags.agent } : {}),
      };
      let result: DeclareIntentResult | undefined;
      if (flags.engine !== false && !engineDisabled(io.env))
        result = await answerThroughEngine<DeclareIntentResult>(io, {
          cwd: io.cwd,
          method: 'declareIntent',
          request,
          answerMs: 180_000,
          verbose: Boolean(io.env.AIRSPACE_VERBOSE),
          doing: 'declaring',
        });
      if (!result) {
        const { EngineCore, InputError, findCommonDir } = await import('@airspace/engine');
        const core = new EngineCore({ commonDir: findCommonDir(io.cwd) ?? '', resident: false });
        try {
          result = await core.declareIntent(request);
        } catch (error) {
          throw error instanceof InputError ? new CliError(error.message) : error;
        } finally {
          await core.dispose();
        }
      }
      if (flags.json) io.stdout.write(JSON.stringify(result, null, 2) + '\n');
      else io.stdout.write(declaredText(result, { tools: 'cli' }).text.split('\n').map(printable).join('\n') + '\n');
    });
}
