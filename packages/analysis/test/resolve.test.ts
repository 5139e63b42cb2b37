import { describe, expect, test } from 'vitest';
import { createResolver, type Resolution } from '../src/resolve/resolver.js';
import type { ImportKind } from '../src/facts.js';

function resolver(files: Record<string, string>) {
  const configs = new Map(Object.entries(files).filter(([, v]) => v !== ''));
  return createResolver({ files: Object.keys(files), configs });
}
const js = (r: ReturnType<typeof resolver>, from: string, specifier: string, kind: ImportKind = 'static'): Resolution =>
  r.resolve(from, { specifier, kind, names: [] });
const target = (res: Resolution) => (res.status === 'resolved' ? res.targets : res.status);

describe('relative specifiers', () => {
  const r = resolver({
    'src/a.ts': '',
    'src/b.ts': '',
    'src/c.tsx': '',
    'src/dir/index.ts': '',
    'src/m.mts': '',
    'src/c2.cts': '',
    'src/plain.js': '',
    'src/data.json': '',
    'lib/x.d.ts': '',
  });
  test.each([
    ['./b', ['src/b.ts']],
    ['./b.js', ['src/b.ts']],
    ['./c.js', ['src/c.tsx']],
    ['./c', ['src/c.tsx']],
    ['./dir', ['src/dir/index.ts']],
    ['./dir/index.js', ['src/dir/index.ts']],
    ['./m.mjs', ['src/m.mts']],
    ['./c2.cjs', ['src/c2.cts']],
    ['./plain.js', ['src/plain.js']],
    ['./data.json', ['src/data.json']],
    ['../lib/x', ['lib/x.d.ts']],
    ['./missing', 'unresolved'],
    ['../../outside', 'unresolved'],
  ])('%s', (spec, expected) => {
    expect(target(js(r, 'src/a.ts', spec))).toEqual(expected);
  });
});

describe('tsconfig paths and baseUrl', () => {
  const r = resolver({
    'tsconfig.base.json':
      '{ // comments are fine\n "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["src/app/*"], "~lib": ["src/lib/index.ts"], }, }, }',
    'apps/web/tsconfig.json': '{ "extends": "../../tsconfig.base.json" }',
    'apps/web/main.ts': '',
    'apps/own/tsconfig.json': '{ "compilerOptions": { "paths": { "#/*": ["./inner/*"] } } }',
    'apps/own/inner/u.ts': '',
    'apps/own/main.ts': '',
    'src/app/util.ts': '',
    'src/lib/index.ts': '',
    'src/other.ts': '',
  });
  test('paths inherited through extends, relative to the base config’s baseUrl', () => {
    expect(js(r, 'apps/web/main.ts', '@app/util')).toEqual({ status: 'resolved', targets: ['src/app/util.ts'], via: 'tsconfig-paths' });
    expect(target(js(r, 'apps/web/main.ts', '~lib'))).toEqual(['src/lib/index.ts']);
  });
  test('baseUrl', () => {
    expect(js(r, 'apps/web/main.ts', 'src/other')).toEqual({ status: 'resolved', targets: ['src/other.ts'], via: 'base-url' });
  });
  test('paths without baseUrl are relative to their config', () => {
    expect(target(js(r, 'apps/own/main.ts', '#/u'))).toEqual(['apps/own/inner/u.ts']);
  });
  test('unmatched bare specifiers are external', () => {
    expect(js(r, 'apps/web/main.ts', 'react/jsx-runtime')).toEqual({ status: 'external', package: 'react' });
    expect(js(r, 'apps/web/main.ts', '@scope/pkg/deep')).toEqual({ status: 'external', package: '@scope/pkg' });
    expect(js(r, 'apps/web/main.ts', 'fs')).toEqual({ status: 'external', package: 'node:fs' });
    expect(js(r, 'apps/web/main.ts', 'node:path')).toEqual({ status: 'external', package: 'node:path' });
  });
});

describe('workspaces', () => {
  const r = resolver({
    'package.json': '{ "name": "root", "workspaces": ["packages/*", "!packages/ignored"] }',
    'packages/core/package.json':
      '{ "name": "@acme/core", "exports": { ".": { "types": "./dist/index.d.ts", "import": "./dist/index.js" }, "./sub/*": "./dist/sub/*.js" } }',
    'packages/core/src/index.ts': '',
    'packages/core/src/sub/x.ts': '',
    'packages/util/package.json': '{ "name": "util", "main": "lib/main.js" }',
    'packages/util/lib/main.js': '',
    'packages/nomain/package.json': '{ "name": "nomain" }',
    'packages/nomain/src/index.ts': '',
    'packages/nomain/src/deep/file.ts': '',
    'packages/ignored/package.json': '{ "name": "ignored" }',
    'packages/ignored/index.js': '',
    'app/main.ts': '',
  });
  test('exports map pointing at dist maps to src', () => {
    expect(js(r, 'app/main.ts', '@acme/core')).toEqual({ status: 'resolved', targets: ['packages/core/src/index.ts'], via: 'workspace' });
    expect(target(js(r, 'app/main.ts', '@acme/core/sub/x'))).toEqual(['packages/core/src/sub/x.ts']);
  });
  test('main field into the repository', () => {
    expect(target(js(r, 'app/main.ts', 'util'))).toEqual(['packages/util/lib/main.js']);
  });
  test('no main: src/index, and subpaths', () => {
    expect(target(js(r, 'app/main.ts', 'nomain'))).toEqual(['packages/nomain/src/index.ts']);
    expect(target(js(r, 'app/main.ts', 'nomain/deep/file'))).toEqual(['packages/nomain/src/deep/file.ts']);
  });
  test('excluded directories are not workspace packages', () => {
    expect(js(r, 'app/main.ts', 'ignored')).toEqual({ status: 'external', package: 'ignored' });
  });
  test('pnpm-workspace.yaml', () => {
    const p = resolver({
      'pnpm-workspace.yaml': "packages:\n  - 'libs/**'\n# comment\n",
      'libs/a/b/package.json': '{ "name": "deep-lib", "types": "./dist/index.d.ts" }',
      'libs/a/b/src/index.ts': '',
      'x.ts': '',
    });
    expect(target(js(p, 'x.ts', 'deep-lib'))).toEqual(['libs/a/b/src/index.ts']);
  });
});

describe('python', () => {
  const r = resolver({
    'pkg/__init__.py': '',
    'pkg/mod.py': '',
    'pkg/sub/__init__.py': '',
    'pkg/sub/leaf.py': '',
    'src/lay/__init__.py': '',
    'src/lay/core.py': '',
    'scripts/run.py': '',
    'scripts/helper.py': '',
    'services/api/pyproject.toml': '',
    'services/api/src/apipkg/__init__.py': '',
  });
  const py = (from: string, specifier: string, kind: ImportKind, names: string[] = []) =>
    r.resolve(from, { specifier, kind, names: names.map((n) => ({ name: n, alias: n })) });
  test('absolute from the root, packages by __init__.py', () => {
    expect(target(py('scripts/run.py', 'pkg.mod', 'python-import'))).toEqual(['pkg/mod.py']);
    expect(target(py('scripts/run.py', 'pkg.sub', 'python-import'))).toEqual(['pkg/sub/__init__.py']);
  });
  test('from package import submodule', () => {
    expect(target(py('scripts/run.py', 'pkg.sub', 'python-from', ['leaf']))).toEqual(['pkg/sub/leaf.py']);
    expect(target(py('scripts/run.py', 'pkg.mod', 'python-from', ['f']))).toEqual(['pkg/mod.py']);
  });
  test('relative imports with dots', () => {
    expect(target(py('pkg/sub/leaf.py', '..mod', 'python-from', ['f']))).toEqual(['pkg/mod.py']);
    expect(target(py('pkg/sub/leaf.py', '.', 'python-from', ['leaf']))).toEqual(['pkg/sub/leaf.py']);
    expect(py('pkg/mod.py', '...nothing', 'python-from', ['x']).status).toBe('unresolved');
  });
  test('src layouts, project roots and the script directory', () => {
    expect(target(py('scripts/run.py', 'lay.core', 'python-import'))).toEqual(['src/lay/core.py']);
    expect(target(py('scripts/run.py', 'apipkg', 'python-import'))).toEqual(['services/api/src/apipkg/__init__.py']);
    expect(target(py('scripts/run.py', 'helper', 'python-import'))).toEqual(['scripts/helper.py']);
  });
  test('external packages by top-level name', () => {
    expect(py('scripts/run.py', 'numpy.linalg', 'python-import')).toEqual({ status: 'external', package: 'numpy' });
  });
});

test('an overlay file set adds and removes files', () => {
  const r = resolver({ 'a.ts': '', 'b.ts': '' });
  const r2 = r.withFiles(['c.ts'], ['b.ts']);
  expect(target(js(r2, 'a.ts', './c'))).toEqual(['c.ts']);
  expect(target(js(r2, 'a.ts', './b'))).toBe('unresolved');
  expect(target(js(r, 'a.ts', './b'))).toEqual(['b.ts']);
});
