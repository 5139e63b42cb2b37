import type { Agent, FileEdit, Forecast, ScanResult } from '@airspace/core';

function edit(path: string): FileEdit {
  return { path, status: 'modified', weight: 1, baseRanges: [[1, 5]], newRanges: [[1, 5]] };
}

function agent(id: string, files: string[], label = id): Agent {
  return { id, label, startedAt: 0, committedWork: 1, files: files.map(edit) };
}

/** Three agents: a and b collide on shared.ts (resolution), b and c are near (traffic), a and c clear. */
export function smallScan(): ScanResult {
  const agents = [
    agent('a', ['src/a.ts', 'src/shared.ts'], 'Agent A'),
    agent('b', ['src/shared.ts', 'src/b.ts', 'lib/b2.ts'], 'Agent B'),
    agent('c', ['docs/c.md']),
  ];
  return {
    version: 1,
    generatedAt: '2026-12-02T12:00:00.000Z',
    thresholds: { traffic: 0.35, resolution: 0.7 },
    weights: { lines: 1 },
    agents,
    advisories: [
      {
        a: 'b',
        b: 'c',
        level: 'traffic',
        risk: 0.4,
        evidence: [
          {
            message: 'lib/b2.ts imports docs/c.md',
            kind: 'import',
            a: { agent: 'b', path: 'lib/b2.ts' },
            b: { agent: 'c', path: 'docs/c.md' },
          },
        ],
        message: 'TRAFFIC b × c',
      },
      {
        a: 'a',
        b: 'b',
        level: 'resolution',
        risk: 0.9,
        steer: 'b',
        hold: 'a',
        message: 'RESOLUTION a × b',
        evidence: [
          {
            message: 'both change src/shared.ts lines 1–5',
            kind: 'overlap',
            a: { agent: 'a', path: 'src/shared.ts', baseRange: [1, 5], range: [2, 6] },
            b: { agent: 'b', path: 'src/shared.ts', baseRange: [3, 2] },
          },
        ],
      },
    ],
    links: [
      { a: 'a', b: 'b', risk: 0.9, distance: 0.1, level: 'resolution', channels: [], evidence: [] },
      { a: 'a', b: 'c', risk: 0, distance: 1, level: 'clear', channels: [], evidence: [] },
      { a: 'b', b: 'c', risk: 0.4, distance: 0.6, level: 'traffic', channels: [], evidence: [] },
    ],
    positions: { a: [0.1, 0.1, 0], b: [0.2, 0, 0], c: [-0.5, 0.5, 0.5] },
    fileCoordinates: {
      'src/a.ts': [0, 0.2, 0],
      'src/shared.ts': [0.15, 0.05, 0],
      'src/b.ts': [0.3, 0, 0],
      'lib/b2.ts': [0.2, -0.3, 0.1],
      'docs/c.md': [-0.5, 0.5, 0.5],
      'README.md': [-0.6, -0.6, -0.6],
    },
    counts: { agents: 3, pairs: 3, clear: 1, traffic: 1, resolution: 1, unknown: 0 },
    problems: [],
  };
}

/**
 * `smallScan` plus agent d on lib/d.ts, clear with everyone, whom the scan forecasts to collide
 * later with a (likelier) and with c.
 */
export function forecastScan(): ScanResult {
  const scan = smallScan();
  const forecastAD: Forecast = {
    probability: 0.27,
    threshold: 0.1016,
    signals: [
      { signal: 'past-conflicts', value: 0.5, weight: 0.5407 },
      { signal: 'co-change', value: 0.9, weight: 0.1204 },
    ],
    evidence: [
      {
        message: 'src/a.ts and lib/d.ts conflicted in 3 past merges.',
        kind: 'past-conflict',
        risk: 0.5,
        a: { agent: 'a', path: 'src/a.ts' },
        b: { agent: 'd', path: 'lib/d.ts' },
      },
      { message: 'src/a.ts and lib/d.ts changed together in 9 of 10 commits.', kind: 'co-change', risk: 0.9 },
    ],
  };
  const forecastCD: Forecast = {
    probability: 0.12,
    threshold: 0.1016,
    signals: [{ signal: 'co-change', value: 0.9, weight: 0.1204 }],
    evidence: [{ message: 'docs/c.md and lib/d.ts changed together in 9 of 10 commits.', kind: 'co-change', risk: 0.9 }],
  };
  return {
    ...scan,
    agents: [...scan.agents, agent('d', ['lib/d.ts'], 'Agent D')],
    links: [
      ...scan.links,
      { a: 'a', b: 'd', risk: 0.2, distance: 0.8, level: 'clear', channels: [], evidence: [], forecast: forecastAD },
      { a: 'b', b: 'd', risk: 0, distance: 1, level: 'clear', channels: [], evidence: [] },
      // No risk at all (its channels weigh nothing), but a forecast: still drawn.
      { a: 'c', b: 'd', risk: 0, distance: 1, level: 'clear', channels: [], evidence: [], forecast: forecastCD },
    ],
    positions: { ...scan.positions, d: [0.4, -0.4, 0.2] },
    fileCoordinates: { ...scan.fileCoordinates, 'lib/d.ts': [0.4, -0.4, 0.2] },
    counts: { agents: 4, pairs: 6, clear: 4, traffic: 1, resolution: 1, unknown: 0 },
  };
}
