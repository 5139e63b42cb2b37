import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Range } from '../src/model.js';
import {
  anyConflict,
  conflicts,
  intersectionSize,
  isInsertion,
  isValidRange,
  mapToCurrent,
  nearestDistance,
  nearestPair,
  normalizeRanges,
  overlapCoefficient,
  rangesConflict,
  rangesSize,
  sanitizeRanges,
  unionRanges,
  describeRange,
} from '../src/ranges.js';

/** The rule, stated independently: closed integer intervals [s − 1, e] intersect. */
function gitConflict(a: Range, b: Range): boolean {
  const ia = new Set<number>();
  for (let k = a[0] - 1; k <= a[1]; k++) ia.add(k);
  for (let k = b[0] - 1; k <= b[1]; k++) if (ia.has(k)) return true;
  return false;
}

function lines(ranges: readonly Range[]): Set<number> {
  const out = new Set<number>();
  for (const [s, e] of ranges) for (let k = s; k <= e; k++) out.add(k);
  return out;
}

const range = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 8 })).map(([s, n]) => [s, s + n] as Range),
  fc.integer({ min: 1, max: 41 }).map((s) => [s, s - 1] as Range),
);
const ranges = fc.array(range, { maxLength: 8 });

describe('conflict rule (git: closed intervals [s−1, e] intersect)', () => {
  const table: [string, Range, Range, boolean][] = [
    ['overlapping changes', [3, 8], [5, 10], true],
    ['one inside the other', [1, 20], [5, 6], true],
    ['identical ranges', [4, 4], [4, 4], true],
    ['adjacent (touching) changes', [1, 3], [4, 6], true],
    ['adjacent, other order', [4, 6], [1, 3], true],
    ['one-line gap is clean', [1, 3], [5, 6], false],
    ['far apart', [1, 3], [50, 60], false],
    ['insertion just before a change', [4, 3], [4, 6], true],
    ['insertion just after a change', [7, 6], [4, 6], true],
    ['insertion inside a change', [5, 4], [4, 6], true],
    ['insertion one line away before', [3, 2], [4, 6], false],
    ['insertion one line away after', [8, 7], [4, 6], false],
    ['two insertions at the same point', [4, 3], [4, 3], true],
    ['two insertions one line apart', [4, 3], [5, 4], false],
    ['insertions at the top of the file', [1, 0], [1, 0], true],
    ['top insertion and a change of line 1', [1, 0], [1, 1], true],
    ['top insertion and a change of line 2', [1, 0], [2, 2], false],
  ];
  it.each(table)('%s: %j × %j → %s', (_name, a, b, expected) => {
    expect(rangesConflict(a, b)).toBe(expected);
    expect(gitConflict(a, b)).toBe(expected);
    expect(conflicts([a], [b]).length > 0).toBe(expected);
    expect(anyConflict([a], [b])).toBe(expected);
  });

  it('conflicts() reports exactly the conflicting pairs', () => {
    fc.assert(
      fc.property(ranges, ranges, (a, b) => {
        const expected: string[] = [];
        for (const x of a) for (const y of b) if (gitConflict(x, y)) expected.push(JSON.stringify([x, y]));
        const got = conflicts(a, b).map((c) => JSON.stringify([c.a, c.b]));
        expect(got.sort()).toEqual(expected.sort());
      }),
    );
  });

  it('nearestDistance is 0 iff something conflicts, and counts the unchanged lines between', () => {
    fc.assert(
      fc.property(ranges, ranges, (a, b) => {
        let expected = Infinity;
        for (const x of a)
          for (const y of b) {
            const gap = gitConflict(x, y) ? 0 : Math.max(y[0] - 1 - x[1], x[0] - 1 - y[1]);
            expected = Math.min(expected, gap);
          }
        expect(nearestDistance(a, b)).toBe(expected);
      }),
    );
    expect(nearestDistance([[1, 3]], [[5, 6]])).toBe(1);
    expect(nearestDistance([[1, 3]], [])).toBe(Infinity);
  });
});

describe('set algebra', () => {
  it('normalize merges overlapping and adjacent lines, keeps distinct insertion points', () => {
    expect(
      normalizeRanges([
        [5, 9],
        [1, 3],
        [4, 4],
        [20, 19],
        [20, 19],
        [12, 11],
        [8, 12],
      ]),
    ).toEqual([
      [1, 12],
      [20, 19],
    ]);
    expect(
      normalizeRanges([
        [1, 3],
        [6, 5],
      ]),
    ).toEqual([
      [1, 3],
      [6, 5],
    ]);
    expect(
      normalizeRanges([
        [1, 3],
        [4, 3],
      ]),
    ).toEqual([[1, 3]]); // insertion after line 3 touches [1,3]
    expect(
      normalizeRanges([
        [1, 3],
        [5, 4],
      ]),
    ).toEqual([
      [1, 3],
      [5, 4],
    ]); // after line 4: one line away
    expect(normalizeRanges([])).toEqual([]);
  });

  it('normalize preserves the line set and the conflict relation', () => {
    fc.assert(
      fc.property(ranges, range, (a, probe) => {
        const n = normalizeRanges(a);
        expect([...lines(n)].sort((x, y) => x - y)).toEqual([...lines(a)].sort((x, y) => x - y));
        expect(a.some((r) => gitConflict(r, probe))).toBe(n.some((r) => gitConflict(r, probe)));
        // Sorted, and conflict intervals pairwise disjoint.
        for (let i = 1; i < n.length; i++) expect(n[i]![0] - 1).toBeGreaterThan(n[i - 1]![1]);
      }),
    );
  });

  it('size, intersection and union agree with line sets', () => {
    fc.assert(
      fc.property(ranges, ranges, (a, b) => {
        const la = lines(a);
        const lb = lines(b);
        expect(rangesSize(a)).toBe(la.size);
        expect(intersectionSize(a, b)).toBe([...la].filter((k) => lb.has(k)).length);
        expect(rangesSize(unionRanges(a, b))).toBe(new Set([...la, ...lb]).size);
        const oc = overlapCoefficient(a, b);
        expect(oc).toBeGreaterThanOrEqual(0);
        expect(oc).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('overlap coefficient stays high for a small edit inside a large one', () => {
    expect(overlapCoefficient([[1, 100]], [[40, 41]])).toBe(1);
    expect(overlapCoefficient([[1, 10]], [[6, 15]])).toBe(0.5);
    expect(overlapCoefficient([[1, 10]], [[20, 30]])).toBe(0);
    expect(overlapCoefficient([[5, 4]], [[1, 10]])).toBe(0);
  });

  it('costs O(ranges), not O(lines)', () => {
    const huge: Range[] = [
      [1, 1e12],
      [2e12, 3e12],
    ];
    expect(rangesSize(huge)).toBe(1e12 + 1e12 + 1);
    expect(intersectionSize(huge, [[5e11, 2.5e12]])).toBe(5e11 + 1 + 5e11 + 1);
  });
});

describe('validation and mapping', () => {
  it('accepts integral ranges with end ≥ start − 1 and reports the others', () => {
    expect(isValidRange([1, 0])).toBe(true);
    expect(isValidRange([3, 1])).toBe(false);
    expect(isValidRange([0, 0])).toBe(false);
    expect(isValidRange([1.5, 2])).toBe(false);
    expect(isValidRange([Number.NaN, 2])).toBe(false);
    expect(isInsertion([4, 3])).toBe(true);
    const { ranges: kept, problems } = sanitizeRanges([[1, 2], [5, 1], 'x'], { agent: 'alice', path: 'a.ts' });
    expect(kept).toEqual([[1, 2]]);
    expect(problems).toHaveLength(2);
    expect(problems[0]!.code).toBe('INVALID_RANGE');
    expect(problems[0]!.message).toContain('alice a.ts');
  });

  it('maps base ranges to current lines through hunks', () => {
    // 50 lines inserted at the top, line 10 changed into 3 lines, lines 20–21 deleted.
    const hunks = [
      { base: [1, 0] as Range, current: [1, 50] as Range },
      { base: [10, 10] as Range, current: [59, 61] as Range },
      { base: [20, 21] as Range, current: [72, 71] as Range },
    ];
    expect(mapToCurrent(hunks, [10, 10])).toEqual([59, 61]);
    expect(mapToCurrent(hunks, [5, 6])).toEqual([55, 56]);
    expect(mapToCurrent(hunks, [12, 12])).toEqual([64, 64]);
    expect(mapToCurrent(hunks, [30, 30])).toEqual([80, 80]);
    expect(mapToCurrent(hunks, [8, 12])).toEqual([58, 64]);
    expect(mapToCurrent(hunks, [20, 21])).toEqual([72, 71]);
    expect(mapToCurrent(hunks, [19, 22])).toEqual([71, 72]);
    expect(mapToCurrent(hunks, [15, 14])).toEqual([67, 66]);
    expect(mapToCurrent([], [3, 4])).toEqual([3, 4]);
  });
});

describe('nearestPair', () => {
  it('returns a pair from each side at the nearest distance', () => {
    fc.assert(
      fc.property(ranges, ranges, (a, b) => {
        const pair = nearestPair(a, b);
        if (a.length === 0 || b.length === 0) {
          expect(pair).toBeUndefined();
          return;
        }
        expect(a).toContainEqual(pair!.a);
        expect(b).toContainEqual(pair!.b);
        expect(nearestDistance([pair!.a], [pair!.b])).toBe(pair!.distance);
        expect(pair!.distance).toBe(nearestDistance(a, b));
      }),
    );
    expect(
      nearestPair(
        [
          [1, 3],
          [30, 31],
        ],
        [
          [10, 12],
          [33, 33],
        ],
      ),
    ).toEqual({ a: [30, 31], b: [33, 33], distance: 1 });
  });
});

describe('describeRange', () => {
  it('names lines and insertion points as evidence does', () => {
    expect(describeRange([4, 4])).toBe('line 4');
    expect(describeRange([4, 6])).toBe('lines 4–6');
    expect(describeRange([4, 3])).toBe('an insertion after line 3');
    expect(describeRange([1, 0])).toBe('an insertion at the top');
  });
});
