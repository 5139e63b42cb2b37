import { describe, expect, it } from 'vitest';
import type { Hunk } from '@airspace/core';
import { baseToCurrent, currentToBase, mapLine } from '../src/mapping.js';

// Insert 50 lines at the top, replace base 10–20 by 11 lines, delete base 30–31, insert 2 after base 40.
const hunks: Hunk[] = [
  { base: [1, 0], current: [1, 50] },
  { base: [10, 20], current: [60, 70] },
  { base: [30, 31], current: [80, 79] },
  { base: [41, 40], current: [89, 90] },
];

describe('base ⇄ current mapping', () => {
  it('shifts unchanged lines by the net size of the hunks before them', () => {
    expect(mapLine(hunks, 1)).toEqual([51, 51]);
    expect(mapLine(hunks, 9)).toEqual([59, 59]);
    expect(mapLine(hunks, 21)).toEqual([71, 71]);
    expect(mapLine(hunks, 32)).toEqual([80, 80]);
    expect(mapLine(hunks, 40)).toEqual([88, 88]);
    expect(mapLine(hunks, 41)).toEqual([91, 91]);
  });

  it('maps a changed line to the whole changed region, a deleted one to a point', () => {
    expect(mapLine(hunks, 15)).toEqual([60, 70]);
    expect(mapLine(hunks, 30)).toEqual([80, 79]);
  });

  it('maps ranges and insertion points', () => {
    expect(baseToCurrent(hunks, [15, 18])).toEqual([60, 70]);
    expect(baseToCurrent(hunks, [60, 70])).toEqual([110, 120]);
    expect(baseToCurrent(hunks, [5, 25])).toEqual([55, 75]);
    // The point after base line 9 lands after current line 59.
    expect(baseToCurrent(hunks, [10, 9])).toEqual([60, 59]);
    // The agent's own insertion point maps to the lines it inserted there (core's rule).
    expect(baseToCurrent(hunks, [1, 0])).toEqual([1, 50]);
  });

  it('maps current lines back to base lines', () => {
    expect(currentToBase(hunks, [60, 70])).toEqual([10, 20]);
    expect(currentToBase(hunks, [1, 50])).toEqual([1, 0]);
    expect(mapLine(hunks, 71, 'current')).toEqual([21, 21]);
    expect(mapLine(hunks, 91, 'current')).toEqual([41, 41]);
    expect(currentToBase(hunks, [110, 120])).toEqual([60, 70]);
  });

  it('round-trips every unchanged line', () => {
    const changed = new Set<number>([...Array.from({ length: 11 }, (_, i) => 10 + i), 30, 31]);
    for (let line = 1; line <= 200; line++) {
      if (changed.has(line)) continue;
      const [c] = mapLine(hunks, line);
      expect(mapLine(hunks, c, 'current')).toEqual([line, line]);
    }
  });

  it('is the identity without hunks', () => {
    expect(baseToCurrent([], [3, 7])).toEqual([3, 7]);
    expect(baseToCurrent([], [4, 3])).toEqual([4, 3]);
  });
});
