/**
 * What the differential checks (`check-import-scanner`, `check-parser`) share: their command line
 * (`DIR [--show N]`) and the files they compare, every source file a language reads under DIR
 * within the size limit, `node_modules` and `.git` skipped.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_FILE_BYTES, languageOf, type Language } from '@airspace/analysis';

/** `DIR [--show N]` of a differential check named `name`; exits 2 with its usage without DIR. */
export function differentialArgs(name: string): { dir: string; show: number } {
  const [dir, ...rest] = process.argv.slice(2);
  if (!dir) {
    console.error(`usage: ${name} DIR [--show N]`);
    process.exit(2);
  }
  const showAt = rest.indexOf('--show');
  return { dir, show: showAt >= 0 ? Number(rest[showAt + 1]) : 5 };
}

/** Every file under `dir` that a language reads and the analysis would parse (not over the size limit), with its language. */
export function* sourceFilesUnder(dir: string): Generator<{ path: string; language: Language }> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === '.git') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sourceFilesUnder(p);
    if (!e.isFile()) continue;
    const language = languageOf(p);
    if (language && statSync(p).size <= DEFAULT_MAX_FILE_BYTES) yield { path: p, language };
  }
}
