/**
 * Query tests as fixture files with inline assertions (stack-graphs style): a comment line
 * `// ^ <assertion>` (`# ^` in Python) asserts a fact on the nearest line above it that is not an
 * assertion. Imports and definitions must be exactly the asserted ones; calls, references and
 * exports must exist.
 *
 *   import <specifier> <kind> [default=x] [namespace=y] [names=a:b,c:c] [wildcard]
 *   defines <qualifiedName> <kind> [exported]
 *   calls <callee> in <caller>
 *   references <name> [receiver=x]
 *   export <name>
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { extractFacts } from '../src/extract/extract.js';
import { languageOf, type FileFacts } from '../src/facts.js';

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

  test('asserted calls, references and exports exist', () => {
    for (const m of marks) {
      const [what, name] = m.words;
      if (what === 'calls') {
        const caller = m.words[3];
        expect(facts.calls.filter((c) => c.line === m.line).map((c) => `${c.callee} in ${c.caller}`), `line ${m.line}`).toContain(`${name} in ${caller}`);
      } else if (what === 'references') {
        const receiver = opt(m.words, 'receiver');
        const refs = facts.references.filter((r) => r.line === m.line && r.name === name && (receiver === undefined || r.receiver === receiver));
        expect(refs.length, `reference ${name} on line ${m.line}`).toBeGreaterThan(0);
      } else if (what === 'export') {
        expect(facts.exports.filter((e) => e.line === m.line).map((e) => e.name), `line ${m.line}`).toContain(name);
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
