import { describe, expect, it } from 'vitest';
import { answerProblem } from '../src/shapes.js';

const scan = {
  version: 1,
  generatedAt: '2026-12-05T00:00:00.000Z',
  thresholds: { traffic: 0.5, resolution: 0.8 },
  weights: { overlap: 1 },
  agents: [
    { id: 'a', label: 'a', startedAt: 0, committedWork: 0, files: [{ path: 'x.ts' }] },
    { id: 'b', label: 'b', startedAt: 0, committedWork: 0, files: [] },
  ],
  advisories: [{ a: 'a', b: 'b', level: 'resolution', risk: 0.9, evidence: [{ message: 'm' }], message: 'RESOLUTION' }],
  links: [{ a: 'a', b: 'b', risk: 0.9, distance: 0.1, level: 'resolution', channels: [], evidence: [{ message: 'm' }] }],
  positions: {},
  fileCoordinates: {},
  counts: { agents: 2, pairs: 1, clear: 0, traffic: 0, resolution: 1, unknown: 0 },
  problems: [],
};
const check = {
  path: 'x.ts',
  agent: 'a',
  level: 'resolution',
  conflicts: [{ with: 'b', level: 'resolution', risk: 0.9, channels: [], evidence: [], hunks: [] }],
  problems: [],
};

describe('answerProblem', () => {
  it('lets a well-shaped scan and check through', () => {
    expect(answerProblem('scan', scan)).toBeUndefined();
    expect(answerProblem('editorScan', scan)).toBeUndefined();
    expect(answerProblem('check', check)).toBeUndefined();
  });

  it.each([
    ['scan', null, 'the answer is not an object'],
    ['scan', {}, 'version is not version 1'],
    ['scan', { ...scan, links: [{ ...scan.links[0], level: 'fine' }] }, 'links[0].level is not a level'],
    ['scan', { ...scan, links: [{ ...scan.links[0], risk: 7 }] }, 'links[0].risk is not a number in [0, 1]'],
    ['scan', { ...scan, links: [{ ...scan.links[0], b: 'zed' }] }, 'links[0] names an agent the answer does not list'],
    ['scan', { ...scan, links: [] }, "advisories[0] is not one of the answer's links"],
    ['check', { ...check, level: 'clear' }, "level clear is milder than its conflicts'"],
    ['check', { ...check, conflicts: 'none' }, 'conflicts is not a list'],
    ['check', { ...check, problems: [{ code: 1 }] }, 'problems[0].code is not a string'],
    ['hello', { version: '3' }, 'version is not a number'],
  ] as const)('%s: %j → %s', (method, value, problem) => {
    expect(answerProblem(method, value)).toContain(problem);
  });
});
