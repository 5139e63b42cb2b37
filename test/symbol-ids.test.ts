/**
 * Symbol ids (`path#name`) are split in one place, core's `parseSymbolId`, with one rule for a
 * `#` in a path, a private member (`Store.#cache`) and a malformed id. A source file that splits an
 * id by hand (`indexOf('#')`, `lastIndexOf('#')`, `split('#')`) brings back a rule of its own; the
 * failure names the file and line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the rule lives. */
const HOME = 'packages/core/src/services.ts';
const HAND_SPLIT = /\b(?:lastIndexOf|indexOf|split)\(\s*(?:(['"`])#\1|\/#\/)/;

function sourcesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : sourcesUnder(p);
    return /\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

describe('symbol ids', () => {
  it('are split only by parseSymbolId', () => {
    const found: string[] = [];
    for (const group of ['packages', 'plugins', 'examples'])
      for (const pkg of readdirSync(join(ROOT, group)))
        for (const file of sourcesUnder(join(ROOT, group, pkg, 'src'))) {
          const rel = relative(ROOT, file).split('\\').join('/');
          if (rel === HOME) continue;
          readFileSync(file, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              if (HAND_SPLIT.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
            });
        }
    expect(found, 'split symbol ids with parseSymbolId (@airspace/core)').toEqual([]);
  });
});
