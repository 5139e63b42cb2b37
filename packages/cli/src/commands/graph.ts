/**
 * `airspace graph`: the import graph of a worktree as the analysis sees it (tree-sitter facts,
 * module resolution) — the graph the dependency channel walks.
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { graphJson, loadParser } from '@airspace/analysis';
import { openRepository } from '@airspace/git';
import { indexWorktree } from '@airspace/scanner';
import type { Io } from '../io.js';
import { refuseEmpty } from '../options.js';
import { printableDeep } from '../report/printable.js';
import { colorWanted, createStyle } from '../report/color.js';
import { createProgressBar } from '../report/progress.js';

interface GraphFlags {
  readonly repo: string;
  readonly json?: boolean;
}

export function graphCommand(io: Io): Command {
  return new Command('graph')
    .description('print the import graph of a worktree (the graph the dependency channel walks)')
    .option('--repo <dir>', 'any directory inside the worktree', '.')
    .option('--json', 'print the graph as JSON: files, edges, edgeKinds, external, unresolved, skipped, partial')
    .action(async (flags: GraphFlags) => {
      refuseEmpty(flags);
      const repository = await openRepository(resolve(io.cwd, flags.repo));
      // Loaded here as the parse would (once per thread), to say so when none is available.
      const parser = await loadParser();
      const bar = createProgressBar(io.stderr);
      const index = await indexWorktree(repository.root, (p) =>
        bar.update({ phase: 'index', done: p.done, total: p.total, message: p.phase }),
      ).finally(() => bar.done());
      const raw = graphJson(index);
      if (flags.json) {
        io.stdout.write(JSON.stringify(raw, null, 2) + '\n');
        return;
      }
      const style = createStyle(colorWanted(io.stdout, io.env));
      // File names may hold newlines or escape sequences: shown escaped, never obeyed.
      const graph = printableDeep(raw);
      const byImporter = new Map<string, string[]>();
      graph.edges.forEach(([from, to], i) => {
        // A plain value import reads as before; other kinds are named (`(type-only)`).
        const kinds = graph.edgeKinds[i]!.filter((k) => k !== 'value');
        const label = kinds.length > 0 && !graph.edgeKinds[i]!.includes('value') ? ` ${style.dim(`(${kinds.join(', ')})`)}` : '';
        byImporter.set(from, [...(byImporter.get(from) ?? []), `${to}${label}`]);
      });
      for (const [from, targets] of byImporter) {
        io.stdout.write(`${from}\n`);
        for (const to of targets) io.stdout.write(`  ${style.dim('→')} ${to}\n`);
      }
      if (byImporter.size > 0) io.stdout.write('\n');
      io.stdout.write(
        `${graph.files.length} source files, ${graph.edges.length} imports between them, ${graph.external.length} external, ` +
          `${graph.unresolved.length} unresolved, ${graph.skipped.length} skipped, ${graph.partial.length} parsed with errors\n`,
      );
      // The import scanner reads most files without a parser; the others were skipped.
      if (parser.kind === 'none')
        io.stdout.write(
          style.dim(`! No tree-sitter parser loaded (${parser.why}): files the import scanner could not read were skipped.\n`),
        );
      for (const u of graph.unresolved.slice(0, 10)) io.stdout.write(style.dim(`! ${u.from}:${u.line} "${u.specifier}": ${u.reason}\n`));
    });
}
