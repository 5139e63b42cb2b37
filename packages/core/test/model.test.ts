import { describe, expect, it } from 'vitest';
import { DEFAULT_RECENCY, recencyWeight } from '../src/model.js';

const HOUR = 3600 * 1000;

describe('recencyWeight', () => {
  it('keeps committed work current through the grace period, then halves every half-life down to the floor', () => {
    const now = 1_000 * HOUR;
    const options = { graceMs: 24 * HOUR, halfLifeMs: 72 * HOUR, floor: 0.3 };
    expect(recencyWeight(now - 1 * HOUR, now, options)).toBe(1);
    expect(recencyWeight(now - 24 * HOUR, now, options)).toBe(1);
    expect(recencyWeight(now - 96 * HOUR, now, options)).toBeCloseTo(0.5, 9);
    expect(recencyWeight(now - 900 * HOUR, now, options)).toBe(0.3);
    expect(recencyWeight(undefined, now, options)).toBe(1);
  });

  it('by default does not move for minutes-old work: an hour later the weight is the same', () => {
    const committed = 0;
    for (const age of [1, 30, 60, 120, 180]) {
      expect(recencyWeight(committed, committed + age * 60_000, DEFAULT_RECENCY)).toBe(1);
    }
    expect(recencyWeight(committed, committed + 7 * 24 * HOUR, DEFAULT_RECENCY)).toBeLessThan(0.5);
  });
});
