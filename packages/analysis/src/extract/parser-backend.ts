/**
 * Which tree-sitter parses in this thread: the native binding (`tree-sitter` and the grammar
 * packages, optional dependencies that need a compiler where no prebuild loads) or, where it is
 * missing or fails to load, tree-sitter's WebAssembly build (`web-tree-sitter` with the grammars'
 * `.wasm` files). Both run the same `.scm` queries and give the same facts (`test/parser-backend.test.ts`).
 *
 * `AIRSPACE_PARSER` chooses: `auto` (default: native, else wasm), `native`, `wasm`, or `none`
 * (no parser: what a machine where neither loads sees, for tests). Native loads synchronously on
 * first use; wasm must be loaded with `loadParser()` first (its start is asynchronous), which the
 * parse workers and the pool's own thread do before parsing. `loadParser()`'s status says what
 * loaded and why, so that a scan can report it once (`PARSER_WASM`, `PARSER_UNAVAILABLE`).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type ParserType from 'tree-sitter';
import type { Language } from '../facts.js';

const require = createRequire(import.meta.url);

export type ParserChoice = 'auto' | 'native' | 'wasm' | 'none';
export type ParserKind = 'native' | 'wasm';
export const PARSER_ENV = 'AIRSPACE_PARSER';
const CHOICES: readonly ParserChoice[] = ['auto', 'native', 'wasm', 'none'];

/** What loaded: a parser (with why native did not, for wasm), or none and why. */
export type ParserStatus =
  { readonly kind: 'native' } | { readonly kind: 'wasm'; readonly why: string } | { readonly kind: 'none'; readonly why: string };

type Tree = ParserType.Tree;
type Query = ParserType.Query;

/** One language of one backend: parse a source, compile a query, free a tree. */
export interface LanguageParser {
  parse(source: string): Tree;
  query(text: string): Query;
  /** Frees what a tree holds outside the JavaScript heap (wasm trees are freed only so). */
  release(tree: Tree): void;
}

export interface ParserBackend {
  readonly kind: ParserKind;
  language(language: Language): LanguageParser;
}

/** The choice in `env` (an unknown value is `auto`). */
export function parserChoice(env: NodeJS.ProcessEnv = process.env): ParserChoice {
  const raw = env[PARSER_ENV]?.trim().toLowerCase();
  return CHOICES.find((c) => c === raw) ?? 'auto';
}

const message = (e: unknown): string => (e instanceof Error ? e.message.split('\n')[0]! : String(e));

// ---- native ----------------------------------------------------------------------------------

function nativeGrammar(language: Language): unknown {
  switch (language) {
    case 'typescript':
      return (require('tree-sitter-typescript') as { typescript: unknown }).typescript;
    case 'tsx':
      return (require('tree-sitter-typescript') as { tsx: unknown }).tsx;
    case 'javascript':
      return require('tree-sitter-javascript');
    case 'python':
      return require('tree-sitter-python');
  }
}

const LANGUAGES: readonly Language[] = ['typescript', 'tsx', 'javascript', 'python'];

/** The native binding with every grammar set once, or why it cannot load. */
function loadNative(): ParserBackend | string {
  try {
    const Parser = require('tree-sitter') as typeof ParserType;
    const languages = new Map<Language, ParserType.Language>();
    for (const l of LANGUAGES) {
      const lang = nativeGrammar(l) as ParserType.Language;
      // A binding that loads but cannot take the grammar (an ABI mismatch) throws here.
      new Parser().setLanguage(lang);
      languages.set(l, lang);
    }
    return {
      kind: 'native',
      language(l) {
        const lang = languages.get(l)!;
        const parser = new Parser();
        parser.setLanguage(lang);
        return {
          // The callback form avoids the binding's copy of the whole string per chunk on big inputs.
          parse: (source) => parser.parse(source, null, { bufferSize: Math.max(32 * 1024, source.length * 2 + 16) }),
          query: (text) => new Parser.Query(lang, text),
          // Native trees are freed by finalizers (see `collect.ts`).
          release: () => undefined,
        };
      },
    };
  } catch (e) {
    return `the native tree-sitter binding did not load (${message(e)})`;
  }
}

// ---- wasm ------------------------------------------------------------------------------------

/** The grammars' `.wasm` files, by language: package and file name. */
const WASM_FILES: Readonly<Record<Language, readonly [string, string]>> = {
  typescript: ['tree-sitter-typescript', 'tree-sitter-typescript.wasm'],
  tsx: ['tree-sitter-typescript', 'tree-sitter-tsx.wasm'],
  javascript: ['tree-sitter-javascript', 'tree-sitter-javascript.wasm'],
  python: ['tree-sitter-python', 'tree-sitter-python.wasm'],
};

/** Copies made at build time (`scripts/copy-grammars.mjs`), so the package needs no grammar package for wasm. */
const OWN_GRAMMARS = fileURLToPath(new URL('../../grammars/', import.meta.url));

/** Where a grammar's `.wasm` file is: this package's copy, else the grammar package's own. */
export function wasmGrammarPath(language: Language): string {
  const [pkg, file] = WASM_FILES[language];
  const own = `${OWN_GRAMMARS}${file}`;
  if (existsSync(own)) return own;
  return require.resolve(`${pkg}/package.json`).replace(/package\.json$/, file);
}

type WebTreeSitter = typeof import('web-tree-sitter');

async function loadWasm(): Promise<ParserBackend> {
  const web = (await import('web-tree-sitter')) as WebTreeSitter;
  await web.Parser.init();
  const languages = new Map<Language, InstanceType<WebTreeSitter['Language']>>();
  for (const l of LANGUAGES) languages.set(l, await web.Language.load(wasmGrammarPath(l)));
  return {
    kind: 'wasm',
    language(l) {
      const lang = languages.get(l)!;
      const parser = new web.Parser();
      parser.setLanguage(lang);
      return {
        parse(source) {
          const tree = parser.parse(source);
          if (!tree) throw new Error('the WebAssembly parser returned no tree');
          // Same shape as the native tree for what the readers use (nodes, fields, positions in UTF-16 units).
          return tree as unknown as Tree;
        },
        query: (text) => new web.Query(lang, text) as unknown as Query,
        release: (tree) => (tree as unknown as { delete(): void }).delete(),
      };
    },
  };
}

// ---- this thread's backend -------------------------------------------------------------------

let backend: ParserBackend | undefined;
let status: ParserStatus | undefined;
let loading: Promise<ParserStatus> | undefined;

/**
 * Loads this thread's parser as `AIRSPACE_PARSER` says (once; later calls answer the same).
 * Never rejects: a parser that cannot load is `{ kind: 'none', why }`.
 */
export function loadParser(choice: ParserChoice = parserChoice()): Promise<ParserStatus> {
  if (status) return Promise.resolve(status);
  return (loading ??= (async (): Promise<ParserStatus> => {
    if (choice === 'none') return settle(undefined, { kind: 'none', why: `${PARSER_ENV}=none` });
    let why = `${PARSER_ENV}=wasm`;
    if (choice !== 'wasm') {
      const native = loadNative();
      if (typeof native !== 'string') return settle(native, { kind: 'native' });
      if (choice === 'native') return settle(undefined, { kind: 'none', why: `${native}, and ${PARSER_ENV}=native` });
      why = native;
    }
    try {
      return settle(await loadWasm(), { kind: 'wasm', why });
    } catch (e) {
      const wasm = `the WebAssembly parser did not load (${message(e)})`;
      return settle(undefined, { kind: 'none', why: choice === 'wasm' ? wasm : `${why}; ${wasm}` });
    }
  })());
}

function settle(loaded: ParserBackend | undefined, s: ParserStatus): ParserStatus {
  backend = loaded;
  status = s;
  return s;
}

/**
 * This thread's backend for a synchronous parse: the loaded one; before any `loadParser`, native
 * when the choice allows it and it loads. Throws (with why) when no parser is available.
 */
export function currentBackend(): ParserBackend {
  if (backend) return backend;
  if (!status) {
    const choice = parserChoice();
    if (choice === 'auto' || choice === 'native') {
      const native = loadNative();
      if (typeof native !== 'string') {
        settle(native, { kind: 'native' });
        return native;
      }
    }
  }
  throw new ParserUnavailableError(
    status?.kind === 'none' ? status.why : 'the WebAssembly parser is not loaded yet (call loadParser first)',
  );
}

/** A backend of the given kind, loaded apart from this thread's (tests compare the two). */
export async function parserBackendOf(kind: ParserKind): Promise<ParserBackend> {
  if (kind === 'wasm') return loadWasm();
  const native = loadNative();
  if (typeof native === 'string') throw new ParserUnavailableError(native);
  return native;
}

export class ParserUnavailableError extends Error {
  readonly code = 'PARSER_UNAVAILABLE';
  constructor(why: string) {
    super(`No tree-sitter parser is available: ${why}.`);
    this.name = 'ParserUnavailableError';
  }
}
