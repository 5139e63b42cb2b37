import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { createFactsStore } from '../src/cache/cache.js';
import { index, type AnalysisIndex } from '../src/index/build.js';
import { overlay, baseView } from '../src/index/view.js';
import { graphJson } from '../src/graph-json.js';
import { defaultCacheDir, memorySnapshot, worktreeSnapshot, gitBlobId } from '../src/snapshot.js';

const edges = (ix: AnalysisIndex) => graphJson(ix).edges.map(([a, b]) => `${a} -> ${b}`);

describe('index of an in-memory file set', () => {
  test('graph, external, unresolved, partial and skipped files', async () => {
    const ix = await index(
      memorySnapshot({
        'src/a.ts': "import { b } from './b.js';\nimport React from 'react';\nimport { gone } from './gone';\nexport const a = b;\n",
        'src/b.ts': "export * from './c';\nexport type * from './types';\nexport const b = 1;\n",
        'src/c.tsx': 'export const C = () => <div>a & b</div>;\n',
        'src/types.ts': 'export type T = number;\n',
        'src/lazy.js': "module.exports = () => import('./a.js');\nconst { c } = require('./c');\n",
        'img.bin': Buffer.from([0, 1, 2, 3]),
        'src/binary.ts': Buffer.from([0x69, 0, 0x6d, 0x70]),
        'README.md': '# hi\n',
      }),
      { workers: 0 },
    );
    expect(edges(ix)).toEqual(['src/a.ts -> src/b.ts', 'src/b.ts -> src/c.tsx', 'src/b.ts -> src/types.ts', 'src/lazy.js -> src/a.ts', 'src/lazy.js -> src/c.tsx']);
    expect(ix.external).toEqual([{ from: 'src/a.ts', specifier: 'react', package: 'react', line: 2 }]);
    expect(ix.unresolved.map((u) => u.specifier)).toEqual(['./gone']);
    // `export type * from` (TS grammar 0.23.2) and a bare `&` in JSX text parse with errors: partial, kept.
    expect(ix.partial.map((p) => p.path).sort()).toEqual(['src/b.ts', 'src/c.tsx']);
    expect(ix.files.get('src/b.ts')!.facts.exports.map((e) => e.name)).toContain('b');
    expect(ix.skipped).toEqual([{ path: 'src/binary.ts', reason: 'binary' }]);
  });

  test('too-large files are skipped and reported, the rest indexed', async () => {
    const ix = await index(memorySnapshot({ 'big.ts': `export const x = "${'x'.repeat(2000)}";\n`, 'ok.ts': "import './big';\n" }), { workers: 0, maxFileBytes: 1000 });
    expect(ix.skipped).toEqual([{ path: 'big.ts', reason: 'too-large', detail: expect.stringContaining('bytes') }]);
    expect(ix.files.has('ok.ts')).toBe(true);
  });

  test('a previous index is reused: nothing parsed, resolutions kept', async () => {
    const snap = memorySnapshot({ 'a.ts': "import './b';\n", 'b.ts': 'export {};\n' });
    const first = await index(snap, { workers: 0 });
    const second = await index(snap, { workers: 0, previous: first });
    expect(second.stats.parsed).toBe(0);
    expect(second.files.get('a.ts')!.imports).toBe(first.files.get('a.ts')!.imports);
  });

  test('parse workers (compiled worker from dist) give the same facts as parsing in-thread', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++) files[`m${i}.ts`] = `import { f${(i + 1) % 60} } from './m${(i + 1) % 60}';\nexport function f${i}() { return f${(i + 1) % 60}(); }\n${'// padding line for size\n'.repeat(200)}`;
    const inThread = await index(memorySnapshot(files), { workers: 0 });
    const pooled = await index(memorySnapshot(files), { workers: 2 });
    expect(pooled.stats.parsed).toBe(60);
    expect(graphJson(pooled)).toEqual(graphJson(inThread));
    expect(pooled.files.get('m3.ts')!.facts).toEqual(inThread.files.get('m3.ts')!.facts);
  });
});

describe('cache on disk under the git common directory', () => {
  let repo: RepoFixture | undefined;
  afterEach(() => repo?.dispose());

  const files = {
    'src/a.ts': "import { b } from './b';\nexport const a = () => b();\n",
    'src/b.ts': "import { c } from './c';\nexport function b() { return c; }\n",
    'src/c.ts': 'export const c = 3;\n',
    'tools/x.py': 'from pkg import y\n',
    'pkg/__init__.py': '',
    'pkg/y.py': 'def y():\n    return 1\n',
  };

  test('reused across worktrees and restarts; untracked files hashed as git does', async () => {
    repo = createRepoFixture(files);
    const wt = repo.worktree('alice');
    wt.write('src/new.ts', "import { a } from './a';\n");
    const cacheDir = await defaultCacheDir(wt.dir);
    expect(cacheDir).toBe(join(repo.dir, '.git', 'airspace', 'cache'));

    const first = await index(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(first.stats.parsed).toBe(6);
    // Another worktree, another process (a fresh store): everything shared comes from disk.
    const snap = await worktreeSnapshot(wt.dir);
    const fresh = createFactsStore({ cacheDir });
    const second = await index(snap, { store: fresh, workers: 0 });
    expect(second.stats.parsed).toBe(1); // only the untracked file
    expect(fresh.stats.diskHits).toBe(6);
    expect(edges(second)).toContain('src/new.ts -> src/a.ts');
    expect(edges(second)).toContain('tools/x.py -> pkg/y.py');
    const untracked = snap.files.find((f) => f.path === 'src/new.ts')!;
    expect(untracked.blobId).toBeUndefined();
    expect(second.files.get('src/new.ts')!.blobId).toBe(wt.git('hash-object', 'src/new.ts'));
    // Restart again: nothing parsed at all.
    const third = await index(await worktreeSnapshot(wt.dir), { cacheDir, workers: 0 });
    expect(third.stats.parsed).toBe(0);
  });

  test('corrupt segments and entries are detected, removed and rebuilt', async () => {
    repo = createRepoFixture(files);
    const cacheDir = await defaultCacheDir(repo.dir);
    const first = await index(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    const segDir = first.store.dir!;
    const segments = readdirSync(segDir).filter((n) => n.startsWith('seg-'));
    expect(segments).toHaveLength(1);
    const seg = JSON.parse(readFileSync(join(segDir, segments[0]!), 'utf8'));
    const keys = Object.keys(seg.entries);
    expect(keys).toHaveLength(6);
    // One entry with a wrong shape, one claiming another language; and a truncated segment.
    seg.entries[keys[0]!] = { l: 'typescript', i: 'nope' };
    seg.entries[keys[1]!] = { ...seg.entries[keys[1]!], l: 'python' === keys[1]!.split(':')[1] ? 'tsx' : 'python' };
    writeFileSync(join(segDir, segments[0]!), JSON.stringify(seg));
    writeFileSync(join(segDir, 'seg-0-truncated.json'), '{"format":"airspace-facts-segment","vers');
    const again = await index(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(again.stats.parsed).toBe(2);
    expect(again.problems.join('\n')).toMatch(/corrupt facts cache segment .*truncated.*removed/);
    expect(again.problems.join('\n')).toMatch(/2 corrupt entries/);
    expect(readdirSync(segDir)).not.toContain('seg-0-truncated.json');
    expect(graphJson(again)).toEqual(graphJson(first));
    const healed = await index(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(healed.stats.parsed).toBe(0);
    expect(healed.problems).toEqual([]);
  });

  test('many segments are merged into one without losing entries', async () => {
    repo = createRepoFixture({ 'a.ts': 'export const a = 0;\n' });
    const cacheDir = await defaultCacheDir(repo.dir);
    for (let i = 1; i <= 10; i++) {
      repo.write('a.ts', `export const a = ${i};\n`);
      await index(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    }
    const segDir = join(cacheDir, readdirSync(cacheDir)[0]!);
    expect(readdirSync(segDir).filter((n) => n.startsWith('seg-')).length).toBeLessThanOrEqual(9);
    repo.write('a.ts', 'export const a = 3;\n');
    const back = await index(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(back.stats.parsed).toBe(0);
  });

  test('an unwritable cache directory degrades to memory, with a problem', async () => {
    repo = createRepoFixture(files);
    const blocker = join(repo.dir, 'not-a-dir');
    writeFileSync(blocker, 'x');
    const ix = await index(await worktreeSnapshot(repo.dir), { cacheDir: join(blocker, 'cache'), workers: 0 });
    expect(ix.files.size).toBe(6);
    expect(ix.problems.join('\n')).toMatch(/cannot write the facts cache/);
  });

  test('a tree snapshot of a commit', async () => {
    repo = createRepoFixture(files);
    const { treeSnapshot } = await import('../src/snapshot.js');
    const snap = await treeSnapshot(repo.dir, 'HEAD');
    const ix = await index(snap, { workers: 0 });
    expect(edges(ix)).toEqual(['src/a.ts -> src/b.ts', 'src/b.ts -> src/c.ts', 'tools/x.py -> pkg/y.py']);
    expect(gitBlobId(await snap.files[0]!.read())).toBe(snap.files[0]!.blobId);
  });
});

describe('overlays', () => {
  test("an agent's added import counts for that agent only", async () => {
    const ix = await index(memorySnapshot({ 'a.ts': "import './b';\n", 'b.ts': '', 'c.ts': '', 'd.ts': "import './c';\n" }), { workers: 0 });
    const agent = await overlay(ix, [
      { path: 'b.ts', read: () => Buffer.from("import './c';\nimport './e';\n") },
      { path: 'e.ts', read: () => Buffer.from('export {};\n') },
      { path: 'd.ts', deleted: true },
    ]);
    expect(agent.importsOf('b.ts')).toEqual(['c.ts', 'e.ts']);
    expect([...agent.importersOf('c.ts')].sort()).toEqual(['b.ts']);
    expect(agent.hasFile('d.ts')).toBe(false);
    expect(agent.importersOf('b.ts')).toEqual(['a.ts']);
    const base = baseView(ix);
    expect(base.importsOf('b.ts')).toEqual([]);
    expect(base.importersOf('c.ts')).toEqual(['d.ts']);
    const g = agent.graph();
    expect(g.hasEdge('b.ts', 'e.ts')).toBe(true);
    expect(g.hasNode('d.ts')).toBe(false);
  });
});
