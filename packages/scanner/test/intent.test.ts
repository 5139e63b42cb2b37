import { describe, expect, it } from 'vitest';
import type { Agent } from '@airspace/core';
import { applyIntent, applyIntentMap } from '../src/intent.js';

const alice: Agent = {
  id: 'alice', label: 'alice', startedAt: 0, committedWork: 1,
  files: [{ path: 'a.ts', status: 'modified', weight: 0.5, baseRanges: [[10, 12]], newRanges: [[10, 14]], hunks: [{ base: [10, 12], current: [10, 14] }] }],
};

describe('applyIntent', () => {
  it('adds a whole-file edit of weight 1 for a path without lines', () => {
    const out = applyIntent(alice, ['./b.ts']);
    expect(out.files.find((f) => f.path === 'b.ts')).toMatchObject({ weight: 1, baseRanges: 'whole', status: 'modified' });
    expect(out.intent).toEqual(['b.ts']);
  });

  it('maps intended current lines to base lines through the agent\'s hunks and unions them', () => {
    // Current line 20 is base line 18: the hunk before it added two lines.
    const out = applyIntent(alice, [{ path: 'a.ts', lines: [20, 21] }]);
    expect(out.files[0]).toMatchObject({ weight: 1, baseRanges: [[10, 12], [18, 19]], newRanges: [[10, 14], [20, 21]] });
  });

  it('creates agents for ids that have only intent', () => {
    const out = applyIntentMap([alice], { zed: ['z.ts'] }, { base: 'abc' });
    expect(out.map((a) => a.id)).toEqual(['alice', 'zed']);
    expect(out[1]).toMatchObject({ base: 'abc', committedWork: 0, intent: ['z.ts'] });
  });
});
