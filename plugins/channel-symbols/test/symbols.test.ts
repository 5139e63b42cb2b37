import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanAirspace, type Agent, type AnyChannel, type Link, type SymbolService, type SymbolWrite } from '@airspace/core';
import { agent as agentOf, edit } from '@airspace/core/builders';
import { baseView, createSymbolService, buildIndex, memorySnapshot, overlay, type IndexView } from '@airspace/analysis';
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
  const idx = await buildIndex(memorySnapshot(files), { workers: 0 });
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
        alice: (wt) =>
          wt
            .write('src/config.ts', CONFIG_TS.replace('parseConfig(text: string)', 'parseConfig(text: string, strict: boolean)'))
            .commit('strict'),
        bob: (wt) =>
          wt.write('src/app.ts', "import { parseConfig } from './config';\nexport function main() {\n  return parseConfig('{}');\n}\n"),
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
        alice: (wt) =>
          wt.write('src/app.ts', "import { parseConfig } from './config';\nexport function main() {\n  return parseConfig('{}');\n}\n"),
        zed: (wt) =>
          wt
            .write('src/config.ts', CONFIG_TS.replace('parseConfig(text: string)', 'parseConfig(text: string, strict: boolean)'))
            .commit('strict'),
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
      {
        'src/config.ts': CONFIG_TS,
        'src/index.ts': "export { parseConfig } from './config';\nexport * from './config';\n",
        'src/app.ts': 'export const x = 1;\n',
      },
      {
        alice: (wt) => wt.write('src/config.ts', CONFIG_TS.replace('JSON.parse(text)', 'JSON.parse(text.trim())')).commit('trim'),
        bob: (wt) =>
          wt.write(
            'src/app.ts',
            "import { parseConfig as pc, formatConfig } from './index';\nexport const x = pc('1');\nexport const y = formatConfig(2);\n",
          ),
      },
    );
    const reads = s.symbols.reads(s.byId('bob'));
    expect(reads.find((r) => r.qualifiedName === 'parseConfig')).toMatchObject({
      definedIn: 'src/config.ts',
      strength: 'changed',
      confidence: 'high',
      via: 'import',
    });
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
        alice: (wt) =>
          wt.write('src/xml/parse.ts', parser('xml').replace('parse(text: string)', 'parse(text: string, strict = true)')).commit('xml'),
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
    expect(symbols.evidence[0]!.message).toContain('overlapping');
    expect(symbols.risk).toBeCloseTo(0.9, 5);
  });
});

/** A component of `n` body lines (line 1 is its header, line n + 2 its closing brace). */
function bigComponent(n: number, extra = ''): string {
  const body = Array.from({ length: n }, (_, i) => `  const v${i + 1} = props.n + ${i + 1};`);
  return ['export function Big(props: { n: number }) {', ...body, extra, '  return <div>{v1}</div>;', '}', ''].join('\n');
}

describe('symbols write/write: where inside the symbol', () => {
  it('scores two edits far apart inside one 400-line component by their distance, not as a conflict', async () => {
    const src = bigComponent(400);
    const s = await scenario(
      { 'src/Big.tsx': src },
      {
        alice: (wt) => wt.write('src/Big.tsx', src.replace('props.n + 20;', 'props.n * 20;')),
        bob: (wt) => wt.write('src/Big.tsx', src.replace('props.n + 190;', 'props.n * 190;')),
      },
    );
    const link = s.link('alice', 'bob');
    const symbols = s.channel(link, 'symbols');
    expect(symbols.evidence[0]).toMatchObject({ kind: 'write-write-apart', a: { symbol: 'Big' }, b: { symbol: 'Big' } });
    expect(symbols.evidence[0]!.message).toContain('169 unchanged lines apart inside it');
    expect(symbols.risk).toBeLessThan(0.01);
    expect(link.level).not.toBe('resolution');
  });

  it('decays with the lines between them: close edits in one function are a near miss, touching ones resolution', async () => {
    const src = bigComponent(40);
    const near = await scenario(
      { 'src/Big.tsx': src },
      {
        alice: (wt) => wt.write('src/Big.tsx', src.replace('props.n + 20;', 'props.n * 20;')),
        bob: (wt) => wt.write('src/Big.tsx', src.replace('props.n + 22;', 'props.n * 22;')),
      },
    );
    const apart = near.channel(near.link('alice', 'bob'), 'symbols');
    expect(apart.evidence[0]!.kind).toBe('write-write-apart');
    expect(apart.risk).toBeCloseTo(0.3, 5); // one unchanged line apart: a near miss, as overlap scores it
    repo?.dispose();
    repo = undefined;
    const touching = await scenario(
      { 'src/Big.tsx': src },
      {
        alice: (wt) => wt.write('src/Big.tsx', src.replace('props.n + 20;', 'props.n * 20;')),
        bob: (wt) => wt.write('src/Big.tsx', src.replace('props.n + 21;', 'props.n * 21;')),
      },
    );
    const link = touching.link('alice', 'bob');
    expect(touching.channel(link, 'symbols').evidence[0]).toMatchObject({ kind: 'write-write' });
    expect(touching.channel(link, 'symbols').evidence[0]!.message).toContain('touching');
    expect(link.level).toBe('resolution');
  });

  it('takes the innermost definition: edits in two handlers of one component write different symbols', async () => {
    const src = [
      'export function Form(props: { n: number }) {',
      '  const onSave = () => {',
      '    save(props.n);',
      '  };',
      '  const onReset = useCallback(() => {',
      '    reset(props.n);',
      '  }, []);',
      '  return <form onSubmit={onSave} onReset={onReset} />;',
      '}',
      '',
    ].join('\n');
    const s = await scenario(
      { 'src/Form.tsx': src },
      {
        alice: (wt) => wt.write('src/Form.tsx', src.replace('save(props.n);', 'save(props.n + 1);')),
        bob: (wt) => wt.write('src/Form.tsx', src.replace('reset(props.n);', 'reset(props.n - 1);')),
      },
    );
    expect(s.symbols.writes(s.byId('alice')).map((w) => w.qualifiedName)).toEqual(['Form.onSave']);
    expect(s.symbols.writes(s.byId('bob')).map((w) => w.qualifiedName)).toEqual(['Form.onReset']);
    expect(s.channel(s.link('alice', 'bob'), 'symbols').evidence.filter((e) => e.kind?.startsWith('write-write'))).toEqual([]);
  });

  it('recognises identical changes (same content, or identical hunks) and scores them low', async () => {
    const src = bigComponent(30);
    const same = src.replace('props.n + 10;', 'props.n * 10;');
    const s = await scenario(
      { 'src/Big.tsx': src },
      { alice: (wt) => wt.write('src/Big.tsx', same), bob: (wt) => wt.write('src/Big.tsx', same) },
    );
    const symbols = s.channel(s.link('alice', 'bob'), 'symbols');
    expect(symbols.evidence[0]).toMatchObject({ kind: 'identical-change' });
    expect(symbols.risk).toBeLessThan(0.1);
    repo?.dispose();
    repo = undefined;
    // The same hunk on both sides, plus a different far edit by bob: still not a conflict.
    const hunks = await scenario(
      { 'src/Big.tsx': src },
      {
        alice: (wt) => wt.write('src/Big.tsx', same),
        bob: (wt) => wt.write('src/Big.tsx', same.replace('props.n + 28;', 'props.n * 28;')),
      },
    );
    const h = hunks.channel(hunks.link('alice', 'bob'), 'symbols');
    expect(h.evidence[0]!.kind).toBe('identical-change');
    expect(h.evidence[0]!.message).toContain('only bob changes more of it');
    expect(h.risk).toBeLessThan(0.1);
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
    expect(cg.evidence[0]!.chain).toEqual(['main', 'load', 'parse']); // in call order, caller first
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
    expect(symbols.evidence[0]).toMatchObject({
      kind: 'write-read',
      a: { symbol: 'A.g', path: 'pkg/m.py' },
      b: { path: 'pkg/m.py', range: [3, 3] },
    });
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
  it('scores a change to a class outside its methods (its docstring) low for a caller of the class', async () => {
    const server = ['class Server:', '    """Serves."""', '', '    def listen(self, port):', '        return port', ''].join('\n');
    const app = 'from pkg.server import Server\n\nX = 1\n';
    const s = await scenario(
      { 'pkg/__init__.py': '', 'pkg/server.py': server, 'app.py': app },
      {
        // A note in the class docstring: a body change of the class, none of its methods.
        alice: (wt) => wt.write('pkg/server.py', server.replace('    """Serves."""', '    """Serves.\n\n    A note.\n    """')).commit('a'),
        bob: (wt) => wt.write('app.py', app.replace('X = 1', 'X = Server().listen(8)')).commit('b'),
        // A change inside a method the other calls is still a body change read by new code.
        carol: (wt) => wt.write('pkg/server.py', server.replace('return port', 'return port + 1')).commit('c'),
      },
    );
    const doc = s.channel(s.link('alice', 'bob'), 'symbols');
    expect(doc.risk).toBeCloseTo(0.15, 5);
    expect(doc.evidence[0]).toMatchObject({
      kind: 'write-read',
      a: { agent: 'alice', symbol: 'Server' },
      b: { agent: 'bob', path: 'app.py' },
    });
    expect(doc.evidence[0]!.message).toContain('changes the class Server outside the methods and fields found in it');
    const method = s.channel(s.link('carol', 'bob'), 'symbols');
    expect(method.risk).toBeCloseTo(0.45, 5);
    expect(method.evidence[0]!.message).toContain('changes the body of Server.listen');
  });
});

describe('symbols precision', () => {
  const write = (path: string, name: string): SymbolWrite => ({
    symbol: `${path}#${name}`,
    path,
    qualifiedName: name,
    kind: 'function',
    change: 'signature',
    range: [1, 3],
    baseRange: [1, 3],
  });
  /** Every definition of a file edited without line information looks written: the service says so. */
  const service = (writes: Record<string, SymbolWrite[]>): SymbolService => ({
    writes: (agent) => writes[agent.id] ?? [],
    reads: () => [],
    callNeighbors: () => [],
  });

  it('calls a write/write on a file without line information file-level evidence (traffic at most)', async () => {
    const whole = (id: string, extra: Partial<Agent> = {}) => agentOf(id, [edit('data/big.ts', 'whole')], extra);
    const symbols = service({ alice: [write('data/big.ts', 'f')], bob: [write('data/big.ts', 'f')] });
    const result = await scanAirspace([whole('alice'), whole('bob')], { channels: [symbolsChannel()], services: { symbols } });
    const link = result.links[0]!;
    expect(link.channels[0]).toMatchObject({ risk: 0.9, preciseRisk: 0 });
    expect(link.evidence[0]!.message).toContain('no line information');
    expect(link.level).toBe('traffic');
    // An incomplete agent (no merge base): its lines are stand-ins too.
    const lines = (id: string, extra: Partial<Agent> = {}) => agentOf(id, [edit('src/a.ts', [[2, 2]])], extra);
    const shallow = await scanAirspace([lines('alice', { incomplete: ['no merge base'] }), lines('bob')], {
      channels: [symbolsChannel()],
      services: { symbols: service({ alice: [write('src/a.ts', 'f')], bob: [write('src/a.ts', 'f')] }) },
    });
    expect(shallow.links[0]!.level).toBe('unknown');
  });

  it('calls a write/write on declared lines (intent, not a change yet) file-level evidence that says so', async () => {
    const declared = (id: string) => agentOf(id, [{ ...edit('src/a.ts', [[2, 2]]), hunks: [], declared: true }]);
    const symbols = service({ alice: [write('src/a.ts', 'f')], bob: [write('src/a.ts', 'f')] });
    const result = await scanAirspace([declared('alice'), declared('bob')], { channels: [symbolsChannel()], services: { symbols } });
    const link = result.links[0]!;
    expect(link.channels[0]!.preciseRisk).toBe(0);
    expect(link.evidence[0]!.message).toContain('(declared intent, not a change yet: file-level evidence)');
    expect(link.level).not.toBe('resolution');
  });
});

describe('symbols evidence: grouped by range, renames named', () => {
  /** `export const v1 = 1;` … one constant a line, line i defining v{i}. */
  const CONSTS = Array.from({ length: 30 }, (_, i) => `export const v${i + 1} = ${i + 1};`).join('\n') + '\n';
  const without = (src: string, drop: (i: number) => boolean) =>
    src
      .split('\n')
      .filter((l) => !/^export const v(\d+) =/.test(l) || !drop(Number(/^export const v(\d+)/.exec(l)![1])))
      .join('\n');
  const retyped = (src: string, pick: (i: number) => boolean) =>
    src.replace(/^export const v(\d+) = (\d+);$/gm, (l, i: string, n: string) => (pick(Number(i)) ? `export const v${i} = ${n}0;` : l));

  it('gives many neighbouring deletions one line with a range, and a deletion apart a line of its own', async () => {
    const touched = (i: number) => (i >= 5 && i <= 20) || i === 28;
    const s = await scenario(
      { 'src/values.ts': CONSTS },
      {
        alice: (wt) => wt.write('src/values.ts', without(CONSTS, touched)).commit('a'),
        bob: (wt) => wt.write('src/values.ts', retyped(CONSTS, touched)).commit('b'),
      },
    );
    const evidence = s.channel(s.link('alice', 'bob'), 'symbols').evidence;
    const messages = evidence.map((e) => e.message);
    expect(messages).toHaveLength(2);
    const run = evidence.find((e) => e.message.includes('v5–v20'))!;
    expect(run.message).toMatch(
      /^alice deletes v5–v20 \(16 symbols\) \(src\/values\.ts:5–20\) and bob changes the signatures of v5–v20 \(16 symbols\)/,
    );
    expect(run.a).toMatchObject({ agent: 'alice', baseRange: [5, 20], symbols: Array.from({ length: 16 }, (_, i) => `v${i + 5}`) });
    expect(run.a!.symbol).toBeUndefined();
    expect(run.b).toMatchObject({ agent: 'bob', range: [5, 20] });
    expect(messages.filter((m) => m.startsWith('alice deletes v28 (src/values.ts:28)'))).toHaveLength(1);
  });

  it('names at most 50 symbols on a grouped side, and counts them all in its message', async () => {
    const many = Array.from({ length: 70 }, (_, i) => `export const w${i + 1} = ${i + 1};`).join('\n') + '\n';
    const s = await scenario(
      { 'src/many.ts': many },
      {
        alice: (wt) => wt.write('src/many.ts', many.replace(/^export const w([1-9]|[1-5]\d|60) = \d+;\n/gm, '')).commit('a'),
        bob: (wt) => wt.write('src/many.ts', many.replace(/= (\d+);/g, '= $10;')).commit('b'),
      },
    );
    const [run] = s.channel(s.link('alice', 'bob'), 'symbols').evidence;
    expect(run!.message).toMatch(/^alice deletes w1–w60 \(60 symbols\) \(src\/many\.ts:1–60\)/);
    expect(run!.a!.symbols).toHaveLength(50);
    expect(run!.a!.baseRange).toEqual([1, 60]);
  });

  it('groups the reads of neighbouring deleted symbols by one reader into one line', async () => {
    const app = "import { v5, v6, v7, v8 } from './values';\nexport const total = 0;\n";
    const s = await scenario(
      { 'src/values.ts': CONSTS, 'src/app.ts': app },
      {
        alice: (wt) =>
          wt
            .write(
              'src/values.ts',
              without(CONSTS, (i) => i >= 5 && i <= 8),
            )
            .commit('a'),
        bob: (wt) => wt.write('src/app.ts', app.replace('total = 0', 'total = v5 + v6 + v7 + v8')).commit('b'),
      },
    );
    const evidence = s.channel(s.link('alice', 'bob'), 'symbols').evidence.filter((e) => e.kind === 'write-read');
    expect(evidence.map((e) => e.message)).toEqual([
      'alice deletes v5–v8 (4 symbols) (src/values.ts:5–8), which bob reads at src/app.ts:2 in its changed lines.',
    ]);
    expect(evidence[0]!.b).toMatchObject({ agent: 'bob', access: 'read', symbols: ['v5', 'v6', 'v7', 'v8'] });
  });

  const URL_TS = [
    'export function refererStr(url: string) {', // 1
    "  const parts = url.split('/');", // 2
    '  return parts[0];', // 3
    '}', // 4
    '',
  ].join('\n');

  it('names a renamed TypeScript function old → new, for a writer and a reader; another body or scope stays a deletion', async () => {
    const app = "import { refererStr } from './url';\nexport const x = 1;\n";
    const extra = 'export function hostOf(url: string) {\n  return url.length;\n}\nexport class Box {\n  size() {\n    return 1;\n  }\n}\n';
    const files = { 'src/url.ts': URL_TS, 'src/more.ts': extra, 'src/app.ts': app };
    // In src/more.ts hostOf goes, and comes back with another body under another name, and its
    // body (renamed) as a method of Box: neither is a rename of it.
    const more = extra
      .replace('hostOf(url: string) {\n  return url.length;', 'portOf(url: string) {\n  return url.indexOf(":");')
      .replace('  size() {', '  hostname(url: string) {\n    return url.length;\n  }\n  size() {');
    const s = await scenario(files, {
      alice: (wt) => wt.write('src/url.ts', URL_TS.replace('refererStr', 'referrerStr')).write('src/more.ts', more).commit('a'),
      bob: (wt) =>
        wt
          .write('src/url.ts', URL_TS.replace('parts[0]', 'parts[1]'))
          .write('src/more.ts', extra.replace('url.length', 'url.length + 1'))
          .commit('b'),
      carol: (wt) => wt.write('src/app.ts', app.replace('x = 1', "x = refererStr('a/b')")).commit('c'),
    });
    const ww = s.channel(s.link('alice', 'bob'), 'symbols').evidence.map((e) => e.message);
    expect(ww.find((m) => m.includes('refererStr'))).toMatch(
      /^alice renames refererStr → referrerStr \(src\/url\.ts:1–4\) and bob changes the body of refererStr/,
    );
    expect(ww.find((m) => m.includes('hostOf'))).toMatch(/^alice deletes hostOf \(src\/more\.ts:1–3\) and bob changes the body of hostOf/);
    const read = s.channel(s.link('alice', 'carol'), 'symbols').evidence[0]!;
    expect(read.message).toBe(
      'alice renames refererStr → referrerStr (src/url.ts:1–4), which carol reads at src/app.ts:2 in its changed lines.',
    );
    const writes = s.symbols.writes(s.byId('alice'));
    expect(writes.find((w) => w.qualifiedName === 'refererStr')).toMatchObject({
      change: 'deleted',
      renamedTo: { qualifiedName: 'referrerStr', range: [1, 4] },
    });
    expect(writes.find((w) => w.qualifiedName === 'hostOf')!.renamedTo).toBeUndefined();
  });

  it('names a renamed Python function old → new', async () => {
    const M = [
      'def referer_str(url):',
      '    parts = url.split("/")',
      '    return parts[0]',
      '',
      '',
      'def other(x):',
      '    return x + 1',
      '',
    ].join('\n');
    const s = await scenario(
      { 'pkg/__init__.py': '', 'pkg/m.py': M },
      {
        alice: (wt) => wt.write('pkg/m.py', M.replace('referer_str', 'referrer_str')).commit('a'),
        bob: (wt) => wt.write('pkg/m.py', M.replace('return parts[0]', 'return parts[-1]')).commit('b'),
      },
    );
    const ww = s.channel(s.link('alice', 'bob'), 'symbols').evidence[0]!;
    expect(ww.message).toMatch(/^alice renames referer_str → referrer_str \(pkg\/m\.py:1–3\) and bob changes the body of referer_str/);
    expect(ww.a).toMatchObject({ agent: 'alice', symbol: 'referer_str', range: [1, 3] });
    expect(s.channel(s.link('alice', 'bob'), 'call-graph').evidence[0]!.message).toBe(
      'alice renames referer_str → referrer_str and bob edits referer_str (pkg/m.py).',
    );
  });

  it('names a renamed Python method old → new inside its class', async () => {
    const M = ['class Req:', '    def referer_str(self):', '        return self.h.get("referer")', ''].join('\n');
    const s = await scenario(
      { 'pkg/__init__.py': '', 'pkg/m.py': M },
      {
        alice: (wt) => wt.write('pkg/m.py', M.replace('referer_str', 'referrer_str')).commit('a'),
        bob: (wt) => wt.write('pkg/m.py', M.replace('"referer"', '"Referer"')).commit('b'),
      },
    );
    expect(s.channel(s.link('alice', 'bob'), 'symbols').evidence[0]!.message).toMatch(
      /^alice renames Req\.referer_str → Req\.referrer_str/,
    );
  });
});
