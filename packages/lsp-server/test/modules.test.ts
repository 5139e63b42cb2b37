/** The small modules server.ts was split into: lines, changes, command arguments. */
import { describe, expect, it } from 'vitest';
import { ChangeSet } from '../src/changes.js';
import { Commands, commandOf, parseIntentArgs } from '../src/commands.js';
import { coversLine, coversLines, firstLine, toLspRange } from '../src/lines.js';

describe('lines', () => {
  it('puts a finding on exactly the protocol lines its LSP range spans', () => {
    for (const range of [
      [8, 12],
      [5, 4],
      [1, 1],
      [3, 2],
      [1, 0],
    ] as const) {
      const { start, end } = toLspRange(range);
      for (let line0 = 0; line0 < 15; line0++)
        expect(coversLine(range, line0), `${range} @ ${line0}`).toBe(line0 >= start.line && line0 <= end.line);
    }
    // A point after line 4 shows at the start of line 5 (0-based 4), not on line 4.
    expect(coversLine([5, 4], 4)).toBe(true);
    expect(coversLine([5, 4], 3)).toBe(false);
    expect(coversLines([8, 12], 0, 6)).toBe(false);
    expect(coversLines([8, 12], 11, 20)).toBe(true);
    expect(firstLine([1, 0])).toBe(1);
    expect(firstLine(undefined)).toBe(1);
  });
});

describe('ChangeSet', () => {
  it('starts with everything changed, then says per worktree what did', () => {
    const c = new ChangeSet();
    c.path('/w/a', 'src/x.ts');
    expect(c.take()).toEqual({ full: true });
    c.path('/w/a', 'src\\y.ts');
    c.path('/w/a', 'src/x.ts');
    c.buffer('/w/b');
    expect(c.take()).toEqual({ full: false, changed: ['/w/a', '/w/b'], changedPaths: { '/w/a': ['src/x.ts', 'src/y.ts'], '/w/b': [] } });
    c.path('/w/a', 'src/x.ts');
    c.path('/w/a', undefined);
    c.path('/w/a', 'src/z.ts');
    expect(c.take()).toEqual({ full: true, changed: ['/w/a'], changedPaths: {} });
    expect(c.take()).toEqual({ full: false, changed: [], changedPaths: {} });
    c.all();
    c.worktree('/w/c');
    expect(c.take()).toEqual({ full: true });
  });
});

describe('command arguments', () => {
  it('builds a command with its typed arguments', () => {
    const loc = { uri: 'file:///w/a.ts', range: toLspRange([3, 3]) };
    expect(commandOf('Open', Commands.openOther, [loc])).toEqual({ title: 'Open', command: 'airspace.openOther', arguments: [loc] });
  });

  it('reads declareIntent in each of its three shapes', () => {
    expect(parseIntentArgs([{ files: ['a.ts'], folder: 'file:///w' }])).toEqual({ files: ['a.ts'], folder: 'file:///w' });
    expect(parseIntentArgs([['a.ts', 'b.ts']])).toEqual({ files: ['a.ts', 'b.ts'] });
    expect(parseIntentArgs(['a.ts', 'b.ts'])).toEqual({ files: ['a.ts', 'b.ts'] });
    expect(parseIntentArgs(undefined)).toEqual({ files: [] });
  });
});
