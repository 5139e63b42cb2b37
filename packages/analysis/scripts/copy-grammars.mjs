/**
 * Copies the grammars' `.wasm` files into `grammars/` (shipped with the package, not committed),
 * so that the WebAssembly parser loads even where the native grammar packages, optional
 * dependencies, failed to install. A grammar package that is missing here is skipped: the parser
 * then looks for its file in the package itself (`src/extract/parser-backend.ts`).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const out = fileURLToPath(new URL('../grammars/', import.meta.url));
const files = [
  ['tree-sitter-typescript', 'tree-sitter-typescript.wasm'],
  ['tree-sitter-typescript', 'tree-sitter-tsx.wasm'],
  ['tree-sitter-javascript', 'tree-sitter-javascript.wasm'],
  ['tree-sitter-python', 'tree-sitter-python.wasm'],
];
mkdirSync(out, { recursive: true });
for (const [pkg, file] of files) {
  let dir;
  try {
    dir = dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    continue;
  }
  copyFileSync(`${dir}/${file}`, `${out}${file}`);
}
