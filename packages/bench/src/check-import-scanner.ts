/**
 * The import scanner against tree-sitter on every JavaScript, TypeScript and Python file under a
 * directory: `node dist/check-import-scanner.js DIR [--show N]`. For each file the scanner
 * answers, its facts must deep-equal tree-sitter's imports-only facts (`extractFacts(…,
 * { importsOnly: true, parse: true })`). Prints the mismatches (imports or exports differ), the
 * files where only the parse-error marks differ (tree-sitter saw an error the scanner did not),
 * and a JSON summary; exits 1 on a mismatch. `node_modules` and `.git` are skipped.
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { extractFacts, scanImportFacts, sourceText, type FileFacts } from '@airspace/analysis';
import { differentialArgs, sourceFilesUnder } from './differential.js';

const { dir, show } = differentialArgs('check-import-scanner');

const plain = (f: FileFacts) => JSON.parse(JSON.stringify({ imports: f.imports, exports: f.exports, lineCount: f.lineCount })) as unknown;
let files = 0;
let answered = 0;
let mismatches = 0;
let marksOnly = 0;
let scanMs = 0;
for (const { path, language } of sourceFilesUnder(dir)) {
  const source = sourceText(readFileSync(path));
  files++;
  const t0 = performance.now();
  const scanned = scanImportFacts(source, language);
  scanMs += performance.now() - t0;
  if (!scanned) continue;
  answered++;
  const parsed = extractFacts(source, language, { importsOnly: true, parse: true });
  if (!isDeepStrictEqual(plain(scanned), plain(parsed))) {
    if (mismatches++ < show) console.log(JSON.stringify({ path, scanned: plain(scanned), parsed: plain(parsed) }));
  } else if (scanned.partial !== parsed.partial || !isDeepStrictEqual(scanned.errorLines, parsed.errorLines)) {
    if (marksOnly++ < show) console.log(JSON.stringify({ path, parseErrorsOnly: parsed.errorLines }));
  }
}
console.log(
  JSON.stringify({
    dir,
    files,
    answered,
    share: +(answered / Math.max(1, files)).toFixed(3),
    mismatches,
    parseErrorsOnly: marksOnly,
    scanMs: Math.round(scanMs),
  }),
);
process.exit(mismatches > 0 ? 1 : 0);
