import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../src/check.js';
import { advisoriesText, checkText, overallAction } from '../src/advice.js';

type Conflict = CheckResult['conflicts'][number];
/** `steer: undefined` stands for a conflict without right of way (no such field in the answer). */
const conflict = (over: { [K in keyof Conflict]?: Conflict[K] | undefined }): Conflict =>
  ({
    with: 'bob',
    level: 'resolution',
    risk: 0.97,
    channels: [{ channel: 'overlap', risk: 0.97, weight: 1, weighted: 0.97, precision: 'line', evidence: [] }],
    steer: 'alice',
    hold: 'bob',
    evidence: [{ message: 'alice (lines 7–8) and bob (lines 7–8) change overlapping lines' }],
    hunks: [{ agent: 'bob', path: 'src/a.ts', base: [7, 8], current: [7, 8], text: '@@ -7,2 +7,2 @@\n-a\n+b' }],
    ...over,
  }) as Conflict;

describe('tool results for a model', () => {
  it('says clear and go on when nobody is close', () => {
    const { text, action } = checkText({ path: 'src/a.ts', lines: [3, 4], agent: 'alice', level: 'clear', conflicts: [], problems: [] });
    expect(action).toBe('go-on');
    expect(text).toBe('CLEAR: no other agent is working near src/a.ts:3-4 (you are alice). Next: go on with the edit.');
  });

  it('names the other agent, the evidence, their diff, and ends with the action of the one who steers', () => {
    const answer: CheckResult = {
      path: 'src/a.ts',
      lines: [7, 8],
      agent: 'alice',
      level: 'resolution',
      conflicts: [conflict({ probability: 0.9012 })],
      problems: [],
    };
    const { text, action } = checkText(answer);
    expect(action).toBe('steer-away');
    expect(text.split('\n')[0]).toBe('RESOLUTION: editing src/a.ts:7-8 as alice would come close to bob.');
    // The pair's calibrated probability beside its risk.
    expect(text.split('\n')[2]).toBe('RESOLUTION with bob (risk 0.97, 90% chance of colliding; channels overlap).');
    expect(text).toContain('Right of way: bob holds, alice steers away.');
    expect(text).toContain("bob's change to src/a.ts:7-8:\n```diff\n@@ -7,2 +7,2 @@\n-a\n+b\n```");
    expect(text.split('\n').at(-1)).toMatch(/^Next: steer away\. bob has right of way here/);
  });

  it('holds course when it has right of way, and transmits intent on traffic', () => {
    const hold = checkText({ path: 'f', agent: 'bob', level: 'resolution', conflicts: [conflict({ with: 'alice' })], problems: [] });
    expect(hold.action).toBe('hold-course');
    const traffic = checkText({
      path: 'f',
      agent: 'alice',
      level: 'traffic',
      conflicts: [conflict({ level: 'traffic', risk: 0.5, steer: undefined, hold: undefined })],
      problems: [],
    } as CheckResult);
    expect(traffic.action).toBe('transmit-intent');
    expect(traffic.text).toMatch(/Next: go on carefully, but first tell bob/);
    // A scan that gave no probability: the risk alone.
    expect(traffic.text).toContain('TRAFFIC with bob (risk 0.50; channels overlap).');
    expect(overallAction(['go-on', 'transmit-intent', 'steer-away'])).toBe('steer-away');
  });
});

describe('forecasts in a check', () => {
  const forecast = {
    with: 'carol',
    probability: 0.164,
    signals: [
      { signal: 'co-change', value: 0.9, weight: 0.3 },
      { signal: 'shared-files', value: 1, weight: 0.1 },
    ],
    evidence: [{ message: 'src/a.ts and src/b.ts changed together in 9 of 10 commits' }],
  };

  it('adds the forecast after a clear verdict without changing the action', () => {
    const { text, action } = checkText({
      path: 'src/a.ts',
      agent: 'alice',
      level: 'clear',
      conflicts: [],
      forecasts: [forecast],
      problems: [],
    });
    expect(action).toBe('go-on');
    expect(text.split('\n')).toEqual([
      'CLEAR: no other agent is working near src/a.ts (you are alice). Next: go on with the edit.',
      '',
      'FORECAST with carol: no advisory yet, 16% chance of colliding later (co-change 0.90, files changed on both sides).',
      '- src/a.ts and src/b.ts changed together in 9 of 10 commits',
    ]);
  });

  it('lists forecasts with the advisories of list_advisories, after them, action unchanged', () => {
    const none = advisoriesText({ agent: 'alice', advisories: [], forecasts: [forecast], intents: [], problems: [] });
    expect(none.action).toBe('go-on');
    expect(none.text.split('\n').slice(2)).toEqual([
      'FORECAST with carol: no advisory yet, 16% chance of colliding later (co-change 0.90, files changed on both sides).',
      '- src/a.ts and src/b.ts changed together in 9 of 10 commits',
    ]);
    expect(advisoriesText({ agent: 'alice', advisories: [], intents: [], problems: [] }).text).not.toContain('FORECAST');
  });

  it('puts forecasts after the advisories, whose action stays the answer', () => {
    const { text, action } = checkText({
      path: 'src/a.ts',
      agent: 'alice',
      level: 'resolution',
      conflicts: [conflict({})],
      forecasts: [forecast],
      problems: [],
    });
    expect(action).toBe('steer-away');
    expect(text.indexOf('FORECAST with carol')).toBeGreaterThan(text.indexOf('Next: steer away'));
  });
});
