import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { combineRisks, noisyOr } from '../src/combine.js';

const unit = fc.double({ min: 0, max: 1, noNaN: true });
const input = fc.record({ risk: unit, weight: unit });
const inputs = fc.array(input, { minLength: 1, maxLength: 6 }).map((xs) => xs.map((x, i) => ({ ...x, channel: `c${i}` })));

describe('noisy-OR', () => {
  it('R stays in [0, 1] and D = 1 − R', () => {
    fc.assert(
      fc.property(inputs, (xs) => {
        const c = combineRisks(xs);
        expect(c.risk).toBeGreaterThanOrEqual(0);
        expect(c.risk).toBeLessThanOrEqual(1);
        expect(c.distance).toBeCloseTo(1 - c.risk, 12);
        expect(c.problems).toEqual([]);
      }),
    );
  });

  it('is monotone in every channel score and weight', () => {
    fc.assert(
      fc.property(inputs, fc.nat(), unit, fc.boolean(), (xs, pick, bump, onWeight) => {
        const i = pick % xs.length;
        const before = combineRisks(xs).risk;
        const raised = xs.map((x, k) =>
          k !== i ? x : onWeight ? { ...x, weight: Math.max(x.weight, bump) } : { ...x, risk: Math.max(x.risk, bump) },
        );
        expect(combineRisks(raised).risk).toBeGreaterThanOrEqual(before - 1e-12);
      }),
    );
  });

  it('equals ω·r when the other channels are 0', () => {
    fc.assert(
      fc.property(inputs, fc.nat(), (xs, pick) => {
        const i = pick % xs.length;
        const only = xs.map((x, k) => (k === i ? x : { ...x, risk: 0 }));
        expect(combineRisks(only).risk).toBeCloseTo(xs[i]!.weight * xs[i]!.risk, 12);
      }),
    );
  });

  it('adding a channel never lowers R', () => {
    fc.assert(
      fc.property(inputs, input, (xs, extra) => {
        expect(combineRisks([...xs, { ...extra, channel: 'extra' }]).risk).toBeGreaterThanOrEqual(combineRisks(xs).risk - 1e-12);
      }),
    );
  });

  it('reports the per-channel breakdown', () => {
    const c = combineRisks([
      { channel: 'overlap', risk: 0.5, weight: 1 },
      { channel: 'tree', risk: 0.8, weight: 0.25 },
    ]);
    expect(c.parts).toEqual([
      { channel: 'overlap', weight: 1, risk: 0.5, weighted: 0.5 },
      { channel: 'tree', weight: 0.25, risk: 0.8, weighted: 0.2 },
    ]);
    expect(c.risk).toBeCloseTo(1 - 0.5 * 0.8, 12);
  });

  it('clamps NaN and out-of-range input and reports each as a problem', () => {
    const c = combineRisks([
      { channel: 'nan', risk: Number.NaN, weight: 1 },
      { channel: 'big', risk: 3, weight: 0.5 },
      { channel: 'neg-weight', risk: 1, weight: -2 },
    ]);
    expect(c.parts.map((p) => p.weighted)).toEqual([0, 0.5, 0]);
    expect(c.risk).toBe(0.5);
    expect(c.problems.map((p) => [p.code, p.channel])).toEqual([
      ['RISK_OUT_OF_RANGE', 'nan'],
      ['RISK_OUT_OF_RANGE', 'big'],
      ['INVALID_WEIGHT', 'neg-weight'],
    ]);
    expect(noisyOr([])).toBe(0);
  });
});
