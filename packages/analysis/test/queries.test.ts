/**
 * Query tests as fixture files with inline assertions (stack-graphs style): a comment line
 * `// ^ <assertion>` (`# ^` in Python) asserts a fact on the nearest line above it that is not an
 * assertion. Imports and definitions must be exactly the asserted ones; calls, references and
 * exports must exist.
 *
 *   import <specifier> <kind> [default=x] [namespace=y] [names=a:b,c:c] [wildcard] [type-only] [guarded] [lazy]
 *   edge <specifier> <edge kind>      (the import graph's kind of that import: value, type-only, …)
 *   defines <qualifiedName> <kind> [exported]
 *   calls <callee> in <caller>
 *   references <name> [receiver=x]
 *   export <name>
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { extractFacts, readsTransferBuffer } from '../src/extract/extract.js';
import { importEdgeKind, languageOf, type FileFacts } from '../src/facts.js';

const root = join(import.meta.dirname, 'fixtures');

interface Marker {
  readonly line: number;
  readonly words: string[];
}

function markers(source: string): Marker[] {
  const out: Marker[] = [];
  let target = 0;
  source.split('\n').forEach((text, i) => {
    const m = /^\s*(?:\/\/|#) \^ (.*)$/.exec(text);
    if (m) out.push({ line: target, words: m[1]!.trim().split(/\s+/) });
    else target = i + 1;
  });
  return out;
}

const opt = (words: string[], key: string) => words.find((w) => w.startsWith(`${key}=`))?.slice(key.length + 1);

function importKey(i: FileFacts['imports'][number]): string {
  const parts = [`${i.line}`, i.specifier, i.kind];
  if (i.defaultBinding) parts.push(`default=${i.defaultBinding}`);
  if (i.namespaceBinding) parts.push(`namespace=${i.namespaceBinding}`);
  if (i.names.length) parts.push(`names=${i.names.map((n) => `${n.name}:${n.alias}`).join(',')}`);
  if (i.wildcard) parts.push('wildcard');
  if (i.typeOnly) parts.push('type-only');
  if (i.guarded) parts.push('guarded');
  if (i.lazy) parts.push('lazy');
  return parts.join(' ');
}

const fixtures = readdirSync(root).flatMap((lang) => readdirSync(join(root, lang)).map((f) => join(lang, f)));

describe.each(fixtures)('%s', (file) => {
  const source = readFileSync(join(root, file), 'utf8');
  const language = file.startsWith('tsx/') ? 'tsx' : languageOf(file)!;
  const facts = extractFacts(source, language);
  const marks = markers(source);

  test('has assertions and parses', () => {
    expect(marks.length).toBeGreaterThan(3);
    expect(facts.language).toBe(language);
  });

  test('imports are exactly the asserted ones', () => {
    const expected = marks.filter((m) => m.words[0] === 'import').map((m) => `${m.line} ${m.words.slice(1).join(' ')}`);
    expect(facts.imports.map(importKey).sort()).toEqual(expected.sort());
  });

  test('definitions are exactly the asserted ones', () => {
    const expected = marks
      .filter((m) => m.words[0] === 'defines')
      .map((m) => `${m.line} ${m.words[1]} ${m.words[2]}${m.words.includes('exported') ? ' exported' : ''}`);
    const actual = facts.definitions.map((d) => `${d.line} ${d.qualifiedName} ${d.kind}${d.exported ? ' exported' : ''}`);
    expect(actual.sort()).toEqual(expected.sort());
  });

  test('asserted edge kinds', () => {
    for (const m of marks.filter((x) => x.words[0] === 'edge')) {
      const imports = facts.imports.filter((i) => i.line === m.line && i.specifier === m.words[1]);
      expect(imports.map(importEdgeKind), `line ${m.line}`).toEqual([m.words[2]]);
    }
  });

  test('asserted calls, references and exports exist', () => {
    for (const m of marks) {
      const [what, name] = m.words;
      if (what === 'calls') {
        const caller = m.words[3];
        expect(
          facts.calls.filter((c) => c.line === m.line).map((c) => `${c.callee} in ${c.caller}`),
          `line ${m.line}`,
        ).toContain(`${name} in ${caller}`);
      } else if (what === 'references') {
        const receiver = opt(m.words, 'receiver');
        const refs = facts.references.filter(
          (r) => r.line === m.line && r.name === name && (receiver === undefined || r.receiver === receiver),
        );
        expect(refs.length, `reference ${name} on line ${m.line}`).toBeGreaterThan(0);
      } else if (what === 'export') {
        expect(
          facts.exports.filter((e) => e.line === m.line).map((e) => e.name),
          `line ${m.line}`,
        ).toContain(name);
      }
    }
  });
});

test('grammar gaps give partial facts, not nothing', () => {
  const ts = extractFacts("import { a } from './a';\nexport type * from './types';\nexport const x = a;\n", 'typescript');
  expect(ts.partial).toBe(true);
  expect(ts.errorLines).toEqual([2]);
  expect(ts.imports.map((i) => i.specifier)).toEqual(['./a', './types']);
  expect(ts.definitions.map((d) => d.name)).toEqual(['x']);
  const jsx = extractFacts("import { B } from './b';\nexport const V = () => <p>salt & pepper <B /></p>;\n", 'tsx');
  expect(jsx.partial).toBe(true);
  expect(jsx.imports.map((i) => i.specifier)).toEqual(['./b']);
});

test('import binding sites are not references; uses are', () => {
  const f = extractFacts("import { used } from './m';\nused();\n", 'typescript');
  expect(f.references.map((r) => `${r.name}@${r.line}`)).toEqual(['used@2']);
});

describe('matches read from the transfer buffer', () => {
  test.each(['typescript', 'tsx', 'javascript', 'python'] as const)(
    '%s: the binding passes the self-check, so the buffer is read',
    (language) => {
      expect(readsTransferBuffer(language)).toBe(true);
    },
  );

  test.each(fixtures)('%s: the same facts as through the public API', (file) => {
    const source = readFileSync(join(root, file), 'utf8');
    const language = languageOf(file)!;
    expect(extractFacts(source, language)).toEqual(extractFacts(source, language, { publicMatches: true }));
  });

  test('non-ASCII names, escapes, optional chains and comments before a member', () => {
    const source = [
      "import { naïve } from './m';",
      'const caf\\u00e9 = naïve.ça?.b;',
      'const r = naïve /* why */ .ça + (a / b).c + x!.y + obj\n  .deep\n  ?.deeper;',
      'export const ü = (p: Ünicode) => p.ö;',
      '',
    ].join('\n');
    const buffer = extractFacts(source, 'typescript');
    expect(buffer).toEqual(extractFacts(source, 'typescript', { publicMatches: true }));
    const names = buffer.references.map((r) => `${r.receiver ? `${r.receiver}.` : ''}${r.name}@${r.line}:${r.column}-${r.endColumn}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'naïve@2:18-23',
        'naïve.ça@2:24-26',
        'naïve.ça.b@2:28-29',
        'naïve.ça@3:27-29',
        '(a/b).c@3:40-41',
        'obj.deep@4:3-7',
        'obj.deep.deeper@5:4-10',
        'Ünicode@6:21-28',
        'p.ö@6:35-36',
      ]),
    );
    const python = 'from m import ça\nclass Ü:\n    def f(self):\n        return ça.ö(self.x)  # ça.y\n';
    expect(extractFacts(python, 'python')).toEqual(extractFacts(python, 'python', { publicMatches: true }));
  });
});

test('type modifiers on statements and specifiers, and default exports that are not named exports', () => {
  const f = extractFacts(
    [
      "import def, { a, type T } from './m';",
      "import type { U } from './u';",
      "export type { V } from './v';",
      "export { type W, x } from './w';",
      'export default function f() {}',
      'export function g() {}',
      'export type Alias = string;',
      '',
    ].join('\n'),
    'typescript',
  );
  expect(f.imports.map((i) => `${i.specifier} ${i.kind} ${i.names.map((n) => `${n.name}${n.typeOnly ? ':type' : ''}`).join(',')}`)).toEqual(
    ['./m static a,T:type', './u type U:type', './v reexport V:type', './w reexport W:type,x'],
  );
  expect(f.exports.filter((e) => e.kind !== 'reexport').map((e) => `${e.name}${e.local ? `=${e.local}` : ''}`)).toEqual([
    'default=f',
    'g=g',
    'Alias=Alias',
  ]);
  const js = extractFacts("export default class K {}\nexport class L {}\nimport { type } from './t';\n", 'javascript');
  expect(js.exports.map((e) => e.name)).toEqual(['default', 'L']);
  expect(js.imports[0]!.names).toEqual([{ name: 'type', alias: 'type' }]);
});

describe('facts for the import graph only', () => {
  const headOf = (f: FileFacts) => ({
    imports: f.imports,
    exports: f.exports,
    partial: f.partial,
    errorCount: f.errorCount,
    errorLines: f.errorLines,
    lineCount: f.lineCount,
  });

  test.each(fixtures)('%s: the same imports and exports as the whole extraction', (file) => {
    const source = readFileSync(join(root, file), 'utf8');
    const language = file.startsWith('tsx/') ? 'tsx' : languageOf(file)!;
    const whole = extractFacts(source, language);
    const part = extractFacts(source, language, { importsOnly: true });
    expect(headOf(part)).toEqual(headOf(whole));
    expect(headOf(extractFacts(source, language, { importsOnly: true, publicMatches: true }))).toEqual(headOf(whole));
    expect(part.definitions).toEqual([]);
    expect(part.calls).toEqual([]);
  });

  // The split walk (statements near the top, calls at their word) against sources that reach
  // past it: calls deep in functions, `import.meta`, `import(` after a comment, namespaces and
  // ambient modules holding statements, a file with parse errors.
  test.each([
    [
      'typescript',
      "import a from './a';\nfunction f() {\n  if (x) { return [1].map(() => require('./deep')); }\n}\nconst m = import.meta.url;\nconst d = import /* why */ ('./later');\nexport { a };\n",
    ],
    [
      'typescript',
      "namespace N {\n  export namespace M {\n    export const x = 1;\n  }\n  import y = require('./y');\n}\ndeclare module 'mod' {\n  export function g(): void;\n  import z from './z';\n}\ndeclare global {\n  interface W { a: string }\n}\n",
    ],
    [
      'javascript',
      "const a = require(\n  './a');\nmodule.exports = { b: () => require('./b') };\nimport('./c').then(() => {});\nlet require2 = 1;\n",
    ],
    [
      'tsx',
      "import type { T } from './t';\nimport { type U, V } from './u';\nexport type { W } from './w';\nexport default function C(): JSX.Element { return <div>{import('./lazy')}</div>; }\n",
    ],
    [
      'javascript',
      "import x from './x' assert { type: 'json' };\nit('a test', async () => { await import('./y', { assert: { type: 'json' } }); });\n",
    ],
  ] as const)('%s: the same imports as one whole walk', (language, source) => {
    const whole = extractFacts(source, language);
    expect(headOf(extractFacts(source, language, { importsOnly: true }))).toEqual(headOf(whole));
    expect(headOf(extractFacts(source, language, { importsOnly: true, publicMatches: true }))).toEqual(headOf(whole));
  });
});
