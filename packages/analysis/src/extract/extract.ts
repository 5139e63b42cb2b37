/**
 * Parse one file with native tree-sitter and turn query matches into `FileFacts`.
 *
 * Only the facts are kept; the native tree is freed by a finalizer once the caller returns to the
 * event loop (see `worker.ts`). A tree with ERROR nodes still yields facts for what did parse;
 * the file is then marked `partial`, never dropped.
 */
import { createRequire } from 'node:module';
import type ParserType from 'tree-sitter';
import type {
  CallFact,
  DefinitionFact,
  DefinitionKind,
  ExportFact,
  FileFacts,
  ImportFact,
  ImportedName,
  ImportKind,
  Language,
  ReferenceFact,
} from '../facts.js';
import { markImportsOnly } from '../cache/pack.js';
import { bufferMatches, publicMatches, rawMatchesWork, type Capture, type Match, type MatchLimits } from './matches.js';
import { QUERY_KINDS, queryText, type QueryKind } from './queries.js';

type SyntaxNode = ParserType.SyntaxNode;
type Query = ParserType.Query;

const require = createRequire(import.meta.url);

interface LanguageRuntime {
  readonly parser: ParserType;
  /**
   * The four query files compiled as one query: a query cursor walks the whole tree whatever it
   * matches, so one walk instead of four cuts query time by more than half. Matches are split
   * by their role capture's prefix (see `splitMatches`).
   */
  readonly query: Query;
  /** Whether matches are read from the transfer buffer (see `matches.ts`). */
  readonly raw: boolean;
}

const runtimes = new Map<string, LanguageRuntime>();

function grammar(language: Language): unknown {
  switch (language) {
    case 'typescript':
      return require('tree-sitter-typescript').typescript;
    case 'tsx':
      return require('tree-sitter-typescript').tsx;
    case 'javascript':
      return require('tree-sitter-javascript');
    case 'python':
      return require('tree-sitter-python');
  }
}

/** `importsOnly`: the imports query alone (see `FactsScope`): the tree walk matches far less. */
function runtime(language: Language, importsOnly = false): LanguageRuntime {
  const key = importsOnly ? `${language}/imports` : language;
  let rt = runtimes.get(key);
  if (rt) return rt;
  const Parser = require('tree-sitter') as typeof ParserType;
  const lang = grammar(language) as ParserType.Language;
  const parser = new Parser();
  parser.setLanguage(lang);
  const kinds: readonly QueryKind[] = importsOnly ? ['imports'] : QUERY_KINDS;
  const query = new Parser.Query(lang, kinds.map((kind) => queryText(language, kind)).join('\n'));
  const raw = rawMatchesWork(query, parser.parse(SELF_CHECK[language]));
  rt = { parser, query, raw };
  runtimes.set(key, rt);
  return rt;
}

/** Sources on which the buffer-read matches are checked against the public API's. */
const SELF_CHECK: Readonly<Record<Language, string>> = {
  typescript: "import x, { y as z } from './m';\nexport const ü = require('r');\nclass C { m(): T { return this.é?.f(new D(), ns.g); } }\n",
  tsx: "import { B } from './b';\nexport function A(): JSX.Element { return <B.Item x={é.y}><div /></B.Item>; }\n",
  javascript: "const { a } = require('m');\nmodule.exports = function ü() { return a.b(new C(), é); };\n",
  python: 'from .m import a as b\nimport os.path\nclass C:\n    def m(self):\n        return os.path.join(b(é), self.f)\n',
};

const MAX_RECEIVER = 120;
const MAX_CALLEE = 200;

const line = (n: SyntaxNode): number => n.startPosition.row + 1;
const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const oneLine = (s: string): string => s.replace(/\s+/g, '');

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
  runtime(language).parser.parse(source, null, { bufferSize: Math.max(32 * 1024, source.length * 2 + 16) });
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
}

/** Parse `source` as `language` and extract its facts. Never throws on bad input. */
export function extractFacts(source: string, language: Language, options: ExtractOptions = {}): FileFacts {
  const rt = runtime(language, options.importsOnly);
  // The callback form avoids the binding's copy of the whole string per chunk on big inputs.
  const tree = rt.parser.parse(source, null, { bufferSize: Math.max(32 * 1024, source.length * 2 + 16) });
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

function capture(match: Match, name: string): SyntaxNode | undefined {
  for (const c of match.captures) if (c.name === name) return c.node;
  return undefined;
}

/** A match's role capture (named `<prefix><kind>`, e.g. `call.method`) with its `name` and `receiver` captures. */
interface Roles {
  readonly at: Capture;
  readonly kind: string;
  readonly name: Capture | undefined;
  readonly receiver: Capture | undefined;
}

function rolesOf(match: Match, prefix: string): Roles | undefined {
  let at: Capture | undefined;
  let name: Capture | undefined;
  let receiver: Capture | undefined;
  for (const c of match.captures) {
    if (c.name === 'name') name = c;
    else if (c.name === 'receiver') receiver = c;
    else if (!at && c.name.startsWith(prefix)) at = c;
  }
  return at && { at, kind: at.name.slice(prefix.length), name, receiver };
}

// ---------------------------------------------------------------------------------------------
// JavaScript / TypeScript imports and exports

/**
 * Where the statements and specifiers with a `type` modifier start (`import type …`,
 * `export type … from`, `{ type A }`): the `import.type-token` pattern matches them, so no node's
 * children are walked to find the token.
 */
function typeModifiers(matches: readonly Match[]): ReadonlySet<number> {
  const starts = new Set<number>();
  for (const m of matches) {
    const role = rolesOf(m, 'import.');
    if (role?.kind === 'type-token') starts.add(role.at.startIndex);
  }
  return starts;
}

function jsImports(matches: readonly Match[]): ImportFact[] {
  const out: ImportFact[] = [];
  const typed = typeModifiers(matches);
  for (const m of matches) {
    const role = rolesOf(m, 'import.');
    const source = capture(m, 'source');
    if (!role || !source) continue;
    const node = role.at.node;
    const specifier = source.text;
    switch (role.kind) {
      case 'static': {
        const typeOnly = typed.has(role.at.startIndex);
        const fact: { names: ImportedName[]; defaultBinding?: string; namespaceBinding?: string } = { names: [] };
        const clause = node.namedChildren.find((c) => c.type === 'import_clause');
        if (clause) readImportClause(clause, fact, typeOnly, typed);
        out.push({ specifier, kind: typeOnly ? 'type' : 'static', ...fact, line: line(node) });
        break;
      }
      case 'reexport': {
        const typeOnly = typed.has(role.at.startIndex);
        const names: ImportedName[] = [];
        let wildcard = false;
        const clause = node.namedChildren.find((c) => c.type === 'export_clause');
        const nsExport = node.namedChildren.find((c) => c.type === 'namespace_export');
        if (clause) {
          for (const s of clause.namedChildren) {
            if (s.type !== 'export_specifier') continue;
            const name = s.childForFieldName('name')?.text;
            if (!name) continue;
            const alias = s.childForFieldName('alias')?.text ?? name;
            names.push(typeOnly || typed.has(s.startIndex) ? { name, alias, typeOnly: true } : { name, alias });
          }
        } else if (nsExport) {
          const alias = nsExport.namedChildren[0]?.text ?? '*';
          names.push({ name: '*', alias });
        } else wildcard = true;
        // Only a wildcard needs the flag: otherwise the names say it.
        out.push({
          specifier,
          kind: 'reexport',
          names,
          ...(wildcard ? { wildcard } : {}),
          ...(wildcard && typeOnly ? { typeOnly } : {}),
          line: line(node),
        });
        break;
      }
      case 'require': {
        // TypeScript `import x = require('m')`
        if (node.type === 'import_statement') {
          const clause = node.namedChildren.find((c) => c.type === 'import_require_clause');
          const id = clause?.namedChildren.find((c) => c.type === 'identifier')?.text;
          out.push({ specifier, kind: 'require', names: [], ...(id ? { namespaceBinding: id } : {}), line: line(node) });
        } else
          out.push({
            specifier,
            kind: 'require',
            ...bindingsOfCall(node),
            ...(insideFunction(node, JS_FUNCTIONS) ? { lazy: true as const } : {}),
            line: line(node),
          });
        break;
      }
      case 'dynamic':
        // `type T = import('./m').T` is a type, not a load.
        out.push({
          specifier,
          kind: 'dynamic',
          ...bindingsOfCall(node),
          ...(inTypePosition(node) ? { typeOnly: true as const } : {}),
          line: line(node),
        });
        break;
    }
  }
  return out;
}

function readImportClause(
  clause: SyntaxNode,
  fact: { names: ImportedName[]; defaultBinding?: string; namespaceBinding?: string },
  typeOnly: boolean,
  typed: ReadonlySet<number>,
): void {
  for (const c of clause.namedChildren) {
    if (c.type === 'identifier') fact.defaultBinding = c.text;
    else if (c.type === 'namespace_import') {
      const id = c.namedChildren.find((n) => n.type === 'identifier');
      if (id) fact.namespaceBinding = id.text;
    } else if (c.type === 'named_imports') {
      for (const s of c.namedChildren) {
        if (s.type !== 'import_specifier') continue;
        const name = s.childForFieldName('name')?.text;
        if (!name) continue;
        const alias = s.childForFieldName('alias')?.text ?? name;
        fact.names.push(typeOnly || typed.has(s.startIndex) ? { name, alias, typeOnly: true } : { name, alias });
      }
    }
  }
}

const JS_FUNCTIONS = new Set([
  'function_declaration',
  'generator_function_declaration',
  'function_expression',
  'function',
  'generator_function',
  'arrow_function',
  'method_definition',
]);
const PYTHON_FUNCTIONS = new Set(['function_definition']);

/** Whether a node sits inside a function body (so it runs when the function is called, not at load). */
function insideFunction(node: SyntaxNode, functions: ReadonlySet<string>): boolean {
  for (let p = node.parent; p; p = p.parent) if (functions.has(p.type)) return true;
  return false;
}

/** TypeScript nodes whose contents are types only (an `import('m')` inside one is erased). */
const TYPE_CONTEXTS = new Set([
  'type_annotation',
  'type_alias_declaration',
  'type_query',
  'type_arguments',
  'interface_declaration',
  'type_parameters',
  'object_type',
  'lookup_type',
  'generic_type',
]);
/** Where the search for a type context stops: no type context encloses these. */
const VALUE_SCOPES = new Set(['program', 'statement_block', 'class_body', 'expression_statement', 'arguments']);

/** Whether a TypeScript `import('m')` sits in a type (`let x: import('m').T`, `typeof import('m')`). */
function inTypePosition(node: SyntaxNode): boolean {
  for (let p = node.parent; p && !VALUE_SCOPES.has(p.type); p = p.parent) if (TYPE_CONTEXTS.has(p.type)) return true;
  return false;
}

/** Bindings of `require('m')` / `import('m')` from where the call sits. */
function bindingsOfCall(call: SyntaxNode): { names: ImportedName[]; namespaceBinding?: string } {
  let node = call;
  let parent = node.parent;
  if (parent?.type === 'await_expression') {
    node = parent;
    parent = node.parent;
  }
  // require('m').f  →  the name f
  if (parent?.type === 'member_expression' && parent.childForFieldName('object')?.id === node.id) {
    const prop = parent.childForFieldName('property')?.text;
    const decl = parent.parent;
    const local = decl?.type === 'variable_declarator' ? decl.childForFieldName('name') : null;
    if (prop) return { names: [{ name: prop, alias: local?.type === 'identifier' ? local.text : prop }] };
  }
  if (parent?.type === 'variable_declarator' || parent?.type === 'assignment_expression') {
    const target = parent.childForFieldName(parent.type === 'variable_declarator' ? 'name' : 'left');
    if (target?.type === 'identifier') return { names: [], namespaceBinding: target.text };
    if (target?.type === 'object_pattern') return { names: objectPatternNames(target) };
  }
  return { names: [] };
}

function objectPatternNames(pattern: SyntaxNode): ImportedName[] {
  const names: ImportedName[] = [];
  for (const p of pattern.namedChildren) {
    if (p.type === 'shorthand_property_identifier_pattern') names.push({ name: p.text, alias: p.text });
    else if (p.type === 'pair_pattern') {
      const key = p.childForFieldName('key')?.text;
      const value = p.childForFieldName('value');
      if (key && value?.type === 'identifier') names.push({ name: key, alias: value.text });
    } else if (p.type === 'object_assignment_pattern') {
      const left = p.childForFieldName('left');
      if (left) names.push({ name: left.text, alias: left.text });
    }
  }
  return names;
}

function declarationNames(decl: SyntaxNode): string[] {
  const name = decl.childForFieldName('name');
  if (name) return [name.text];
  if (decl.type === 'lexical_declaration' || decl.type === 'variable_declaration') {
    const out: string[] = [];
    for (const d of decl.namedChildren) {
      if (d.type !== 'variable_declarator') continue;
      const n = d.childForFieldName('name');
      if (n?.type === 'identifier') out.push(n.text);
      else if (n?.type === 'object_pattern') for (const p of objectPatternNames(n)) out.push(p.alias);
    }
    return out;
  }
  return [];
}

function jsExports(matches: readonly Match[], imports: readonly ImportFact[]): ExportFact[] {
  const out: ExportFact[] = [];
  // `export default` statements (the `default` pattern reports them): their declarations are not named exports.
  const defaults = new Set<number>();
  for (const m of matches) {
    const role = rolesOf(m, 'export.');
    if (role?.kind === 'default') defaults.add(role.at.startIndex);
  }
  for (const m of matches) {
    const role = rolesOf(m, 'export.');
    if (!role) continue;
    const node = role.at.node;
    const at = line(node);
    if (role.kind === 'clause') {
      const clause = node.namedChildren.find((c) => c.type === 'export_clause');
      for (const s of clause?.namedChildren ?? []) {
        if (s.type !== 'export_specifier') continue;
        const local = s.childForFieldName('name')?.text;
        if (!local) continue;
        out.push({ name: s.childForFieldName('alias')?.text ?? local, local, kind: 'local', line: at });
      }
    } else if (role.kind === 'declaration') {
      if (defaults.has(role.at.startIndex)) continue;
      const decl = node.childForFieldName('declaration');
      if (decl) for (const n of declarationNames(decl)) out.push({ name: n, local: n, kind: 'local', line: at });
    } else if (role.kind === 'default') {
      const value = node.childForFieldName('value') ?? node.childForFieldName('declaration');
      const local = value?.type === 'identifier' ? value.text : value?.childForFieldName('name')?.text;
      out.push({ name: 'default', ...(local ? { local } : {}), kind: 'default', line: at });
    } else if (role.kind === 'assignment') {
      const value = capture(m, 'name');
      out.push({ name: 'default', ...(value?.type === 'identifier' ? { local: value.text } : {}), kind: 'assignment', line: at });
    }
  }
  for (const i of imports) {
    if (i.kind !== 'reexport') continue;
    if (i.wildcard) out.push({ name: '*', kind: 'reexport', line: i.line });
    for (const n of i.names) out.push({ name: n.alias, kind: 'reexport', line: i.line });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Python imports

function pythonImports(matches: readonly Match[]): ImportFact[] {
  const out: ImportFact[] = [];
  // Blocks of `if TYPE_CHECKING:`, as [start, end) offsets.
  const guards: [number, number][] = [];
  for (const m of matches) {
    const role = rolesOf(m, 'import.');
    if (role?.kind === 'guard') guards.push([role.at.startIndex, role.at.node.endIndex]);
  }
  for (const m of matches) {
    const role = rolesOf(m, 'import.');
    if (!role || role.kind === 'guard') continue;
    const node = role.at.node;
    const at = line(node);
    const start = role.at.startIndex;
    const where = guards.some(([s, e]) => start >= s && start < e)
      ? { guarded: true as const }
      : insideFunction(node, PYTHON_FUNCTIONS)
        ? { lazy: true as const }
        : {};
    if (role.kind === 'python-import') {
      for (const n of node.childrenForFieldName('name')) {
        if (n.type === 'aliased_import') {
          const name = oneLine(n.childForFieldName('name')?.text ?? '');
          const alias = n.childForFieldName('alias')?.text;
          if (name)
            out.push({
              specifier: name,
              kind: 'python-import',
              names: [],
              ...(alias ? { namespaceBinding: alias } : {}),
              ...where,
              line: at,
            });
        } else {
          const name = oneLine(n.text);
          out.push({ specifier: name, kind: 'python-import', names: [], namespaceBinding: name.split('.')[0]!, ...where, line: at });
        }
      }
    } else {
      const moduleName = capture(m, 'source');
      if (!moduleName) continue;
      const names: ImportedName[] = [];
      let wildcard = false;
      for (const n of node.childrenForFieldName('name')) {
        if (n.type === 'aliased_import') {
          const name = oneLine(n.childForFieldName('name')?.text ?? '');
          const alias = n.childForFieldName('alias')?.text ?? name;
          if (name) names.push({ name, alias });
        } else names.push({ name: oneLine(n.text), alias: oneLine(n.text) });
      }
      if (node.namedChildren.some((c) => c.type === 'wildcard_import')) wildcard = true;
      out.push({ specifier: oneLine(moduleName.text), kind: 'python-from', names, ...(wildcard ? { wildcard } : {}), ...where, line: at });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Scopes: names of enclosing classes and functions

const NAMED_SCOPES = new Set([
  'function_declaration',
  'generator_function_declaration',
  'class_declaration',
  'abstract_class_declaration',
  'method_definition',
  'function_definition',
  'class_definition',
  'interface_declaration',
]);
const ANONYMOUS_SCOPES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function', 'class']);

/** The name a scope node gives to what is inside it, or undefined when it is transparent. */
function scopeName(node: SyntaxNode): string | undefined {
  if (NAMED_SCOPES.has(node.type)) return node.childForFieldName('name')?.text;
  if (!ANONYMOUS_SCOPES.has(node.type)) return undefined;
  const own = node.childForFieldName('name');
  if (own) return own.text;
  const parent = node.parent;
  if (!parent) return undefined;
  switch (parent.type) {
    case 'arguments': {
      // `const f = useCallback(() => {…})`: the callback is f's body.
      const call = parent.parent;
      const declarator = call?.type === 'call_expression' ? call.parent : null;
      const n = declarator?.type === 'variable_declarator' ? declarator.childForFieldName('name') : null;
      return n?.type === 'identifier' ? n.text : undefined;
    }
    case 'variable_declarator':
    case 'public_field_definition':
    case 'field_definition': {
      const n = parent.childForFieldName('name') ?? parent.childForFieldName('property');
      return n?.type === 'identifier' || n?.type === 'property_identifier' || n?.type === 'private_property_identifier'
        ? n.text
        : undefined;
    }
    case 'pair':
      return parent.childForFieldName('key')?.text;
    case 'assignment_expression': {
      const left = parent.childForFieldName('left');
      if (left?.type === 'identifier') return left.text;
      if (left?.type === 'member_expression') return left.childForFieldName('property')?.text;
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Names of the scopes enclosing a node (outermost first), excluding the node itself. Each step up
 * the tree crosses into the native binding, so the scopes of every ancestor met are remembered
 * (by node id, per file): definitions and calls in one function share its ancestors.
 */
type ScopeMemo = Map<number, readonly string[]>;

function enclosingScopes(node: SyntaxNode, memo: ScopeMemo): readonly string[] {
  const path: SyntaxNode[] = [];
  let known: readonly string[] = [];
  for (let p = node.parent; p; p = p.parent) {
    const hit = memo.get(p.id);
    if (hit) {
      known = hit;
      break;
    }
    path.push(p);
  }
  // `path` runs from the nearest ancestor up; fill the memo from the top down.
  for (let i = path.length - 1; i >= 0; i--) {
    const n = scopeName(path[i]!);
    if (n) known = [...known, n];
    memo.set(path[i]!.id, known);
  }
  return known;
}

const CLASS_TYPES = new Set(['class_declaration', 'abstract_class_declaration', 'class_definition', 'class']);

function insideClass(node: SyntaxNode): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (CLASS_TYPES.has(p.type)) return true;
    if (p.type === 'function_definition' || p.type === 'function_declaration' || p.type === 'arrow_function') return false;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Definitions, references, calls

function isExportStatement(n: SyntaxNode | null): boolean {
  return n?.type === 'export_statement';
}

const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'lambda']);

/** `useCallback(() => {…}, deps)`, `memo(function X() {…})`: a call whose arguments include a function. */
function wrapsFunction(call: SyntaxNode): boolean {
  const args = call.childForFieldName('arguments');
  if (!args) return false;
  for (let i = 0; i < args.namedChildCount; i++) if (FUNCTION_VALUES.has(args.namedChild(i)!.type)) return true;
  return false;
}

function collectDefinitions(
  matches: readonly Match[],
  python: boolean,
  exports: readonly ExportFact[],
  scopeMemo: ScopeMemo,
  source: string | undefined,
): DefinitionFact[] {
  const exportedLocals = new Set<string>();
  for (const e of exports) if (e.local) exportedLocals.add(e.local);
  const out: DefinitionFact[] = [];
  const exportedClasses = new Set<string>();
  const pending: { at: Capture; name: Capture; kind: DefinitionKind; commonjs: boolean; scopes: readonly string[] }[] = [];
  const seen = new Set<number>();
  for (const m of matches) {
    const roles = rolesOf(m, 'definition.');
    if (!roles?.name) continue;
    const { at, name } = roles;
    const commonjs = roles.kind === 'commonjs';
    let kind = (commonjs ? 'function' : roles.kind) as DefinitionKind;
    const node = at.node;
    if (kind === 'variable') {
      const value = node.childForFieldName(python ? 'right' : 'value');
      if (value && (FUNCTION_VALUES.has(value.type) || (value.type === 'call_expression' && wrapsFunction(value)))) kind = 'function';
      else if (value?.type === 'class') kind = 'class';
    }
    // A declarator matched twice (at the top level and as a function in a block) is one definition.
    const key = siteKey(name.row, name.column);
    if (seen.has(key)) continue;
    seen.add(key);
    if (python && kind === 'function' && insideClass(node)) kind = 'method';
    pending.push({ at, name, kind, commonjs, scopes: enclosingScopes(node, scopeMemo) });
  }
  for (const p of pending) {
    const n = identifierText(p.name, source);
    const topLevel = p.scopes.length === 0;
    let exported: boolean;
    if (python) exported = topLevel && !n.startsWith('_');
    else if (p.commonjs) exported = true;
    else if (!topLevel) exported = false;
    else {
      const node = p.at.node;
      const declParent = node.type === 'variable_declarator' ? (node.parent?.parent ?? null) : node.parent;
      exported = isExportStatement(declParent) || exportedLocals.has(n);
    }
    if (exported && p.kind === 'class') exportedClasses.add(n);
    out.push({
      name: n,
      qualifiedName: [...p.scopes, n].join('.'),
      kind: p.kind,
      exported,
      startLine: p.at.row + 1,
      endLine: p.at.node.endPosition.row + 1,
      line: p.name.row + 1,
      column: p.name.column,
    });
  }
  // Members of an exported class are reachable from outside.
  return out.map((d) =>
    !d.exported && (d.kind === 'method' || d.kind === 'field') && exportedClasses.has(d.qualifiedName.split('.')[0]!)
      ? { ...d, exported: true }
      : d,
  );
}

/** A position as one number (rows and columns of any real file fit), so sets of sites allocate no strings. */
const siteKey = (row: number, column: number): number => row * 0x1000000 + column;

/**
 * References are most of the captures: their names and receivers are read from `source` by
 * their starts (see `matches.ts`) when it is given, and from the nodes otherwise.
 */
function collectReferences(
  matches: readonly Match[],
  python: boolean,
  defSites: ReadonlySet<number>,
  importLines: ReadonlySet<number>,
  source: string | undefined,
): ReferenceFact[] {
  const out: ReferenceFact[] = [];
  const plain: Capture[] = [];
  const memberSites = new Set<number>();
  for (const m of matches) {
    const roles = rolesOf(m, 'reference.');
    if (!roles) continue;
    const { receiver } = roles;
    const at = roles.name ?? roles.at;
    const site = siteKey(at.row, at.column);
    if (defSites.has(site)) continue;
    if (roles.kind === 'member') {
      memberSites.add(site);
      const text = identifierText(at, source);
      out.push({
        name: text,
        ...(receiver ? { receiver: clip(oneLine(receiverText(receiver, at, source)), MAX_RECEIVER) } : {}),
        line: at.row + 1,
        column: at.column,
        endColumn: at.column + text.length,
      });
    } else plain.push(at);
  }
  for (const at of plain) {
    // In Python `a.b` the `b` is an identifier too; the member pattern reports it.
    if (python && memberSites.has(siteKey(at.row, at.column))) continue;
    // Only names on import lines can be the bindings an import makes: their parents are looked up.
    if (importLines.has(at.row + 1) && isBindingSite(at.node, python)) continue;
    const text = identifierText(at, source);
    out.push({ name: text, line: at.row + 1, column: at.column, endColumn: at.column + text.length });
  }
  out.sort((a, b) => a.line - b.line || a.column - b.column);
  return out;
}

/** The identifier starting at the capture: ASCII name characters read from the source, else the node's text. */
function identifierText(c: Capture, source: string | undefined): string {
  if (source === undefined) return c.node.text;
  const start = c.startIndex;
  let end = start;
  for (;;) {
    const ch = source.charCodeAt(end);
    if ((ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90) || (ch >= 48 && ch <= 57) || ch === 95 || ch === 36) end++;
    else if (ch >= 128 || ch === 92)
      return c.node.text; // non-ASCII or an escape: let the tree say
    else break;
  }
  return end > start ? source.slice(start, end) : c.node.text;
}

/**
 * A member's receiver (`a.b` in `a.b.c`): the source from the receiver's start to the member's
 * name less the `.` or `?.` between them, else the node's text when a comment may sit there.
 */
function receiverText(receiver: Capture, name: Capture, source: string | undefined): string {
  if (source === undefined || name.startIndex <= receiver.startIndex) return receiver.node.text;
  let text = source.slice(receiver.startIndex, name.startIndex).trimEnd();
  if (text.endsWith('?.')) text = text.slice(0, -2);
  else if (text.endsWith('.')) text = text.slice(0, -1);
  else return receiver.node.text;
  return /[/#]/.test(text) ? receiver.node.text : text;
}

const JS_BINDING_PARENTS = new Set(['import_specifier', 'import_clause', 'namespace_import', 'import_require_clause', 'namespace_export']);

/** Names that an import statement binds are declarations, not uses. */
function isBindingSite(name: SyntaxNode, python: boolean): boolean {
  const parent = name.parent;
  if (!parent) return false;
  if (python) {
    for (let p: SyntaxNode | null = parent, i = 0; p && i < 3; p = p.parent, i++) {
      if (p.type === 'import_statement' || p.type === 'import_from_statement') return true;
    }
    return false;
  }
  if (JS_BINDING_PARENTS.has(parent.type)) return true;
  // `export { a as b } from 'm'` names nothing local.
  return parent.type === 'export_specifier' && parent.parent?.parent?.childForFieldName('source') != null;
}

function collectCalls(matches: readonly Match[], python: boolean, scopeMemo: ScopeMemo, source: string | undefined): CallFact[] {
  const out: CallFact[] = [];
  for (const m of matches) {
    const roles = rolesOf(m, 'call.');
    if (!roles?.name) continue;
    const { at, name, receiver } = roles;
    const kind = roles.kind as CallFact['kind'];
    const nameText = identifierText(name, source);
    // Intrinsic JSX elements (`<div>`) are not calls of anything in the repository.
    if (kind === 'jsx' && !receiver && /^[a-z]/.test(nameText)) continue;
    const scopes = enclosingScopes(at.node, scopeMemo);
    out.push({
      callee: clip(oneLine(calleeText(at, name, nameText, receiver, kind, python, source)), MAX_CALLEE),
      name: nameText,
      ...(receiver ? { receiver: clip(oneLine(receiverText(receiver, name, source)), MAX_RECEIVER) } : {}),
      kind,
      line: at.row + 1,
      column: at.column,
      caller: scopes.length ? scopes.join('.') : '<module>',
    });
  }
  return out;
}

/**
 * The called expression (`f`, `a.b.c`): every call pattern's callee runs from the receiver (or
 * the name) to the end of the name, so with the source at hand it is that slice.
 */
function calleeText(
  at: Capture,
  name: Capture,
  nameText: string,
  receiver: Capture | undefined,
  kind: CallFact['kind'],
  python: boolean,
  source: string | undefined,
): string {
  if (source !== undefined) return source.slice((receiver ?? name).startIndex, name.startIndex + nameText.length);
  const node =
    kind === 'jsx'
      ? (receiver?.node.parent ?? name.node)
      : python
        ? at.node.childForFieldName('function')
        : at.node.childForFieldName(kind === 'new' ? 'constructor' : 'function');
  return node?.text ?? nameText;
}

/** Kinds in one list, for documentation and tests. */
export const IMPORT_KINDS: readonly ImportKind[] = ['static', 'type', 'dynamic', 'require', 'reexport', 'python-from', 'python-import'];
