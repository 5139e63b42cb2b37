import { describe, expect, it } from 'vitest';
import { mapLimit } from '../src/map-limit.js';

describe('mapLimit', () => {
  it('keeps input order and never has more than `limit` jobs in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n, i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, n));
      inFlight--;
      return `${i}:${n}`;
    });
    expect(out).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3']);
    expect(most).toBe(2);
  });

  it('returns an empty list for no items and runs one at a time for a limit below 1', async () => {
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
    expect(await mapLimit([1, 2], 0, async (n) => n * 2)).toEqual([2, 4]);
  });
});
