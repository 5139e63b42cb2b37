/**
 * The WebAssembly parser against the native one: the same queries must give the same facts on
 * every kind of file (TS, TSX, JS with JSX and CommonJS, Python, files with parse errors,
 * non-ASCII names), whole and imports-only; the parse workers load it when told to
 * (`AIRSPACE_PARSER=wasm`), and without any parser every file fails with why.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { extractFacts } from '../src/extract/extract.js';
import { parserBackendOf, parserChoice, PARSER_ENV, wasmGrammarPath, type ParserBackend } from '../src/extract/parser-backend.js';
import { parseAll, type ParseJob } from '../src/extract/pool.js';
import { languageOf, type Language } from '../src/facts.js';

const root = join(import.meta.dirname, 'fixtures');
const files = readdirSync(root).flatMap((lang) => readdirSync(join(root, lang)).map((f) => join(lang, f)));

/** [name, language, source]: the fixture files, and sources for what they do not hold. */
const table: (readonly [string, Language, string])[] = [
  ...files.map((f) => [f, f.startsWith('tsx/') ? 'tsx' : languageOf(f)!, readFileSync(join(root, f), 'utf8')] as const),
  [
    'component.jsx',
    'javascript',
    "import React, { useState } from 'react';\nimport Item from './item.jsx';\nexport default function List({ items }) {\n  const [open, setOpen] = useState(false);\n  return <ul onClick={() => setOpen(!open)}>{items.map((i) => <Item key={i.id} {...i} />)}</ul>;\n}\n",
  ],
  [
    'module.cjs',
    'javascript',
    "'use strict';\nconst fs = require('fs');\nconst { join } = require('./paths');\nfunction load(p) { return JSON.parse(fs.readFileSync(join(p), 'utf8')); }\nmodule.exports = { load, lazy: () => require('./lazy') };\nexports.other = load;\n",
  ],
  [
    'errors.ts',
    'typescript',
    "import { a } from './a';\nexport type * from './types';\nexport const x = a;\nfunction broken( { return a.b(; }\nclass K { m() { return this.x?.y(a); } }\n",
  ],
  ['jsx-text.tsx', 'tsx', "import { B } from './b';\nexport const V = () => <p>salt & pepper <B.Item x={é.y} /></p>;\n"],
  [
    'non-ascii.ts',
    'typescript',
    "import { naïve } from './m';\nconst caf\\u00e9 = naïve.ça?.b;\nconst r = naïve /* why */ .ça + (a / b).c + x!.y + obj\n  .deep\n  ?.deeper;\nexport const ü = (p: Ünicode) => p.ö;\n",
  ],
  [
    'namespaces.ts',
    'typescript',
    "namespace N {\n  export namespace M {\n    export const x = 1;\n  }\n  import y = require('./y');\n}\ndeclare module 'mod' {\n  export function g(): void;\n  import z from './z';\n}\nconst d = import /* why */ ('./later');\n",
  ],
  [
    'package.py',
    'python',
    'from __future__ import annotations\nfrom . import sibling\nfrom ..pkg.mod import (a as b, c)\nimport os.path, sys\ntry:\n    import ujson as json\nexcept ImportError:\n    import json\n\n@decorator(1)\nclass Ü(Base):\n    def f(self, x):\n        return os.path.join(b(x), self.g(ça.ö))\n\ndef broken(:\n    pass\n',
  ],
];

let native: ParserBackend;
let wasm: ParserBackend;
beforeAll(async () => {
  native = await parserBackendOf('native');
  wasm = await parserBackendOf('wasm');
});

describe.each(table)('%s', (_name, language, source) => {
  test('wasm gives the native facts', () => {
    const expected = extractFacts(source, language, { backend: native });
    expect(expected.imports.length + expected.definitions.length + expected.references.length).toBeGreaterThan(0);
    expect(extractFacts(source, language, { backend: wasm })).toEqual(expected);
  });

  test('imports only, parsed: wasm gives the native facts', () => {
    const options = { importsOnly: true, parse: true } as const;
    expect(extractFacts(source, language, { ...options, backend: wasm })).toEqual(
      extractFacts(source, language, { ...options, backend: native }),
    );
  });
});

test('the backends are what they say', () => {
  expect([native.kind, wasm.kind]).toEqual(['native', 'wasm']);
});

test("the grammars' .wasm files come from the package's own copy (made by its build), not the optional grammar packages", () => {
  for (const [language, file] of [
    ['typescript', 'tree-sitter-typescript.wasm'],
    ['tsx', 'tree-sitter-tsx.wasm'],
    ['javascript', 'tree-sitter-javascript.wasm'],
    ['python', 'tree-sitter-python.wasm'],
  ] as const)
    expect(wasmGrammarPath(language)).toBe(join(import.meta.dirname, '..', 'grammars', file));
});

test('AIRSPACE_PARSER is read, an unknown value as auto', () => {
  expect(parserChoice({ [PARSER_ENV]: 'WASM' })).toBe('wasm');
  expect(parserChoice({ [PARSER_ENV]: 'none' })).toBe('none');
  expect(parserChoice({ [PARSER_ENV]: 'fast' })).toBe('auto');
  expect(parserChoice({})).toBe('auto');
});

describe('in the parse workers', () => {
  const before = process.env[PARSER_ENV];
  afterEach(() => {
    if (before === undefined) delete process.env[PARSER_ENV];
    else process.env[PARSER_ENV] = before;
  });
  // Enough source for two chunks, so that the jobs go to worker threads (which read the variable when they start).
  const jobs: ParseJob[] = Array.from({ length: 8 }, (_, i) => table[i % table.length]!).map(([, language, source]) => ({
    language,
    content: Buffer.from(source.repeat(40)),
  }));

  test('AIRSPACE_PARSER=wasm: the workers parse with wasm, the same facts', async () => {
    const expected = jobs.map((j) => extractFacts(j.content!.toString('utf8'), j.language, { backend: native }));
    process.env[PARSER_ENV] = 'wasm';
    const out = await parseAll(jobs, { workers: 2, chunkBytes: 16 * 1024 });
    expect(out.map((o) => ('facts' in o ? o.facts : o))).toEqual(expected);
  });

  test('AIRSPACE_PARSER=none: every file fails with why, none is read as empty', async () => {
    process.env[PARSER_ENV] = 'none';
    const out = await parseAll(jobs, { workers: 2, chunkBytes: 16 * 1024 });
    expect(out.map((o) => ('error' in o ? o.error : 'facts'))).toEqual(
      jobs.map(() => 'No tree-sitter parser is available: AIRSPACE_PARSER=none.'),
    );
  });
});
