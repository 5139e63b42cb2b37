import { describe, expect, it } from 'vitest';
import { defineChannel, type Agent, type PastConflictsService, type PastConflictsView } from '../src/index.js';
import {
  cleanPairScore,
  DEFAULT_PROBABILITY_MAP,
  pairProbability,
  probabilityMapProblem,
  probabilityOf,
  recentConflictsOf,
  type ProbabilityMap,
} from '../src/probability.js';
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

/** `map` with a clean part: 1 − (1 − R)(1 − c) from 0 → 0.02 to 1 → 0.5. */
const withClean: ProbabilityMap = {
  ...map,
  clean: {
    recentMerges: 2,
    knots: [
      [0, 0.02],
      [1, 0.5],
    ],
  },
};

/** A past-conflicts service whose views say, per agent, which of its newest merges conflicted (none: no view; 'throw': fails). */
function pastService(newest: Record<string, boolean[] | 'throw'>): PastConflictsService & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async viewFor(agent) {
      asked.push(agent.id);
      const merges = newest[agent.id];
      if (merges === 'throw') throw new Error('history unreadable');
      if (!merges) return undefined;
      const view: PastConflictsView = {
        asOf: 'c',
        merges: merges.length,
        touched: () => 0,
        conflicted: () => 0,
        recentConflictShare: (n) => {
          const recent = merges.slice(0, n);
          return recent.length ? recent.filter(Boolean).length / recent.length : undefined;
        },
      };
      return view;
    },
  };
}

describe('a clean pair reads the repository’s recent conflicts', () => {
  it('pairProbability: a clean pair with a rate reads the clean part; any other pair the risk’s map', () => {
    expect(cleanPairScore(0.5, 0.5)).toBeCloseTo(0.75, 12);
    expect(pairProbability(0.5, { clean: true, recentConflicts: 0.5 }, withClean)).toBeCloseTo(0.02 + 0.48 * 0.75, 10);
    expect(pairProbability(0, { clean: true, recentConflicts: 0 }, withClean)).toBeCloseTo(0.02, 10);
    // git sees a conflict, or no rate is known, or the map has no clean part: the risk's map.
    expect(pairProbability(0.5, { clean: false, recentConflicts: 0.5 }, withClean)).toBeCloseTo(0.1, 10);
    expect(pairProbability(0.5, { clean: true }, withClean)).toBeCloseTo(0.1, 10);
    expect(pairProbability(0.5, { clean: true, recentConflicts: 0.5 }, map)).toBeCloseTo(0.1, 10);
  });

  it('names what is wrong with a clean part', () => {
    expect(probabilityMapProblem(withClean)).toBeUndefined();
    expect(probabilityMapProblem({ ...map, clean: { recentMerges: 0, knots: withClean.clean!.knots } })).toMatch(/recentMerges/);
    expect(
      probabilityMapProblem({
        ...map,
        clean: {
          recentMerges: 50,
          knots: [
            [0, 0.5],
            [1, 0.4],
          ],
        },
      }),
    ).toMatch(/^clean: .*strictly increasing/);
  });

  it('recentConflictsOf: the mean over the agents that have a view; none: undefined', async () => {
    const [a, b] = [agent('a', 'x.ts'), agent('b', 'x.ts')];
    expect(await recentConflictsOf([a, b], pastService({ a: [true, false, true], b: [false, false] }), 2)).toBeCloseTo(0.25, 12);
    expect(await recentConflictsOf([a, b], pastService({ a: [true, true] }), 2)).toBe(1);
    expect(await recentConflictsOf([a, b], pastService({ a: 'throw', b: [false] }), 2)).toBe(0);
    expect(await recentConflictsOf([a, b], pastService({}), 2)).toBeUndefined();
    expect(await recentConflictsOf([a, b], undefined, 2)).toBeUndefined();
  });

  it('scanAirspace gives a clean pair the clean part with its agents’ rate, and a pair git cannot merge the risk’s map', async () => {
    const merge = defineChannel({
      id: 'merge',
      defaultWeight: 1,
      meta: { precision: 'line' },
      score: (a, b) =>
        a.id === 'c' || b.id === 'c'
          ? {
              risk: 1,
              evidence: [
                { message: 'conflict in x.ts', kind: 'merge', a: { agent: a.id, path: 'x.ts' }, b: { agent: b.id, path: 'x.ts' } },
              ],
            }
          : { risk: 0, evidence: [] },
    });
    const service = pastService({ a: [true, false], b: [true, true], c: [true, true] });
    const result = await scanAirspace(
      [agent('a', 'x.ts'), agent('b', 'x.ts'), agent('c', 'x.ts')],
      { channels: [half, merge], services: { pastConflicts: service } },
      { probability: withClean, thresholds: { traffic: 0.6, resolution: 0.9 } },
    );
    const link = (x: string, y: string) => result.links.find((l) => l.a === x && l.b === y)!;
    // a–b: clean, R 0.5, c = (0.5 + 1) / 2 → score 1 − 0.5 · 0.25.
    expect(link('a', 'b').probability).toBeCloseTo(0.02 + 0.48 * (1 - 0.5 * 0.25), 10);
    // a–c and b–c: the merge channel sees a conflict: R = 1 → 1.
    expect(link('a', 'c').probability).toBe(1);
    expect(link('b', 'c').probability).toBe(1);
    // Each agent's view is read once per scan, however many clean pairs it is in.
    const perAgent = pastService({ a: [true], b: [false], d: [true] });
    await scanAirspace(
      [agent('a', 'x.ts'), agent('b', 'x.ts'), agent('d', 'x.ts')],
      { channels: [half, merge], services: { pastConflicts: perAgent } },
      { probability: withClean },
    );
    expect([...perAgent.asked].sort()).toEqual(['a', 'b', 'd']);
    // Without the service the clean pair reads the risk's map.
    const alone = await scanAirspace([agent('a', 'x.ts'), agent('b', 'x.ts')], { channels: [half, merge] }, { probability: withClean });
    expect(alone.links[0]!.probability).toBeCloseTo(0.1, 10);
    // Without the merge channel (a probe of an edit not yet made) git's merge is unknown, not
    // clean: the risk's map, as for a pair git cannot merge.
    const probe = await scanAirspace(
      [agent('a', 'x.ts'), agent('b', 'x.ts')],
      { channels: [half], services: { pastConflicts: pastService({ a: [true, false], b: [true, true] }) } },
      { probability: withClean },
    );
    expect(probe.links[0]!.probability).toBeCloseTo(0.1, 10);
  });
});
