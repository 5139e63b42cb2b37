/**
 * The import scanner (`import-scanner.ts`) against tree-sitter: on each source it answers for,
 * its facts must equal the imports-only extraction's by parse; where it cannot be sure it must
 * not answer (the file then goes to tree-sitter).
 */
import { describe, expect, test } from 'vitest';
import { extractFacts } from '../src/extract/extract.js';
import { scanImportFacts } from '../src/extract/import-scanner.js';
import { isImportsOnly } from '../src/cache/pack.js';
import type { FileFacts, Language } from '../src/facts.js';

const parsed = (source: string, language: Language): FileFacts => extractFacts(source, language, { importsOnly: true, parse: true });

const answered: [string, Language, string][] = [
  [
    'regex and division',
    'javascript',
    "const r = /['\"`]require\\('x'\\)/g;\nconst q = a / b / c;\nconst s = (x) / 2; if (y) /re'/.test(z);\nconst m = require('./m');\n",
  ],
  ['regex after a block, division after an object', 'javascript', "{ }\n/'/.test(a);\nconst o = {} / 2;\nconst p = require('./p');\n"],
  [
    'templates with nested substitutions',
    'typescript',
    "const t = `a ${`b ${ { c: '}' }.c } ${require('./in-template')}`} require('./not')`;\nimport x from './x';\n",
  ],
  [
    'comments and strings with imports in them',
    'javascript',
    "// require('./no')\n/* import x from './no' */\nconst s = \"import y from './no'\";\nconst a = require('./yes'); // require('./no2')\n",
  ],
  [
    'JSX text with quotes and slashes',
    'javascript',
    "import React from 'react';\nconst A = () => <div title=\"it's\">don't // not a comment {require('./in-jsx')} <B.C x={1 / 2}/> &amp;</div>;\nconst b = require('./b');\n",
  ],
  [
    'TSX with a generic call and fragments',
    'tsx',
    "import { useState } from 'react';\nexport const C = () => { const [s] = useState<string>(''); return <><p>{s}</p></>; };\n",
  ],
  [
    'import forms',
    'typescript',
    "import 'side';\nimport d from './d';\nimport * as ns from './ns';\nimport d2, { a, b as c, type T, default as e } from './mix';\nimport type { U } from './types';\nimport type V from './v';\nimport x = require('./req');\nimport {} from './empty';\n",
  ],
  [
    'export forms',
    'typescript',
    "export * from './all';\nexport * as ns from './ns';\nexport { a, b as c } from './ab';\nexport type { T } from './t';\nexport { type U, V } from './uv';\nconst l = 1, m = 2;\nexport { l, m as n, l as default };\nexport const p = 1, { q, r: s, t = 2 } = obj, [u] = arr;\nexport function f() {}\nexport async function g() {}\nexport class K {}\nexport abstract class AK {}\nexport interface I {}\nexport type Alias<X> = X;\nexport enum E { A = 1 }\nexport const enum CE { B }\nexport declare const amb: number;\n",
  ],
  ['export default of a name', 'javascript', 'const x = 1;\nexport default x;\n'],
  ['export default function', 'javascript', "export default function named() { return require('./lazy'); }\n"],
  ['export default expression', 'typescript', 'export default { a: 1 };\n'],
  ['export assignment', 'typescript', "import fs = require('fs');\nconst api = {};\nexport = api;\n"],
  [
    'require bindings',
    'javascript',
    "const a = require('./a');\nconst { b, c: d, e = 1, ...rest } = require('./bcde');\nconst f = require('./f').g;\nvar h = require('./h'), i = require('./i').j;\nk = require('./k');\nmodule.exports.l = require('./l');\nrequire('./bare');\nconst m = require('./m')('x');\nconst n = require('./n') || {};\nlet o;\no = require('./o')\n.p;\n",
  ],
  [
    'require inside functions, methods, class fields',
    'javascript',
    "function f() { return require('./f'); }\nconst g = () => require('./g');\nconst h = async () => { await require('./h'); };\nclass C {\n  field = require('./field');\n  arrow = () => require('./arrow');\n  static { require('./static-block'); }\n  method() { require('./method'); }\n  get x() { return require('./getter'); }\n}\nconst o = { m() { return require('./object-method'); }, v: require('./object-value') };\nfunction p(a = require('./default-param')) {}\nconst q = (b = require('./arrow-param')) => b;\n",
  ],
  [
    'dynamic imports',
    'typescript',
    "const a = await import('./a');\nconst { b } = await import('./b');\nconst lazy = () => import('./lazy');\nimport('./then').then((m) => m);\nconst routes = [{ load: () => import('./route') }];\n",
  ],
  [
    'TypeScript annotations and generics',
    'typescript',
    "const m: Map<string, number> = new Map<string, number>();\nconst r: Record<string, X> = require('./r');\nconst g = <T, U>(x: T): U => require('./g');\nfunction f<T>(a: T): { x: T } { return require('./f'); }\nclass K<T> implements I<{ a: T }> {\n  @Dec() prop: string = '';\n  @Dec()\n  method(): void { require('./k'); }\n}\n",
  ],
  ['decorated export', 'typescript', "@Component({ selector: 'x' })\nexport class A {}\n"],
  ['automatic semicolons', 'javascript', "const a = require('./a')\nconst b = () => 1\nrequire('./b')\nconst c = x\n(require('./c'))\n"],
  [
    'comments around the specifier',
    'javascript',
    "const a = import(/* webpackChunkName: 'a' */ './a');\nconst b = require('./b' /* after */);\nconst { c } = require(/* one */ /* two */ './c');\nrequire(// why\n  './d');\nrequire /* between */ ('./e');\nimport(/* not first */ e, './not-an-import');\n",
  ],
  [
    'comments before the specifier in TypeScript',
    'typescript',
    "const a = await import(/* webpackChunkName: 'a' */ './a');\nimport b = require(/* why */ './b');\nexport const c = () => import(\n  // lazy\n  './c');\n",
  ],
  [
    'template literals as specifiers',
    'javascript',
    'const a = require(`./a`);\nconst { b } = await import(/* c */ `./b`);\nrequire(`./${c}`);\nrequire(``);\nrequire(`./d` + e);\nrequire(`./f`.g);\nconst t = `${require(`./in-template`)}`;\n',
  ],
  [
    'TSX type parameters and type arguments',
    'tsx',
    'import { T } from \'./t\';\nconst f = <R extends object = {}>(p: R) => <Table<{ a?: string }> rows={p} class="x" />;\nconst g = <S,>(s: S) => s;\n',
  ],
  ['`as` as a name in JavaScript', 'javascript', "const as = options.as || 'x';\nthen(function (as) { return require('./as'); });\n"],
  ['hashbang and BOM-free start', 'javascript', "#!/usr/bin/env node\nconst a = require('./a');\n"],
];

const bailed: [string, Language, string][] = [
  ['a namespace', 'typescript', "namespace N { export import x = require('./x'); }\n"],
  ['an ambient module', 'typescript', "declare module 'm' { import y from './y'; }\n"],
  ['an unterminated string', 'javascript', "const a = require('./a);\n"],
  ['an unterminated template', 'javascript', 'const a = `x${y}\n'],
  ['an unterminated comment', 'javascript', "/* const a = require('./a');\n"],
  ['unbalanced brackets', 'javascript', "function f() { require('./a');\n"],
  ['an import statement inside a block', 'javascript', "if (x) { import a from './a'; }\n"],
  ['an escaped specifier', 'javascript', "const a = require('./a\\'b');\n"],
  ['an escape in a template specifier', 'javascript', 'const a = require(`./a\\u0062`);\n'],
  ['import attributes', 'javascript', "import x from './x.json' with { type: 'json' };\n"],
  ['a Flow annotation', 'javascript', "function f(x: number) { return require('./a'); }\n"],
  ['a cast in JavaScript', 'javascript', 'const a = b as C;\n'],
  ['export type *', 'typescript', "export type * from './t';\n"],
  ['an import in a type alias', 'typescript', "type M = typeof import('./m');\n"],
  ['an import type in an annotation', 'typescript', "let x: import('./m').T;\n"],
  ['JSX with a bare ampersand', 'javascript', 'const a = <p>a & b</p>;\n'],
  ['import.defer', 'javascript', "const a = await import.defer('./a');\n"],
  ['export * as a reserved word', 'javascript', "export * as default from './d';\n"],
  ['a cast after a function in JavaScript', 'javascript', 'export default (function log() {} as typeof console.log);\n'],
];

const python: [string, string][] = [
  [
    'import forms',
    'import os\nimport os.path as osp, sys\nfrom . import sibling\nfrom ..pkg.mod import (\n    a,\n    b as c,\n)\nfrom m import *\nfrom __future__ import annotations\nimport a.b.c\n',
  ],
  [
    'guards, functions and classes',
    'from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from m import T\n    def f():\n        import inner\nelse:\n    import notguarded\nif typing.TYPE_CHECKING: import inline\nif not TYPE_CHECKING:\n    import negated\ndef g(x: int = 1) -> dict[str, int]:\n    import lazy1\n    class K:\n        import lazy2\nclass C:\n    import eager\n    async def m(self):\n        from x import y\nimport a; import b\n',
  ],
  [
    'strings, comments and continuations',
    "'''\nimport not_this\n'''\ns = \"from no import thing\"  # import nor_this\nf = f\"{d['import x']} {{literal}}\"\nx = [\n    1,\n]\nimport \\\n    continued\nimport after\n",
  ],
];

const pythonBailed: [string, string][] = [
  ['a Python 2 print statement', 'import os\nprint "hello"\n'],
  ['Python 2 except', 'try:\n    import a\nexcept ImportError, e:\n    pass\n'],
  ['an unterminated string', "import os\nx = 'abc\n"],
  ['tabs and spaces mixed in indentation', 'if x:\n\timport a\n    import b\n'],
  ['an f-string nesting its own quotes', 'x = f"{d["k"]}"\nimport a\n'],
];

describe('the import scanner', () => {
  test.each(answered)('%s: the same facts as tree-sitter', (_name, language, source) => {
    const scanned = scanImportFacts(source, language);
    expect(scanned).toBeDefined();
    expect(scanned).toEqual(parsed(source, language));
  });

  // The cases above only compare the two readings; these say what both must find.
  test.each([
    [
      'javascript',
      "import(/* webpackChunkName: 'a' */ './a');\nrequire(// why\n  './b');\nrequire(/* c */ `./c`);\n",
      ['./a', './b', './c'],
    ],
    ['typescript', "import(/* a */ `./a`);\nimport b = require(/* b */ './b');\nrequire(`./${c}`);\nrequire(``);\n", ['./a', './b']],
  ] as const)('%s: a comment or a plain template before the specifier still imports', (language, source, specifiers) => {
    const scanned = scanImportFacts(source, language);
    expect(scanned?.imports.map((i) => i.specifier)).toEqual(specifiers);
    expect(parsed(source, language).imports.map((i) => i.specifier)).toEqual(specifiers);
  });

  test.each(bailed)('%s: no answer', (_name, language, source) => {
    expect(scanImportFacts(source, language)).toBeUndefined();
  });

  test('imports-only extraction uses the scanner and marks its facts', () => {
    const source = "const a = require('./a');\n";
    const facts = extractFacts(source, 'javascript', { importsOnly: true });
    expect(isImportsOnly(facts)).toBe(true);
    expect(facts).toEqual(parsed(source, 'javascript'));
    // where the scanner does not answer, tree-sitter does
    const nested = "namespace N { export const x = require('./x'); }\n";
    expect(extractFacts(nested, 'typescript', { importsOnly: true }).imports).toEqual([
      { specifier: './x', kind: 'require', names: [], namespaceBinding: 'x', line: 1 },
    ]);
  });

  test.each(python)('Python, %s: the same facts as tree-sitter', (_name, source) => {
    const scanned = scanImportFacts(source, 'python');
    expect(scanned).toBeDefined();
    expect(scanned).toEqual(parsed(source, 'python'));
  });

  test.each(pythonBailed)('Python, %s: no answer', (_name, source) => {
    expect(scanImportFacts(source, 'python')).toBeUndefined();
  });
});
