import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  configRootFor,
  configTimeoutMs,
  DEFAULT_CONFIG_TIMEOUT_MS,
  findConfig,
  loadConfig,
  locateConfig,
  recencyOptions,
  validateConfig,
} from '../src/config.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airspace-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string) => {
  mkdirSync(join(dir, name, '..'), { recursive: true });
  writeFileSync(join(dir, name), text);
};

describe('validateConfig', () => {
  it('accepts the documented shape', () => {
    expect(
      validateConfig({
        plugins: ['./channels/x.mjs', '@team/airspace-channel-x'],
        channels: { overlap: { weight: 0.5, enabled: true, options: { conflictFloor: 0.9 } } },
        thresholds: { traffic: 0.35, resolution: 0.7 },
      }),
    ).toEqual([]);
  });

  it.each([
    [{ thresholds: { traffic: 2 } }, '/thresholds/traffic'],
    [{ channels: { overlap: { weight: -1 } } }, '/channels/overlap/weight'],
    [{ channels: { overlap: { wieght: 1 } } }, 'unknown property "wieght"'],
    [{ plugins: 'one.mjs' }, '/plugins'],
    [{ channels: { Bad_Id: {} } }, '/channels'],
  ])('names what is wrong in %j', (config, fragment) => {
    const problems = validateConfig(config, 'airspace.config.json');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.map((p) => p.message).join('\n')).toContain(fragment);
    expect(problems.every((p) => p.code === 'INVALID_CONFIG')).toBe(true);
  });
});

describe('loadConfig', () => {
  it('returns the empty config when there is no file', async () => {
    expect(await loadConfig({ repoRoot: dir })).toEqual({ config: {}, dir, problems: [] });
  });

  it('finds airspace.config.json at the repository root', async () => {
    write('airspace.config.json', JSON.stringify({ thresholds: { traffic: 0.2 } }));
    expect(findConfig(dir)).toBe(join(dir, 'airspace.config.json'));
    const loaded = await loadConfig({ repoRoot: dir });
    expect(loaded.config).toEqual({ thresholds: { traffic: 0.2 } });
    expect(loaded.problems).toEqual([]);
  });

  it('looks in the main worktree when a linked worktree has no config of its own, which wins when present', () => {
    const [main, linked] = [join(dir, 'main'), join(dir, 'linked')];
    write('main/airspace.config.mjs', 'export default {};');
    mkdirSync(linked);
    expect(configRootFor(linked, main)).toBe(main);
    expect(configRootFor(linked)).toBe(linked);
    write('linked/airspace.config.json', '{}');
    expect(configRootFor(linked, main)).toBe(linked);
    rmSync(join(main, 'airspace.config.mjs'));
    rmSync(join(linked, 'airspace.config.json'));
    expect(configRootFor(linked, main)).toBe(linked);
  });

  it("says which config is used when a worktree's own hides a different one in the main worktree", () => {
    const main = join(dir, 'main');
    const linked = join(dir, 'linked');
    write('main/airspace.config.json', '{ "thresholds": { "traffic": 0.3 }, "$schema": "a" }');
    write('linked/x', '');
    expect(locateConfig(linked, main)).toEqual({ root: main, problems: [] });
    // The same settings in another layout: nothing to say.
    write('linked/airspace.config.json', '{"$schema": "b",\n  "thresholds": {"traffic": 0.3}}');
    expect(locateConfig(linked, main)).toEqual({ root: linked, problems: [] });
    write('linked/airspace.config.json', '{ "thresholds": { "traffic": 0.4 } }');
    const { root, problems } = locateConfig(linked, main);
    expect(root).toBe(linked);
    expect(problems).toEqual([
      {
        code: 'CONFIG_SHADOWED',
        message: `Using this worktree's config ${join(linked, 'airspace.config.json')}; the main worktree's ${join(main, 'airspace.config.json')} differs and does not apply here (a worktree's own config wins).`,
      },
    ]);
    // The main worktree itself has nothing hidden.
    expect(locateConfig(main, main).problems).toEqual([]);
  });

  it('loads an .mjs config and a .ts config through jiti', async () => {
    write('cfg/a.mjs', 'export default { channels: { tree: { enabled: false } } };');
    expect((await loadConfig({ repoRoot: dir, configPath: 'cfg/a.mjs' })).config).toEqual({ channels: { tree: { enabled: false } } });
    write('cfg/b.ts', 'const weight: number = 0.25;\nexport default { channels: { overlap: { weight } } };');
    const loaded = await loadConfig({ repoRoot: dir, configPath: 'cfg/b.ts' });
    expect(loaded.problems).toEqual([]);
    expect(loaded.config).toEqual({ channels: { overlap: { weight: 0.25 } } });
    expect(loaded.dir).toBe(join(dir, 'cfg'));
  });

  it('stops a config module that never finishes loading, within its time, naming the file', async () => {
    write('airspace.config.mjs', 'await new Promise(() => {});\nexport default {};');
    const started = Date.now();
    const loaded = await loadConfig({ repoRoot: dir, timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(loaded.config).toEqual({});
    expect(loaded.problems).toMatchObject([{ code: 'CONFIG_TIMEOUT' }]);
    expect(loaded.problems[0]!.message).toContain(join(dir, 'airspace.config.mjs'));
  }, 10_000);

  it('a config module calling process.exit(0) ends only its own thread: a problem, not an exit', async () => {
    write('airspace.config.mjs', 'process.exit(0);\nexport default {};');
    const loaded = await loadConfig({ repoRoot: dir, timeoutMs: 5000 });
    expect(loaded.problems).toMatchObject([{ code: 'CONFIG_EXITED' }]);
    expect(loaded.problems[0]!.message).toMatch(/airspace\.config\.mjs called process\.exit\(0\)/);
    write('late.mjs', 'setTimeout(() => process.exit(0), 1);\nexport default { thresholds: { traffic: 0.3 } };');
    expect((await loadConfig({ repoRoot: dir, configPath: 'late.mjs' })).config).toEqual({ thresholds: { traffic: 0.3 } });
  }, 15_000);

  it('configTimeoutMs reads AIRSPACE_CONFIG_TIMEOUT_MS, and ignores what is not a positive number', () => {
    expect(configTimeoutMs({ AIRSPACE_CONFIG_TIMEOUT_MS: '250' })).toBe(250);
    expect(configTimeoutMs({ AIRSPACE_CONFIG_TIMEOUT_MS: 'soon' })).toBe(DEFAULT_CONFIG_TIMEOUT_MS);
    expect(configTimeoutMs({})).toBe(DEFAULT_CONFIG_TIMEOUT_MS);
  });

  it('reports a missing --config file and malformed JSON, with defaults', async () => {
    const missing = await loadConfig({ repoRoot: dir, configPath: 'nope.json' });
    expect(missing.config).toEqual({});
    expect(missing.problems[0]).toMatchObject({ code: 'CONFIG_NOT_FOUND' });
    write('airspace.config.json', '{ "thresholds": ');
    const broken = await loadConfig({ repoRoot: dir });
    expect(broken.config).toEqual({});
    expect(broken.problems[0]?.code).toBe('CONFIG_UNREADABLE');
    expect(broken.problems[0]?.message).toContain('airspace.config.json');
  });

  it('keeps the valid sections of an invalid config', async () => {
    write('airspace.config.json', JSON.stringify({ thresholds: { traffic: 0.1 }, channels: { overlap: { weight: 7 } } }));
    const loaded = await loadConfig({ repoRoot: dir });
    expect(loaded.config).toEqual({ thresholds: { traffic: 0.1 } });
    expect(loaded.problems.map((p) => p.message).join()).toContain('/channels/overlap/weight');
  });
});

describe('recencyOptions', () => {
  it("reads hours into milliseconds, with core's defaults (a day of grace) where absent", () => {
    expect(recencyOptions({})).toEqual({ halfLifeMs: 24 * 3_600_000, floor: 0.3, graceMs: 24 * 3_600_000 });
    expect(recencyOptions({ recency: { halfLifeHours: 12, graceHours: 0 } })).toEqual({
      halfLifeMs: 12 * 3_600_000,
      floor: 0.3,
      graceMs: 0,
    });
    expect(validateConfig({ recency: { graceHours: 48 } })).toEqual([]);
  });
});
