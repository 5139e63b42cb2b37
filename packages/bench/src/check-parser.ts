/**
 * The WebAssembly parser against the native one on every JavaScript, TypeScript and Python file
 * under a directory: `node dist/check-parser.js DIR [--show N]`. Each file's facts (every fact,
 * and imports-only by tree-sitter) must deep-equal between the two backends
 * (`parserBackendOf('native' | 'wasm')`). Prints the first mismatches and a JSON summary; exits 1
 * on a mismatch. `node_modules` and `.git` are skipped.
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { extractFacts, parserBackendOf, sourceText, type FileFacts } from '@airspace/analysis';
import { differentialArgs, sourceFilesUnder } from './differential.js';

const { dir, show } = differentialArgs('check-parser');

const native = await parserBackendOf('native');
const wasm = await parserBackendOf('wasm');
const plain = (f: FileFacts) => JSON.parse(JSON.stringify(f)) as unknown;
let files = 0;
let bytes = 0;
let partial = 0;
let mismatches = 0;
for (const { path, language } of sourceFilesUnder(dir)) {
  const buf = readFileSync(path);
  if (buf.subarray(0, 8000).includes(0)) continue;
  const source = sourceText(buf);
  files++;
  bytes += buf.length;
  for (const options of [{}, { importsOnly: true, parse: true }]) {
    const a = extractFacts(source, language, { ...options, backend: native });
    const b = extractFacts(source, language, { ...options, backend: wasm });
    if (Object.keys(options).length === 0 && a.partial) partial++;
    if (!isDeepStrictEqual(plain(a), plain(b))) {
      if (mismatches++ < show) console.log(JSON.stringify({ path, options, native: plain(a), wasm: plain(b) }).slice(0, 4000));
    }
  }
  // Back to the loop now and then: native trees are freed by finalizers that run there.
  if (files % 64 === 0) await new Promise((r) => setImmediate(r));
}
console.log(JSON.stringify({ dir, files, bytes, partial, mismatches }));
process.exit(mismatches > 0 ? 1 : 0);
