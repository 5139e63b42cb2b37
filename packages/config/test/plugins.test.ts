import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_FORECAST_MODEL, DEFAULT_THRESHOLDS, defineChannel, scanAirspace } from '@airspace/core';
import { loadConfig } from '../src/config.js';
import { DEFAULT_BUDGET, resolveChannelSet } from '../src/channel-set.js';
import { loadPlugins } from '../src/plugins.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airspace-plugins-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string) => {
  mkdirSync(join(dir, name, '..'), { recursive: true });
  writeFileSync(join(dir, name), text);
};

const ALWAYS_HALF =
  'export default { id: "always-half", defaultWeight: 1, score: () => ({ risk: 0.5, evidence: [{ message: "half" }] }) };';

describe('loadPlugins', () => {
  it('loads a plain-object plugin with no import of ours', async () => {
    write('channels/half.mjs', ALWAYS_HALF);
    const { channels, problems } = await loadPlugins(['./channels/half.mjs'], dir);
    expect(problems).toEqual([]);
    expect(channels.map((c) => [c.channel.id, c.source])).toEqual([['always-half', './channels/half.mjs']]);
  });

  it('calls a factory once; options reach the channel as ctx.options, checked against its schema', async () => {
    // The factory counts its calls: it used to be called twice (once to learn the id, once with options).
    write(
      'f.mjs',
      `let calls = 0;
      export default (factoryOptions) => {
        calls++;
        return { id: 'scaled', defaultWeight: 1, defaultOptions: { risk: 0.1 }, optionsSchema: { risk: { type: 'number', min: 0, max: 1 } },
          score: (a, b, ctx) => ({ risk: ctx.options.risk, evidence: [{ message: 'calls ' + calls + ', factory options ' + JSON.stringify(factoryOptions) }] }) };
      };`,
    );
    const { channels, dispose } = await loadPlugins(['./f.mjs'], dir);
    const [a, b] = ['a', 'b'].map((id) => ({ id, label: id, startedAt: 0, committedWork: 0, files: [] }));
    const scan = (options: unknown) =>
      scanAirspace([a!, b!], { channels: channels.map((c) => c.channel) }, { channelOptions: { scaled: options } });
    const result = await scan({ risk: 0.9 });
    expect(result.links[0]!.risk).toBe(0.9);
    expect(result.links[0]!.evidence[0]!.message).toBe('calls 1, factory options undefined');
    const bad = await scan({ risk: 9 });
    expect(bad.links[0]!.risk).toBeCloseTo(0.1);
    expect(bad.problems.map((p) => [p.code, p.channel])).toEqual([['INVALID_OPTION', 'scaled']]);
    await dispose();
  });

  it('resolves an ESM-only package from node_modules', async () => {
    write(
      'node_modules/@team/airspace-channel-x/package.json',
      JSON.stringify({ name: '@team/airspace-channel-x', type: 'module', exports: { '.': { import: './main.js' } } }),
    );
    write('node_modules/@team/airspace-channel-x/main.js', ALWAYS_HALF.replace('always-half', 'team-x'));
    const { channels, problems } = await loadPlugins(['@team/airspace-channel-x'], dir);
    expect(problems).toEqual([]);
    expect(channels[0]?.channel.id).toBe('team-x');
  });

  it('names the plugin when it is missing, throws, or is not a channel, and loads the others', async () => {
    write('good.mjs', ALWAYS_HALF);
    write('throws.mjs', 'throw new Error("boom at import");');
    write('factory-throws.mjs', 'export default () => { throw new Error("bad options"); };');
    write('no-default.mjs', 'export const x = 1;');
    write('bad-shape.mjs', 'export default { id: "Bad Id", defaultWeight: 1, score() {} };');
    write('no-score.mjs', 'export default { id: "no-score", defaultWeight: 0.5 };');
    const specs = [
      './missing.mjs',
      '@nobody/not-installed',
      './throws.mjs',
      './factory-throws.mjs',
      './no-default.mjs',
      './bad-shape.mjs',
      './no-score.mjs',
      './good.mjs',
    ];
    const { channels, problems } = await loadPlugins(specs, dir);
    expect(channels.map((c) => c.channel.id)).toEqual(['always-half']);
    const byPlugin = (s: string) => problems.find((p) => p.message.includes(s));
    expect(byPlugin('./missing.mjs')?.code).toBe('PLUGIN_NOT_LOADED');
    expect(byPlugin('@nobody/not-installed')?.message).toContain('not installed');
    expect(byPlugin('./throws.mjs')?.message).toContain('boom at import');
    expect(byPlugin('./factory-throws.mjs')).toMatchObject({ code: 'PLUGIN_THREW' });
    expect(byPlugin('./no-default.mjs')?.message).toContain('no default export');
    expect(byPlugin('./bad-shape.mjs')?.message).toContain('kebab-case');
    expect(byPlugin('./no-score.mjs')?.message).toContain('"score" must be a function');
    expect(byPlugin('./bad-shape.mjs')?.code).toBe('INVALID_CHANNEL');
  });
});

describe('resolveChannelSet', () => {
  const builtin = (id: string, defaultWeight: number) => ({
    channel: defineChannel({ id, defaultWeight, meta: { precision: 'line' }, score: () => ({ risk: 0, evidence: [] }) }),
    source: 'builtin',
  });

  it('applies config weights over calibration over defaults, and disables channels', async () => {
    write('cal.json', JSON.stringify({ weights: { overlap: 0.8, tree: 0.05 }, thresholds: { traffic: 0.3 } }));
    write('channels/half.mjs', ALWAYS_HALF);
    write(
      'airspace.config.json',
      JSON.stringify({
        plugins: ['./channels/half.mjs'],
        calibration: 'cal.json',
        channels: { tree: { weight: 0.1 }, dependency: { enabled: false }, 'always-half': { options: { k: 1 } } },
      }),
    );
    const set = await resolveChannelSet({
      builtins: [builtin('overlap', 1), builtin('tree', 0.25), builtin('dependency', 0.9)],
      loaded: await loadConfig({ repoRoot: dir }),
    });
    expect(set.problems).toEqual([]);
    expect(set.channels.map((c) => c.id)).toEqual(['overlap', 'tree', 'always-half']);
    expect(set.weights).toEqual({ overlap: 0.8, tree: 0.1, 'always-half': 1 });
    expect(set.listing.find((l) => l.id === 'overlap')?.weightFrom).toBe('calibration');
    expect(set.listing.find((l) => l.id === 'tree')?.weightFrom).toBe('config');
    expect(set.listing.find((l) => l.id === 'dependency')).toMatchObject({ enabled: false, source: 'builtin' });
    expect(set.listing.find((l) => l.id === 'always-half')).toMatchObject({ source: './channels/half.mjs', weightFrom: 'default' });
    expect(set.thresholds).toEqual({ traffic: 0.3, resolution: DEFAULT_THRESHOLDS.resolution });
    expect(set.channelOptions).toEqual({ 'always-half': { k: 1 } });
  });

  it('gives plugin channels a time budget (defaults, the config, the channel), never the built-ins', async () => {
    write('channels/half.mjs', ALWAYS_HALF);
    write('channels/other.mjs', ALWAYS_HALF.replace('always-half', 'other'));
    write(
      'airspace.config.json',
      JSON.stringify({
        plugins: ['./channels/half.mjs', './channels/other.mjs'],
        budget: { channelMs: 800 },
        channels: { other: { budget: { callMs: 50 } } },
      }),
    );
    const set = await resolveChannelSet({ builtins: [builtin('overlap', 1)], loaded: await loadConfig({ repoRoot: dir }) });
    expect(set.problems).toEqual([]);
    expect(set.budgets).toEqual({
      'always-half': { channelMs: 800, callMs: DEFAULT_BUDGET.callMs },
      other: { channelMs: 800, callMs: 50 },
    });
    expect(set.listing.map((l) => [l.id, l.isolation])).toEqual([
      ['overlap', 'in-process'],
      ['always-half', 'worker'],
      ['other', 'worker'],
    ]);
    await set.dispose();
    write('airspace.config.json', JSON.stringify({ budget: { channelMs: -1, callMs: 'soon' } }));
    expect((await loadConfig({ repoRoot: dir })).problems.map((p) => p.message).join('\n')).toMatch(
      /\/budget\/channelMs[\s\S]*\/budget\/callMs/,
    );
  });

  it("takes the forecast's threshold or its absence from the config, the shipped model otherwise", async () => {
    const forecastOf = async (config: object) => {
      write('airspace.config.json', JSON.stringify(config));
      const loaded = await loadConfig({ repoRoot: dir });
      const set = await resolveChannelSet({ builtins: [builtin('overlap', 1)], loaded });
      await set.dispose();
      return { forecast: set.forecast, problems: set.problems.map((p) => p.message) };
    };
    expect(await forecastOf({})).toEqual({ forecast: DEFAULT_FORECAST_MODEL, problems: [] });
    expect(await forecastOf({ forecast: { threshold: 0.3 } })).toEqual({
      forecast: { ...DEFAULT_FORECAST_MODEL, threshold: 0.3 },
      problems: [],
    });
    expect((await forecastOf({ forecast: { enabled: false, threshold: 0.3 } })).forecast).toBe(false);
    expect((await forecastOf({ forecast: { threshold: 2 } })).problems.join('\n')).toMatch(/\/forecast\/threshold/);
  });

  it('reports a duplicate id naming both sources and keeps the first', async () => {
    write('dup.mjs', 'export default { id: "overlap", defaultWeight: 1, score: () => ({ risk: 1, evidence: [{ message: "x" }] }) };');
    write('airspace.config.json', JSON.stringify({ plugins: ['./dup.mjs'], channels: { nope: { weight: 1 } } }));
    const set = await resolveChannelSet({ builtins: [builtin('overlap', 1)], loaded: await loadConfig({ repoRoot: dir }) });
    expect(set.channels).toHaveLength(1);
    expect(set.listing[0]?.source).toBe('builtin');
    const dup = set.problems.find((p) => p.code === 'DUPLICATE_CHANNEL_ID');
    expect(dup?.message).toContain('builtin');
    expect(dup?.message).toContain('./dup.mjs');
    expect(set.problems.find((p) => p.code === 'UNKNOWN_CHANNEL')?.channel).toBe('nope');
  });

  it('degrades on a broken calibration file and inverted thresholds', async () => {
    write('cal.json', '{"weights": {"overlap": 3}}');
    write('airspace.config.json', JSON.stringify({ thresholds: { traffic: 0.8, resolution: 0.5 } }));
    const set = await resolveChannelSet({
      builtins: [builtin('overlap', 1)],
      loaded: await loadConfig({ repoRoot: dir }),
      calibrationPath: join(dir, 'cal.json'),
    });
    expect(set.weights).toEqual({ overlap: 1 });
    expect(set.thresholds).toEqual(DEFAULT_THRESHOLDS);
    expect(set.problems.map((p) => p.code).sort()).toEqual(['CALIBRATION_INVALID', 'INVALID_CONFIG']);
  });
});
