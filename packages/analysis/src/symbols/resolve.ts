/**
 * Name resolution from a use to its definition, for the symbols and call-graph channels. A symbol
 * is identified by (defining file, qualified name): `src/config.ts#parseConfig`, `py/m.py#A.f`.
 *
 * Imports, re-exports and module bindings are resolved by the one name resolver of the analysis
 * (`createNameResolver` in `graph/symbols.ts`: named, default and namespace imports, `export … from`
 * and `export *` chains, `require` destructuring, Python `from m import f` and `import a.b`). On
 * top of it this adds what the channels need:
 *   - `this.m` / `self.m` / `cls.m` resolve to the member of the class enclosing the use;
 *   - `new X().m` / `X().m` resolve to the member of class X when X resolves;
 *   - otherwise, name only: definitions of that name elsewhere — marked low confidence, and only
 *     when there are few candidates (a common name resolved by name alone is noise).
 * A name bound by an import (resolved or external) never falls back to a name-only guess, so two
 * unrelated modules that both define `parse` are not confused.
 */
import { parseSymbolId } from '@airspace/core';
import type { DefinitionFact, DefinitionKind } from '../facts.js';
import { createNameResolver } from '../graph/symbols.js';
import { baseView, type AgentOverlay, type IndexView } from '../indexing/view.js';

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
}

export interface SymbolResolverOptions {
  /** At most this many candidates for a name-only fallback; more means the name is too common. */
  readonly maxNameOnlyCandidates?: number;
}

const SELF_RECEIVERS = new Set(['this', 'self', 'cls']);
const CALLABLE: ReadonlySet<DefinitionKind> = new Set(['function', 'method', 'class', 'variable', 'field']);

export function symbolId(path: string, qualifiedName: string): string {
  return `${path}#${qualifiedName}`;
}

export function toSymbolDef(path: string, d: DefinitionFact): SymbolDef {
  return {
    id: symbolId(path, d.qualifiedName),
    path,
    qualifiedName: d.qualifiedName,
    kind: d.kind,
    startLine: d.startLine,
    endLine: d.endLine,
    line: d.line,
  };
}

type NamedDefinition = { readonly path: string; readonly def: DefinitionFact };
type DefinitionsByName = Map<string, NamedDefinition[]>;

function indexByName(view: IndexView, paths: Iterable<string>): DefinitionsByName {
  const byName: DefinitionsByName = new Map();
  for (const path of paths) {
    for (const d of view.facts(path)?.definitions ?? []) {
      if (!CALLABLE.has(d.kind)) continue;
      const list = byName.get(d.name);
      if (list) list.push({ path, def: d });
      else byName.set(d.name, [{ path, def: d }]);
    }
  }
  return byName;
}

/**
 * Callable definitions by name, for the name-only fallback. The whole index's table is built once
 * per base index and shared by every scan; an agent's view patches it with its changed files
 * (an overlay's `changed`) instead of rebuilding it for every agent on every scan.
 */
const baseByName = new WeakMap<IndexView['index'], DefinitionsByName>();
const ownByName = new WeakMap<IndexView, DefinitionsByName>();

function definitionsNamed(view: IndexView, name: string): readonly NamedDefinition[] {
  const index = view.index;
  let base = baseByName.get(index);
  if (!base) baseByName.set(index, (base = indexByName(baseView(index), index.files.keys())));
  const changed = (view as Partial<AgentOverlay>).changed;
  if (!changed || changed.size === 0) return base.get(name) ?? [];
  let own = ownByName.get(view);
  if (!own) ownByName.set(view, (own = indexByName(view, changed)));
  const fromBase = base.get(name) ?? [];
  return [...fromBase.filter((c) => !changed.has(c.path)), ...(own.get(name) ?? [])];
}

export function createSymbolResolver(view: IndexView, options: SymbolResolverOptions = {}): SymbolResolver {
  const maxCandidates = options.maxNameOnlyCandidates ?? 3;
  const names = createNameResolver(view);
  const definitions = new Map<string, Map<string, DefinitionFact>>();

  const definitionsOf = (path: string): Map<string, DefinitionFact> => {
    let m = definitions.get(path);
    if (!m) {
      m = new Map();
      for (const d of view.facts(path)?.definitions ?? []) if (!m.has(d.qualifiedName)) m.set(d.qualifiedName, d);
      definitions.set(path, m);
    }
    return m;
  };

  /** The definition behind a symbol id, or undefined for module scopes and unknown ids. */
  const definitionOf = (id: string | undefined): SymbolDef | undefined => {
    const parsed = id ? parseSymbolId(id) : undefined;
    if (!parsed) return undefined;
    const d = definitionsOf(parsed.path).get(parsed.name);
    return d ? toSymbolDef(parsed.path, d) : undefined;
  };

  const enclosingClass = (path: string, line: number): DefinitionFact | undefined => {
    let best: DefinitionFact | undefined;
    for (const d of definitionsOf(path).values()) {
      if (d.kind === 'class' && d.startLine <= line && line <= d.endLine && (!best || d.startLine >= best.startLine)) best = d;
    }
    return best;
  };

  /** A class named by an expression like `X`, `ns.X`, `new X()`, `X()` as seen from `path`. */
  const classOf = (path: string, expression: string): SymbolDef | undefined => {
    const m = /^(?:new\s*)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:\(.*\))?$/s.exec(expression.trim());
    if (!m) return undefined;
    const parts = m[1]!.split('.');
    const name = parts.pop()!;
    const found = definitionOf(parts.length === 0 ? names.resolveName(path, name) : names.resolveMember(path, parts.join('.'), name));
    return found?.kind === 'class' ? found : undefined;
  };

  /** Member `name` of the class `owner` defined in `path`. */
  const member = (owner: { readonly qualifiedName: string }, path: string, name: string): SymbolDef | undefined => {
    const d = definitionsOf(path).get(`${owner.qualifiedName}.${name}`);
    return d ? toSymbolDef(path, d) : undefined;
  };

  /** Is `name` bound by one of the file's imports (resolved or external)? Then it is not ours to guess. */
  const importedName = (path: string, name: string): boolean =>
    (view.facts(path)?.imports ?? []).some(
      (i) => i.namespaceBinding === name || i.defaultBinding === name || i.names.some((n) => n.alias === name),
    );

  const nameOnly = (name: string, memberOnly: boolean): Resolved[] => {
    const candidates = definitionsNamed(view, name).filter((c) =>
      memberOnly ? c.def.qualifiedName !== c.def.name : c.def.qualifiedName === c.def.name,
    );
    if (candidates.length === 0 || candidates.length > maxCandidates) return [];
    return candidates.map((c) => ({ symbol: toSymbolDef(c.path, c.def), confidence: 'low' as const, via: 'name-only' as const }));
  };

  const high = (symbol: SymbolDef | undefined, via: SymbolVia): Resolved[] | undefined =>
    symbol ? [{ symbol, confidence: 'high', via }] : undefined;

  const resolve = (path: string, use: UseSite): readonly Resolved[] => {
    if (!view.facts(path)) return [];
    if (use.receiver === undefined) {
      const found = definitionOf(names.resolveName(path, use.name));
      if (found) return [{ symbol: found, confidence: 'high', via: found.path === path ? 'same-file' : 'import' }];
      return importedName(path, use.name) ? [] : nameOnly(use.name, false);
    }
    const receiver = use.receiver.trim();
    if (SELF_RECEIVERS.has(receiver)) {
      const cls = enclosingClass(path, use.line);
      return high(cls ? member(cls, path, use.name) : undefined, 'same-file') ?? nameOnly(use.name, true);
    }
    const viaImport = definitionOf(names.resolveMember(path, receiver, use.name));
    if (viaImport) return [{ symbol: viaImport, confidence: 'high', via: viaImport.path === path ? 'same-file' : 'import' }];
    // A namespace import whose module does not export the name: a known module, not a guess.
    if (names.bindingsOf(path).get(receiver) && 'namespace' in names.bindingsOf(path).get(receiver)!) return [];
    const cls = classOf(path, receiver);
    if (cls) return high(member(cls, cls.path, use.name), 'receiver') ?? [];
    return nameOnly(use.name, true);
  };

  return { resolve };
}
