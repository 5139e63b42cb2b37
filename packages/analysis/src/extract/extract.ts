/**
 * Parse one file with tree-sitter (native or WebAssembly: `parser-backend.ts`) and turn query matches into `FileFacts`: the four query
 * files compiled as one query per language, its matches split by query file and handed to the
 * readers (`js-imports.ts` or `python-imports.ts`, `definitions.ts`, `references.ts`, `calls.ts`).
 *
 * Only the facts are kept; a native tree is freed by a finalizer once the caller returns to the
 * event loop (see `worker.ts`), a WebAssembly tree at once (its memory is the module's, not V8's). A tree with ERROR nodes still yields facts for what did parse;
 * the file is then marked `partial`, never dropped.
 */
import type ParserType from 'tree-sitter';
import type { FileFacts, Language } from '../facts.js';
import { markImportsOnly } from '../cache/pack.js';
import { collectCalls } from './calls.js';
import { collectDefinitions } from './definitions.js';
import { scanImportFacts } from './import-scanner.js';
import { jsExports, jsImports } from './js-imports.js';
import { bufferMatches, publicMatches, rawMatchesWork, type Match, type MatchLimits } from './matches.js';
import { currentBackend, type LanguageParser, type ParserBackend } from './parser-backend.js';
import { pythonImports } from './python-imports.js';
import { QUERY_KINDS, queryText, type QueryKind } from './queries.js';
import { collectReferences } from './references.js';
import { line, rolesOf, siteKey, type SyntaxNode } from './roles.js';
import type { ScopeMemo } from './scopes.js';

type Query = ParserType.Query;

interface LanguageRuntime {
  readonly parser: LanguageParser;
  /**
   * The four query files compiled as one query: a query cursor walks the whole tree whatever it
   * matches, so one walk instead of four cuts query time by more than half. Matches are split
   * by their role capture's prefix (see `splitMatches`).
   */
  readonly query: Query;
  /** Whether matches are read from the transfer buffer (see `matches.ts`; the native binding's only). */
  readonly raw: boolean;
}

const runtimes = new WeakMap<ParserBackend, Map<string, LanguageRuntime>>();

/** `importsOnly`: the imports query alone (see `FactsScope`): the tree walk matches far less. */
function runtime(language: Language, importsOnly = false, backend: ParserBackend = currentBackend()): LanguageRuntime {
  const key = importsOnly ? `${language}/imports` : language;
  let own = runtimes.get(backend);
  if (!own) runtimes.set(backend, (own = new Map()));
  let rt = own.get(key);
  if (rt) return rt;
  const parser = backend.language(language);
  const kinds: readonly QueryKind[] = importsOnly ? ['imports'] : QUERY_KINDS;
  const query = parser.query(kinds.map((kind) => queryText(language, kind)).join('\n'));
  let raw = false;
  if (backend.kind === 'native') raw = rawMatchesWork(query, parser.parse(SELF_CHECK[language]));
  rt = { parser, query, raw };
  own.set(key, rt);
  return rt;
}

/** Sources on which the buffer-read matches are checked against the public API's. */
const SELF_CHECK: Readonly<Record<Language, string>> = {
  typescript: "import x, { y as z } from './m';\nexport const ü = require('r');\nclass C { m(): T { return this.é?.f(new D(), ns.g); } }\n",
  tsx: "import { B } from './b';\nexport function A(): JSX.Element { return <B.Item x={é.y}><div /></B.Item>; }\n",
  javascript: "const { a } = require('m');\nmodule.exports = function ü() { return a.b(new C(), é); };\n",
  python: 'from .m import a as b\nimport os.path\nclass C:\n    def m(self):\n        return os.path.join(b(é), self.f)\n',
};

const utf8 = new TextDecoder('utf-8');

/**
 * A file's bytes as the source its facts are positioned in: UTF-8, a byte order mark dropped
 * (as editors do, so columns match theirs), malformed bytes replaced.
 */
export function sourceText(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

/** Whether matches for `language` are read from the binding's transfer buffer (see `matches.ts`). */
export function readsTransferBuffer(language: Language): boolean {
  return runtime(language).raw;
}

/** Parses `source` as `extractFacts` does and drops the tree: what tree-sitter alone costs (the benchmarks' baseline). */
export function parseTree(source: string, language: Language): void {
  const { parser } = runtime(language);
  parser.release(parser.parse(source));
}

export interface ExtractOptions {
  /** Read matches through the public API (tests compare it with the transfer buffer's). */
  readonly publicMatches?: boolean;
  /**
   * Extract only what the import graph needs (imports and exports): definitions, references and
   * calls are left empty and the facts are marked so (`isImportsOnly`), so nothing reads them as
   * a file without any.
   */
  readonly importsOnly?: boolean;
  /**
   * With `importsOnly`: parse with tree-sitter even where the import scanner (`import-scanner.ts`)
   * could answer (tests and the differential check compare the two).
   */
  readonly parse?: boolean;
  /** The parser to use (default: this thread's, `currentBackend`); tests compare native with wasm. */
  readonly backend?: ParserBackend;
}

/** Parse `source` as `language` and extract its facts. Never throws on bad input. */
export function extractFacts(source: string, language: Language, options: ExtractOptions = {}): FileFacts {
  if (options.importsOnly && !options.parse && !options.publicMatches) {
    // Most files need no parse at all for their imports (see `import-scanner.ts`).
    const scanned = scanImportFacts(source, language);
    if (scanned) {
      markImportsOnly(scanned);
      return scanned;
    }
  }
  const rt = runtime(language, options.importsOnly, options.backend);
  const tree = rt.parser.parse(source);
  try {
    return factsOf(rt, tree, source, language, options);
  } finally {
    rt.parser.release(tree);
  }
}

function factsOf(rt: LanguageRuntime, tree: ParserType.Tree, source: string, language: Language, options: ExtractOptions): FileFacts {
  const root = tree.rootNode;
  // A tree with errors may hold zero-width (missing) identifiers, whose names cannot be read
  // from the source by their start: those files take the public API.
  const raw = rt.raw && !options.publicMatches && !root.hasError;
  const find = (limits?: MatchLimits) => (raw ? bufferMatches(rt.query, tree, root, limits) : publicMatches(rt.query, root, limits));
  // A tree with errors is walked whole: error recovery can make calls of anything.
  const matches = options.importsOnly && language !== 'python' && !root.hasError ? importMatches(find, source, language) : find();
  const facts = factsOfTree(root, language, matches, source, raw);
  if (options.importsOnly) markImportsOnly(facts);
  return facts;
}

/**
 * The imports query's matches of a JavaScript or TypeScript file without walking the whole tree
 * (the walk costs about as much as half the parse): import and export statements sit at the top
 * level, where a walk `MAX_STATEMENT_DEPTH` deep finds them and their specifiers, and a call
 * (`require(…)`, `import(…)`) can sit anywhere but starts with its word, so each is looked for in
 * the range of one occurrence of that word. TypeScript namespaces and ambient modules hold
 * statements deeper: a file that may have them is walked whole, as is a file with parse errors.
 * Same facts as one whole walk (checked on every file of five public repositories, and by tests).
 */
function importMatches(find: (limits?: MatchLimits) => Match[], source: string, language: Language): Match[] {
  if (language !== 'javascript' && NESTED_STATEMENTS.test(source)) return find();
  const out = find({ maxStartDepth: MAX_STATEMENT_DEPTH }).filter((m) => !isCallImport(m));
  const seen = out.length;
  CALL_WORDS.lastIndex = 0;
  for (let at = CALL_WORDS.exec(source); at; at = CALL_WORDS.exec(source)) {
    for (const m of find({ startIndex: at.index, endIndex: at.index + at[0].length })) {
      if (isCallImport(m) && m.captures.some((c) => c.name.startsWith('import.') && c.startIndex === at.index)) out.push(m);
    }
  }
  // Document order, as one walk gives them (calls are met after the statements).
  if (out.length > seen) out.sort((a, b) => roleStart(a) - roleStart(b));
  return out;
}

/** Deep enough for `program > import_statement > import_clause > named_imports > import_specifier`. */
const MAX_STATEMENT_DEPTH = 4;
/** `namespace N {`, `module M {`, `declare module "m" {`, `declare global {`. */
const NESTED_STATEMENTS = /\b(namespace|module|global)\b\s*[\w$."'`]*\s*\{/;
/** Where a `require(…)` or `import(…)` call may start: `import` not followed by what starts a statement's clause. */
const CALL_WORDS = /\brequire\b|\bimport\b(?!\s*[\w${*'"])/g;

function isCallImport(m: Match): boolean {
  return m.captures.some((c) => (c.name === 'import.dynamic' || c.name === 'import.require') && c.node.type === 'call_expression');
}

function roleStart(m: Match): number {
  for (const c of m.captures) if (c.name.startsWith('import.') || c.name.startsWith('export.')) return c.startIndex;
  return m.captures[0]?.startIndex ?? 0;
}

/** Role-capture prefixes of each query file (`imports.scm` captures both imports and exports). */
const ROLE_KIND: Readonly<Record<string, QueryKind>> = {
  import: 'imports',
  export: 'imports',
  definition: 'definitions',
  reference: 'references',
  call: 'calls',
};

/** The matches of the combined query, by the query file their pattern comes from. */
function splitMatches(matches: readonly Match[]): Record<QueryKind, Match[]> {
  const out: Record<QueryKind, Match[]> = { imports: [], definitions: [], references: [], calls: [] };
  for (const m of matches) {
    for (const c of m.captures) {
      const dot = c.name.indexOf('.');
      const kind = dot > 0 ? ROLE_KIND[c.name.slice(0, dot)] : undefined;
      if (kind) {
        out[kind].push(m);
        break;
      }
    }
  }
  return out;
}

function factsOfTree(root: SyntaxNode, language: Language, all: readonly Match[], source: string, raw: boolean): FileFacts {
  const python = language === 'python';
  let errorCount = 0;
  const errorLines: number[] = [];
  if (root.hasError) {
    const errors = root.descendantsOfType('ERROR');
    errorCount = Math.max(1, errors.length);
    for (const e of errors.slice(0, 5)) errorLines.push(line(e));
  }

  const matches = splitMatches(all);
  const importMatches = matches.imports;
  const imports = python ? pythonImports(importMatches) : jsImports(importMatches);
  const exports = python ? [] : jsExports(importMatches, imports);
  const scopeMemo: ScopeMemo = new Map();
  const definitions = collectDefinitions(matches.definitions, python, exports, scopeMemo, raw ? source : undefined);
  const defSites = new Set(definitions.map((d) => siteKey(d.line - 1, d.column)));
  const importLines = new Set<number>();
  for (const m of importMatches) {
    const role = rolesOf(m, 'import.');
    if (
      !role ||
      role.kind === 'dynamic' ||
      role.kind === 'type-token' ||
      role.kind === 'guard' ||
      (role.kind === 'require' && role.at.node.type === 'call_expression')
    )
      continue;
    for (let l = role.at.row + 1; l <= role.at.node.endPosition.row + 1; l++) importLines.add(l);
  }
  const references = collectReferences(matches.references, python, defSites, importLines, raw ? source : undefined);
  const calls = collectCalls(matches.calls, python, scopeMemo, raw ? source : undefined);
  let lineCount = 1;
  for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) lineCount++;
  return { language, partial: errorCount > 0, errorCount, errorLines, lineCount, imports, exports, definitions, references, calls };
}
