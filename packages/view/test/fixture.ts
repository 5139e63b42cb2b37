import type { Agent, FileEdit, ScanResult } from '@airspace/core';

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
