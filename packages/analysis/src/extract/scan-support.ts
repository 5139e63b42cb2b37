/**
 * What the import scanners for JavaScript/TypeScript and Python share (see `import-scanner.ts`):
 * the one way to give up, line numbers from offsets, and the imports-only facts they return.
 */
import type { ExportFact, FileFacts, ImportFact, Language } from '../facts.js';

/** Thrown (one instance, no stack) when a scanner is not sure. */
class Bail {}
export const BAIL = new Bail();
export const bail = (): never => {
  throw BAIL;
};

/** `scan()`'s result, or undefined when it bailed (the file then goes to tree-sitter). */
export function unlessBailed<T>(scan: () => T): T | undefined {
  try {
    return scan();
  } catch (e) {
    if (e === BAIL) return undefined;
    throw e;
  }
}

/** The 1-based line of a character offset of `src` (the line starts indexed once). */
export function lineIndex(src: string): (at: number) => number {
  const starts = [0];
  for (let j = src.indexOf('\n'); j >= 0; j = src.indexOf('\n', j + 1)) starts.push(j + 1);
  return (at) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** Imports-only facts as the tree-sitter extraction gives them for a file without errors. */
export function scannedFacts(language: Language, src: string, imports: ImportFact[], exports: ExportFact[]): FileFacts {
  let lineCount = 1;
  for (let i = src.indexOf('\n'); i >= 0; i = src.indexOf('\n', i + 1)) lineCount++;
  return {
    language,
    partial: false,
    errorCount: 0,
    errorLines: [],
    lineCount,
    imports,
    exports,
    definitions: [],
    references: [],
    calls: [],
  };
}
