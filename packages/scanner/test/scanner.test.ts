import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_FORECAST_MODEL, DEFAULT_PROBABILITY_MAP, defineChannel, pairProbability, probabilityOf, type Agent } from '@airspace/core';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { openRepository } from '@airspace/git';
import { BUILTIN_CHANNELS, createScanner, loadScanSetup, scanOptionsOf, scanRepository, type ScanProgress } from '../src/index.js';

const builtinsOff = Object.fromEntries(BUILTIN_CHANNELS.map((make) => [make().id, { enabled: false }]));

/** A line-precise test channel: risk 1 when both agents change a file of the same path, with both sides as evidence. */
const samePath = defineChannel({
  id: 'same-path',
  defaultWeight: 1,
  meta: { precision: 'line' },
  score(a: Agent, b: Agent) {
    const shared = a.files.filter((f) => b.files.some((g) => g.path === f.path));
    return {
      risk: shared.length > 0 ? 1 : 0,
      evidence: shared.map((f) => ({
        message: `both change ${f.path}`,
        a: { agent: a.id, path: f.path },
        b: { agent: b.id, path: f.path },
      })),
    };
  },
});

// One repository for the tests that only read it; a test that changes files makes its own.
let shared: RepoFixture;
let repo: RepoFixture | undefined;
beforeAll(() => {
  shared = twoAgents();
});
afterAll(() => shared.dispose());
afterEach(() => {
  repo?.dispose();
  repo = undefined;
});

function twoAgents(): RepoFixture {
  const r = createRepoFixture(
    { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n', 'docs/x.md': '# x\n' },
    { epoch: Math.floor(Date.now() / 1000) - 600 },
  );
  r.worktree('alice').write('src/a.ts', 'export const a = 2;\n').commit('a');
  r.worktree('bob').write('src/b.ts', 'export const b = 20;\n');
  return r;
}

describe('scanRepository', () => {
  it('reports progress as each agent is read, each overlay built and each batch of pairs scored', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n' });
    const n = 33; // 528 pairs: one report part-way, one at the end
    // One branch per agent adding its own file, in one git process.
    const stream = Array.from({ length: n }, (_, i) => {
      const content = `export const f${i} = ${i};\n`;
      return `commit refs/heads/agent/${i}\ncommitter A <a@example.com> ${Math.floor(Date.now() / 1000) - 60} +0000\ndata 1\n${i % 10}\nfrom refs/heads/main^0\nM 100644 inline src/f${i}.ts\ndata ${content.length}\n${content}\n`;
    }).join('');
    execFileSync('git', ['fast-import', '--quiet'], { cwd: repo.dir, input: stream });
    const seen: ScanProgress[] = [];
    const result = await scanRepository({
      repo: repo.dir,
      base: 'main',
      sources: ['branches'],
      config: { channels: { ...builtinsOff, dependency: { enabled: true } } },
      onProgress: (p) => seen.push(p),
    });
    expect(result.counts.agents).toBe(n);
    const of = (phase: string, message: string) =>
      seen.filter((p) => p.phase === phase && p.message === message).map((p) => [p.done, p.total]);
    // Every branch is a candidate, main (no work: not an agent) included.
    expect(of('agents', 'reading agents')).toEqual(Array.from({ length: n + 1 }, (_, i) => [i + 1, n + 1]));
    expect(of('index', 'overlays').at(-1)).toEqual([n, n]);
    expect(of('index', 'overlays').length).toBeGreaterThan(n);
    const pairs = (n * (n - 1)) / 2;
    expect(of('scan', 'pairs')).toEqual([
      [0, pairs],
      [500, pairs],
      [pairs, pairs],
      [pairs, pairs],
    ]);
  });

  it('loads the worktrees as agents and scores every pair through the given channels', async () => {
    const result = await scanRepository({ repo: shared.dir, channels: [samePath] });
    expect(result.agents.map((a) => a.id).sort()).toEqual(['alice', 'bob']);
    expect(result.links).toHaveLength(1);
    expect(result.links[0]!.level).toBe('clear');
    expect(result.weights['same-path']).toBe(1);
  });

  it("reports each link's probability through the calibration file's map, else the shipped one", async () => {
    const declared = { bob: ['src/a.ts'] }; // risk 1 from same-path
    const shipped = await scanRepository({ repo: shared.dir, channels: [samePath], intent: declared });
    expect(shipped.probabilityLabel).toBe('collided');
    expect(shipped.links[0]!.probability).toBe(1);
    expect(shipped.advisories[0]!.probability).toBe(1);
    const dir = mkdtempSync(join(tmpdir(), 'airspace-map-'));
    try {
      const file = join(dir, 'calibration.json');
      const knots = [
        [0, 0.01],
        [1, 0.6],
      ];
      writeFileSync(file, JSON.stringify({ weights: {}, probability: { label: 'textual', knots } }));
      const mapped = await scanRepository({ repo: shared.dir, channels: [samePath], intent: declared, calibration: file });
      expect(mapped.probabilityLabel).toBe('textual');
      expect(mapped.links[0]!.probability).toBe(0.6);
      expect(mapped.links[0]!.level).toBe(shipped.links[0]!.level);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('notes, once, that the shipped map was fitted on other weights than those in use, and still uses it', async () => {
    const declared = { bob: ['src/a.ts'] };
    const noted = (result: { problems: readonly { code: string; message: string }[] }) =>
      result.problems.filter((p) => p.code === 'PROBABILITY_MAP_WEIGHTS');
    // The default weights: nothing to say.
    expect(noted(await scanRepository({ repo: shared.dir, channels: [samePath], intent: declared }))).toEqual([]);
    // A config weighing a built-in otherwise and turning one off.
    const config = { channels: { overlap: { weight: 0.5 }, merge: { enabled: false } } };
    const result = await scanRepository({ repo: shared.dir, channels: [samePath], intent: declared, config });
    expect(noted(result)).toHaveLength(1);
    const message = noted(result)[0]!.message;
    expect(message).toMatch(/^Note: these channel weights differ from the default ones the shipped probability map was fitted on \(/);
    expect(message).toContain('overlap 0.5, default 1');
    expect(message).toContain('merge off, default ');
    expect(message).toContain('airspace eval --repo … --config FILE --fit-probability collided');
    expect(result.probabilityLabel).toBe('collided');
    for (const link of result.links) expect(link.probability).toBe(probabilityOf(link.risk, DEFAULT_PROBABILITY_MAP));
    // A front end's own weights count too; a config that sets a default weight again does not.
    expect(noted(await scanRepository({ repo: shared.dir, intent: declared, weights: { overlap: 0.25 } }))).toHaveLength(1);
    const defaultOverlap = BUILTIN_CHANNELS.map((make) => make()).find((c) => c.id === 'overlap')!.defaultWeight;
    const same = { channels: { overlap: { weight: defaultOverlap } } };
    expect(noted(await scanRepository({ repo: shared.dir, intent: declared, config: same }))).toEqual([]);
    // A calibration file with a map of its own: that map is for its weights, nothing to say.
    const dir = mkdtempSync(join(tmpdir(), 'airspace-map-'));
    try {
      const file = join(dir, 'calibration.json');
      writeFileSync(
        file,
        JSON.stringify({
          weights: { overlap: 0.5 },
          probability: {
            label: 'collided',
            knots: [
              [0, 0.01],
              [1, 0.6],
            ],
          },
        }),
      );
      expect(noted(await scanRepository({ repo: shared.dir, intent: declared, calibration: file }))).toEqual([]);
      // Its weights without a map: the shipped map reads them, said once.
      writeFileSync(file, JSON.stringify({ weights: { overlap: 0.5 } }));
      expect(noted(await scanRepository({ repo: shared.dir, intent: declared, calibration: file }))).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts intent as a whole-file edit, so declaring a path another agent changes raises an advisory', async () => {
    const result = await scanRepository({ repo: shared.dir, channels: [samePath], intent: { bob: ['src/a.ts'] } });
    const link = result.links[0]!;
    expect(link.level).toBe('resolution');
    expect(link.evidence.map((e) => e.message)).toContain('both change src/a.ts');
    const bob = result.agents.find((a) => a.id === 'bob')!;
    expect(bob.intent).toEqual(['src/a.ts']);
    expect(bob.files.find((f) => f.path === 'src/a.ts')!.baseRanges).toBe('whole');
  });

  describe('declared intent before any edit', () => {
    // Two fresh worktrees, nothing changed yet, both about to touch src/a.ts.
    const fresh = (): RepoFixture => {
      const r = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n' });
      r.worktree('alice');
      r.worktree('bob');
      return r;
    };
    const declaredPair = (result: Awaited<ReturnType<typeof scanRepository>>) => {
      expect(result.agents.map((a) => a.id).sort()).toEqual(['alice', 'bob']);
      expect(result.links).toHaveLength(1);
      const link = result.links[0]!;
      expect(link.level).toBe('traffic');
      expect(link.evidence.some((e) => /declared/.test(e.message) && e.a?.path === 'src/a.ts')).toBe(true);
      for (const a of result.agents)
        expect(a.files).toEqual([expect.objectContaining({ path: 'src/a.ts', baseRanges: 'whole', weight: 1, declared: true })]);
    };

    it('an observation with intent is an agent, scored by its intent', async () => {
      repo = fresh();
      const observations = {
        version: 1,
        agents: ['alice', 'bob'].map((id) => ({ id, worktree: join(`${repo!.dir}-wt`, id), intent: ['src/a.ts'] })),
      };
      declaredPair(await scanRepository({ repo: repo.dir, sources: [{ observations }] }));
    });

    it('an intent given to the scanner makes a fresh worktree an agent, with its worktree', async () => {
      repo = fresh();
      const result = await scanRepository({ repo: repo.dir, intent: { alice: ['src/a.ts'], bob: ['src/a.ts'] } });
      declaredPair(result);
      // The worktree's own agent, not a stand-in: an editor can find it by its worktree.
      for (const a of result.agents) expect(a.worktree).toMatch(new RegExp(`/${a.id}$`));
    });

    it('intent declared to a warm scanner (an editor) counts at once, also on a patched re-read', async () => {
      repo = fresh();
      const scanner = createScanner({ repo: repo.dir });
      try {
        expect((await scanner.scan()).agents).toHaveLength(0);
        const intent = { alice: ['src/a.ts'], bob: ['src/a.ts'] };
        declaredPair(await scanner.scan(undefined, { intent }));
        const aliceDir = join(`${repo.dir}-wt`, 'alice');
        declaredPair(await scanner.scan(undefined, { intent, only: [aliceDir], changedPaths: { [aliceDir]: [] } }));
      } finally {
        await scanner.dispose();
      }
    });

    it('an agent with neither edits nor intent is still no agent', async () => {
      repo = fresh();
      const result = await scanRepository({ repo: repo.dir, intent: { alice: ['src/a.ts'] } });
      expect(result.agents.map((a) => a.id)).toEqual(['alice']);
      expect(result.links).toHaveLength(0);
    });
  });

  it("a probe scores the probed lines, not the agent's real conflict, in every channel", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `export const v${i + 1} = ${i + 1};`);
    const text = (l: string[]) => l.join('\n') + '\n';
    repo = createRepoFixture({ 'src/c.ts': text(lines) }, { epoch: Math.floor(Date.now() / 1000) - 600 });
    repo
      .worktree('alice')
      .write('src/c.ts', text(lines.map((l, i) => (i === 9 ? 'export const v10 = 100;' : l))))
      .commit('alice: line 10');
    // bob inserts five lines at the top and changes base line 11 (touching alice's line 10): a real conflict.
    const top = ['// one', '// two', '// three', '// four', '// five'];
    repo.worktree('bob').write('src/c.ts', text([...top, ...lines.map((l, i) => (i === 10 ? 'export const v11 = 1100;' : l))]));
    const scanner = createScanner({ repo: repo.dir });
    try {
      const real = await scanner.scan();
      expect(real.links[0]!.level).toBe('resolution');
      // Line 1 of bob's file (a comment he added): far from alice's change; merge is left out, and says so.
      const first = await scanner.scan(undefined, { probe: { agent: 'bob', intent: [{ path: 'src/c.ts', lines: [1, 1] }] } });
      expect(first.links[0]!.level).not.toBe('resolution');
      expect(first.links[0]!.channels.map((c) => c.channel)).not.toContain('merge');
      expect(first.problems.find((p) => p.code === 'PROBE_WITHOUT_CHANNEL')).toMatchObject({ channel: 'merge' });
      // bob's line 15 is base line 10 (five lines inserted above): alice's line.
      const mapped = await scanner.scan(undefined, { probe: { agent: 'bob', intent: [{ path: 'src/c.ts', lines: [15, 15] }] } });
      expect(mapped.agents.find((a) => a.id === 'bob')!.files[0]!.baseRanges).toEqual([[10, 10]]);
      expect(mapped.links[0]!.level).toBe('resolution');
      expect(mapped.links[0]!.channels.find((c) => c.channel === 'overlap')!.evidence[0]!.kind).toBe('overlap');
    } finally {
      await scanner.dispose();
    }
  });

  it("a probe replaces the agent's working set, and an unknown worktree becomes a new agent", async () => {
    const scanner = createScanner({ repo: shared.dir, channels: [samePath] });
    try {
      // bob's own work (src/b.ts) no longer counts: only the probe does.
      const probed = await scanner.scan(undefined, { probe: { agent: 'bob', intent: [{ path: 'docs/x.md', lines: [1, 1] }] } });
      const bob = probed.agents.find((a) => a.id === 'bob')!;
      expect(bob.files.map((f) => f.path)).toEqual(['docs/x.md']);
      expect(bob.files[0]!.baseRanges).toEqual([[1, 1]]);
      const fresh = await scanner.scan(undefined, {
        probe: { worktree: join(shared.dir, '..', 'somewhere', 'carol'), intent: ['src/a.ts'] },
      });
      expect(fresh.agents.map((a) => a.id).sort()).toEqual(['alice', 'bob', 'carol']);
      expect(fresh.links.find((l) => l.a === 'alice' && l.b === 'carol')!.level).toBe('resolution');
    } finally {
      await scanner.dispose();
    }
  });

  it('sees a change made between two scans of one scanner', async () => {
    repo = twoAgents();
    const scanner = createScanner({ repo: repo.dir, channels: [samePath] });
    try {
      expect((await scanner.scan()).counts.resolution).toBe(0);
      writeFileSync(join(repo.dir + '-wt', 'bob', 'src', 'a.ts'), 'export const a = 30;\n');
      // Re-reading only alice misses bob's change (bob is kept from the previous scan) …
      const partial = await scanner.scan(undefined, { only: ['alice'] });
      expect(partial.agents.map((a) => a.id)).toEqual(['alice', 'bob']);
      expect(partial.counts.resolution).toBe(0);
      // … re-reading bob's worktree sees it.
      expect((await scanner.scan(undefined, { only: [join(repo.dir + '-wt', 'bob')] })).counts.resolution).toBe(1);
      expect((await scanner.scan()).counts.resolution).toBe(1);
    } finally {
      await scanner.dispose();
    }
  }, 60_000);

  it('patches an agent with the paths an editor says changed, to what a full scan gives', async () => {
    repo = twoAgents();
    const bobDir = join(repo.dir + '-wt', 'bob');
    const scanner = createScanner({ repo: repo.dir, now: () => 1_000 });
    const strip = (r: Awaited<ReturnType<typeof scanRepository>>) => ({
      agents: r.agents.map((a) => ({
        id: a.id,
        files: a.files.map((f) => ({ path: f.path, status: f.status, baseRanges: f.baseRanges, newBlob: f.newBlob })),
      })),
      links: r.links.map((l) => ({ a: l.a, b: l.b, level: l.level, risk: l.risk.toFixed(6) })),
    });
    try {
      expect((await scanner.scan()).counts.resolution).toBe(0);
      // bob now edits alice's line, in a saved file and in an unsaved buffer of a new file.
      writeFileSync(join(bobDir, 'src', 'a.ts'), 'export const a = 30;\n');
      const buffers = { [bobDir]: { 'src/new.ts': "import { a } from './a.js';\nexport const n = a;\n" } };
      const patched = await scanner.scan(buffers, { only: [bobDir], changedPaths: { [bobDir]: ['src/a.ts'] } });
      const full = await scanRepository({ repo: repo.dir, now: () => 1_000, overrides: buffers });
      expect(patched.counts.resolution).toBe(1);
      expect(strip(patched)).toEqual(strip(full));
      expect(patched.agents.find((a) => a.id === 'bob')!.files.map((f) => f.path)).toEqual(['src/a.ts', 'src/b.ts', 'src/new.ts']);
      // A file event echoing that save changes nothing: the same result, nothing scored again.
      expect(await scanner.scan(buffers, { only: [bobDir], changedPaths: { [bobDir]: ['src/a.ts'] } })).toBe(patched);
      // Declared intent is new input: scored again.
      expect(await scanner.scan(buffers, { only: [bobDir], changedPaths: { [bobDir]: [] }, intent: { bob: ['docs/x.md'] } })).not.toBe(
        patched,
      );
    } finally {
      await scanner.dispose();
    }
  }, 60_000);

  it('applies config weights, thresholds and disabled channels, and reports a config naming an unknown channel', async () => {
    const result = await scanRepository({
      repo: shared.dir,
      channels: [samePath],
      intent: { bob: ['src/a.ts'] },
      config: {
        channels: { ...builtinsOff, 'same-path': { weight: 0.5 }, nope: { weight: 1 } },
        thresholds: { traffic: 0.4, resolution: 0.9 },
      },
    });
    expect(Object.keys(result.weights)).toEqual(['same-path']);
    expect(result.weights['same-path']).toBe(0.5);
    expect(result.thresholds).toEqual({ traffic: 0.4, resolution: 0.9 });
    expect(result.links[0]!.level).toBe('traffic');
    expect(result.problems.map((p) => p.code)).toContain('UNKNOWN_CHANNEL');
  });

  it("builds the import graph and symbols for their channels, with each agent's own new imports", async () => {
    repo = createRepoFixture({
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
      'src/c.ts': 'export const c = 1;\n',
    });
    repo.worktree('alice').write('src/a.ts', 'export const a = 11;\n');
    repo.worktree('bob').write('src/b.ts', "import { a } from './a.js';\nexport const b = a + 1;\n");
    // carol adds an import of c.ts, which dave changes: only carol's overlay has that edge.
    repo.worktree('carol').write('src/d.ts', "import { c } from './c.js';\nexport const d = c;\n");
    repo.worktree('dave').write('src/c.ts', 'export const c = 22;\n');
    const result = await scanRepository({ repo: repo.dir });
    const dep = (a: string, b: string) =>
      result.links.find((l) => l.a === a && l.b === b)!.channels.find((c) => c.channel === 'dependency')!;
    expect(dep('alice', 'bob').risk).toBeCloseTo(1, 3);
    expect(dep('alice', 'bob').evidence[0]!.message).toBe("bob's src/b.ts imports alice's src/a.ts.");
    expect(dep('carol', 'dave').risk).toBeCloseTo(1, 3);
    expect(dep('alice', 'dave').risk).toBe(0);
    // The symbols service too: bob's changed line reads the `a` that alice changes.
    const symbols = result.links.find((l) => l.a === 'alice' && l.b === 'bob')!.channels.find((c) => c.channel === 'symbols')!;
    expect(symbols.risk).toBeGreaterThan(0);
    expect(symbols.evidence[0]!.message).toMatch(/\ba\b.*src\/b\.ts/);
  });

  it('a types hub imported by every component and a shared helper callee do not make components near', async () => {
    // A component library as seen on real code: a context file imports every component's props
    // type-only, every component imports the context and calls one validation helper.
    const names = Array.from({ length: 24 }, (_, i) => `C${i}`);
    const component = (n: string, extra = '') =>
      `import { theme } from '../ctx';\nimport { assertProps } from '../util';\nexport type ${n}Props = { size: number };\nexport function ${n}(props: ${n}Props) {\n  assertProps(props);\n  return theme.size + props.size${extra};\n}\n`;
    const files: Record<string, string> = {
      'src/ctx.ts': `${names.map((n) => `import type { ${n}Props } from './components/${n}';`).join('\n')}\nexport const theme = { size: 1 };\n`,
      'src/util.ts': "export function assertProps(p: unknown): void {\n  if (!p) throw new Error('no props');\n}\n",
    };
    for (const n of names) files[`src/components/${n}.ts`] = component(n);
    repo = createRepoFixture(files);
    repo.worktree('alice').write('src/components/C1.ts', component('C1', ' + 1'));
    repo.worktree('bob').write('src/components/C2.ts', component('C2', ' * 2'));
    // carol changes the helper alice's component calls and imports: that pair is nearer.
    repo
      .worktree('carol')
      .write('src/util.ts', "export function assertProps(p: unknown): void {\n  if (p === undefined) throw new Error('no props');\n}\n");
    const result = await scanRepository({ repo: repo.dir });
    const link = (a: string, b: string) => result.links.find((l) => l.a === a && l.b === b)!;
    const channel = (a: string, b: string, id: string) => link(a, b).channels.find((c) => c.channel === id)!;
    expect(link('alice', 'bob').level).toBe('clear');
    expect(channel('alice', 'bob', 'call-graph').risk).toBe(0);
    expect(channel('alice', 'bob', 'dependency').evidence[0]!.message).toContain('src/ctx.ts is a hub');
    // Nearer than alice ↔ bob, with the call chain as evidence; a body change of a callee is below
    // the fitted traffic band on its own.
    expect(link('alice', 'carol').risk).toBeGreaterThan(link('alice', 'bob').risk);
    expect(channel('alice', 'carol', 'call-graph').evidence[0]!.chain).toEqual(['C1', 'assertProps']);
  });

  it('reads the history: files changed together in past commits raise a co-change advisory before they are shared', async () => {
    repo = createRepoFixture(
      { 'src/api.ts': 'export const api = 0;\n', 'src/client.ts': 'export const client = 0;\n', 'README.md': '# r\n' },
      { epoch: Math.floor(Date.now() / 1000) - 3600 },
    );
    for (let i = 1; i <= 5; i++)
      repo.write('src/api.ts', `export const api = ${i};\n`).write('src/client.ts', `export const client = ${i};\n`).commit(`api ${i}`);
    repo.write('README.md', '# readme\n').commit('docs');
    repo.worktree('alice').write('src/api.ts', 'export const api = 10;\n');
    repo.worktree('bob').write('src/client.ts', 'export const client = 10;\n');
    // At its shipped weight (0.03) co-change alone stays clear; a team that wants the heads-up raises it.
    const only = { ...builtinsOff, 'co-change': { enabled: true, weight: 0.7 } };
    const result = await scanRepository({ repo: repo.dir, base: 'main', config: { channels: only } });
    const link = result.links[0]!;
    const part = link.channels.find((c) => c.channel === 'co-change')!;
    // 6 commits changed each file (the first commit added both), all 6 of them both.
    expect(part.risk).toBeCloseTo(0.9);
    expect(part.evidence[0]!.message).toContain(
      'src/api.ts and src/client.ts changed together in 6 of the 6 commits that changed src/api.ts',
    );
    expect(link.level).toBe('traffic');
    expect(result.problems.filter((p) => p.channel === 'co-change')).toEqual([]);
    const shipped = await scanRepository({
      repo: repo.dir,
      base: 'main',
      config: { channels: { ...builtinsOff, 'co-change': { enabled: true } } },
    });
    expect(shipped.links[0]!.level).toBe('clear');
    expect(shipped.links[0]!.channels.find((c) => c.channel === 'co-change')!.evidence).toHaveLength(1);
  });

  it('reads past merges: a file that conflicted before, changed by both, is named with its counts', async () => {
    repo = createRepoFixture(
      { 'CHANGELOG.md': '# changes\n', 'src/a.ts': 'export const a = 0;\n' },
      { epoch: Math.floor(Date.now() / 1000) - 3600 },
    );
    // Two past merges conflicted in CHANGELOG.md (both sides appended a line), then were resolved.
    for (const name of ['one', 'two']) {
      const side = repo.worktree(name);
      side.write('CHANGELOG.md', `${readFileSync(join(side.dir, 'CHANGELOG.md'), 'utf8')}${name} feature\n`).commit(name);
      repo.write('CHANGELOG.md', `${readFileSync(join(repo.dir, 'CHANGELOG.md'), 'utf8')}${name} fix\n`).commit(`${name} fix`);
      try {
        repo.git('merge', '--no-ff', '--no-commit', name);
      } catch {
        // conflicted, resolved below
      }
      repo
        .write('CHANGELOG.md', `${readFileSync(join(repo.dir, 'CHANGELOG.md'), 'utf8').replace(/^[<=>].*\n/gm, '')}`)
        .commit(`merge ${name}`);
    }
    const head = readFileSync(join(repo.dir, 'CHANGELOG.md'), 'utf8');
    // Alice edits the top line, bob appends: git merges them cleanly today.
    repo.worktree('alice').write('CHANGELOG.md', head.replace('# changes', '# Changes'));
    repo.worktree('bob').write('CHANGELOG.md', `${head}bob feature\n`);
    const only = { ...builtinsOff, 'past-conflicts': { enabled: true, weight: 1 } };
    const result = await scanRepository({ repo: repo.dir, base: 'main', config: { channels: only } });
    const part = result.links[0]!.channels.find((c) => c.channel === 'past-conflicts')!;
    expect(part.risk).toBeCloseTo(2 / 3); // conflicted in 2 of the 2 merges that touched it, prior 1
    expect(part.evidence[0]!.message).toContain('CHANGELOG.md conflicted in 2 of the 2 past merges that touched it');
    expect(result.problems.filter((p) => p.channel === 'past-conflicts')).toEqual([]);
    expect(result.links[0]!.level).toBe('traffic');
    // At its shipped weight (0.5) a rate of 2/3 alone stays below traffic: 2 merges are little history.
    const shipped = await scanRepository({
      repo: repo.dir,
      base: 'main',
      config: { channels: { ...builtinsOff, 'past-conflicts': { enabled: true } } },
    });
    expect(shipped.links[0]!.level).toBe('clear');
    expect(shipped.links[0]!.risk).toBeCloseTo(1 / 3);
  });

  it("scans with the calibration file's forecast model; the config's threshold and enabled still win", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-forecast-'));
    try {
      const file = join(dir, 'calibration.json');
      const model = { label: 'collided', weights: { 'co-change': 0.4 }, leak: 0.02, threshold: 0.07 };
      writeFileSync(file, JSON.stringify({ weights: { overlap: 0.5 }, forecast: model }));
      const repository = await openRepository(shared.dir);
      const forecastWith = async (config: object, calibration = file) => {
        const { set } = await loadScanSetup(repository, { config, calibration });
        await set.dispose();
        return scanOptionsOf(set).forecast;
      };
      expect(await forecastWith({})).toEqual(model);
      expect(await forecastWith({ forecast: { threshold: 0.2 } })).toEqual({ ...model, threshold: 0.2 });
      expect(await forecastWith({ forecast: { enabled: false } })).toBe(false);
      // A model out of range in the config's calibration: the shipped one, with a problem (named
      // with --calibration, the file is rejected, as a bad probability map is).
      writeFileSync(file, JSON.stringify({ weights: { overlap: 0.5 }, forecast: { ...model, threshold: 2 } }));
      const { set } = await loadScanSetup(repository, { config: { calibration: file } });
      await set.dispose();
      expect(scanOptionsOf(set).forecast).toEqual(DEFAULT_FORECAST_MODEL);
      expect(scanOptionsOf(set).weights?.['overlap']).toBe(0.5);
      expect(set.problems.map((p) => p.message).join('\n')).toContain('"forecast" threshold must be in [0, 1]');
      await expect(forecastWith({})).rejects.toMatchObject({ code: 'UNREADABLE_CALIBRATION' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives a pair git merges cleanly the shipped map's clean part, with the repository's recent conflict rate", async () => {
    const lines = (edit: number, text: string) =>
      Array.from({ length: 20 }, (_, i) => (i === edit ? text : `export const v${i} = ${i};`)).join('\n') + '\n';
    repo = createRepoFixture({ 'CHANGELOG.md': 'v1\n', 'src/x.ts': lines(-1, '') }, { epoch: Math.floor(Date.now() / 1000) - 3600 });
    const r = repo;
    // Two past merges on main: the older conflicted in CHANGELOG.md, the newer merged cleanly.
    r.git('switch', '-q', '-c', 'one');
    r.write('CHANGELOG.md', 'v1 feature one\n').commit('one');
    r.git('switch', '-q', 'main');
    r.write('CHANGELOG.md', 'v1 fix\n').commit('fix');
    try {
      r.git('merge', '--no-ff', '--no-commit', 'one');
    } catch {
      // the conflict, resolved below
    }
    r.write('CHANGELOG.md', 'v1 fix\nfeature one\n').commit('merge one');
    r.git('switch', '-q', '-c', 'two');
    r.write('docs.md', 'two\n').commit('two');
    r.git('switch', '-q', 'main');
    r.git('merge', '--no-ff', '-q', '-m', 'merge two', 'two');
    r.git('branch', '-q', '-D', 'one', 'two');
    // Two agents edit src/x.ts twenty lines apart: git merges them cleanly.
    r.worktree('alice').write('src/x.ts', lines(1, 'export const v1 = 100;'));
    r.worktree('bob').write('src/x.ts', lines(18, 'export const v18 = 180;'));
    const result = await scanRepository({ repo: r.dir });
    const link = result.links.find((l) => [l.a, l.b].sort().join() === 'alice,bob')!;
    expect(link.channels.find((c) => c.channel === 'merge')?.risk ?? 0).toBe(0);
    // c = 1 of the 2 merges before each agent's base conflicted (fewer than `recentMerges` exist).
    expect(DEFAULT_PROBABILITY_MAP.clean).toBeDefined();
    expect(link.probability).toBeCloseTo(pairProbability(link.risk, { clean: true, recentConflicts: 0.5 }, DEFAULT_PROBABILITY_MAP), 10);
    expect(link.probability).toBeGreaterThan(probabilityOf(link.risk, DEFAULT_PROBABILITY_MAP));
  });

  it('fails clearly: not a repository, unknown base, unreadable config or calibration', async () => {
    await expect(scanRepository({ repo: join(shared.dir, '..') })).rejects.toMatchObject({ code: 'NOT_A_REPOSITORY' });
    await expect(scanRepository({ repo: shared.dir, base: 'no-such-branch' })).rejects.toMatchObject({ code: 'UNKNOWN_BASE' });
    await expect(scanRepository({ repo: shared.dir, config: join(shared.dir, 'missing.json') })).rejects.toMatchObject({
      code: 'UNREADABLE_CONFIG',
    });
    const dir = mkdtempSync(join(tmpdir(), 'airspace-config-'));
    try {
      writeFileSync(join(dir, 'bad.json'), '{ not json');
      await expect(scanRepository({ repo: shared.dir, config: join(dir, 'bad.json') })).rejects.toMatchObject({
        code: 'UNREADABLE_CONFIG',
      });
      await expect(scanRepository({ repo: shared.dir, calibration: join(dir, 'bad.json') })).rejects.toMatchObject({
        code: 'UNREADABLE_CALIBRATION',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('config plugins cannot stop, stall or corrupt a scan', () => {
  it('a plugin that hangs, one that exits, one that leaves a rejection and one that mutates agents each cost only their own score', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-hostile-'));
    const plugin = (id: string, body: string) => {
      writeFileSync(
        join(dir, `${id}.mjs`),
        `export default { id: '${id}', defaultWeight: 1, async score(a, b) { ${body}; return { risk: 0.1, evidence: [{ message: 'x' }] }; } };`,
      );
      return join(dir, `${id}.mjs`);
    };
    const plugins = [
      plugin('hangs', 'await new Promise(() => {})'),
      plugin('exits', 'process.exit(0)'),
      plugin('rejects', "Promise.reject(new Error('stray'))"),
      plugin('hacks', "a.id = 'hacked'"),
    ];
    const scanner = createScanner({
      repo: shared.dir,
      channels: [samePath],
      intent: { bob: ['src/a.ts'] },
      config: { plugins, channels: builtinsOff, budget: { callMs: 200 } },
    });
    try {
      for (let round = 0; round < 2; round++) {
        const result = await scanner.scan();
        expect(result.agents.map((a) => a.id).sort()).toEqual(['alice', 'bob']);
        const link = result.links[0]!;
        expect(link.channels.find((c) => c.channel === 'same-path')!.risk).toBe(1);
        expect(link.channels.find((c) => c.channel === 'rejects')!.risk).toBe(0.1);
        const byCode = (code: string) => result.problems.filter((p) => p.code === code).map((p) => p.channel);
        expect(byCode('CHANNEL_TIMED_OUT')).toEqual(['hangs']);
        expect(byCode('PLUGIN_EXITED')).toEqual(['exits']);
        expect(byCode('PLUGIN_UNHANDLED_REJECTION')).toEqual(['rejects']);
        expect(byCode('CHANNEL_THREW')).toEqual(['hacks']);
      }
    } finally {
      await scanner.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a config plugin that requires services', () => {
  it('reads the import graph and the git service from its worker thread', async () => {
    repo = createRepoFixture(
      { 'src/a.ts': "import { b } from './b';\nexport const a = b;\n", 'src/b.ts': 'export const b = 1;\n' },
      { epoch: Math.floor(Date.now() / 1000) - 600 },
    );
    repo.worktree('alice').write('src/a.ts', "import { b } from './b';\nexport const a = b + 1;\n");
    repo.worktree('bob').write('src/b.ts', 'export const b = 2;\n');
    const dir = mkdtempSync(join(tmpdir(), 'airspace-services-'));
    writeFileSync(
      join(dir, 'imports.mjs'),
      `export default { id: 'imports', defaultWeight: 1, requires: ['importGraph', 'git'],
        async score(a, b, ctx) {
          await ctx.services.git.pairEdits(a, b, 'src/a.ts');
          const hit = (x, y) => x.files.flatMap((f) => ctx.services.importGraph.forAgent(x.id).importsOf(f.path)).find((p) => y.files.some((g) => g.path === p));
          const found = hit(a, b) ?? hit(b, a);
          return found ? { risk: 0.5, evidence: [{ message: 'imports ' + found }] } : { risk: 0, evidence: [] };
        } };`,
    );
    try {
      const result = await scanRepository({ repo: repo.dir, config: { plugins: [join(dir, 'imports.mjs')], channels: builtinsOff } });
      expect(result.problems.filter((p) => p.channel === 'imports')).toEqual([]);
      expect(result.links[0]!.channels.find((c) => c.channel === 'imports')).toMatchObject({
        risk: 0.5,
        evidence: [{ message: 'imports src/b.ts' }],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
