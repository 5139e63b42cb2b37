import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clamp01, noisyOr } from '../src/combine.js';

const unit = fc.double({ min: 0, max: 1, noNaN: true });
/** Channels as (ω, r) pairs; the noisy-OR reads their products ω·r. */
const channels = fc.array(fc.tuple(unit, unit), { minLength: 1, maxLength: 6 });
const weighted = (xs: readonly (readonly [number, number])[]): number[] => xs.map(([w, r]) => w * r);

describe('noisy-OR', () => {
  it('R stays in [0, 1]', () => {
    fc.assert(
      fc.property(channels, (xs) => {
        const r = noisyOr(weighted(xs));
        expect(r).toBeGreaterThanOrEqual(0);
        expect(r).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('is monotone in every channel score and weight', () => {
    fc.assert(
      fc.property(channels, fc.nat(), unit, fc.boolean(), (xs, pick, bump, onWeight) => {
        const i = pick % xs.length;
        const before = noisyOr(weighted(xs));
        const raised = xs.map(([w, r], k): [number, number] =>
          k !== i ? [w, r] : onWeight ? [Math.max(w, bump), r] : [w, Math.max(r, bump)],
        );
        expect(noisyOr(weighted(raised))).toBeGreaterThanOrEqual(before - 1e-12);
      }),
    );
  });

  it('equals ω·r when the other channels are 0', () => {
    fc.assert(
      fc.property(channels, fc.nat(), (xs, pick) => {
        const i = pick % xs.length;
        const only = xs.map(([w, r], k): [number, number] => (k === i ? [w, r] : [w, 0]));
        expect(noisyOr(weighted(only))).toBeCloseTo(xs[i]![0] * xs[i]![1], 12);
      }),
    );
  });

  it('adding a channel never lowers R', () => {
    fc.assert(
      fc.property(channels, fc.tuple(unit, unit), (xs, extra) => {
        expect(noisyOr(weighted([...xs, extra]))).toBeGreaterThanOrEqual(noisyOr(weighted(xs)) - 1e-12);
      }),
    );
  });

  it('is 1 − Π(1 − ω·r), and 0 for no channel', () => {
    expect(noisyOr([0.5, 0.25 * 0.8])).toBeCloseTo(1 - 0.5 * 0.8, 12);
    expect(noisyOr([])).toBe(0);
  });
});

describe('clamp01', () => {
  it('clamps into [0, 1] and reads NaN as 0', () => {
    expect([-2, 0, 0.3, 1, 3, Number.NaN].map(clamp01)).toEqual([0, 0, 0.3, 1, 1, 0]);
  });
});
