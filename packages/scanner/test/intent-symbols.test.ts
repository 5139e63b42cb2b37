/**
 * Declared symbols at symbol precision: `path#name` is resolved to the definition's lines at the
 * merge base, so the symbol channels score that definition and not every definition of the file;
 * a name the file does not define counts as the whole file, with a problem saying so.
 */
import { describe, expect, it } from 'vitest';
import { createRepoFixture } from '@airspace/git/fixture';
import type { ScanResult } from '@airspace/core';
import { scanRepository } from '../src/scanner.js';
import { resolveIntentSymbols } from '../src/intent.js';

const source = [
  'export function foo(x: number): number {',
  '  const y = x + 1;',
  '  return y * 2;',
  '}',
  '',
  'export function bar(x: number): number {',
  '  const y = x - 1;',
  '  return y * 3;',
  '}',
  '',
  'export class Parser {',
  '  parse(text: string): string {',
  '    return text.trim();',
  '  }',
  '}',
  '',
].join('\n');

const symbolsEvidence = (result: ScanResult, a: string, b: string) =>
  result.links.find((l) => [l.a, l.b].sort().join() === [a, b].sort().join())?.channels.find((c) => c.channel === 'symbols')?.evidence ??
  [];

describe('resolveIntentSymbols', () => {
  const defs = [
    { name: 'foo', qualifiedName: 'foo', startLine: 1, endLine: 4 },
    { name: 'parse', qualifiedName: 'Parser.parse', startLine: 12, endLine: 14 },
  ];
  it('gives a qualified or unique name its lines at the base, and keeps paths and lines as they are', () => {
    const { intent, problems } = resolveIntentSymbols(
      { alice: ['b.ts', { path: 'a.ts', symbol: 'Parser.parse' }, { path: 'a.ts', symbol: 'foo' }, { path: 'a.ts', lines: [3, 3] }] },
      (path) => (path === 'a.ts' ? defs : undefined),
    );
    expect(intent.alice).toEqual([
      'b.ts',
      { path: 'a.ts', symbol: 'Parser.parse', baseLines: [12, 14] },
      { path: 'a.ts', symbol: 'foo', baseLines: [1, 4] },
      { path: 'a.ts', lines: [3, 3] },
    ]);
    expect(problems).toEqual([]);
  });

  it('counts a symbol it cannot find as the whole file, and says so', () => {
    const { intent, problems } = resolveIntentSymbols({ alice: [{ path: 'a.ts', symbol: 'nope' }] }, () => defs);
    expect(intent.alice).toEqual([{ path: 'a.ts' }]);
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'INTENT_SYMBOL_NOT_FOUND',
        agent: 'alice',
        path: 'a.ts',
        message: expect.stringMatching(/whole file counts/),
      }),
    ]);
  });
});

describe('a scan with declared symbols', () => {
  it('scores the declared definition, not every definition of its file', { timeout: 120_000 }, async () => {
    const repo = createRepoFixture({ 'src/a.ts': source });
    try {
      // bob changes bar's body, carol foo's; alice has changed nothing yet and declares foo.
      repo.worktree('bob').write('src/a.ts', source.replace('x - 1', 'x - 2'));
      repo.worktree('carol').write('src/a.ts', source.replace('x + 1', 'x + 2'));
      const declared = await scanRepository({ repo: repo.dir }, { intent: { alice: [{ path: 'src/a.ts', symbol: 'foo' }] } });
      expect(declared.problems.filter((p) => p.code.startsWith('INTENT'))).toEqual([]);
      expect(declared.agents.map((a) => a.id).sort()).toEqual(['alice', 'bob', 'carol']);
      expect(declared.agents.find((a) => a.id === 'alice')?.files).toEqual([
        expect.objectContaining({ path: 'src/a.ts', baseRanges: [[1, 4]], declared: true }),
      ]);
      expect(symbolsEvidence(declared, 'alice', 'bob')).toEqual([]);
      const withCarol = symbolsEvidence(declared, 'alice', 'carol');
      expect(withCarol.length).toBeGreaterThan(0);
      expect(withCarol.map((e) => e.message).join('\n')).toMatch(/\bfoo\b/);
      expect(withCarol.map((e) => e.message).join('\n')).not.toMatch(/\bbar\b/);
      // Look-ahead: traffic at most.
      expect(declared.links.every((l) => l.level !== 'resolution' || ![l.a, l.b].includes('alice'))).toBe(true);

      // A name the file does not define: the whole file, with the note.
      const missing = await scanRepository({ repo: repo.dir }, { intent: { alice: [{ path: 'src/a.ts', symbol: 'nope' }] } });
      expect(missing.problems).toEqual(
        expect.arrayContaining([expect.objectContaining({ code: 'INTENT_SYMBOL_NOT_FOUND', agent: 'alice' })]),
      );
      expect(missing.agents.find((a) => a.id === 'alice')?.files[0]).toMatchObject({ baseRanges: 'whole' });
      expect(symbolsEvidence(missing, 'alice', 'bob').length).toBeGreaterThan(0);
    } finally {
      repo.dispose();
    }
  });
});
