/**
 * `airspace channels`: the channels a scan would use — built-ins and plugins from the config —
 * with where each comes from, its weight (and whether config, calibration or its default set
 * it), its precision, what it requires, and where it runs (plugins in a worker thread, with a time
 * budget). Problems loading plugins are listed, not fatal.
 */
import { Command } from 'commander';
import { describeChannels } from '@airspace/scanner';
import { addRepoOptions, scannerOptions, type RepoFlags } from '../options.js';
import { colorWanted, createStyle } from '../report/color.js';
import type { Io } from '../io.js';
import { printable, printableDeep } from '../report/printable.js';

interface ChannelsFlags extends RepoFlags {
  readonly json?: boolean;
}

export function channelsCommand(io: Io): Command {
  const command = new Command('channels')
    .description('list the channels a scan would use: source, weight, precision, requirements')
    .option('--json', 'print the listing as JSON');
  addRepoOptions(command).action(async (flags: ChannelsFlags) => {
    const { listing, thresholds, problems } = await describeChannels(scannerOptions(flags));
    if (flags.json) {
      io.stdout.write(JSON.stringify({ channels: listing, thresholds, problems }, null, 2) + '\n');
      return;
    }
    const style = createStyle(colorWanted(io.stdout, io.env));
    // Plugin ids, sources and messages are shown escaped, never obeyed.
    const rows = listing.map((c) =>
      printableDeep([
        c.id,
        c.enabled ? 'on' : 'off',
        `${c.weight.toFixed(2)} (${c.weightFrom})`,
        c.precision,
        c.requires.length > 0 ? c.requires.join(', ') : '—',
        c.budget ? `${c.isolation}, ${c.budget.channelMs} ms/scan` : c.isolation,
        c.source,
      ]),
    );
    const header = ['CHANNEL', 'STATE', 'WEIGHT', 'PRECISION', 'REQUIRES', 'RUNS', 'SOURCE'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
    io.stdout.write(style.bold(line(header)) + '\n');
    for (const [i, row] of rows.entries()) {
      const text = line(row);
      io.stdout.write((listing[i]!.enabled ? text : style.dim(text)) + '\n');
    }
    io.stdout.write(`\nthresholds: traffic ${thresholds.traffic}, resolution ${thresholds.resolution}\n`);
    for (const p of problems) io.stderr.write(`! ${printable(`${p.code}: ${p.message}`)}\n`);
  });
  return command;
}
