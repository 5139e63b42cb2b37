import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { createFactsStore, STALE_CACHE_MS } from '../src/cache/cache.js';
import { seal, unseal } from '../src/cache/checksum.js';
import { buildIndex, type AnalysisIndex } from '../src/indexing/build.js';
import { overlay, baseView } from '../src/indexing/view.js';
import { graphJson } from '../src/graph-json.js';
import { defaultCacheDir, memorySnapshot, worktreeSnapshot, gitBlobId } from '../src/snapshot.js';

/** A sealed cache file's JSON (the checksum line checked), to tamper with as a writer would. */
const readSealed = (path: string) => {
  const u = unseal(readFileSync(path));
  if (!('text' in u)) throw new Error(`${path} is not sealed`);
  return JSON.parse(u.text);
};
/** Writes `value` as a writer would: sealed, so only the shape of what it holds is wrong. */
const writeSealed = (path: string, value: unknown) => writeFileSync(path, seal(JSON.stringify(value)));

const edges = (ix: AnalysisIndex) => graphJson(ix).edges.map(([a, b]) => `${a} -> ${b}`);

describe('index of an in-memory file set', () => {
  test('graph, external, unresolved, partial and skipped files', async () => {
    const ix = await buildIndex(
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
    expect(edges(ix)).toEqual([
      'src/a.ts -> src/b.ts',
      'src/b.ts -> src/c.tsx',
      'src/b.ts -> src/types.ts',
      'src/lazy.js -> src/a.ts',
      'src/lazy.js -> src/c.tsx',
    ]);
    expect(ix.external).toEqual([{ from: 'src/a.ts', specifier: 'react', package: 'react', line: 2 }]);
    expect(ix.unresolved.map((u) => u.specifier)).toEqual(['./gone']);
    // `export type * from` (TS grammar 0.23.2) and a bare `&` in JSX text parse with errors: partial, kept.
    expect(ix.partial.map((p) => p.path).sort()).toEqual(['src/b.ts', 'src/c.tsx']);
    expect(ix.files.get('src/b.ts')!.facts.exports.map((e) => e.name)).toContain('b');
    expect(ix.skipped).toEqual([{ path: 'src/binary.ts', reason: 'binary' }]);
  });

  test('import edges carry their kinds: value, type-only, guarded, dynamic, re-export', async () => {
    const ix = await buildIndex(
      memorySnapshot({
        'src/ctx.ts': "import type { ButtonProps } from './button';\nimport { type CardProps } from './card';\nexport const theme = 1;\n",
        'src/button.ts': "import { theme } from './ctx';\nimport type { CardProps } from './card';\nexport type ButtonProps = {};\n",
        'src/card.ts': "export type CardProps = {};\nexport async function load() { return import('./button'); }\n",
        'src/index.ts': "export * from './button';\nexport type * from './card';\n",
        'src/legacy.js': "function later() { return require('./card'); }\nconst now = require('./ctx');\n",
        'pkg/__init__.py': '',
        'pkg/models.py': 'from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.views import View\n',
        'pkg/views.py': 'import pkg.models\ndef f():\n    from pkg import models\n',
      }),
      { workers: 0 },
    );
    const json = graphJson(ix);
    const kinds = Object.fromEntries(json.edges.map(([a, b], i) => [`${a} -> ${b}`, json.edgeKinds[i]!.join(',')]));
    expect(kinds).toEqual({
      'pkg/models.py -> pkg/views.py': 'guarded',
      'pkg/views.py -> pkg/models.py': 'value,dynamic',
      'src/button.ts -> src/card.ts': 'type-only',
      'src/button.ts -> src/ctx.ts': 'value',
      'src/card.ts -> src/button.ts': 'dynamic',
      'src/ctx.ts -> src/button.ts': 'type-only',
      'src/ctx.ts -> src/card.ts': 'type-only',
      'src/index.ts -> src/button.ts': 're-export',
      'src/index.ts -> src/card.ts': 'type-only',
      'src/legacy.js -> src/card.ts': 'dynamic',
      'src/legacy.js -> src/ctx.ts': 'value',
    });
    expect(ix.graph.getEdgeAttributes('src/button.ts', 'src/ctx.ts').edgeKinds).toEqual(['value']);
    const view = baseView(ix);
    expect(view.importKinds('src/ctx.ts', 'src/card.ts')).toEqual(['type-only']);
    expect(view.importKinds('src/card.ts', 'src/ctx.ts')).toEqual([]);
    // An agent that turns the type import into a value import: its overlay says so.
    const agent = await overlay(ix, [{ path: 'src/ctx.ts', read: () => Buffer.from("import { ButtonProps } from './button';\n") }]);
    expect(agent.importKinds('src/ctx.ts', 'src/button.ts')).toEqual(['value']);
    expect(agent.graph().getEdgeAttributes('src/ctx.ts', 'src/button.ts').edgeKinds).toEqual(['value']);
  });

  test('too-large files are skipped and reported, the rest indexed', async () => {
    const ix = await buildIndex(memorySnapshot({ 'big.ts': `export const x = "${'x'.repeat(2000)}";\n`, 'ok.ts': "import './big';\n" }), {
      workers: 0,
      maxFileBytes: 1000,
    });
    expect(ix.skipped).toEqual([{ path: 'big.ts', reason: 'too-large', detail: expect.stringContaining('bytes') }]);
    expect(ix.files.has('ok.ts')).toBe(true);
  });

  test('a previous index is reused: nothing parsed, resolutions kept', async () => {
    const snap = memorySnapshot({ 'a.ts': "import './b';\n", 'b.ts': 'export {};\n' });
    const first = await buildIndex(snap, { workers: 0 });
    const second = await buildIndex(snap, { workers: 0, previous: first });
    expect(second.stats.parsed).toBe(0);
    expect(second.files.get('a.ts')!.imports).toBe(first.files.get('a.ts')!.imports);
  });

  test('parse workers (compiled worker from dist) give the same facts as parsing in-thread', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++)
      files[`m${i}.ts`] =
        `import { f${(i + 1) % 60} } from './m${(i + 1) % 60}';\nexport function f${i}() { return f${(i + 1) % 60}(); }\n${'// padding line for size\n'.repeat(200)}`;
    const inThread = await buildIndex(memorySnapshot(files), { workers: 0 });
    const pooled = await buildIndex(memorySnapshot(files), { workers: 2 });
    expect(pooled.stats.parsed).toBe(60);
    expect(graphJson(pooled)).toEqual(graphJson(inThread));
    expect(pooled.files.get('m3.ts')!.facts).toEqual(inThread.files.get('m3.ts')!.facts);
  });
});

describe('a worktree with file names that are not UTF-8', () => {
  let repo: RepoFixture | undefined;
  afterEach(() => repo?.dispose());
  test('each such file is indexed under its own faithful name, tracked or untracked', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n' });
    const named = (last: number) => Buffer.concat([Buffer.from(`${repo!.dir}/src/caf`), Buffer.of(last), Buffer.from('.ts')]);
    writeFileSync(named(0xe9), "import { a } from './a';\nexport const e = a;\n");
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'latin1 name');
    writeFileSync(named(0xe8), "import { a } from './a';\nexport const g = a;\n");
    const ix = await buildIndex(await worktreeSnapshot(repo.dir), { workers: 0 });
    expect(ix.skipped).toEqual([]);
    const odd = [...ix.files.keys()].filter((p) => p !== 'src/a.ts');
    expect(odd).toHaveLength(2);
    expect(odd.join('')).not.toContain('\ufffd');
    for (const p of odd) expect(ix.imports.get(p)).toEqual(['src/a.ts']);
  });
});

describe('cache on disk under the git common directory', () => {
  test('facts directories of other versions unused for two weeks are deleted; recent ones and the own one stay', async () => {
    const root = mkdtempSync(join(tmpdir(), 'airspace-cache-sweep-'));
    try {
      const long = new Date(Date.now() - STALE_CACHE_MS - 60_000);
      const own = createFactsStore({ cacheDir: root });
      for (const d of ['facts-0123456789ab-b2', 'facts-ba9876543210-b3', 'unrelated', own.dir!.slice(root.length + 1)]) {
        mkdirSync(join(root, d));
        writeFileSync(join(root, d, 'seg-x.head.json'), '{}');
        utimesSync(join(root, d), long, long);
      }
      const recent = join(root, 'facts-ba9876543210-b3');
      utimesSync(recent, new Date(), new Date());
      await own.refresh();
      expect(readdirSync(root).sort()).toEqual([own.dir!.slice(root.length + 1), 'facts-ba9876543210-b3', 'unrelated'].sort());
      expect(existsSync(recent)).toBe(true);
      // Opening marks the own directory used, so another version's sweep keeps it.
      expect(Date.now() - statSync(own.dir!).mtimeMs).toBeLessThan(STALE_CACHE_MS / 2);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

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

    const first = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(first.stats.parsed).toBe(6);
    // Another worktree, another process (a fresh store): everything shared comes from disk.
    const snap = await worktreeSnapshot(wt.dir);
    const fresh = createFactsStore({ cacheDir });
    const second = await buildIndex(snap, { store: fresh, workers: 0 });
    expect(second.stats.parsed).toBe(1); // only the untracked file
    expect(fresh.stats.diskHits).toBe(6);
    expect(edges(second)).toContain('src/new.ts -> src/a.ts');
    expect(edges(second)).toContain('tools/x.py -> pkg/y.py');
    const untracked = snap.files.find((f) => f.path === 'src/new.ts')!;
    expect(untracked.blobId).toBeUndefined();
    expect(second.files.get('src/new.ts')!.blobId).toBe(wt.git('hash-object', 'src/new.ts'));
    // Restart again: nothing parsed at all.
    const third = await buildIndex(await worktreeSnapshot(wt.dir), { cacheDir, workers: 0 });
    expect(third.stats.parsed).toBe(0);
  });

  test('a worktree read by the parse workers: same index as from bytes, skips with their reason', async () => {
    const many: Record<string, string | Buffer> = {
      ...files,
      'src/binary.ts': Buffer.from([0x69, 0, 0x6d]),
      'src/big.ts': `// ${'x'.repeat(3000)}\n`,
    };
    for (let i = 0; i < 60; i++) many[`src/gen/f${i}.ts`] = `import { a } from '../a';\nexport const f${i} = a;\n${'// pad\n'.repeat(200)}`;
    many['src/gone.ts'] = 'export const gone = 1;\n';
    repo = createRepoFixture(many);
    const snap = await worktreeSnapshot(repo.dir);
    rmSync(join(repo.dir, 'src/gone.ts')); // listed, then deleted: unreadable
    const options = { maxFileBytes: 2048, facts: 'imports' } as const;
    const fromDisk = await buildIndex(snap, { ...options, workers: 2 });
    const fromBytes = await buildIndex(
      { files: snap.files.map(({ path, blobId, read }) => ({ path, ...(blobId ? { blobId } : {}), read })) },
      { ...options, workers: 0 },
    );
    expect(edges(fromDisk)).toEqual(edges(fromBytes));
    expect(fromDisk.stats.parsed).toBe(fromBytes.stats.parsed);
    expect(fromDisk.skipped).toEqual(fromBytes.skipped);
    expect(fromDisk.skipped.map((s) => `${s.path} ${s.reason}`)).toEqual([
      'src/big.ts too-large',
      'src/binary.ts binary',
      'src/gone.ts unreadable',
    ]);
  });

  test('an imports-only index: same graph, its own cache, never read as whole facts', async () => {
    repo = createRepoFixture(files);
    const cacheDir = await defaultCacheDir(repo.dir);
    const part = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0, facts: 'imports' });
    expect(part.factsScope).toBe('imports');
    expect(part.stats.parsed).toBe(6);
    // Whole facts are never served from the imports-only store, nor from an imports-only previous.
    const whole = await buildIndex(await worktreeSnapshot(repo.dir), { store: createFactsStore({ cacheDir }), workers: 0, previous: part });
    expect(whole.factsScope).toBe('all');
    expect(whole.stats.parsed).toBe(6);
    expect(edges(whole)).toEqual(edges(part));
    expect(graphJson(whole)).toEqual(graphJson(part));
    expect([...whole.files.values()].some((f) => f.facts.definitions.length > 0)).toBe(true);
    // An imports-only facts' body is never read as empty: it throws (in a new process, from disk).
    const again = await buildIndex(await worktreeSnapshot(repo.dir), {
      store: createFactsStore({ cacheDir: mkdtempSync(join(tmpdir(), 'airspace-imports-')) }),
      workers: 0,
      facts: 'imports',
    });
    const fromDisk = await buildIndex(await worktreeSnapshot(repo.dir), {
      store: createFactsStore({ cacheDir: again.store.dir!.replace(/\/facts-[^/]*$/, '') }),
      workers: 0,
      facts: 'imports',
    });
    expect(fromDisk.stats.parsed).toBe(0);
    const anyFile = [...fromDisk.files.values()][0]!;
    expect(() => anyFile.facts.definitions).toThrow(/import graph only/);
    expect(() => anyFile.facts.references).toThrow(/import graph only/);
    // A later imports-only index takes whole facts where the cache has them.
    const reuse = await buildIndex(await worktreeSnapshot(repo.dir), {
      store: createFactsStore({ cacheDir }),
      workers: 0,
      facts: 'imports',
    });
    expect(reuse.stats.parsed).toBe(0);
    expect(readdirSync(cacheDir).filter((n) => n.startsWith('facts-')).length).toBe(2);
  });

  test('corrupt segment heads and entries are detected, removed and rebuilt', async () => {
    repo = createRepoFixture(files);
    const cacheDir = await defaultCacheDir(repo.dir);
    const first = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    const segDir = first.store.dir!;
    const heads = readdirSync(segDir).filter((n) => n.startsWith('seg-') && n.endsWith('.head.json'));
    expect(heads).toHaveLength(1);
    expect(readdirSync(segDir)).toContain(heads[0]!.replace('.head.json', '.body'));
    const seg = readSealed(join(segDir, heads[0]!));
    expect(seg.entries).toHaveLength(6);
    // One entry with a wrong shape, one claiming another language; and a truncated segment head.
    seg.entries[0][1] = { l: 'typescript', i: 'nope' };
    const lang = seg.entries[1][0].split(':')[1];
    seg.entries[1][1] = { ...seg.entries[1][1], l: lang === 'python' ? 'tsx' : 'python' };
    writeSealed(join(segDir, heads[0]!), seg);
    writeFileSync(join(segDir, 'seg-0-truncated.head.json'), '{"format":"airspace-facts-segment-4","vers');
    const again = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(again.stats.parsed).toBe(2);
    expect(again.problems.join('\n')).toMatch(/The facts cache segment .*truncated.* was damaged \(no checksum line\); it was removed/);
    expect(again.problems.join('\n')).toMatch(/had 2 corrupt entries; they were removed and parsed again\./);
    expect(readdirSync(segDir)).not.toContain('seg-0-truncated.head.json');
    expect(graphJson(again)).toEqual(graphJson(first));
    const healed = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(healed.stats.parsed).toBe(0);
    expect(healed.problems).toEqual([]);
    expect(healed.files.get('src/a.ts')!.facts).toEqual(first.files.get('src/a.ts')!.facts);
  });

  test('segment bodies load on first use; a corrupt body degrades to empty facts, is reported and reparsed next time', async () => {
    repo = createRepoFixture(files);
    const cacheDir = await defaultCacheDir(repo.dir);
    const first = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    const refs = first.files.get('src/a.ts')!.facts.references;
    expect(refs.length).toBeGreaterThan(0);

    const warm = await buildIndex(await worktreeSnapshot(repo.dir), { store: createFactsStore({ cacheDir }), workers: 0 });
    expect(warm.stats.parsed).toBe(0);
    expect(warm.store.stats.bodiesRead).toBe(0);
    expect(edges(warm)).toEqual(edges(first));
    expect(warm.files.get('src/a.ts')!.facts).toEqual(first.files.get('src/a.ts')!.facts);
    expect(warm.store.stats.bodiesRead).toBe(1);

    // Another process merges the segment away after this one read its head: the body stays readable.
    const survivor = await buildIndex(await worktreeSnapshot(repo.dir), { store: createFactsStore({ cacheDir }), workers: 0 });
    const segFiles = readdirSync(first.store.dir!).filter((n) => n.startsWith('seg-'));
    const saved = segFiles.map((n) => [n, readFileSync(join(first.store.dir!, n))] as const);
    for (const [n] of saved) rmSync(join(first.store.dir!, n));
    expect(survivor.files.get('src/a.ts')!.facts.references).toEqual(refs);
    expect(survivor.store.takeProblems()).toEqual([]);
    for (const [n, b] of saved) writeFileSync(join(first.store.dir!, n), b);

    // Damage the body after a warm index was built, before anything used it.
    const damaged = await buildIndex(await worktreeSnapshot(repo.dir), { store: createFactsStore({ cacheDir }), workers: 0 });
    const segDir = first.store.dir!;
    const body = readdirSync(segDir).find((n) => n.endsWith('.body'))!;
    const bytes = readFileSync(join(segDir, body));
    bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0xff;
    writeFileSync(join(segDir, body), bytes);
    expect(damaged.files.get('src/a.ts')!.facts.references).toEqual([]);
    expect(damaged.files.get('src/a.ts')!.facts.definitions).toEqual([]);
    expect(damaged.files.get('src/a.ts')!.facts.imports).toEqual(first.files.get('src/a.ts')!.facts.imports);
    const problems = damaged.store.takeProblems();
    expect(problems.join('\n')).toMatch(/facts cache segment body .* was damaged \(checksum mismatch\); it was removed/);
    expect(readdirSync(segDir).filter((n) => n.startsWith('seg-'))).toEqual([]);
    // The next index (even with the damaged one as previous) parses those files again.
    const next = await buildIndex(await worktreeSnapshot(repo.dir), { previous: damaged, workers: 0 });
    expect(next.stats.parsed).toBe(6);
    expect(next.files.get('src/a.ts')!.facts.references).toEqual(refs);
  });

  test('an index that will use bodies checks them on look-up: a damaged body is parsed again at once, with a problem', async () => {
    repo = createRepoFixture(files);
    const cacheDir = await defaultCacheDir(repo.dir);
    const first = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    const segDir = first.store.dir!;
    for (const [damage, why] of [
      [(b: Buffer) => b.subarray(0, b.length >> 1), /\d+ bytes, expected \d+/],
      [(b: Buffer) => Buffer.from(b.map((x, i) => (i === b.length >> 1 ? x ^ 0x10 : x))), /checksum mismatch/],
    ] as const) {
      for (const n of readdirSync(segDir).filter((n) => n.endsWith('.body')))
        writeFileSync(join(segDir, n), damage(readFileSync(join(segDir, n))));
      // Without `bodies` a warm index reads heads only and cannot tell.
      const unchecked = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
      expect(unchecked.stats.parsed).toBe(0);
      expect(unchecked.problems).toEqual([]);
      const checked = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0, bodies: true });
      expect(checked.stats.parsed).toBe(6);
      expect(checked.problems.join('\n')).toMatch(why);
      expect(checked.problems.join('\n')).toMatch(
        /facts cache segment body .* was damaged .*; it was removed and its 6 files were parsed again\./,
      );
      for (const [path, f] of first.files) expect(checked.files.get(path)!.facts, path).toEqual(f.facts);
      // Healed on disk: the next checked index parses nothing and finds nothing wrong.
      const healed = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0, bodies: true });
      expect(healed.stats.parsed).toBe(0);
      expect(healed.problems).toEqual([]);
      expect(healed.files.get('src/a.ts')!.facts.references).toEqual(first.files.get('src/a.ts')!.facts.references);
    }
  });

  test('imports kept as text in a head that no longer decode: empty on use, parsed again by the next index', async () => {
    repo = createRepoFixture(files);
    const cacheDir = await defaultCacheDir(repo.dir);
    const first = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    const segDir = first.store.dir!;
    const head = readdirSync(segDir).find((n) => n.endsWith('.head.json'))!;
    const seg = readSealed(join(segDir, head));
    const aBlob = first.files.get('src/a.ts')!.blobId;
    const entry = seg.entries.find((e: [string]) => e[0] === `${aBlob}:typescript`);
    entry[1].i = '[{"specifier":';
    writeSealed(join(segDir, head), seg);
    const warm = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(warm.stats.parsed).toBe(0);
    expect(edges(warm)).toEqual(edges(first)); // the persisted resolutions need no imports
    expect(warm.files.get('src/a.ts')!.facts.imports).toEqual([]);
    const next = await buildIndex(await worktreeSnapshot(repo.dir), { previous: warm, workers: 0 });
    expect(next.stats.parsed).toBe(1);
    expect(next.problems.join('\n')).toMatch(
      /The facts cache segment .* had 1 corrupt entry; it was removed and that file is parsed again\./,
    );
    expect(graphJson(next)).toEqual(graphJson(first));
    // Healed on disk: the segment was rewritten without the damaged entry, plus the reparsed one.
    const fresh = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(fresh.stats.parsed).toBe(0);
    expect(fresh.files.get('src/a.ts')!.facts.imports).toEqual(first.files.get('src/a.ts')!.facts.imports);
    expect(fresh.files.get('src/b.ts')!.facts).toEqual(first.files.get('src/b.ts')!.facts);
    expect(next.files.get('src/a.ts')!.facts.imports).toEqual(first.files.get('src/a.ts')!.facts.imports);
  });

  test('many segments are merged into one without losing entries; the largest is left as it is', async () => {
    repo = createRepoFixture({ 'a.ts': 'export const a = 0;\n', 'b.ts': 'export const b = 0;\n', 'c.ts': 'export const c = 0;\n' });
    const cacheDir = await defaultCacheDir(repo.dir);
    await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    const largest = readdirSync(join(cacheDir, readdirSync(cacheDir)[0]!)).find((n) => n.endsWith('.head.json'))!;
    for (let i = 1; i <= 10; i++) {
      repo.write('a.ts', `export const a = ${i};\n`);
      await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    }
    const segDir = join(cacheDir, readdirSync(cacheDir)[0]!);
    expect(readdirSync(segDir).filter((n) => n.endsWith('.head.json')).length).toBeLessThanOrEqual(9);
    expect(readdirSync(segDir)).toContain(largest);
    repo.write('a.ts', 'export const a = 3;\n');
    const back = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(back.stats.parsed).toBe(0);
  });

  test('an unwritable cache directory degrades to memory, with a problem', async () => {
    repo = createRepoFixture(files);
    const blocker = join(repo.dir, 'not-a-dir');
    writeFileSync(blocker, 'x');
    const ix = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir: join(blocker, 'cache'), workers: 0 });
    expect(ix.files.size).toBe(6);
    expect(ix.problems.join('\n')).toMatch(/^Cannot write the facts cache \(.*\); continuing without it\.$/);
  });

  test('a tree snapshot of a commit', async () => {
    repo = createRepoFixture(files);
    const { treeSnapshot } = await import('../src/snapshot.js');
    const snap = await treeSnapshot(repo.dir, 'HEAD');
    const ix = await buildIndex(snap, { workers: 0 });
    expect(edges(ix)).toEqual(['src/a.ts -> src/b.ts', 'src/b.ts -> src/c.ts', 'tools/x.py -> pkg/y.py']);
    expect(gitBlobId(await snap.files[0]!.read())).toBe(snap.files[0]!.blobId);
  });
});

describe('overlays', () => {
  test("an agent's added import counts for that agent only", async () => {
    const ix = await buildIndex(memorySnapshot({ 'a.ts': "import './b';\n", 'b.ts': '', 'c.ts': '', 'd.ts': "import './c';\n" }), {
      workers: 0,
    });
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

describe('re-indexing with a previous index', () => {
  let repo: RepoFixture | undefined;
  afterEach(() => repo?.dispose());

  const shape = (ix: AnalysisIndex) => ({
    files: [...ix.files.values()].map((f) => ({ path: f.path, blobId: f.blobId, imports: f.imports })),
    // Key order of the adjacency maps is not significant; the order of each list is.
    imports: [...ix.imports].sort(([a], [b]) => (a < b ? -1 : 1)),
    importers: [...ix.importers].sort(([a], [b]) => (a < b ? -1 : 1)),
    external: ix.external,
    unresolved: ix.unresolved,
    partial: ix.partial,
    skipped: ix.skipped,
    edges: edges(ix),
  });
  const base = {
    'src/a.ts': "import { b } from './b';\nimport React from 'react';\nexport const a = () => b();\n",
    'src/b.ts': "import { c } from './c';\nexport function b() { return c; }\n",
    'src/c.ts': 'export const c = 3;\n',
    'src/d.ts': "import { c } from './c';\nimport { e } from './e';\nimport x from 'lodash';\n",
    'src/e.ts': 'export const e = 1;\n',
    'src/z.ts': "import { a } from './a';\n",
    'src/img.ts': Buffer.from([0x69, 0, 0x6d]),
    'package.json': '{"name":"root"}\n',
  };

  test('the fast path (same file set) equals a full re-index of the same snapshot', async () => {
    const first = await buildIndex(memorySnapshot(base), { workers: 0 });
    const changes: Record<string, string | Buffer>[] = [
      // new imports, a removed import, an external added, an unresolved one
      { 'src/c.ts': "import { e } from './e';\nimport { nope } from './nope';\nexport const c = 3;\n", 'src/z.ts': 'export {};\n' },
      // a file becomes binary (skipped), another stops being binary
      { 'src/b.ts': Buffer.from([0, 1, 2]), 'src/img.ts': "import { a } from './a';\nimport 'chalk';\n" },
      // a parse error (partial)
      { 'src/e.ts': 'export const e = (;\n' },
    ];
    let previous = first;
    for (const change of changes) {
      const snap = memorySnapshot({ ...base, ...change });
      const fast = await buildIndex(snap, { workers: 0, previous });
      const full = await buildIndex(snap, { workers: 0 });
      expect(fast.stats.parsed).toBeLessThanOrEqual(2);
      expect(fast.resolverKey).toBe(full.resolverKey);
      expect(shape(fast)).toEqual(shape(full));
      previous = fast;
    }
    // Back to the start: equal to the first index, facts from memory.
    const back = await buildIndex(memorySnapshot(base), { workers: 0, previous });
    expect(back.stats.parsed).toBe(0);
    expect(shape(back)).toEqual(shape(first));
  });

  test('a changed configuration file or file set leaves the fast path and resolves again', async () => {
    const ws = {
      'package.json': '{"name":"root","workspaces":["packages/*"]}\n',
      'packages/lib/package.json': '{"name":"lib","main":"src/index.ts"}\n',
      'packages/lib/src/index.ts': 'export const l = 1;\n',
      'packages/app/src/main.ts': "import { l } from 'lib';\n",
    };
    const first = await buildIndex(memorySnapshot(ws), { workers: 0 });
    expect(first.importers.get('packages/lib/src/index.ts')).toEqual(['packages/app/src/main.ts']);
    const renamed = { ...ws, 'packages/lib/package.json': '{"name":"lib2","main":"src/index.ts"}\n' };
    const second = await buildIndex(memorySnapshot(renamed), { workers: 0, previous: first });
    expect(second.resolverKey).not.toBe(first.resolverKey);
    expect(second.importers.get('packages/lib/src/index.ts')).toBeUndefined();
    expect(second.external.map((e) => e.package)).toEqual(['lib']);
    const added = await buildIndex(memorySnapshot({ ...renamed, 'packages/app/src/lib.ts': '' }), { workers: 0, previous: second });
    expect(added.resolverKey).not.toBe(second.resolverKey);
    expect(shape(added)).toEqual(shape(await buildIndex(memorySnapshot({ ...renamed, 'packages/app/src/lib.ts': '' }), { workers: 0 })));
  });

  test('added and deleted files: resolutions carried from the previous resolver equal a fresh index', async () => {
    const tree: Record<string, string> = {
      'tsconfig.json': '{"compilerOptions":{"baseUrl":".","paths":{"@u/*":["src/util/*"]}}}\n',
      'src/a.ts': "import { x } from './x';\nimport { f } from '@u/format';\nimport { y } from './y.js';\nimport 'gone';\n",
      'src/x/index.ts': 'export const x = 1;\n',
      'src/util/format.ts': "export const f = 1;\nimport { c } from '../c';\n",
      'src/c.ts': 'export const c = 1;\n',
      'py/app/main.py': 'from . import views\nfrom .models import M\nimport helpers\nimport app.models\n',
      'py/app/__init__.py': '',
      'py/app/models/__init__.py': 'M = 1\n',
    };
    const steps: [string, Record<string, string | null>][] = [
      // x.ts outranks x/index.ts; y.ts appears for './y.js'; a module appears for `import 'gone'` through baseUrl
      ['files that outrank earlier targets', { 'src/x.ts': 'export const x = 2;\n', 'src/y.ts': 'export const y = 2;\n', 'gone.ts': '' }],
      // targets deleted: fall back to the next candidate or become unresolved
      ['deleted targets', { 'src/x.ts': null, 'src/util/format.ts': null, 'src/c.ts': null }],
      // Python: a submodule for `from . import views`, a module shadowing a package, a top-level module
      ['Python modules', { 'py/app/views.py': '', 'py/app/models.py': '', 'helpers.py': '' }],
      // a Python root marker moves every root
      ['a Python root marker', { 'py/pyproject.toml': '' }],
      ['unrelated files', { 'docs/readme.md': 'hi\n', 'src/other.ts': "import { c } from './c';\n" }],
    ];
    let files: Record<string, string> = { ...tree };
    let previous = await buildIndex(memorySnapshot(files), { workers: 0 });
    for (const [what, change] of steps) {
      files = { ...files };
      for (const [p, text] of Object.entries(change)) {
        if (text === null) delete files[p];
        else files[p] = text;
      }
      const carried = await buildIndex(memorySnapshot(files), { workers: 0, previous });
      const fresh = await buildIndex(memorySnapshot(files), { workers: 0 });
      expect(shape(carried), what).toEqual(shape(fresh));
      previous = carried;
    }
    // The first step really changed targets.
    const first = await buildIndex(memorySnapshot({ ...tree, ...steps[0]![1] } as Record<string, string>), { workers: 0 });
    expect(first.imports.get('src/a.ts')).toEqual(expect.arrayContaining(['src/x.ts', 'src/y.ts', 'gone.ts']));
  });

  test('after a warm start from disk, a file-set change starts from the saved resolver memo; a bad memo falls back', async () => {
    repo = createRepoFixture({
      'tsconfig.json': '{"compilerOptions":{"baseUrl":"src"}}\n',
      'src/a.ts': "import { b } from 'b';\nimport { x } from './x';\nimport { c } from './c';\n",
      'src/b.ts': 'export const b = 1;\n',
      'src/x/index.ts': 'export const x = 1;\n',
      'src/c.ts': 'export const c = 1;\n',
    });
    const cacheDir = await defaultCacheDir(repo.dir);
    const first = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    const memoPath = join(first.store.dir!, `memo-${first.resolverKey}.json`);
    expect(existsSync(memoPath)).toBe(true);
    // Tamper with a memo entry that no added path touches: a later process must take it over.
    const memo = readSealed(memoPath);
    const entry = memo.memo.find((e: [string, { resolution: { targets?: string[] } }]) => e[1].resolution.targets?.[0] === 'src/c.ts');
    entry[1].resolution = { status: 'external', package: 'memo-marker' };
    writeSealed(memoPath, memo);
    for (const damaged of [false, true]) {
      if (damaged)
        writeSealed(memoPath, { format: 'airspace-resolver-memo-3', memo: [['k', { resolution: { status: 'odd' }, probed: [] }]] });
      const warm = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
      repo.write('src/x.ts', 'export const x = 2;\n');
      try {
        const shifted = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0, previous: warm });
        // x.ts outranks x/index.ts whatever the memo said; the untouched entry came from the memo.
        expect(shifted.imports.get('src/a.ts')).toEqual(damaged ? ['src/b.ts', 'src/x.ts', 'src/c.ts'] : ['src/b.ts', 'src/x.ts']);
        expect(shifted.external.map((e) => e.package)).toEqual(damaged ? [] : ['memo-marker']);
      } finally {
        repo.remove('src/x.ts');
      }
    }
  });

  test('resolutions persist by resolver key: reused by a new process, invalidated by a configuration or file-set change', async () => {
    repo = createRepoFixture({
      'tsconfig.json': '{"compilerOptions":{"baseUrl":"src"}}\n',
      'src/a.ts': "import { b } from 'b';\n",
      'src/b.ts': 'export const b = 1;\n',
    });
    const cacheDir = await defaultCacheDir(repo.dir);
    const resolutionFiles = (ix: AnalysisIndex) => readdirSync(ix.store.dir!).filter((n) => n.startsWith('res-'));
    const first = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(first.imports.get('src/a.ts')).toEqual(['src/b.ts']);
    expect(resolutionFiles(first)).toEqual([`res-${first.resolverKey}.json`]);
    // Tamper with the persisted outcome: a new process must use it (proving it resolved nothing).
    const resPath = join(first.store.dir!, `res-${first.resolverKey}.json`);
    const res = readSealed(resPath);
    res.files['src/a.ts'][1] = [{ specifier: 'b', kind: 'static', edge: 'value', line: 1, targets: [], external: 'persisted-marker' }];
    writeSealed(resPath, res);
    const warm = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(warm.resolverKey).toBe(first.resolverKey);
    expect(warm.external.map((e) => e.package)).toEqual(['persisted-marker']);
    // A configuration change: another key, resolved again.
    repo.write('tsconfig.json', '{"compilerOptions":{"baseUrl":"."}}\n');
    const reconfigured = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(reconfigured.resolverKey).not.toBe(first.resolverKey);
    expect(reconfigured.external.map((e) => e.package)).toEqual(['b']);
    repo.write('tsconfig.json', '{"compilerOptions":{"baseUrl":"src"}}\n');
    // A file-set change: another key, resolved again.
    repo.write('src/c.ts', '');
    const more = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(more.resolverKey).not.toBe(first.resolverKey);
    expect(more.imports.get('src/a.ts')).toEqual(['src/b.ts']);
    // A changed file under the same key: only its own persisted outcome is ignored.
    repo.write('src/c.ts', "import { b } from 'b';\n");
    const edited = await buildIndex(await worktreeSnapshot(repo.dir), { cacheDir, workers: 0 });
    expect(edited.resolverKey).toBe(more.resolverKey);
    expect(edited.imports.get('src/c.ts')).toEqual(['src/b.ts']);
  });

  test('patchSnapshot: an editor re-indexes the files it saved without listing the worktree', async () => {
    repo = createRepoFixture({ 'src/a.ts': "import './b';\n", 'src/b.ts': 'export {};\n', 'src/c.ts': '' });
    const { patchSnapshot } = await import('../src/snapshot.js');
    const snap = await worktreeSnapshot(repo.dir);
    const first = await buildIndex(snap, { workers: 0 });
    repo.write('src/b.ts', "import './c';\n");
    const patched = await patchSnapshot(snap, ['src/b.ts']);
    const fast = await buildIndex(patched, { workers: 0, previous: first });
    expect(fast.stats.parsed).toBe(1);
    expect(fast.importers.get('src/c.ts')).toEqual(['src/b.ts']);
    const listed = await buildIndex(await worktreeSnapshot(repo.dir), { workers: 0 });
    expect(edges(fast)).toEqual(edges(listed));
    // Deleted and added files change the file set.
    repo.write('src/d.ts', "import './a';\n");
    rmSync(join(repo.dir, 'src/c.ts'));
    const patched2 = await patchSnapshot(patched, ['src/c.ts', 'src/d.ts']);
    expect(patched2.files.map((f) => f.path)).toEqual(['src/a.ts', 'src/b.ts', 'src/d.ts']);
    const again = await buildIndex(patched2, { workers: 0, previous: fast });
    expect(edges(again)).toEqual(['src/a.ts -> src/b.ts', 'src/d.ts -> src/a.ts']);
    expect(again.unresolved.map((u) => u.specifier)).toEqual(['./c']);
  });
});
