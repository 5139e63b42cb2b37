import { describe, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import {
  AGENT_PALETTE,
  FORECAST_COLOR,
  LEVEL_COLORS,
  MAX_EVIDENCE,
  SCENE_RADIUS,
  SHARED_FILE_COLOR,
  UNTOUCHED_FILE_COLOR,
  agentRadius,
  buildSceneModel,
  fileSize,
  NEAR_THRESHOLD_COLOR,
  drawnLinks,
  formatLines,
  formatRisk,
  linkRadius,
} from '../src/scene-model.js';
import { forecastScan, smallScan } from './fixture.js';

describe('buildSceneModel', () => {
  const model = buildSceneModel(smallScan());
  const file = (path: string) => model.files.find((f) => f.path === path)!;
  const link = (a: string, b: string) => model.links.find((l) => l.a === a && l.b === b);

  it('colours links by level and thickens them with risk', () => {
    expect(link('a', 'b')!.color).toBe(LEVEL_COLORS.resolution);
    expect(link('b', 'c')!.color).toBe(LEVEL_COLORS.traffic);
    expect(link('a', 'b')!.radius).toBeGreaterThan(link('b', 'c')!.radius);
    expect(link('b', 'c')!.radius).toBeGreaterThan(0);
  });

  it('drops clear links that carry no risk and draws the rest on top in level order', () => {
    expect(link('a', 'c')).toBeUndefined();
    expect(model.links.map((l) => l.level)).toEqual(['traffic', 'resolution']);
  });

  it('colours files: cited by an advisory, shared, one agent’s, untouched', () => {
    expect(file('src/shared.ts').color).toBe(LEVEL_COLORS.resolution);
    expect(file('src/shared.ts').citedLevel).toBe('resolution');
    expect(file('lib/b2.ts').color).toBe(LEVEL_COLORS.traffic);
    expect(file('src/a.ts').color).toBe(AGENT_PALETTE[0]);
    expect(file('src/b.ts').color).toBe(AGENT_PALETTE[1]);
    expect(file('README.md').color).toBe(UNTOUCHED_FILE_COLOR);
    expect(file('src/shared.ts').agents).toEqual(['a', 'b']);
  });

  it('colours a file two agents share white when no advisory cites it', () => {
    const scan = smallScan();
    const m = buildSceneModel({ ...scan, advisories: [] });
    expect(m.files.find((f) => f.path === 'src/shared.ts')!.color).toBe(SHARED_FILE_COLOR);
  });

  it('sizes files by how contested they are', () => {
    expect(file('src/shared.ts').size).toBeGreaterThan(file('src/a.ts').size);
    expect(file('src/a.ts').size).toBeGreaterThan(file('README.md').size);
    expect(fileSize(1, false, 10_000)).toBeLessThan(fileSize(1, false, 100));
  });

  it('gives each agent its files, worst level and label text', () => {
    const b = model.agents.find((a) => a.id === 'b')!;
    expect(b.title).toBe('Agent B');
    expect(b.subtitle).toBe('3 files · resolution');
    expect(b.level).toBe('resolution');
    expect(b.files.map((i) => model.files[i]!.path).sort()).toEqual(['lib/b2.ts', 'src/b.ts', 'src/shared.ts']);
    const c = model.agents.find((a) => a.id === 'c')!;
    expect(c.subtitle).toBe('1 file · traffic');
    expect(b.radius).toBeGreaterThan(c.radius);
  });

  it('places agents by their pairs, in the plane the camera faces, and their files just behind them', () => {
    for (const a of model.agents) expect(a.position[2]).toBe(0);
    // c's only file sits behind c, not c on its file.
    const c = model.agents.find((a) => a.id === 'c')!;
    const f = file('docs/c.md').position;
    expect(f[2]).toBeLessThan(0);
    expect(Math.hypot(f[0] - c.position[0], f[1] - c.position[1])).toBeLessThan(c.radius * 2 + 3);
    // Untouched files form a backdrop far behind.
    for (const u of model.files.filter((x) => x.agents.length === 0)) expect(u.position[2]).toBeLessThan(-SCENE_RADIUS * 0.5);
  });

  it('lists resolution advisories first with right of way and evidence of both sides', () => {
    const [first, second] = model.advisories;
    expect(first!.level).toBe('resolution');
    expect(first!.title).toBe('Agent A ↔ Agent B');
    expect(first!.rightOfWay).toBe('Agent B steers away · Agent A holds course');
    // R is a score (two decimals); the chance is the scan's probability, absent from this hand-written scan.
    expect(first!.riskText).toBe('0.90');
    expect(first!.chanceText).toBeUndefined();
    expect(first!.evidence[0]!.sides).toEqual([
      { agent: 'a', agentLabel: 'Agent A', path: 'src/shared.ts', lines: 'lines 2–6' },
      { agent: 'b', agentLabel: 'Agent B', path: 'src/shared.ts', lines: 'after line 2' },
    ]);
    expect(second!.level).toBe('traffic');
    expect(second!.rightOfWay).toBeUndefined();
  });

  it('reports touched files without coordinates and places coordinate-less agents at their files', () => {
    const scan = smallScan();
    const { c: _c, ...positions } = scan.positions;
    const m = buildSceneModel({ ...scan, positions, fileCoordinates: { ...scan.fileCoordinates, 'src/a.ts': undefined as never } });
    expect(m.problems.map((p) => p.code)).toContain('VIEW_MISSING_COORDINATES');
    expect(m.files.some((f) => f.path === 'src/a.ts')).toBe(false);
    // Placed whether the scan has positions or not: the layout reads the pairs.
    expect(m.agents.find((a) => a.id === 'c')!.position).toEqual(model.agents.find((a) => a.id === 'c')!.position);
  });

  it('marks a clear pair within the margin under τ_TA, draws it while other clear links are hidden, and lists it', () => {
    const scan = smallScan();
    const t = scan.thresholds.traffic;
    const links = scan.links.map((l) => (l.level === 'clear' ? { ...l, risk: t - 0.07 } : l));
    const m = buildSceneModel({ ...scan, links });
    const near = m.links.filter((l) => l.nearThreshold);
    expect(near.length).toBe(scan.links.filter((l) => l.level === 'clear').length);
    expect(near.every((l) => l.color === NEAR_THRESHOLD_COLOR && !l.hiddenByDefault)).toBe(true);
    expect(m.pairs.filter((p) => p.mark === 'near threshold').map((p) => p.key)).toEqual(near.map((l) => `${l.a}|${l.b}`));
    // Further under: a plain clear link, hidden until asked for, and not listed.
    const far = buildSceneModel({ ...scan, links: scan.links.map((l) => (l.level === 'clear' ? { ...l, risk: t - 0.2 } : l)) });
    expect(far.links.some((l) => l.nearThreshold)).toBe(false);
    const clear = far.links.filter((l) => l.level === 'clear');
    expect(clear.length).toBeGreaterThan(0);
    expect(clear.every((l) => l.hiddenByDefault)).toBe(true);
    expect(drawnLinks(far, false).some((l) => l.level === 'clear')).toBe(false);
    expect(drawnLinks(far, true).length).toBe(far.links.length);
    expect(far.pairs.every((p) => p.level !== 'clear')).toBe(true);
  });

  it('lists every pair with an advisory, worst first, with its strongest evidence line', () => {
    const scan = smallScan();
    const strongest = { message: 'both change src/shared.ts lines 1–5', kind: 'overlap', risk: 1 };
    const m = buildSceneModel({
      ...scan,
      links: scan.links.map((l) => (l.a === 'a' && l.b === 'b' ? { ...l, evidence: [strongest] } : l)),
    });
    expect(m.pairs.map((p) => p.key)).toEqual(['a|b', 'b|c']);
    const [ab, bc] = m.pairs;
    expect(ab!.level).toBe('resolution');
    expect(ab!.riskText).toBe('0.90');
    expect(ab!.evidence).toBe(strongest.message);
    expect(bc!.level).toBe('traffic');
    expect(bc!.evidence).toBe('');
  });

  it('survives an empty or partial result', () => {
    const m = buildSceneModel({ generatedAt: 'x' } as unknown as ScanResult);
    expect(m.files).toEqual([]);
    expect(m.agents).toEqual([]);
    expect(m.advisories).toEqual([]);
    expect(m.counts.agents).toBe(0);
  });
});

describe('forecasts', () => {
  const model = buildSceneModel(forecastScan());
  const link = (a: string, b: string) => model.links.find((l) => l.a === a && l.b === b);

  it('carries a forecast link with its chance, signals and evidence, apart from the advisories', () => {
    expect(model.forecasts.map((f) => f.key)).toEqual(['a|d', 'c|d']);
    const [ad] = model.forecasts;
    expect(ad).toMatchObject({
      a: 'a',
      b: 'd',
      title: 'Agent A ↔ Agent D',
      probability: 0.27,
      percentText: '27%',
      chanceText: '27% chance of colliding later',
      signals: ['past-conflicts 0.50', 'co-change 0.90'],
      moreEvidence: 0,
    });
    expect(ad!.evidence.map((e) => e.message)).toEqual([
      'src/a.ts and lib/d.ts conflicted in 3 past merges.',
      'src/a.ts and lib/d.ts changed together in 9 of 10 commits.',
    ]);
    expect(ad!.evidence[0]!.sides.map((s) => `${s.agentLabel} ${s.path}`)).toEqual(['Agent A src/a.ts', 'Agent D lib/d.ts']);
    // Not an advisory: the advisories are the scan's two, unchanged.
    expect(model.advisories.map((a) => a.key)).toEqual(['a|b', 'b|c']);
  });

  it('draws a forecast link in its own colour, as a line, even when its risk is zero', () => {
    expect(link('a', 'd')).toMatchObject({ level: 'clear', forecast: 0.27, color: FORECAST_COLOR, radius: 0 });
    expect(link('c', 'd')).toMatchObject({ risk: 0, forecast: 0.12, color: FORECAST_COLOR });
    expect(link('c', 'd')!.opacity).toBeLessThan(link('a', 'd')!.opacity);
    // A clear link with neither risk nor forecast is still left out.
    expect(link('b', 'd')).toBeUndefined();
    // Above the clear hairlines, below the advisories' tubes.
    expect(model.links.map((l) => `${l.level}${l.forecast === undefined ? '' : '+forecast'}`)).toEqual([
      'clear+forecast',
      'clear+forecast',
      'traffic',
      'resolution',
    ]);
  });

  it('gives a link without a forecast none, and a scan without forecasts an empty list', () => {
    const plain = buildSceneModel(smallScan());
    expect(plain.forecasts).toEqual([]);
    expect(plain.links.every((l) => l.forecast === undefined && l.color !== FORECAST_COLOR)).toBe(true);
    expect(link('a', 'b')!.forecast).toBeUndefined();
  });

  it('says an otherwise clear agent has a forecast, and keeps an advisory’s level first', () => {
    expect(model.agents.find((a) => a.id === 'd')!.subtitle).toBe('1 file · forecast');
    expect(model.agents.find((a) => a.id === 'a')!.subtitle).toBe('2 files · resolution');
  });

  it('lists at most MAX_EVIDENCE items and counts the rest', () => {
    const scan = forecastScan();
    const many = Array.from({ length: MAX_EVIDENCE + 3 }, (_, i) => ({ message: `item ${i}` }));
    const links = scan.links.map((l) => (l.forecast ? { ...l, forecast: { ...l.forecast, evidence: many } } : l));
    const f = buildSceneModel({ ...scan, links }).forecasts[0]!;
    expect(f.evidence).toHaveLength(MAX_EVIDENCE);
    expect(f.moreEvidence).toBe(3);
  });

  it('ignores a malformed forecast in hand-written JSON, and one on a link with an advisory', () => {
    const scan = forecastScan();
    const forecast = scan.links.find((x) => x.forecast)!.forecast!;
    const links = scan.links.map((l) =>
      l.a === 'a' && l.b === 'd'
        ? { ...l, forecast: { probability: 'high' } as never }
        : l.a === 'a' && l.b === 'b'
          ? { ...l, forecast }
          : l,
    );
    const m = buildSceneModel({ ...scan, links });
    expect(m.forecasts.map((f) => f.key)).toEqual(['c|d']);
    expect(m.links.find((l) => l.a === 'a' && l.b === 'b')!.color).toBe(LEVEL_COLORS.resolution);
  });
});

describe('formatting', () => {
  it('formats ranges, insertions and missing ranges', () => {
    expect(formatLines([3, 9])).toBe('lines 3–9');
    expect(formatLines([4, 4])).toBe('line 4');
    expect(formatLines([5, 4])).toBe('after line 4');
    expect(formatLines([1, 0])).toBe('top of file');
    expect(formatLines(undefined)).toBe('');
  });

  it('formats risk as a clamped score with two decimals, never as a percentage', () => {
    expect(formatRisk(0.456)).toBe('0.46');
    expect(formatRisk(1.5)).toBe('1.00');
    expect(formatRisk(Number.NaN)).toBe('0.00');
  });

  it("gives an advisory and a link the scan's probability as a chance, beside the risk", () => {
    const scan = smallScan();
    const withChance = {
      ...scan,
      advisories: scan.advisories.map((a) => ({ ...a, probability: a.level === 'resolution' ? 0.84 : 0.24 })),
      links: scan.links.map((l) => ({ ...l, probability: l.level === 'resolution' ? 0.84 : 0.24 })),
    };
    const m = buildSceneModel(withChance);
    const resolution = m.advisories.find((a) => a.level === 'resolution')!;
    expect(resolution).toMatchObject({ riskText: '0.90', probability: 0.84, percentText: '84%', chanceText: '84% chance of colliding' });
    expect(m.links.find((l) => l.level === 'traffic')!.probability).toBe(0.24);
    // A probability that is not a number is left out, never shown as NaN%.
    const broken = buildSceneModel({ ...scan, advisories: scan.advisories.map((a) => ({ ...a, probability: Number.NaN })) });
    expect(broken.advisories[0]!.percentText).toBeUndefined();
  });

  it('shrinks markers and tubes in a crowded airspace', () => {
    expect(agentRadius(50, 100)).toBeLessThan(agentRadius(50, 5));
    expect(linkRadius('resolution', 1, 100)).toBeLessThan(linkRadius('resolution', 1, 5));
    expect(linkRadius('clear', 0.3)).toBe(0);
    expect(linkRadius('traffic', 0.8)).toBeGreaterThan(linkRadius('traffic', 0.4));
  });
});

describe('agents on one file', () => {
  it('keeps two agents on one file apart in the scene, so their link has a length', () => {
    const scan = smallScan();
    const m = buildSceneModel({ ...scan, positions: { ...scan.positions, b: scan.positions.a! } });
    const l = m.links.find((x) => x.a === 'a' && x.b === 'b')!;
    expect(Math.hypot(l.to[0] - l.from[0], l.to[1] - l.from[1], l.to[2] - l.from[2])).toBeGreaterThan(3);
  });
});
