/**
 * Custom channels end to end: a plugin package made in a temporary directory, loaded through
 * airspace.config.json, seen in `airspace scan --json` and `airspace channels`; and every way a
 * plugin can be wrong, each reported with its name while the other channels go on.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Link, ScanResult } from '@airspace/core';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { airspace } from './run-cli.js';

let repo: RepoFixture;
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
  writeFileSync(join(repo.dir, path), text);
};

/** A plugin package as a team would publish it: ESM, a factory, options from ctx.options, no import of ours. */
const TEAM_PLUGIN = `
export default function ticketChannel() {
  return {
    id: 'same-ticket',
    defaultWeight: 0.5,
    meta: { description: 'Both agents work on the same ticket (branch name).', precision: 'file' },
    defaultOptions: { prefix: 'TICKET' },
    optionsSchema: { prefix: { type: 'string' } },
    score(a, b, ctx) {
      const ticket = (x) => (x.id.match(/-(\\d+)$/) ?? [])[1];
      if (!ticket(a) || ticket(a) !== ticket(b)) return { risk: 0, evidence: [] };
      return { risk: 0.6, evidence: [{ kind: 'same-ticket', message: \`\${a.label} and \${b.label} both work on \${ctx.options.prefix}-\${ticket(a)}.\` }] };
    },
  };
}
`;

async function scanJson(args: string[] = []): Promise<ScanResult> {
  const run = await airspace(['scan', '--repo', repo.dir, '--json', ...args]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as ScanResult;
}

const link = (result: ScanResult, x: string, y: string): Link =>
  result.links.find((l) => [l.a, l.b].sort().join() === [x, y].sort().join())!;

beforeAll(() => {
  repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n', 'docs/b.md': 'b\n' }, { epoch: Math.floor(Date.now() / 1000) - 600 });
  repo.worktree('fix-42').write('src/a.ts', 'export const a = 2;\n');
  repo.worktree('docs-42').write('docs/b.md', 'more b\n');
  write(
    'node_modules/@team/airspace-channel-ticket/package.json',
    JSON.stringify({ name: '@team/airspace-channel-ticket', type: 'module', exports: { '.': { import: './index.js' } } }),
  );
  write('node_modules/@team/airspace-channel-ticket/index.js', TEAM_PLUGIN);
  write('channels/throws.mjs', "export default { id: 'throws', defaultWeight: 1, score() { throw new Error('bad day'); } };");
  write(
    'channels/too-risky.mjs',
    "export default { id: 'too-risky', defaultWeight: 1, score: () => ({ risk: 7, evidence: [{ message: 'seven' }] }) };",
  );
  write(
    'channels/dup-overlap.mjs',
    "export default { id: 'overlap', defaultWeight: 1, score: () => ({ risk: 1, evidence: [{ message: 'x' }] }) };",
  );
  write('channels/not-a-channel.mjs', 'export default 42;');
  write('channels/broken.mjs', 'export default {;');
});
afterAll(() => repo.dispose());

describe('a plugin loaded through airspace.config.json', () => {
  it('scores in airspace scan --json with its evidence, options and configured weight', async () => {
    write(
      'airspace.config.json',
      JSON.stringify({
        plugins: ['@team/airspace-channel-ticket'],
        channels: { 'same-ticket': { weight: 0.9, options: { prefix: 'JIRA' } } },
      }),
    );
    const result = await scanJson();
    expect(result.weights['same-ticket']).toBe(0.9);
    const pair = link(result, 'fix-42', 'docs-42');
    const channel = pair.channels.find((c) => c.channel === 'same-ticket');
    expect(channel).toMatchObject({ risk: 0.6, weight: 0.9, precision: 'file' });
    expect(channel!.evidence[0]!.message).toBe('docs-42 and fix-42 both work on JIRA-42.'); // pairs are ordered a < b by id
    expect(pair.level).toBe('traffic'); // 0.9 × 0.6 = 0.54 ≥ τ_TA, file-level: never resolution
    expect(result.problems.filter((p) => p.code.startsWith('PLUGIN') || p.code === 'INVALID_CHANNEL')).toEqual([]);
  });

  it('is listed by airspace channels with its source, weight and precision', async () => {
    const run = await airspace(['channels', '--repo', repo.dir, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const { channels } = JSON.parse(run.stdout) as {
      channels: { id: string; source: string; weight: number; weightFrom: string; enabled: boolean }[];
    };
    expect(channels.find((c) => c.id === 'same-ticket')).toMatchObject({
      source: '@team/airspace-channel-ticket',
      weight: 0.9,
      weightFrom: 'config',
      enabled: true,
      isolation: 'worker',
      budget: { channelMs: 5000, callMs: 2000 },
    });
    expect(channels.find((c) => c.id === 'overlap')).toMatchObject({ source: 'builtin', enabled: true, isolation: 'in-process' });
    expect(channels.find((c) => c.id === 'overlap')).not.toHaveProperty('budget');
    const human = await airspace(['channels', '--repo', repo.dir]);
    expect(human.stdout).toMatch(/same-ticket\s+on\s+0\.90 \(config\)\s+file\s+—\s+worker, 5000 ms\/scan\s+@team/);
    expect(human.stdout).toMatch(/overlap\s+on\s+1\.00 \(default\)\s+line\s+—\s+in-process\s+builtin/);
  });

  it('turns a built-in off from the config', async () => {
    write('airspace.config.json', JSON.stringify({ channels: { tree: { enabled: false } } }));
    const result = await scanJson();
    expect(result.weights).not.toHaveProperty('tree');
    expect(result.links.every((l) => l.channels.every((c) => c.channel !== 'tree'))).toBe(true);
  });
});

describe('a plugin that is wrong is named, and the other channels go on', () => {
  const cases: [string, string, RegExp][] = [
    ['a missing file', './channels/nope.mjs', /PLUGIN_NOT_LOADED.*nope\.mjs/],
    ['a package that is not installed', '@nobody/airspace-channel-x', /PLUGIN_NOT_LOADED.*@nobody\/airspace-channel-x/],
    ['a syntax error', './channels/broken.mjs', /PLUGIN_NOT_LOADED.*broken\.mjs/],
    ['a default export that is no channel', './channels/not-a-channel.mjs', /INVALID_CHANNEL.*not-a-channel\.mjs/],
    ['a duplicate id', './channels/dup-overlap.mjs', /DUPLICATE_CHANNEL_ID.*overlap.*builtin.*dup-overlap\.mjs/],
    ['a channel that throws', './channels/throws.mjs', /CHANNEL_THREW.*throws.*bad day/],
    ['a risk outside [0, 1]', './channels/too-risky.mjs', /RISK_OUT_OF_RANGE.*too-risky/],
  ];
  it.each(cases)('%s', async (_name, plugin, expected) => {
    write('airspace.config.json', JSON.stringify({ plugins: [plugin] }));
    const result = await scanJson();
    const problems = result.problems.map((p) => `${p.code}: ${p.message}`).join('\n');
    expect(problems).toMatch(expected);
    // The built-ins still scored: fix-42 and docs-42 share no file, yet tree scored them.
    const tree = link(result, 'fix-42', 'docs-42').channels.find((c) => c.channel === 'tree');
    expect(tree).toBeDefined();
    expect(result.weights['overlap']).toBe(1);
  });

  it('an invalid config file keeps its valid sections and says what is wrong', async () => {
    write('airspace.config.json', JSON.stringify({ thresholds: { traffic: 0.2 }, channels: { overlap: { weight: 3 } } }));
    const result = await scanJson();
    expect(result.thresholds.traffic).toBe(0.2);
    expect(result.problems.map((p) => p.message).join('\n')).toContain('/channels/overlap/weight');
  });
});
