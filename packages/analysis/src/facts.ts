/**
 * Facts of one file, extracted by tree-sitter queries. Pure, serialisable data: they depend
 * only on the file's content and language (never on its path), so they are cached by git blob id.
 *
 * Lines are 1-based; columns are 0-based offsets into the line as tree-sitter reports them.
 */
import { IMPORT_EDGE_KINDS, type ImportEdgeKind } from '@airspace/core';

export type Language = 'typescript' | 'tsx' | 'javascript' | 'python';

export type ImportKind =
  /** `import … from 'm'` (and `import 'm'`). */
  | 'static'
  /** `import type … from 'm'` (all names type-only). */
  | 'type'
  /** `import('m')`. */
  | 'dynamic'
  /** `require('m')`, TypeScript `import x = require('m')`. */
  | 'require'
  /** `export … from 'm'`. */
  | 'reexport'
  /** Python `from m import a`. */
  | 'python-from'
  /** Python `import m`, `import m.sub as s`. */
  | 'python-import';

export interface ImportedName {
  /** The name in the imported module (`f` in `{ f as g }`, `*` for `export * from`). */
  readonly name: string;
  /** The local name (`g`), or for re-exports the exported name. Equal to `name` when not renamed. */
  readonly alias: string;
  readonly typeOnly?: boolean;
}

export interface ImportFact {
  /** As written: `./a`, `@scope/pkg/sub`, Python `..pkg.mod` (leading dots = relative level). */
  readonly specifier: string;
  readonly kind: ImportKind;
  /** Named imports (`{ a as b }`, `from m import a as b`, `const { a: b } = require('m')`). */
  readonly names: readonly ImportedName[];
  /** Local name bound to the default export (`import d from`), when any. */
  readonly defaultBinding?: string;
  /**
   * Local name bound to the whole module: `import * as ns`, `const m = require('m')`,
   * `import x = require('m')`, `const m = await import('m')`, Python `import m as n`
   * (for `import a.b` without alias the binding is `a`).
   */
  readonly namespaceBinding?: string;
  /** `export * from 'm'` / `from m import *`. */
  readonly wildcard?: boolean;
  /**
   * Type-only as a whole where no name says so: `export type * from 'm'`, and an `import('m')`
   * in a type (`let x: import('m').T`). Other type-only imports are `kind: 'type'` or have only
   * `typeOnly` names.
   */
  readonly typeOnly?: true;
  /** Python: inside `if TYPE_CHECKING:` (runs only under a type checker). */
  readonly guarded?: true;
  /** A `require(…)` call or a Python import inside a function body: runs when the function is called. */
  readonly lazy?: true;
  readonly line: number;
}

/**
 * What an import edge means for coupling, derived from its facts (see `importEdgeKind`):
 * `value` (runs at load and binds values), `type-only` (erased at compile time), `guarded`
 * (Python `if TYPE_CHECKING:`), `dynamic` (`import()`, a lazy `require` or Python import inside a
 * function: loaded when called), `re-export` (`export … from`: passes the module's names on).
 */
export { IMPORT_EDGE_KINDS, type ImportEdgeKind }; // part of the import graph's contract, in core

/**
 * The edge kind of one import. Type-only: `import type`, `export type … from`, and an import
 * whose specifiers are all type-only (`import { type A, type B }`, no default or namespace).
 */
export function importEdgeKind(fact: ImportFact): ImportEdgeKind {
  if (fact.guarded) return 'guarded';
  const allTypeNames = fact.names.length > 0 && fact.names.every((n) => n.typeOnly) && !fact.defaultBinding && !fact.namespaceBinding;
  if (fact.kind === 'type' || fact.typeOnly || ((fact.kind === 'static' || fact.kind === 'reexport') && allTypeNames)) return 'type-only';
  if (fact.kind === 'dynamic' || fact.lazy) return 'dynamic';
  if (fact.kind === 'reexport') return 're-export';
  return 'value';
}

export type ExportKind = 'local' | 'default' | 'reexport' | 'assignment';

export interface ExportFact {
  /** The exported name (`default` for a default export). */
  readonly name: string;
  /** The local name it exports, when it is a local binding. */
  readonly local?: string;
  readonly kind: ExportKind;
  readonly line: number;
}

export type DefinitionKind = 'function' | 'class' | 'method' | 'field' | 'variable' | 'interface' | 'type' | 'enum';

export interface DefinitionFact {
  readonly name: string;
  /** `Class.method` for members; the name itself otherwise. */
  readonly qualifiedName: string;
  readonly kind: DefinitionKind;
  readonly exported: boolean;
  /** First and last line of the definition (inclusive). */
  readonly startLine: number;
  readonly endLine: number;
  /** Line and column of the defining name. */
  readonly line: number;
  readonly column: number;
}

export interface ReferenceFact {
  readonly name: string;
  /** For a member access `a.b` the expression before the dot (`a`), at most 120 characters. */
  readonly receiver?: string;
  readonly line: number;
  readonly column: number;
  readonly endColumn: number;
}

export interface CallFact {
  /** The callee expression as written (`ns.f`, `this.m`, `f`), at most 200 characters. */
  readonly callee: string;
  /** The called name (`f`). */
  readonly name: string;
  /** The receiver of a member call (`ns`, `this`, `self`). */
  readonly receiver?: string;
  readonly kind: 'function' | 'method' | 'new' | 'jsx';
  readonly line: number;
  readonly column: number;
  /** Qualified name of the enclosing function or method, `<module>` at top level. */
  readonly caller: string;
}

export interface FileFacts {
  readonly language: Language;
  /** True when the parse tree has ERROR or MISSING nodes: the facts are what did parse. */
  readonly partial: boolean;
  readonly errorCount: number;
  /** First lines with a parse error (at most 5), for the report. */
  readonly errorLines: readonly number[];
  readonly lineCount: number;
  readonly imports: readonly ImportFact[];
  readonly exports: readonly ExportFact[];
  readonly definitions: readonly DefinitionFact[];
  readonly references: readonly ReferenceFact[];
  readonly calls: readonly CallFact[];
}

/** Language of a path by extension, or undefined for files we do not parse. */
export function languageOf(path: string): Language | undefined {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return undefined;
  switch (path.slice(dot + 1)) {
    case 'ts':
    case 'mts':
    case 'cts':
      return 'typescript';
    case 'tsx':
      return 'tsx';
    case 'js':
    case 'jsx':
    case 'mjs':
    case 'cjs':
      return 'javascript';
    case 'py':
    case 'pyi':
      return 'python';
    default:
      return undefined;
  }
}
