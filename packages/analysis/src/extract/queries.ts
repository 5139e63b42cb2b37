/**
 * The `.scm` query files shipped in `queries/<language>/`. A file whose first line is
 * `; inherits: other` is appended to the other language's file (as nvim-treesitter does).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Language } from '../facts.js';

export const QUERY_KINDS = ['imports', 'definitions', 'references', 'calls'] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];
export const LANGUAGES: readonly Language[] = ['typescript', 'tsx', 'javascript', 'python'];

/** Both `src/extract` and `dist/extract` sit two levels below the package root. */
const QUERIES_DIR = fileURLToPath(new URL('../../queries/', import.meta.url));

const cache = new Map<string, string>();

export function queryText(language: string, kind: QueryKind): string {
  const key = `${language}/${kind}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const own = readFileSync(`${QUERIES_DIR}${language}/${kind}.scm`, 'utf8');
  const inherits = /^; inherits: ([a-z,]+)/.exec(own);
  const text = inherits
    ? `${inherits[1]!
        .split(',')
        .map((l) => queryText(l, kind))
        .join('\n')}\n${own}`
    : own;
  cache.set(key, text);
  return text;
}

/**
 * Version of the facts: changes whenever a query, the extractor or a grammar changes, so that
 * cached facts of an older version are never read as current.
 */
export const EXTRACTOR_VERSION = 8;
export const GRAMMAR_VERSIONS = 'tree-sitter@0.25.1 typescript@0.23.2 javascript@0.25.0 python@0.25.0';

let version: string | undefined;
export function factsVersion(): string {
  if (version) return version;
  const h = createHash('sha1').update(`extractor ${EXTRACTOR_VERSION}\n${GRAMMAR_VERSIONS}\n`);
  for (const l of LANGUAGES) for (const k of QUERY_KINDS) h.update(`${l}/${k}\n`).update(queryText(l, k));
  version = h.digest('hex').slice(0, 12);
  return version;
}
