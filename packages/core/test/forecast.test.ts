import { describe, expect, it } from 'vitest';
import { defineChannel, type Agent, type FileEdit } from '../src/index.js';
import {
  DEFAULT_FORECAST_MODEL,
  forecastFor,
  forecastModelProblem,
  forecastProbability,
  forecastText,
  gitMergeOf,
  SHARED_FILES_SIGNAL,
  sharedChangedFiles,
  type ForecastModel,
} from '../src/forecast.js';
import { scanAirspace } from '../src/scan.js';

const model: ForecastModel = {
  label: 'collided',
  weights: { 'co-change': 0.5, [SHARED_FILES_SIGNAL]: 0.2 },
  leak: 0.01,
  threshold: 0.1,
};

const edit = (path: string, extra: Partial<FileEdit> = {}): FileEdit => ({
  path,
  status: 'modified',
  weight: 1,
  baseRanges: [[1, 2]],
  newRanges: [[1, 2]],
  ...extra,
});

const agent = (id: string, ...paths: string[]): Agent => ({
  id,
  label: id,
  startedAt: 1000,
  committedWork: 1,
  files: paths.map((p) => edit(p)),
});

/** A look-ahead channel: risk 0.8 when the agents' first files are src/a.ts and src/b.ts. */
const coupled = defineChannel({
  id: 'co-change',
  defaultWeight: 0.1,
  meta: { precision: 'file' },
  score(a, b) {
    const x = a.files[0]!.path;
    const y = b.files[0]!.path;
    if (!((x === 'src/a.ts' && y === 'src/b.ts') || (x === 'src/b.ts' && y === 'src/a.ts'))) return { risk: 0, evidence: [] };
    return {
      risk: 0.8,
      evidence: [{ message: `${x} and ${y} changed together in 8 of 10 commits`, kind: 'co-change', risk: 0.8 }],
    };
  },
});

/** Stands for git's merge: risk 1 when both agents' first files are `conflict.ts`. */
const merge = defineChannel({
  id: 'merge',
  defaultWeight: 1,
  meta: { precision: 'line' },
  score(a, b) {
    const hit = a.files[0]!.path === 'conflict.ts' && b.files[0]!.path === 'conflict.ts';
    return hit
      ? { risk: 1, evidence: [{ message: 'git merge conflicts in conflict.ts', kind: 'merge-conflict', risk: 1 }] }
      : { risk: 0, evidence: [] };
  },
});

describe('forecastProbability', () => {
  it('is the noisy-OR with a leak of the weighted signals, missing signals counting 0', () => {
    expect(forecastProbability({}, model)).toBeCloseTo(0.01, 12);
    expect(forecastProbability({ 'co-change': 0.8 }, model)).toBeCloseTo(1 - 0.99 * (1 - 0.4), 12);
    expect(forecastProbability({ 'co-change': 0.8, [SHARED_FILES_SIGNAL]: 1 }, model)).toBeCloseTo(1 - 0.99 * 0.6 * 0.8, 12);
    // Values outside [0, 1] are clamped, not extrapolated.
    expect(forecastProbability({ 'co-change': 3 }, model)).toBeCloseTo(1 - 0.99 * 0.5, 12);
  });

  it('names what is wrong with a model', () => {
    expect(forecastModelProblem(DEFAULT_FORECAST_MODEL)).toBeUndefined();
    expect(forecastModelProblem({ ...model, weights: { 'co-change': 2 } })).toMatch(/co-change/);
    expect(forecastModelProblem({ ...model, leak: 1 })).toMatch(/leak/);
    expect(forecastModelProblem({ ...model, threshold: -0.1 })).toMatch(/threshold/);
  });
});

describe('sharedChangedFiles', () => {
  it('counts paths changed on both sides, renames under either name, not declared-only files', () => {
    const a: Agent = {
      ...agent('a'),
      files: [edit('x.ts'), edit('new.ts', { oldPath: 'old.ts', status: 'renamed' }), edit('plan.ts', { declared: true })],
    };
    const b: Agent = { ...agent('b'), files: [edit('x.ts'), edit('old.ts'), edit('plan.ts'), edit('y.ts')] };
    expect(sharedChangedFiles(a, b)).toEqual(['x.ts', 'old.ts']);
    expect(sharedChangedFiles(b, a)).toEqual(['x.ts', 'new.ts']);
  });
});

describe('forecastFor', () => {
  const channels = [
    {
      channel: 'co-change',
      weight: 0.1,
      risk: 0.8,
      weighted: 0.08,
      precision: 'file' as const,
      evidence: [{ message: 'coupled', risk: 0.8 }],
    },
  ];

  it('speaks only for clear pairs that git merges cleanly', () => {
    expect(forecastFor({ a: 'a', b: 'b', level: 'clear', channels }, [], model)?.probability).toBeCloseTo(0.406, 3);
    expect(forecastFor({ a: 'a', b: 'b', level: 'traffic', channels }, [], model)).toBeUndefined();
    const withMerge = [...channels, { channel: 'merge', weight: 1, risk: 1, weighted: 1, precision: 'line' as const, evidence: [] }];
    expect(forecastFor({ a: 'a', b: 'b', level: 'clear', channels: withMerge }, [], model)).toBeUndefined();
  });

  it('is silent below the threshold and names its signals and evidence above it', () => {
    const low = [{ ...channels[0]!, risk: 0.1 }];
    expect(forecastFor({ a: 'a', b: 'b', level: 'clear', channels: low }, [], model)).toBeUndefined();
    // The merge channel scored the pair clean: the evidence says so.
    const cleanMerge = [...channels, { channel: 'merge', weight: 1, risk: 0, weighted: 0, precision: 'line' as const, evidence: [] }];
    const f = forecastFor({ a: 'a', b: 'b', level: 'clear', channels: cleanMerge }, ['src/x.ts', 'src/y.ts'], model)!;
    expect(f.signals.map((s) => s.signal)).toEqual(['co-change', SHARED_FILES_SIGNAL]);
    expect(f.evidence.map((e) => e.message)).toEqual([
      'coupled',
      'a and b both change src/x.ts (and 1 more file); git merges them cleanly today.',
    ]);
    expect(forecastText(f)).toBe('52% chance of colliding later (co-change 0.80, files changed on both sides)');
    // Without the merge channel (a probe) nothing is known of git's merge, and nothing is claimed.
    const probe = forecastFor({ a: 'a', b: 'b', level: 'clear', channels }, ['src/x.ts'], model)!;
    expect(probe.evidence.map((e) => e.message)).toEqual(['coupled', 'a and b both change src/x.ts.']);
  });

  it('gitMergeOf: conflict, clean, or unknown when the merge channel did not score the pair', () => {
    const merge = (risk: number, problems?: number) => ({
      channel: 'merge',
      risk,
      ...(problems ? { problems: [{ code: 'CHANNEL_FAILED', message: 'merge failed' }] } : {}),
    });
    expect(gitMergeOf([merge(1)])).toBe('conflict');
    expect(gitMergeOf([merge(0)])).toBe('clean');
    expect(gitMergeOf([merge(0, 1)])).toBeUndefined();
    expect(gitMergeOf([{ channel: 'overlap', risk: 1 }])).toBeUndefined();
  });
});

describe('scanAirspace with a forecast', () => {
  const agents = [
    agent('a', 'src/a.ts'),
    agent('b', 'src/b.ts'),
    agent('c', 'conflict.ts'),
    agent('d', 'conflict.ts'),
    agent('e', 'docs/e.md'),
  ];

  it('adds a forecast to clear coupled pairs only, and changes no risk, level or advisory', async () => {
    const context = { channels: [coupled, merge] };
    const withForecast = await scanAirspace(agents, context, { exhaustive: true, forecast: model });
    const without = await scanAirspace(agents, context, { exhaustive: true, forecast: false });
    const forecasts = withForecast.links.filter((l) => l.forecast).map((l) => `${l.a}-${l.b}`);
    expect(forecasts).toEqual(['a-b']);
    // c-d conflict now (a resolution advisory), so no forecast; every other figure is the same.
    expect(withForecast.links.map(({ forecast: _, ...l }) => l)).toEqual(without.links);
    expect(withForecast.advisories).toEqual(without.advisories);
    expect(withForecast.counts).toEqual(without.counts);
  });

  it('uses the shipped model by default and reports a broken one', async () => {
    const broken = await scanAirspace(agents, { channels: [coupled, merge] }, { exhaustive: true, forecast: { ...model, leak: 2 } });
    expect(broken.problems.map((p) => p.code)).toContain('INVALID_FORECAST_MODEL');
    const shipped = await scanAirspace(agents, { channels: [coupled, merge] }, { exhaustive: true });
    const expected = forecastFor(
      { a: 'a', b: 'b', level: 'clear', channels: shipped.links.find((l) => l.a === 'a' && l.b === 'b')!.channels },
      [],
      DEFAULT_FORECAST_MODEL,
    );
    expect(shipped.links.find((l) => l.a === 'a' && l.b === 'b')!.forecast).toEqual(expected);
  });
});
