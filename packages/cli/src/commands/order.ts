/**
 * `airspace order`: the order in which to merge the current agents into the base that meets the
 * fewest conflicts (exact by cumulative `git merge-tree` in scratch objects, see
 * @airspace/scanner's order.ts), with what each step conflicts with and who should rebase.
 */
import { Command } from 'commander';
import { mergeOrder, type MergeOrder } from '@airspace/scanner';
import { CliError } from '../errors.js';
import type { Io } from '../io.js';
import { addRepoOptions, scannerOptions, type RepoFlags } from '../options.js';
import { printable } from '../report/printable.js';
import { createProgressBar } from '../report/progress.js';

interface OrderFlags extends RepoFlags {
  readonly json?: boolean;
  readonly exactLimit: string;
}

export function renderOrder(order: MergeOrder): string {
  if (order.steps.length === 0) return 'No agents with work to merge.\n';
  const lines = [
    `Merge into ${order.base.ref} (${order.base.commit.slice(0, 12)}) in this order${order.exact ? '' : ' (greedy where the search was too large, or predicted where a state could not be merged)'}:`,
  ];
  order.steps.forEach((step, i) => {
    lines.push(`${String(i + 1).padStart(3)}. ${step.agent}${step.exact ? '' : ' (predicted)'}`);
    for (const c of step.conflicts) lines.push(`       conflicts with ${c.with}: ${c.paths.join(', ')}`);
    lines.push(`       ${step.advice}`);
  });
  return lines.map(printable).join('\n') + '\n';
}

export function orderCommand(io: Io): Command {
  const command = new Command('order')
    .description('the order in which to merge the current agents into the base that meets the fewest conflicts, and who should rebase')
    .option('--json', 'print { order, steps: [{ agent, conflicts: [{ with, paths }], advice }] } as JSON')
    .option('--exact-limit <n>', 'search every order of up to this many agents that can conflict; greedy beyond', '10');
  addRepoOptions(command).action(async (flags: OrderFlags) => {
    const exactLimit = Number(flags.exactLimit);
    if (!Number.isInteger(exactLimit) || exactLimit < 1)
      throw new CliError(`--exact-limit must be a positive whole number, got "${flags.exactLimit}".`);
    const bar = createProgressBar(io.stderr);
    let found;
    try {
      found = await mergeOrder({
        ...scannerOptions(flags),
        exactLimit,
        onProgress: (p) => bar.update(p),
        onMerge: (done, total) => bar.update({ phase: 'scan', done, total, message: 'merges (git merge-tree)' }),
      });
    } finally {
      bar.done();
    }
    const { order, result } = found;
    if (flags.json) {
      io.stdout.write(
        JSON.stringify(
          { order: order.order, steps: order.steps, exact: order.exact, base: order.base, problems: result.problems },
          null,
          2,
        ) + '\n',
      );
      return;
    }
    io.stdout.write(renderOrder(order));
    for (const p of result.problems) io.stderr.write(`airspace order: ${printable(p.message)}\n`);
  });
  return command;
}
