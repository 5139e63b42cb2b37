import { describe, expect, it } from 'vitest';
import type { Agent } from '@airspace/core';
import { applyIntent, applyIntentMap, probeAgent } from '../src/intent.js';

const alice: Agent = {
  id: 'alice',
  label: 'alice',
  startedAt: 0,
  committedWork: 1,
  files: [
    {
      path: 'a.ts',
      status: 'modified',
      weight: 0.5,
      baseRanges: [[10, 12]],
      newRanges: [[10, 14]],
      hunks: [{ base: [10, 12], current: [10, 14] }],
    },
  ],
};

describe('applyIntent', () => {
  it('adds a whole-file edit of weight 1 for a path without lines', () => {
    const out = applyIntent(alice, ['./b.ts']);
    expect(out.files.find((f) => f.path === 'b.ts')).toMatchObject({ weight: 1, baseRanges: 'whole', status: 'modified' });
    expect(out.intent).toEqual(['b.ts']);
  });

  it("maps intended current lines to base lines through the agent's hunks and unions them", () => {
    // Current line 20 is base line 18: the hunk before it added two lines.
    const out = applyIntent(alice, [{ path: 'a.ts', lines: [20, 21] }]);
    expect(out.files[0]).toMatchObject({
      weight: 1,
      baseRanges: [
        [10, 12],
        [18, 19],
      ],
      newRanges: [
        [10, 14],
        [20, 21],
      ],
    });
  });

  it("marks declared edits, and applies an agent's own declared intent (observations)", () => {
    const planned: Agent = { ...alice, files: [], intent: ['./b.ts'] };
    const [out] = applyIntentMap([planned], undefined);
    expect(out!.files).toEqual([{ path: 'b.ts', status: 'modified', weight: 1, baseRanges: 'whole', newRanges: 'whole', declared: true }]);
    expect(out!.intent).toEqual(['b.ts']);
  });

  it('creates agents for ids that have only intent', () => {
    const out = applyIntentMap([alice], { zed: ['z.ts'] }, { base: 'abc' });
    expect(out.map((a) => a.id)).toEqual(['alice', 'zed']);
    expect(out[1]).toMatchObject({ base: 'abc', committedWork: 0, intent: ['z.ts'] });
  });
});

describe('probeAgent', () => {
  it('makes the working set exactly the probed lines, mapped to base lines through the real hunks', () => {
    // Current line 20 is base line 18; alice's real change (base 10–12) no longer counts.
    const out = probeAgent(alice, [{ path: 'a.ts', lines: [20, 21] }]);
    expect(out.files).toEqual([{ path: 'a.ts', status: 'modified', weight: 1, baseRanges: [[18, 19]], newRanges: [[20, 21]] }]);
    expect(out.meta).toMatchObject({ probe: true });
    expect(out.intent).toEqual(['a.ts']);
  });

  it('probes a path without lines, or a file without line information, as a whole-file edit', () => {
    const whole: Agent = { ...alice, files: [{ path: 'big.ts', status: 'modified', weight: 1, baseRanges: 'whole', newRanges: 'whole' }] };
    expect(probeAgent(whole, [{ path: 'big.ts', lines: [10, 10] }]).files[0]).toMatchObject({ baseRanges: 'whole' });
    expect(probeAgent(alice, ['b.ts']).files).toEqual([
      { path: 'b.ts', status: 'modified', weight: 1, baseRanges: 'whole', newRanges: 'whole' },
    ]);
  });
});
