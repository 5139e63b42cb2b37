import { describe, expect, it } from 'vitest';
import { describeNames, describeRanges, groupRuns, sharesOrWithinGap, spanOf, type Range } from '../src/index.js';

interface F {
  readonly id: string;
  readonly key?: string;
  readonly a: Range;
  readonly b?: Range;
}
const f = (id: string, a: Range, key: string | undefined = 'k', b?: Range): F => ({ id, key, a, ...(b ? { b } : {}) });
const runs = (items: F[]) =>
  groupRuns(
    items,
    (x) => x.key,
    (x) => [x.a, x.b],
  ).map((run) => run.map((x) => x.id));

describe('groupRuns', () => {
  it('joins neighbours (at most two lines apart) of one key and breaks where a gap is wider', () => {
    expect(runs([f('1', [1, 1]), f('2', [2, 2]), f('3', [5, 6]), f('4', [10, 10])])).toEqual([['1', '2', '3'], ['4']]);
  });

  it('keeps keys apart, never groups a finding without a key, and keeps the order of first findings', () => {
    const items = [f('x', [1, 1], undefined), f('b1', [3, 3], 'b'), f('a1', [1, 1], 'a'), f('b2', [4, 4], 'b'), f('a2', [2, 2], 'a')];
    expect(runs(items)).toEqual([['x'], ['b1', 'b2'], ['a1', 'a2']]);
  });

  it('breaks a run when any side is not a neighbour', () => {
    expect(runs([f('1', [1, 1], 'k', [1, 1]), f('2', [2, 2], 'k', [40, 40]), f('3', [3, 3], 'k', [41, 41])])).toEqual([['1'], ['2', '3']]);
  });
});

describe('describeNames and spanOf', () => {
  it('words one, two, three and many names', () => {
    expect(describeNames(['v1'])).toBe('v1');
    expect(describeNames(['v1', 'v2'])).toBe('v1 and v2');
    expect(describeNames(['v1', 'v2', 'v3'])).toBe('v1, v2 and v3');
    expect(describeNames(['v35', 'v36', 'v37', 'v52'])).toBe('v35–v52 (4 symbols)');
  });

  it('words ranges: each of up to three, else their span and count', () => {
    expect(
      describeRanges([
        [12, 12],
        [30, 30],
        [55, 56],
      ]),
    ).toBe('line 12, line 30 and lines 55–56');
    expect(
      describeRanges([
        [10, 10],
        [12, 12],
        [14, 14],
        [16, 18],
      ]),
    ).toBe('lines 10–18, 4 changes');
    expect(
      describeRanges([
        [320, 319],
        [327, 326],
        [334, 333],
        [341, 340],
      ]),
    ).toBe('4 insertions after lines 319–340');
  });

  it('joins pairs of changes that share one large change, however far apart the small ones are', () => {
    const pairs: [Range, Range][] = [
      [
        [10, 60],
        [12, 12],
      ],
      [
        [10, 60],
        [40, 40],
      ],
      [
        [100, 100],
        [100, 100],
      ],
    ];
    const runs = groupRuns(
      pairs,
      () => 'k',
      (p) => p,
      sharesOrWithinGap,
    );
    expect(runs.map((r) => r.length)).toEqual([2, 1]);
  });

  it('spans ranges', () => {
    expect(
      spanOf([
        [5, 6],
        [1, 2],
        [9, 8],
      ]),
    ).toEqual([1, 8]);
  });
});
