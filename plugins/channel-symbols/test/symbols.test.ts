import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanAirspace, type Agent, type AnyChannel, type Link } from '@airspace/core';
import { baseView, createSymbolService, index, memorySnapshot, overlay, type IndexView } from '@airspace/analysis';
import { loadAgents } from '@airspace/git';
import { createRepoFixture, type FixtureCheckout, type FileTree, type RepoFixture } from '@airspace/git/fixture';
import { overlapChannel } from '@airspace/channel-overlap';
import { callGraphChannel } from '@airspace/channel-callgraph';
import { symbolsChannel } from '../src/index.js';

let repo: RepoFixture | undefined;
afterEach(() => {
  repo?.dispose();
  repo = undefined;
});

/** A repository with the base files and one worktree per agent, analysed as the scanner does. */
async function scenario(files: Record<string, string>, edits: Record<string, (wt: FixtureCheckout) => void>) {
  repo = createRepoFixture(files as FileTree);
  for (const [id, edit] of Object.entries(edits)) edit(repo.worktree(id));
  // Recency is not under test: every file weighs 1.
  const { agents } = await loadAgents({ repo: repo.dir, base: 'main', recency: { halfLifeMs: 3_600_000, floor: 1 } });
  const idx = await index(memorySnapshot(files), { workers: 0 });
  const base = baseView(idx);
  const views = new Map<string, IndexView>();
  for (const agent of agents) {
    const changes = agent.files.map((f) => ({
      path: f.path,
      deleted: f.status === 'deleted',
      read: () => readFileSync(join(agent.worktree!, f.path)),
    }));
    views.set(agent.id, await overlay(idx, changes, { workers: 0 }));
  }
  const symbols = createSymbolService({ base, forAgent: (id) => views.get(id) ?? base });
  const channels: AnyChannel[] = [symbolsChannel(), callGraphChannel(), overlapChannel()];
  const result = await scanAirspace(agents, { channels, services: { symbols }, now: Date.UTC(2026, 0, 2) });
  const link = (x: string, y: string): Link => result.links.find((l) => (l.a === x && l.b === y) || (l.a === y && l.b === x))!;
  const channel = (l: Link, id: string) => l.channels.find((c) => c.channel === id)!;
  return { agents, symbols, result, link, channel, byId: (id: string) => agents.find((a) => a.id === id) as Agent };
}

const CONFIG_TS = [
  'export function parseConfig(text: string) {', // 1
  '  return JSON.parse(text);', // 2
  '}', // 3
  '', // 4
  'export function formatConfig(value: unknown) {', // 5
  '  return JSON.stringify(value);', // 6
  '}', // 7
  '',
].join('\n');

describe('symbols channel on TypeScript', () => {
  it('fires on a signature change against a new call site in another file; overlap does not', async () => {
    const s = await scenario(
      { 'src/config.ts': CONFIG_TS, 'src/app.ts': 'export function main() {\n  return 1;\n}\n' },
      {
        alice: (wt) => wt.write('src/config.ts', CONFIG_TS.replace('parseConfig(text: string)', 'parseConfig(text: string, strict: boolean)')).commit('strict'),
        bob: (wt) => wt.write('src/app.ts', "import { parseConfig } from './config';\nexport function main() {\n  return parseConfig('{}');\n}\n"),
      },
    );
    const link = s.link('alice', 'bob');
    const symbols = s.channel(link, 'symbols');
    expect(symbols.risk).toBeGreaterThanOrEqual(0.7);
    expect(symbols.evidence[0]).toMatchObject({
      kind: 'write-read',
      a: { agent: 'alice', path: 'src/config.ts', symbol: 'parseConfig', range: [1, 3] },
      b: { agent: 'bob', path: 'src/app.ts', range: [3, 3] },
    });
    expect(symbols.evidence[0]!.message).toContain('changes the signature of parseConfig');
    expect(s.channel(link, 'overlap').risk).toBe(0);
    expect(link.level).toBe('resolution');
  });

  it('says on each side who writes and who only reads, whichever of the pair is the writer', async () => {
    // The reader is `a` of the pair (alice < zed): the kind alone cannot say which side writes.
    const s = await scenario(
      { 'src/config.ts': CONFIG_TS, 'src/app.ts': 'export function main() {\n  return 1;\n}\n' },
      {
        alice: (wt) => wt.write('src/app.ts', "import { parseConfig } from './config';\nexport function main() {\n  return parseConfig('{}');\n}\n"),
        zed: (wt) => wt.write('src/config.ts', CONFIG_TS.replace('parseConfig(text: string)', 'parseConfig(text: string, strict: boolean)')).commit('strict'),
      },
    );
    expect(s.channel(s.link('alice', 'zed'), 'symbols').evidence[0]).toMatchObject({
      kind: 'write-read',
      a: { agent: 'alice', path: 'src/app.ts', access: 'read' },
      b: { agent: 'zed', path: 'src/config.ts', symbol: 'parseConfig', access: 'write' },
    });
  });

  it('resolves a read through a re-export in an index.ts', async () => {
    const s = await scenario(
      { 'src/config.ts': CONFIG_TS, 'src/index.ts': "export { parseConfig } from './config';\nexport * from './config';\n", 'src/app.ts': 'export const x = 1;\n' },
      {
        alice: (wt) => wt.write('src/config.ts', CONFIG_TS.replace('JSON.parse(text)', 'JSON.parse(text.trim())')).commit('trim'),
        bob: (wt) => wt.write('src/app.ts', "import { parseConfig as pc, formatConfig } from './index';\nexport const x = pc('1');\nexport const y = formatConfig(2);\n"),
      },
    );
    const reads = s.symbols.reads(s.byId('bob'));
    expect(reads.find((r) => r.qualifiedName === 'parseConfig')).toMatchObject({ definedIn: 'src/config.ts', strength: 'changed', confidence: 'high', via: 'import' });
    expect(reads.find((r) => r.qualifiedName === 'formatConfig')).toMatchObject({ definedIn: 'src/config.ts' });
    const symbols = s.channel(s.link('alice', 'bob'), 'symbols');
    // A body change read by new code: a traffic-level hazard, not a resolution.
    expect(symbols.risk).toBeCloseTo(0.45, 5);
    expect(symbols.evidence[0]!.message).toContain('changes the body of parseConfig');
  });

  it('stays low for two agents editing different functions of one file that do not call each other', async () => {
    const s = await scenario(
      { 'src/config.ts': CONFIG_TS },
      {
        alice: (wt) => wt.write('src/config.ts', CONFIG_TS.replace('JSON.parse(text)', 'JSON.parse(text) ?? {}')).commit('a'),
        bob: (wt) => wt.write('src/config.ts', CONFIG_TS.replace('JSON.stringify(value)', 'JSON.stringify(value, null, 2)')).commit('b'),
      },
    );
    const link = s.link('alice', 'bob');
    expect(s.symbols.writes(s.byId('alice')).map((w) => w.qualifiedName)).toEqual(['parseConfig']);
    expect(s.symbols.writes(s.byId('bob')).map((w) => w.qualifiedName)).toEqual(['formatConfig']);
    expect(s.channel(link, 'symbols').risk).toBe(0);
    expect(s.channel(link, 'call-graph').risk).toBe(0);
    expect(link.level).toBe('clear');
  });

  it('does not confuse two unrelated modules that define the same name', async () => {
    const parser = (name: string) => `export function parse(text: string) {\n  return '${name}' + text;\n}\n`;
    const s = await scenario(
      { 'src/xml/parse.ts': parser('xml'), 'src/json/parse.ts': parser('json'), 'src/app.ts': 'export const a = 1;\n' },
      {
        alice: (wt) => wt.write('src/xml/parse.ts', parser('xml').replace('parse(text: string)', 'parse(text: string, strict = true)')).commit('xml'),
        bob: (wt) => wt.write('src/app.ts', "import { parse } from './json/parse';\nexport const a = parse('1');\n"),
      },
    );
    expect(s.symbols.reads(s.byId('bob')).map((r) => r.symbol)).toContain('src/json/parse.ts#parse');
    expect(s.channel(s.link('alice', 'bob'), 'symbols').risk).toBe(0);
  });

  it('reports write/write on one method, qualified by its class', async () => {
    const cls = 'export class Loader {\n  load(p: string) {\n    return p;\n  }\n}\n';
    const s = await scenario(
      { 'src/loader.ts': cls },
      {
        alice: (wt) => wt.write('src/loader.ts', cls.replace('return p;', 'return p.trim();')).commit('a'),
        bob: (wt) => wt.write('src/loader.ts', cls.replace('return p;', 'return p.toLowerCase();')).commit('b'),
      },
    );
    const symbols = s.channel(s.link('alice', 'bob'), 'symbols');
    expect(symbols.evidence[0]).toMatchObject({ kind: 'write-write', a: { symbol: 'Loader.load' }, b: { symbol: 'Loader.load' } });
    expect(symbols.risk).toBeCloseTo(0.8, 5);
  });
});

describe('call-graph channel', () => {
  it('fires for a caller two calls away from a changed function, with the chain as evidence', async () => {
    const files = {
      'src/parse.ts': 'export function parse(t: string) {\n  return t.split(",");\n}\n',
      'src/load.ts': "import { parse } from './parse';\nexport function load(t: string) {\n  return parse(t);\n}\n",
      'src/main.ts': "import { load } from './load';\nexport function main() {\n  const v = load('a,b');\n  return v;\n}\n",
    };
    const s = await scenario(files, {
      alice: (wt) => wt.write('src/parse.ts', files['src/parse.ts'].replace('","', '";"')).commit('a'),
      bob: (wt) => wt.write('src/main.ts', files['src/main.ts'].replace('return v;', 'return v.length;')).commit('b'),
    });
    const link = s.link('alice', 'bob');
    const cg = s.channel(link, 'call-graph');
    expect(cg.risk).toBeCloseTo(0.5, 5); // γ^(2−1)
    expect(cg.evidence[0]!.chain).toEqual(['parse', 'load', 'main']);
    expect(cg.evidence[0]!.message).toContain('2 calls apart');
    expect(s.channel(link, 'symbols').risk).toBe(0);
    // File-level precision: call-graph alone never raises a resolution advisory.
    expect(link.level).not.toBe('resolution');
  });
});

describe('symbols channel on Python', () => {
  const M = ['class A:', '    def f(self):', '        return 1', '', '    def g(self, x):', '        return x', ''].join('\n');

  it('resolves a method called through self and flags the signature change', async () => {
    const s = await scenario(
      { 'pkg/__init__.py': '', 'pkg/m.py': M },
      {
        alice: (wt) => wt.write('pkg/m.py', M.replace('def g(self, x):', 'def g(self, x, y):')).commit('a'),
        bob: (wt) => wt.write('pkg/m.py', M.replace('        return 1', '        return self.g(1)')).commit('b'),
      },
    );
    const symbols = s.channel(s.link('alice', 'bob'), 'symbols');
    expect(symbols.evidence[0]).toMatchObject({ kind: 'write-read', a: { symbol: 'A.g', path: 'pkg/m.py' }, b: { path: 'pkg/m.py', range: [3, 3] } });
    expect(symbols.risk).toBeGreaterThanOrEqual(0.7);
    // bob's change also puts A.f one call from A.g: the call-graph channel sees it.
    expect(s.channel(s.link('alice', 'bob'), 'call-graph').risk).toBe(1);
  });

  it('resolves `from m import f` and `import m as mm; mm.f` across packages', async () => {
    const util = 'def top(x):\n    return x\n';
    const s = await scenario(
      { 'pkg/__init__.py': '', 'pkg/util.py': util, 'app.py': 'X = 1\n' },
      {
        alice: (wt) => wt.write('pkg/util.py', util.replace('def top(x):', 'def top(x, y):')).commit('a'),
        bob: (wt) => wt.write('app.py', 'from pkg.util import top\nimport pkg.util as mm\nX = top(1)\nY = mm.top(2)\n'),
      },
    );
    const reads = s.symbols.reads(s.byId('bob')).filter((r) => r.symbol === 'pkg/util.py#top');
    expect(reads.length).toBe(1);
    expect(reads[0]).toMatchObject({ strength: 'changed', confidence: 'high' });
    expect(s.channel(s.link('alice', 'bob'), 'symbols').risk).toBeGreaterThanOrEqual(0.7);
  });
});
