/**
 * The WebAssembly parser against the native one on every JavaScript, TypeScript and Python file
 * under a directory: `node dist/check-parser.js DIR [--show N]`. Each file's facts (every fact,
 * and imports-only by tree-sitter) must deep-equal between the two backends
 * (`parserBackendOf('native' | 'wasm')`). Prints the first mismatches and a JSON summary; exits 1
 * on a mismatch. `node_modules` and `.git` are skipped.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { DEFAULT_MAX_FILE_BYTES, extractFacts, languageOf, parserBackendOf, sourceText, type FileFacts } from '@airspace/analysis';

const [dir, ...rest] = process.argv.slice(2);
if (!dir) {
  console.error('usage: check-parser DIR [--show N]');
  process.exit(2);
}
const showAt = rest.indexOf('--show');
const show = showAt >= 0 ? Number(rest[showAt + 1]) : 5;

function* walk(d: string): Generator<string> {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === '.git') continue;
    const p = join(d, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile()) yield p;
  }
}

const native = await parserBackendOf('native');
const wasm = await parserBackendOf('wasm');
const plain = (f: FileFacts) => JSON.parse(JSON.stringify(f)) as unknown;
let files = 0;
let bytes = 0;
let partial = 0;
let mismatches = 0;
for (const path of walk(dir)) {
  const language = languageOf(path);
  if (!language || statSync(path).size > DEFAULT_MAX_FILE_BYTES) continue;
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
