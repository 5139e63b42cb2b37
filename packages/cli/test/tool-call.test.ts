/**
 * A harness's tool call read as the lines each edit changes: the line diff behind it (every
 * changed line of the file covered, nothing far from a change named) and the calls themselves.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { changedLines, toolCallTarget } from '../src/commands/tool-call.js';

const numbered = (n: number): string[] => Array.from({ length: n }, (_, i) => `line ${i + 1}`);
const text = (lines: readonly string[]): string => lines.join('\n') + '\n';

describe('changedLines', () => {
  it('names each changed run of lines on its own, insertions at the line before them', () => {
    const base = numbered(2000);
    const two = [...base];
    two[30] = 'x';
    two[1600] = 'y';
    expect(changedLines(text(base), text(two))).toEqual([
      [31, 31],
      [1601, 1601],
    ]);
    const inserted = [...base];
    inserted.splice(10, 0, 'new', 'new');
    expect(changedLines(text(base), text(inserted))).toEqual([[10, 10]]);
    expect(changedLines(text(base), text(['top', ...base]))).toEqual([[1, 1]]);
    const deleted = [...base];
    deleted.splice(10, 3);
    expect(changedLines(text(base), text(deleted))).toEqual([[11, 13]]);
    expect(changedLines(text(base), text(base))).toEqual([]);
    // Past the bound on the diff's length, the changed middle is one range.
    expect(changedLines(text(base), text(base.map((l, i) => (i % 2 ? l : `${l}!`))), 10)).toEqual([[1, 1999]]);
  });

  it('covers every line it replaces or deletes, and names no line more than one away from a change', () => {
    const edit = fc.record({ at: fc.nat(59), remove: fc.nat(3), insert: fc.nat(3) });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        const base = numbered(60);
        // Apply from the bottom up, remembering which original lines were touched.
        const after = [...base];
        const touched = new Set<number>();
        const near = new Set<number>();
        for (const e of [...edits].sort((x, y) => y.at - x.at)) {
          const remove = Math.min(e.remove, after.length - e.at);
          for (let i = 0; i < remove; i++) if (after[e.at + i]!.startsWith('line ')) touched.add(Number(after[e.at + i]!.slice(5)));
          after.splice(e.at, remove, ...Array.from({ length: e.insert }, (_, i) => `new ${e.at}.${i}`));
          for (let d = -1; d <= remove + 1; d++) near.add(e.at + d);
        }
        const ranges = changedLines(text(base), text(after));
        for (const line of touched) expect(ranges.some(([s, end]) => s <= line && line <= end)).toBe(true);
        for (const [s, end] of ranges) for (let l = s; l <= end; l++) expect(near.has(l - 1) || near.has(l) || touched.has(l)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('toolCallTarget', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airspace-tool-call-'));
  mkdirSync(join(dir, 'repo', '.git'), { recursive: true });
  const file = join(dir, 'repo', 'a.ts');
  writeFileSync(file, text(['const a = old;', ...numbered(10), 'const b = old;']));
  writeFileSync(join(dir, 'outside.ts'), 'x\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const target = (call: object) => toolCallTarget(JSON.stringify({ cwd: join(dir, 'repo'), ...call }), dir);

  it('judges Edit, replace_all, MultiEdit and Write by the lines they change', () => {
    expect(target({ tool_name: 'Edit', tool_input: { file_path: file, old_string: 'old', new_string: 'new' } })?.lines).toBe('1-1');
    expect(
      target({ tool_name: 'Edit', tool_input: { file_path: file, old_string: 'old', new_string: 'new', replace_all: true } })?.lines,
    ).toBe('1-1,12-12');
    const edits = [
      { old_string: 'line 3', new_string: 'L3' },
      { old_string: 'L3', new_string: 'L3 again' },
    ];
    expect(target({ tool_name: 'MultiEdit', tool_input: { file_path: file, edits } })?.lines).toBe('4-4');
    expect(
      target({ tool_name: 'Write', tool_input: { file_path: file, content: text(['x', ...numbered(10), 'const b = old;']) } })?.lines,
    ).toBe('1-1');
  });

  it('lets through what it cannot or need not judge, and judges the whole file where lines cannot be known', () => {
    expect(target({ tool_name: 'Read', tool_input: { file_path: file } })).toBeUndefined();
    expect(
      target({ tool_name: 'Edit', tool_input: { file_path: join(dir, 'outside.ts'), old_string: 'x', new_string: 'y' } }),
    ).toBeUndefined();
    expect(target({ tool_name: 'Write', tool_input: { file_path: join(dir, 'repo', '.git', 'config'), content: '' } })).toBeUndefined();
    expect(
      target({ tool_name: 'Write', tool_input: { file_path: file, content: text(['const a = old;', ...numbered(10), 'const b = old;']) } }),
    ).toBeUndefined();
    expect(target({ tool_name: 'Edit', tool_input: { file_path: file, old_string: 'not there', new_string: 'y' } })).toEqual({
      cwd: join(dir, 'repo'),
      target: file,
    });
    expect(target({ tool_name: 'Write', tool_input: { file_path: join(dir, 'repo', 'new.ts'), content: 'x' } })?.lines).toBeUndefined();
    expect(() => toolCallTarget('not json', dir)).toThrow(/expects the tool call as JSON/);
  });
});
