import { describe, expect, it } from 'vitest';
import { defineChannel, type Agent } from '../src/index.js';
import { DEFAULT_PROBABILITY_MAP, probabilityMapProblem, probabilityOf, type ProbabilityMap } from '../src/probability.js';
import { scanAirspace } from '../src/scan.js';

const map: ProbabilityMap = {
  label: 'collided',
  knots: [
    [0, 0.01],
    [0.5, 0.1],
    [1, 1],
  ],
};

const agent = (id: string, path: string): Agent => ({
  id,
  label: id,
  startedAt: 1000,
  committedWork: 0,
  files: [{ path, status: 'modified', weight: 1, baseRanges: [[1, 5]], newRanges: [[1, 5]] }],
});

/** Risk 0.5 when two agents edit one path. */
const half = defineChannel({
  id: 'half',
  defaultWeight: 1,
  meta: { precision: 'line' },
  score(a, b) {
    const path = a.files[0]!.path;
    if (b.files[0]!.path !== path) return { risk: 0, evidence: [] };
    return {
      risk: 0.5,
      evidence: [{ message: `both edit ${path}`, kind: 'same-file', a: { agent: a.id, path }, b: { agent: b.id, path } }],
    };
  },
});

describe('probabilityOf', () => {
  it('interpolates linearly between knots and clamps risks outside [0, 1]', () => {
    expect(probabilityOf(0, map)).toBe(0.01);
    expect(probabilityOf(0.25, map)).toBeCloseTo(0.055, 10);
    expect(probabilityOf(0.75, map)).toBeCloseTo(0.55, 10);
    expect(probabilityOf(1, map)).toBe(1);
    expect(probabilityOf(-1, map)).toBe(0.01);
    expect(probabilityOf(2, map)).toBe(1);
    expect(probabilityOf(Number.NaN, map)).toBe(0.01);
  });

  it('keeps every ranking: the shipped map is strictly increasing in risk', () => {
    expect(probabilityMapProblem(DEFAULT_PROBABILITY_MAP)).toBeUndefined();
    const risks = Array.from({ length: 1001 }, (_, i) => i / 1000);
    const p = risks.map((r) => probabilityOf(r));
    for (let i = 1; i < p.length; i++) expect(p[i]!).toBeGreaterThan(p[i - 1]!);
    // A pair git cannot merge now (R = 1) is a collision now.
    expect(probabilityOf(1)).toBe(1);
  });

  it('names what is wrong with a map that could reorder pairs', () => {
    expect(probabilityMapProblem({ label: 'collided', knots: [[0, 0.1]] })).toMatch(/two knots/);
    expect(
      probabilityMapProblem({
        label: 'collided',
        knots: [
          [0.1, 0.1],
          [1, 1],
        ],
      }),
    ).toMatch(/start at risk 0/);
    expect(
      probabilityMapProblem({
        label: 'collided',
        knots: [
          [0, 0.1],
          [0.5, 0.1],
          [1, 1],
        ],
      }),
    ).toMatch(/strictly increasing/);
    expect(
      probabilityMapProblem({
        label: 'collided',
        knots: [
          [0, 0.1],
          [1, 1.5],
        ],
      }),
    ).toMatch(/outside/);
  });
});

describe('scanAirspace probability', () => {
  it('reports each link and advisory with the probability of its risk and names the label', async () => {
    const result = await scanAirspace(
      [agent('a', 'x.ts'), agent('b', 'x.ts')],
      { channels: [half] },
      { probability: map, thresholds: { traffic: 0.4, resolution: 0.9 } },
    );
    expect(result.probabilityLabel).toBe('collided');
    expect(result.links[0]!.risk).toBe(0.5);
    expect(result.links[0]!.probability).toBeCloseTo(0.1, 10);
    expect(result.advisories[0]!.probability).toBeCloseTo(0.1, 10);
    expect(result.advisories[0]!.level).toBe('traffic');
  });

  it('uses the shipped map by default and falls back to it, with a problem, for a bad map', async () => {
    const agents = [agent('a', 'x.ts'), agent('b', 'x.ts')];
    const plain = await scanAirspace(agents, { channels: [half] });
    expect(plain.links[0]!.probability).toBeCloseTo(probabilityOf(0.5, DEFAULT_PROBABILITY_MAP), 10);
    const bad = await scanAirspace(
      agents,
      { channels: [half] },
      {
        probability: {
          label: 'collided',
          knots: [
            [0, 0.5],
            [1, 0.4],
          ],
        },
      },
    );
    expect(bad.links[0]!.probability).toBeCloseTo(probabilityOf(0.5, DEFAULT_PROBABILITY_MAP), 10);
    expect(bad.problems.map((p) => p.code)).toContain('INVALID_PROBABILITY_MAP');
  });
});
