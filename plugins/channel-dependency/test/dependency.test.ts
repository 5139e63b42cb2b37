import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_THRESHOLDS, type Agent, type ChannelContext, type FileEdit } from '@airspace/core';
import { scoreOnce } from '@airspace/core/testing';
import { buildIndex, importGraphService, memorySnapshot, overlay, worktreeSnapshot } from '@airspace/analysis';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { dependencyChannel, type DependencyOptions, type ImportGraphService } from '../src/dependency.js';

const edit = (path: string, weight = 1): FileEdit => ({ path, weight, status: 'modified', baseRanges: [[1, 1]], newRanges: [[1, 1]] });
const agent = (id: string, files: FileEdit[]): Agent => ({ id, label: id, startedAt: 0, committedWork: 0, files });
const ctx = (
  importGraph: ImportGraphService,
  options: Partial<DependencyOptions> = {},
): ChannelContext<DependencyOptions, 'importGraph'> => ({
  options: { ...dependencyChannel().defaultOptions!, ...options },
  now: 0,
  logger: { debug() {}, info() {}, warn() {} },
  services: { importGraph },
});

async function pairScore(a: Agent, b: Agent, service: ImportGraphService, options: Partial<DependencyOptions> = {}) {
  const channel = dependencyChannel();
  const c = ctx(service, options);
  const prepared = await channel.prepare!([a, b], c);
  return channel.score(a, b, { ...c, prepared });
}

// a → x → y → b: three imports apart through files nobody touched.
const chain = {
  'src/a.ts': "import { x } from './x';\nexport const a = x;\n",
  'src/x.ts': "import { y } from './y.js';\nexport const x = y;\n",
  'src/y.ts': "import { b } from '../lib/b';\nexport const y = b;\n",
  'lib/b.ts': 'export const b = 1;\n',
  'lib/far.ts': 'export const far = 2;\n',
};

describe('dependency channel', () => {
  let repo: RepoFixture | undefined;
  afterEach(() => repo?.dispose());

  test('two agents three imports apart through untouched files get a traffic advisory with the chain as evidence', async () => {
    repo = createRepoFixture(chain);
    const alice = repo.worktree('alice').write('src/a.ts', "import { x } from './x';\nexport const a = x + 1;\n");
    const bob = repo.worktree('bob').write('lib/b.ts', 'export const b = 2;\n');
    const ix = await buildIndex(await worktreeSnapshot(repo.dir), { workers: 0 });
    const service = importGraphService(ix);
    const result = await pairScore(agent('alice', [edit('src/a.ts')]), agent('bob', [edit('lib/b.ts')]), service);
    expect(result.risk).toBeCloseTo(0.7 ** 2);
    // With the fitted default weight this alone stays below traffic (import reach foretold almost no
    // textual conflict on the corpus of docs/evaluation.md); the evidence is there for a team that weighs it.
    expect(result.risk * dependencyChannel().defaultWeight).toBeLessThan(DEFAULT_THRESHOLDS.traffic);
    const ev = result.evidence[0]!;
    expect(ev.chain).toEqual(['src/a.ts', 'src/x.ts', 'src/y.ts', 'lib/b.ts']);
    expect(ev.a).toEqual({ agent: 'alice', path: 'src/a.ts' });
    expect(ev.b).toEqual({ agent: 'bob', path: 'lib/b.ts' });
    expect(ev.message).toContain("alice's src/a.ts reaches through 3 imports bob's lib/b.ts");
    expect(alice.dir).not.toBe(bob.dir);
  });

  test('the order of the pair does not change the risk; evidence sides follow the pair', async () => {
    const ix = await buildIndex(memorySnapshot(chain), { workers: 0 });
    const s = importGraphService(ix);
    const ab = await pairScore(agent('a', [edit('src/a.ts')]), agent('b', [edit('lib/b.ts')]), s);
    const ba = await pairScore(agent('b', [edit('lib/b.ts')]), agent('a', [edit('src/a.ts')]), s);
    expect(ba.risk).toBeCloseTo(ab.risk);
    expect(ba.evidence[0]!.a).toEqual({ agent: 'b', path: 'lib/b.ts' });
    expect(ba.evidence[0]!.chain).toEqual(['src/a.ts', 'src/x.ts', 'src/y.ts', 'lib/b.ts']);
  });

  test('direct import is coupling 1 scaled by both recency weights', async () => {
    const ix = await buildIndex(memorySnapshot(chain), { workers: 0 });
    const r = await pairScore(agent('a', [edit('src/y.ts', 0.5)]), agent('b', [edit('lib/b.ts', 0.8)]), importGraphService(ix));
    expect(r.risk).toBeCloseTo(0.4);
    expect(r.evidence[0]!.kind).toBe('direct-import');
  });

  test('unreachable, beyond the depth cap, or only through a shared ancestor: no risk', async () => {
    const ix = await buildIndex(memorySnapshot(chain), { workers: 0 });
    const s = importGraphService(ix);
    expect((await pairScore(agent('a', [edit('src/a.ts')]), agent('b', [edit('lib/far.ts')]), s)).risk).toBe(0);
    expect((await pairScore(agent('a', [edit('src/a.ts')]), agent('b', [edit('lib/b.ts')]), s, { maxDepth: 2 })).risk).toBe(0);
    // x and … both depend on y, but neither depends on the other: directed distance is infinite.
    const fork = await buildIndex(memorySnapshot({ 'p.ts': "import './q';\nimport './r';\n", 'q.ts': '', 'r.ts': '' }), { workers: 0 });
    expect((await pairScore(agent('a', [edit('q.ts')]), agent('b', [edit('r.ts')]), importGraphService(fork))).risk).toBe(0);
    const undirected = await pairScore(agent('a', [edit('q.ts')]), agent('b', [edit('r.ts')]), importGraphService(fork), {
      direction: 'undirected',
    });
    expect(undirected.risk).toBeCloseTo(0.7);
  });

  test("an import that one agent adds counts through that agent's overlay", async () => {
    const ix = await buildIndex(memorySnapshot({ 'a.ts': '', 'b.ts': '', 'c.ts': '' }), { workers: 0 });
    const bobView = await overlay(ix, [{ path: 'b.ts', read: () => Buffer.from("import './c';\n") }]);
    const service = importGraphService(ix, new Map([['bob', bobView]]));
    const r = await pairScore(agent('alice', [edit('c.ts')]), agent('bob', [edit('b.ts')]), service);
    expect(r.risk).toBe(1);
    expect(r.evidence[0]!.message).toBe("bob's b.ts imports alice's c.ts.");
    // Without the overlay the base graph has no edge.
    expect((await pairScore(agent('alice', [edit('c.ts')]), agent('bob', [edit('b.ts')]), importGraphService(ix))).risk).toBe(0);
  });

  test('a missing or malformed service is a problem, not a throw', async () => {
    const ix = await buildIndex(memorySnapshot(chain), { workers: 0 });
    // A graph that is not core's ImportGraphService (here graphology's) is as good as missing.
    const graphology = await scoreOnce(dependencyChannel(), agent('a', [edit('src/x.ts')]), agent('b', [edit('src/y.ts')]), {
      services: { importGraph: ix.graph as never },
    });
    expect(graphology.problems?.[0]?.code).toBe('MISSING_SERVICE');
    const missing = await scoreOnce(dependencyChannel(), agent('a', [edit('src/x.ts')]), agent('b', [edit('src/y.ts')]));
    expect(missing.risk).toBe(0);
    expect(missing.problems?.[0]?.code).toBe('MISSING_SERVICE');
  });

  test('files both agents changed are left to the overlap channel', async () => {
    const service: ImportGraphService = { base: { importsOf: () => [], importersOf: () => [] }, forAgent: () => service.base };
    const ix = await buildIndex(memorySnapshot(chain), { workers: 0 });
    const s = importGraphService(ix);
    expect((await pairScore(agent('a', [edit('src/x.ts')]), agent('b', [edit('src/x.ts')]), s)).risk).toBe(0);
    expect((await pairScore(agent('a', [edit('src/x.ts')]), agent('b', [edit('src/x.ts')]), service)).risk).toBe(0);
  });
});
