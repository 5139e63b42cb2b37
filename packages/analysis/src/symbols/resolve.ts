/**
 * Name resolution from a use to its definition, across files, through the facts of a view (the
 * base index or an agent's overlay). A symbol is identified by (defining file, qualified name):
 * `src/config.ts#parseConfig`, `py/m.py#A.f`.
 *
 * Resolution order for a use of `name` (with an optional receiver `r.name`) in file F:
 *   1. F's import bindings: named (`{ f as g }`, `from m import f`, `const { f } = require()`),
 *      default, namespace (`ns.f`, Python `import m; m.f`), following re-exports (`export … from`,
 *      `export *`, an `__init__.py` that imports the name) up to a fixed depth;
 *   2. F's own scope: a top-level definition; `this.m` / `self.m` / `cls.m` inside a class, and
 *      `X.m` / `new X().m` for a class X that resolves;
 *   3. otherwise, name only: definitions of that name elsewhere — marked low confidence, and only
 *      when there are few candidates (a common name resolved by name alone is noise).
 * A name that resolves through 1 or 2 never falls back to 3, so two unrelated modules that both
 * define `parse` are not confused.
 */
import type { DefinitionFact, DefinitionKind, ImportFact } from '../facts.js';
import type { ResolvedImport } from '../index/build.js';
import type { IndexView } from '../index/view.js';

export interface SymbolDef {
  /** `path#qualifiedName`. */
  readonly id: string;
  readonly path: string;
  readonly qualifiedName: string;
  readonly kind: DefinitionKind;
  readonly startLine: number;
  readonly endLine: number;
  /** Line of the defining name. */
  readonly line: number;
}

export type SymbolVia = 'import' | 'same-file' | 'receiver' | 'name-only';

export interface Resolved {
  readonly symbol: SymbolDef;
  readonly confidence: 'high' | 'low';
  readonly via: SymbolVia;
}

export interface UseSite {
  readonly name: string;
  readonly receiver?: string;
  readonly line: number;
}

export interface SymbolResolver {
  /** Definitions a use resolves to: one with high confidence, or a few low-confidence candidates. */
  resolve(path: string, use: UseSite): readonly Resolved[];
  /** The definition a module exports under `name` (`default` for the default export). */
  exported(path: string, name: string): SymbolDef | undefined;
  /** Top-level or member definition by qualified name. */
  definition(path: string, qualifiedName: string): SymbolDef | undefined;
}

export interface SymbolResolverOptions {
  /** At most this many candidates for a name-only fallback; more means the name is too common. */
  readonly maxNameOnlyCandidates?: number;
  /** Re-export chains followed at most this deep. */
  readonly maxReexportDepth?: number;
}

const SELF_RECEIVERS = new Set(['this', 'self', 'cls']);
const CALLABLE: ReadonlySet<DefinitionKind> = new Set(['function', 'method', 'class', 'variable', 'field']);

export function symbolId(path: string, qualifiedName: string): string {
  return `${path}#${qualifiedName}`;
}

export function toSymbolDef(path: string, d: DefinitionFact): SymbolDef {
  return { id: symbolId(path, d.qualifiedName), path, qualifiedName: d.qualifiedName, kind: d.kind, startLine: d.startLine, endLine: d.endLine, line: d.line };
}

interface FileTables {
  /** Top-level definitions by name, and every definition by qualified name. */
  readonly topLevel: Map<string, DefinitionFact>;
  readonly byQualified: Map<string, DefinitionFact>;
  /** Imports paired with their resolution (facts.imports and file.imports are parallel). */
  readonly imports: readonly { fact: ImportFact; resolved: ResolvedImport | undefined }[];
  /** Classes by span, for `this.m` lookups. */
  readonly classes: readonly DefinitionFact[];
}

export function createSymbolResolver(view: IndexView, options: SymbolResolverOptions = {}): SymbolResolver {
  const maxCandidates = options.maxNameOnlyCandidates ?? 3;
  const maxDepth = options.maxReexportDepth ?? 6;
  const tables = new Map<string, FileTables | null>();
  let byName: Map<string, { path: string; def: DefinitionFact }[]> | undefined;

  const tablesOf = (path: string): FileTables | null => {
    let t = tables.get(path);
    if (t !== undefined) return t;
    const file = view.file(path);
    if (!file) {
      tables.set(path, null);
      return null;
    }
    const topLevel = new Map<string, DefinitionFact>();
    const byQualified = new Map<string, DefinitionFact>();
    const classes: DefinitionFact[] = [];
    for (const d of file.facts.definitions) {
      if (!byQualified.has(d.qualifiedName)) byQualified.set(d.qualifiedName, d);
      if (d.qualifiedName === d.name && !topLevel.has(d.name)) topLevel.set(d.name, d);
      if (d.kind === 'class') classes.push(d);
    }
    const imports = file.facts.imports.map((fact, i) => {
      const r = file.imports[i];
      return { fact, resolved: r && r.specifier === fact.specifier && r.line === fact.line ? r : undefined };
    });
    t = { topLevel, byQualified, imports, classes };
    tables.set(path, t);
    return t;
  };

  const def = (path: string, d: DefinitionFact | undefined): SymbolDef | undefined => (d ? toSymbolDef(path, d) : undefined);

  /** What `path` exports as `name`, following re-exports and import-then-export. */
  const exported = (path: string, name: string, depth = 0, seen = new Set<string>()): SymbolDef | undefined => {
    const key = `${path}\0${name}`;
    if (depth > maxDepth || seen.has(key)) return undefined;
    seen.add(key);
    const t = tablesOf(path);
    if (!t) return undefined;
    const facts = view.facts(path)!;
    let local = name;
    const exportFact = facts.exports.find((e) => e.name === name && e.local !== undefined);
    if (exportFact?.local) local = exportFact.local;
    const own = t.topLevel.get(local);
    if (own) return def(path, own);
    // Bound by an import in this file (`import { f } from './x'; export { f }`, Python __init__).
    const bound = bindingTarget(path, local, depth + 1, seen);
    if (bound) return bound;
    // `export { f } from './x'`, `export * from './x'`.
    for (const { fact, resolved } of t.imports) {
      if (fact.kind !== 'reexport' || !resolved) continue;
      const named = fact.names.find((n) => n.alias === name);
      if (named) {
        for (const target of resolved.targets) {
          const found = exported(target, named.name, depth + 1, seen);
          if (found) return found;
        }
      } else if (fact.wildcard && name !== 'default') {
        for (const target of resolved.targets) {
          const found = exported(target, name, depth + 1, seen);
          if (found) return found;
        }
      }
    }
    return undefined;
  };

  /** The definition a local name of `path` is bound to by one of its imports. */
  const bindingTarget = (path: string, local: string, depth = 0, seen = new Set<string>()): SymbolDef | undefined => {
    const t = tablesOf(path);
    if (!t) return undefined;
    for (const { fact, resolved } of t.imports) {
      if (!resolved || resolved.targets.length === 0 || fact.kind === 'reexport') continue;
      const named = fact.names.find((n) => n.alias === local);
      const imported = named ? named.name : fact.defaultBinding === local ? 'default' : undefined;
      if (imported === undefined) continue;
      for (const target of resolved.targets) {
        // Python `from pkg import mod` binds a module, not a definition: no symbol.
        const found = exported(target, imported, depth, seen);
        if (found) return found;
      }
    }
    return undefined;
  };

  /** Files a namespace-like receiver (`ns`, `mm`, Python `a.b`) of `path` stands for. */
  const namespaceTargets = (path: string, receiver: string): readonly string[] => {
    const t = tablesOf(path);
    if (!t) return [];
    for (const { fact, resolved } of t.imports) {
      if (!resolved || !fact.namespaceBinding) continue;
      const binding = fact.namespaceBinding;
      if (receiver === binding) return resolved.targets;
      // `import a.b` binds `a`; a use `a.b.f` has receiver `a.b`, the module imported.
      if (fact.kind === 'python-import' && !fact.names.length && receiver === fact.specifier) return resolved.targets;
    }
    return [];
  };

  const enclosingClass = (path: string, line: number): DefinitionFact | undefined => {
    const t = tablesOf(path);
    let best: DefinitionFact | undefined;
    for (const c of t?.classes ?? []) {
      if (c.startLine <= line && line <= c.endLine && (!best || c.startLine >= best.startLine)) best = c;
    }
    return best;
  };

  /** A class named by an expression like `X`, `ns.X`, `new X()`, `X()` as seen from `path`. */
  const classOf = (path: string, expression: string): SymbolDef | undefined => {
    const m = /^(?:new\s*)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:\(.*\))?$/s.exec(expression.trim());
    if (!m) return undefined;
    const parts = m[1]!.split('.');
    const name = parts.pop()!;
    const found =
      parts.length === 0
        ? (tablesOf(path)?.topLevel.get(name) ? def(path, tablesOf(path)!.topLevel.get(name)) : bindingTarget(path, name))
        : namespaceTargets(path, parts.join('.')).map((t) => exported(t, name)).find(Boolean);
    return found?.kind === 'class' ? found : undefined;
  };

  const nameOnly = (name: string, memberOnly: boolean): Resolved[] => {
    if (!byName) {
      byName = new Map();
      for (const path of view.filePaths()) {
        for (const d of view.facts(path)?.definitions ?? []) {
          if (!CALLABLE.has(d.kind)) continue;
          const list = byName.get(d.name) ?? [];
          list.push({ path, def: d });
          byName.set(d.name, list);
        }
      }
    }
    const candidates = (byName.get(name) ?? []).filter((c) => (memberOnly ? c.def.qualifiedName !== c.def.name : c.def.qualifiedName === c.def.name));
    if (candidates.length === 0 || candidates.length > maxCandidates) return [];
    return candidates.map((c) => ({ symbol: toSymbolDef(c.path, c.def), confidence: 'low' as const, via: 'name-only' as const }));
  };

  const resolve = (path: string, use: UseSite): readonly Resolved[] => {
    const t = tablesOf(path);
    if (!t) return [];
    const high = (symbol: SymbolDef | undefined, via: SymbolVia): Resolved[] | undefined => (symbol ? [{ symbol, confidence: 'high', via }] : undefined);
    if (use.receiver === undefined) {
      return (
        high(bindingTarget(path, use.name), 'import') ??
        high(def(path, t.topLevel.get(use.name)), 'same-file') ??
        (isImportedModuleBinding(t, use.name) ? [] : nameOnly(use.name, false))
      );
    }
    const receiver = use.receiver.trim();
    if (SELF_RECEIVERS.has(receiver)) {
      const cls = enclosingClass(path, use.line);
      const member = cls ? t.byQualified.get(`${cls.qualifiedName}.${use.name}`) : undefined;
      return high(def(path, member), 'same-file') ?? nameOnly(use.name, true);
    }
    const targets = namespaceTargets(path, receiver);
    if (targets.length > 0) {
      for (const target of targets) {
        const found = exported(target, use.name);
        if (found) return [{ symbol: found, confidence: 'high', via: 'import' }];
      }
      return [];
    }
    const cls = classOf(path, receiver);
    if (cls) {
      const member = tablesOf(cls.path)?.byQualified.get(`${cls.qualifiedName}.${use.name}`);
      if (member) return [{ symbol: toSymbolDef(cls.path, member), confidence: 'high', via: 'receiver' }];
    }
    return nameOnly(use.name, true);
  };

  return {
    resolve,
    exported: (path, name) => exported(path, name),
    definition: (path, qualifiedName) => def(path, tablesOf(path)?.byQualified.get(qualifiedName)),
  };
}

/** A local name bound to a whole module or an external package: not a definition of ours. */
function isImportedModuleBinding(t: FileTables, name: string): boolean {
  return t.imports.some(({ fact }) => fact.namespaceBinding === name || fact.defaultBinding === name || fact.names.some((n) => n.alias === name));
}
