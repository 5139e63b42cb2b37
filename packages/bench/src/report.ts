/**
 * What every benchmark does with its figures: medians, and a Markdown block written between
 * `<!-- MARKER -->` and `<!-- /MARKER -->` in a docs page (`--write`), replaced in place on the
 * next run so that the page keeps its prose around the table.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** The upper median (the middle value, or the higher of the two middle ones). */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Replace the block marked `marker` in `file` with `markdown` (or append it; a missing file starts as "# Benchmarks"). */
export function writeMarkedBlock(file: string, marker: string, markdown: string): void {
  const begin = `<!-- ${marker} -->`;
  const end = `<!-- /${marker} -->`;
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const block = `${begin}\n${markdown}\n${end}`;
  const i = old.indexOf(begin);
  const j = old.indexOf(end, i);
  // Sliced, not a regular expression's replace: a figure's `$` stays as written.
  writeFileSync(file, i >= 0 && j > i ? old.slice(0, i) + block + old.slice(j + end.length) : `${old.trimEnd()}\n\n${block}\n`);
}
