/**
 * Imports and exports of a JavaScript or TypeScript file without tree-sitter: a hand-written
 * single pass over the source (strings, template literals, comments, regular expressions, JSX
 * text, bracket nesting, function extents) and a reader of the few statement forms that make
 * import facts.
 *
 * Why: tree-sitter parses at 3–8 MB/s a thread here, and the import graph (`airspace graph`)
 * needs from each file only its import and export statements and its `require(…)`/`import(…)`
 * calls; scanning for those runs many times faster than the parse (see docs/benchmarks.md).
 *
 * The scanner answers only when sure: its facts must equal the imports-only extraction's
 * (`extractFacts(…, { importsOnly: true })`) for the same file. Whenever it meets something it
 * does not model (an unterminated token, unbalanced brackets, a TypeScript namespace, an import
 * statement inside a block, a `require` whose bindings it cannot tell, …) it returns undefined
 * and the file goes to tree-sitter. It cannot see every syntax error: a file tree-sitter would
 * mark `partial` may get whole-looking facts here (same imports, `partial: false`); the checks
 * over real repositories (`packages/bench/src/check-import-scanner.ts`) count how often.
 */
import type { ExportFact, FileFacts, Language } from '../facts.js';
import { tokenize } from './ecma-tokens.js';
import { Reader } from './ecma-import-reader.js';
import { scanPythonImportFacts } from './python-import-scanner.js';
import { scannedFacts, unlessBailed } from './scan-support.js';
/**
 * The imports-only facts of a JavaScript or TypeScript source (see `ExtractOptions.importsOnly`),
 * or undefined when the scanner is not sure of them (the caller then parses the file).
 */
export function scanImportFacts(source: string, language: Language): FileFacts | undefined {
  // NUL characters (binary-like fixtures) make tree-sitter's parse fail.
  if (source.includes('\0')) return undefined;
  if (language === 'python') return scanPythonImportFacts(source);
  const typescript = language !== 'javascript';
  return unlessBailed(() => {
    const tokens = tokenize(source, language !== 'typescript', typescript);
    const reader = new Reader(source, tokens, typescript);
    reader.read();
    const imports = reader.imports;
    const exports: ExportFact[] = [...reader.localExports];
    for (const i of imports) {
      if (i.kind !== 'reexport') continue;
      if (i.wildcard) exports.push({ name: '*', kind: 'reexport', line: i.line });
      for (const n of i.names) exports.push({ name: n.alias, kind: 'reexport', line: i.line });
    }
    return scannedFacts(language, source, imports, exports);
  });
}
