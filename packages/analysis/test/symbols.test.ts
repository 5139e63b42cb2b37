import { describe, expect, test } from 'vitest';
import { buildIndex } from '../src/indexing/build.js';
import { baseView, overlay } from '../src/indexing/view.js';
import { createSymbolResolver } from '../src/symbols/resolve.js';
import { memorySnapshot } from '../src/snapshot.js';
import { buildCallGraph, buildSymbolGraph, createNameResolver } from '../src/graph/symbols.js';

const edgesOf = (g: { forEachEdge(cb: (e: string, a: unknown, s: string, t: string) => void): void }) => {
  const out: string[] = [];
  g.forEachEdge((_e, _a, s, t) => out.push(`${s} -> ${t}`));
  return out.sort();
};

describe('TypeScript and JavaScript symbols', async () => {
  const ix = await buildIndex(
    memorySnapshot({
      'src/math.ts': 'export function add(a: number, b: number) { return a + b; }\nexport const zero = 0;\n',
      'src/index.ts': "export * from './math';\nexport { Service as Svc } from './service';\n",
      'src/service.ts':
        "import { add } from './math';\nexport class Service {\n  run() { return this.step(add(1, 2)); }\n  step(n: number) { return n; }\n}\n",
      'src/app.ts':
        "import * as lib from './index';\nimport { Svc } from './index';\nexport function main() {\n  lib.add(1, 2);\n  const s = new Svc();\n  return Svc.name;\n}\n",
      'src/legacy.js':
        "const { add: plus } = require('./math');\nconst m = require('./math');\nfunction go() { return plus(1, m.zero); }\n",
    }),
    { workers: 0 },
  );
  const view = baseView(ix);
  const resolver = createNameResolver(view);

  test('exports follow export * and renamed re-exports', () => {
    expect(Object.fromEntries(resolver.exportsOf('src/index.ts'))).toEqual({
      add: 'src/math.ts#add',
      zero: 'src/math.ts#zero',
      Svc: 'src/service.ts#Service',
    });
  });

  test('names and members resolve through namespace imports and require destructuring', () => {
    expect(resolver.resolveMember('src/app.ts', 'lib', 'add')).toBe('src/math.ts#add');
    expect(resolver.resolveName('src/app.ts', 'Svc')).toBe('src/service.ts#Service');
    expect(resolver.resolveName('src/legacy.js', 'plus')).toBe('src/math.ts#add');
    expect(resolver.resolveMember('src/legacy.js', 'm', 'zero')).toBe('src/math.ts#zero');
  });

  test('call graph: this.method, namespace calls, new, require', () => {
    const calls = edgesOf(buildCallGraph(view, resolver));
    expect(calls).toEqual(
      expect.arrayContaining([
        'src/service.ts#Service.run -> src/service.ts#Service.step',
        'src/service.ts#Service.run -> src/math.ts#add',
        'src/app.ts#main -> src/math.ts#add',
        'src/app.ts#main -> src/service.ts#Service',
        'src/legacy.js#go -> src/math.ts#add',
      ]),
    );
  });

  test('symbol graph: uses from the innermost definition to the other file’s symbol', () => {
    const uses = edgesOf(buildSymbolGraph(view, resolver));
    expect(uses).toEqual(
      expect.arrayContaining([
        'src/app.ts#main -> src/math.ts#add',
        'src/app.ts#main -> src/service.ts#Service',
        'src/legacy.js#go -> src/math.ts#zero',
      ]),
    );
    expect(uses.every((e) => !e.startsWith('src/math.ts'))).toBe(true);
  });
});

describe('Python symbols', async () => {
  const ix = await buildIndex(
    memorySnapshot({
      'pkg/__init__.py': 'from .core import Engine\n',
      'pkg/core.py':
        'class Engine:\n    def start(self):\n        return self.check()\n\n    def check(self):\n        return helper()\n\n\ndef helper():\n    return 1\n',
      'pkg/util.py': 'def fmt(x):\n    return str(x)\n',
      'app.py':
        'import pkg.util\nfrom pkg import Engine\nimport pkg.core as core\n\n\ndef run():\n    e = Engine()\n    core.helper()\n    return pkg.util.fmt(e.start())\n',
    }),
    { workers: 0 },
  );
  const view = baseView(ix);
  test('from package import re-exported name, import m as alias, import a.b and dotted use, self.method', () => {
    const calls = edgesOf(buildCallGraph(view));
    expect(calls).toEqual(
      expect.arrayContaining([
        'app.py#run -> pkg/core.py#Engine',
        'app.py#run -> pkg/core.py#helper',
        'app.py#run -> pkg/util.py#fmt',
        'pkg/core.py#Engine.start -> pkg/core.py#Engine.check',
        'pkg/core.py#Engine.check -> pkg/core.py#helper',
      ]),
    );
  });
});

describe('name-only fallback', async () => {
  const ix = await buildIndex(
    memorySnapshot({
      'src/a.ts': 'export function helper() { return 1; }\n',
      'src/b.ts': 'export function other() { return 2; }\n',
      // `helper` is not imported here: only a name-only guess can find it.
      'src/use.ts': 'export function main() { return helper() + other(); }\n',
    }),
    { workers: 0 },
  );
  const use = { name: 'helper', line: 1 };
  const names = (rs: readonly { symbol: { id: string }; confidence: string; via: string }[]) =>
    rs.map((r) => `${r.symbol.id} ${r.confidence} ${r.via}`);

  test('a name defined once in the repository is a low-confidence candidate', () => {
    expect(names(createSymbolResolver(baseView(ix)).resolve('src/use.ts', use))).toEqual(['src/a.ts#helper low name-only']);
  });

  test("an agent's overlay adds its own definitions and drops those of files it deleted", async () => {
    const added = await overlay(ix, [{ path: 'src/c.ts', read: () => Buffer.from('export function helper() { return 3; }\n') }], {
      workers: 0,
    });
    expect(names(createSymbolResolver(added).resolve('src/use.ts', use))).toEqual([
      'src/a.ts#helper low name-only',
      'src/c.ts#helper low name-only',
    ]);
    const deleted = await overlay(ix, [{ path: 'src/a.ts', deleted: true }], { workers: 0 });
    expect(createSymbolResolver(deleted).resolve('src/use.ts', use)).toEqual([]);
    const renamed = await overlay(ix, [{ path: 'src/a.ts', read: () => Buffer.from('export function helper2() { return 1; }\n') }], {
      workers: 0,
    });
    expect(createSymbolResolver(renamed).resolve('src/use.ts', use)).toEqual([]);
    // The base view is unaffected by the overlays built on it.
    expect(names(createSymbolResolver(baseView(ix)).resolve('src/use.ts', use))).toEqual(['src/a.ts#helper low name-only']);
  });

  test('a name defined in more places than the limit is too common to guess', () => {
    expect(createSymbolResolver(baseView(ix), { maxNameOnlyCandidates: 0 }).resolve('src/use.ts', use)).toEqual([]);
  });
});
