/**
 * The typecheck channel in the whole pipeline (git, analysis, every built-in): what the compiler
 * finds in a pair's merge decides the level, over the symbols channel's guess.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Link } from '@airspace/core';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { scanRepository } from '../src/index.js';

const lines = (...l: string[]) => l.join('\n') + '\n';

let repo: RepoFixture | undefined;
afterEach(() => {
  repo?.dispose();
  repo = undefined;
});

const BASE = {
  'tsconfig.json': lines(
    '{',
    '  "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true },',
    '  "include": ["src"]',
    '}',
  ),
  'package.json': lines('{ "name": "shop", "private": true, "type": "module" }'),
  'src/format.ts': lines('export function format(value: number, unit: string): string {', '  return `${value} ${unit}`;', '}'),
  'src/checkout.ts': lines(
    "import { format } from './format.js';",
    '',
    'export function total(cents: number): string {',
    '  return format(cents, "EUR");',
    '}',
  ),
};

/** One agent changes format(); two others add calls of it in files they already had. */
async function scan(formatTs: string, calls: readonly string[]): Promise<readonly Link[]> {
  repo = createRepoFixture(BASE, { epoch: Math.floor(Date.now() / 1000) - 600 });
  repo.worktree('ann').write('src/format.ts', formatTs);
  for (const [i, call] of calls.entries()) {
    const id = i === 0 ? 'ben' : 'cat';
    repo
      .worktree(id)
      .write(
        'src/checkout.ts',
        lines("import { format } from './format.js';", '', 'export function total(cents: number): string {', `  return ${call};`, '}'),
      );
  }
  const result = await scanRepository({ repo: repo.dir, base: 'main' });
  return result.links;
}

const pair = (links: readonly Link[], a: string, b: string) => links.find((l) => l.a === a && l.b === b)!;
const part = (l: Link, id: string) => l.channels.find((c) => c.channel === id)!;

describe('typecheck in a scan', () => {
  it('a parameter made optional against new one-argument calls: checked, not a collision, not a resolution', async () => {
    const links = await scan(lines('export function format(value: number, unit = "EUR"): string {', '  return `${value} ${unit}`;', '}'), [
      'format(cents)',
      'format(cents / 100)',
    ]);
    for (const other of ['ben', 'cat']) {
      const l = pair(links, 'ann', other);
      // The symbols channel still guesses a signature read…
      expect(part(l, 'symbols').risk).toBeCloseTo(0.9);
      // …but the compiler checked the merge and found nothing new: it overrules the guess.
      expect(part(l, 'typecheck')).toMatchObject({ risk: 0 });
      expect(part(l, 'typecheck').evidence[0]!.message).toMatch(/^checked: the merge of ann and (ben|cat) type-checks with no new error/);
      expect(l.level).not.toBe('resolution');
      expect(l.levelReason).toMatch(/symbols overruled: the compiler checked the merge/);
    }
  }, 60_000);

  it('a parameter added against a new one-argument call: a resolution, with the compiler as evidence', async () => {
    const links = await scan(
      lines('export function format(value: number, unit: string, digits: number): string {', '  return value.toFixed(digits) + unit;', '}'),
      ['format(cents, "USD")'],
    );
    const l = pair(links, 'ann', 'ben');
    expect(l.level).toBe('resolution');
    expect(part(l, 'typecheck').risk).toBe(1);
    expect(l.evidence[0]!.message).toBe(
      'merging ann and ben: src/checkout.ts:4 TS2554 Expected 3 arguments, but got 2 — ann changed format at src/format.ts:1–3',
    );
  }, 60_000);
});
