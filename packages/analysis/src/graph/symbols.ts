/**
 * Symbols across files: what each file exports (through re-export chains), what each local name
 * of a file is bound to (imports, requires, Python `from … import`), and from those the symbol
 * graph (uses) and the call graph. A symbol id is `path#qualifiedName` (`src/a.ts#Service.run`);
 * `path#<module>` stands for a file's top level.
 *
 * Resolution is by name, as far as the facts allow: `ns.f` through a namespace import,
 * `self.m`/`this.m` inside a class, `require` destructuring, `from m import f`, `import m; m.f`,
 * `export … from` and `export *` chains. What cannot be resolved is left out, never guessed.
 */
import { parseSymbolId } from '@airspace/core';
import { DirectedGraph } from 'graphology';
import type { DefinitionFact, DefinitionKind } from '../facts.js';
import type { IndexView } from '../indexing/view.js';

type SymbolId = string;

const symbolId = (path: string, qualifiedName: string): SymbolId => `${path}#${qualifiedName}`;
const MODULE_SCOPE = '<module>';

export interface SymbolNodeAttributes {
  readonly path: string;
  readonly qualifiedName: string;
  readonly kind: DefinitionKind | 'module';
  readonly exported: boolean;
  readonly startLine: number;
  readonly endLine: number;
}

export interface UseEdgeAttributes {
  /** Lines (in the user's file) where the symbol is used. */
  readonly lines: number[];
}

export type SymbolGraph = DirectedGraph<SymbolNodeAttributes, UseEdgeAttributes>;
export type CallGraph = DirectedGraph<SymbolNodeAttributes, UseEdgeAttributes>;

/** What a local name of a file stands for. */
export type Binding = { readonly module: string; readonly name: string } | { readonly module: string; readonly namespace: true };

export interface NameResolver {
  /** Exported name → defining symbol, following re-exports. */
  exportsOf(path: string): ReadonlyMap<string, SymbolId>;
  /** Local names bound by imports in a file (dotted for Python `import a.b`). */
  bindingsOf(path: string): ReadonlyMap<string, Binding>;
  /** The symbol a name used in `path` refers to: a top-level definition of the file or an import. */
  resolveName(path: string, name: string): SymbolId | undefined;
  /** `receiver.name` in `path` (namespace imports, imported classes). */
  resolveMember(path: string, receiver: string, name: string): SymbolId | undefined;
  /** The innermost definition of `path` containing `line`, or the module scope. */
  enclosing(path: string, line: number): SymbolId;
}

export function createNameResolver(view: IndexView): NameResolver {
  const exportsCache = new Map<string, Map<string, SymbolId>>();
  const bindingsCache = new Map<string, Map<string, Binding>>();
  const topLevel = new Map<string, Map<string, DefinitionFact>>();

  const definitionsByName = (path: string): Map<string, DefinitionFact> => {
    let m = topLevel.get(path);
    if (m) return m;
    m = new Map();
    for (const d of view.facts(path)?.definitions ?? []) m.set(d.qualifiedName, d);
    topLevel.set(path, m);
    return m;
  };

  const bindingsOf = (path: string): Map<string, Binding> => {
    let b = bindingsCache.get(path);
    if (b) return b;
    b = importBindings(view, path);
    bindingsCache.set(path, b);
    return b;
  };

  const exportsOf = (path: string, seen = new Set<string>()): Map<string, SymbolId> => {
    const cached = exportsCache.get(path);
    if (cached) return cached;
    const out = new Map<string, SymbolId>();
    if (seen.has(path)) return out; // an export cycle resolves to what is known so far
    seen.add(path);
    const facts = view.facts(path);
    const file = view.file(path);
    if (!facts || !file) return out;
    const defs = definitionsByName(path);
    const local = (name: string): SymbolId | undefined => {
      if (defs.has(name)) return symbolId(path, name);
      const bound = bindingsOf(path).get(name);
      if (bound && 'name' in bound) return exportsOf(bound.module, seen).get(bound.name);
      return undefined;
    };
    if (facts.language === 'python') {
      for (const d of facts.definitions) if (d.exported && !d.qualifiedName.includes('.')) out.set(d.name, symbolId(path, d.name));
      // Names imported into a module (typically `__init__.py`) are reachable from it.
      for (const [alias, bound] of bindingsOf(path))
        if (!out.has(alias) && 'name' in bound) {
          const s = exportsOf(bound.module, seen).get(bound.name);
          if (s) out.set(alias, s);
        }
    } else {
      for (const d of facts.definitions) if (d.exported && !d.qualifiedName.includes('.')) out.set(d.name, symbolId(path, d.name));
      for (const e of facts.exports) {
        if (e.kind === 'reexport' || !e.local) continue;
        const s = local(e.local);
        if (s) out.set(e.name, s);
      }
    }
    facts.imports.forEach((imp, i) => {
      if (imp.kind !== 'reexport' && !(imp.kind === 'python-from' && imp.wildcard)) return;
      const module = file.imports[i]?.targets[0];
      if (!module) return;
      const theirs = exportsOf(module, seen);
      for (const n of imp.names) {
        if (n.name === '*') continue; // `export * as ns`: a namespace, not a symbol
        const s = theirs.get(n.name);
        if (s) out.set(n.alias, s);
      }
      if (imp.wildcard) for (const [name, s] of theirs) if (name !== 'default' && !out.has(name)) out.set(name, s);
    });
    exportsCache.set(path, out);
    return out;
  };

  const resolveName = (path: string, name: string): SymbolId | undefined => {
    if (definitionsByName(path).has(name)) return symbolId(path, name);
    const bound = bindingsOf(path).get(name);
    if (!bound) return undefined;
    if ('namespace' in bound) return symbolId(bound.module, MODULE_SCOPE);
    return exportsOf(bound.module).get(bound.name);
  };

  const resolveMember = (path: string, receiver: string, name: string): SymbolId | undefined => {
    const bound = bindingsOf(path).get(receiver);
    if (bound && 'namespace' in bound) return exportsOf(bound.module).get(name);
    const owner = resolveName(path, receiver);
    const parsed = owner ? parseSymbolId(owner) : undefined;
    if (!parsed || parsed.name === MODULE_SCOPE) return undefined;
    const { path: ownerPath, name: ownerName } = parsed;
    return definitionsByName(ownerPath).has(`${ownerName}.${name}`) ? symbolId(ownerPath, `${ownerName}.${name}`) : undefined;
  };

  const enclosing = (path: string, line: number): SymbolId => innermostDefinition(view, path, line);

  return { exportsOf: (p) => exportsOf(p), bindingsOf, resolveName, resolveMember, enclosing };
}

/** The local names a file's imports bind (IndexedFile.imports are the facts' imports, resolved, in the same order). */
function importBindings(view: IndexView, path: string): Map<string, Binding> {
  const b = new Map<string, Binding>();
  const facts = view.facts(path);
  const file = view.file(path);
  if (!facts || !file) return b;
  facts.imports.forEach((imp, i) => {
    if (imp.kind === 'reexport') return;
    const targets = file.imports[i]?.targets ?? [];
    const module = targets[0];
    if (!module) return;
    if (imp.defaultBinding) b.set(imp.defaultBinding, { module, name: 'default' });
    if (imp.namespaceBinding) {
      // `import a.b.c` binds `a` but is used as `a.b.c.f`: the dotted name stands for the module.
      const dottedWithoutAlias =
        imp.kind === 'python-import' && imp.specifier.includes('.') && imp.namespaceBinding === imp.specifier.split('.')[0];
      b.set(dottedWithoutAlias ? imp.specifier : imp.namespaceBinding, { module, namespace: true });
    }
    for (const n of imp.names) {
      if (imp.kind === 'python-from') {
        // `from pkg import sub` binds a submodule when one resolved for that name.
        const sub = targets.find((t) => t.endsWith(`/${n.name}.py`) || t.endsWith(`/${n.name}/__init__.py`) || t === `${n.name}.py`);
        b.set(n.alias, sub ? { module: sub, namespace: true } : { module, name: n.name });
      } else b.set(n.alias, { module, name: n.name });
    }
  });
  return b;
}

/** The innermost definition of `path` (not a variable, field or type) containing `line`, or the module scope. */
function innermostDefinition(view: IndexView, path: string, line: number): SymbolId {
  let best: DefinitionFact | undefined;
  for (const d of view.facts(path)?.definitions ?? []) {
    if (d.kind === 'variable' || d.kind === 'field' || d.kind === 'type' || d.kind === 'interface') continue;
    if (d.startLine <= line && line <= d.endLine && (!best || d.endLine - d.startLine <= best.endLine - best.startLine)) best = d;
  }
  return symbolId(path, best?.qualifiedName ?? MODULE_SCOPE);
}

function addNodes(graph: SymbolGraph, view: IndexView, path: string): void {
  const facts = view.facts(path);
  if (!facts) return;
  graph.mergeNode(symbolId(path, MODULE_SCOPE), {
    path,
    qualifiedName: MODULE_SCOPE,
    kind: 'module',
    exported: false,
    startLine: 1,
    endLine: facts.lineCount,
  });
  for (const d of facts.definitions) {
    graph.mergeNode(symbolId(path, d.qualifiedName), {
      path,
      qualifiedName: d.qualifiedName,
      kind: d.kind,
      exported: d.exported,
      startLine: d.startLine,
      endLine: d.endLine,
    });
  }
}

function addUse(graph: SymbolGraph, from: SymbolId, to: SymbolId, line: number): void {
  if (!graph.hasNode(to) || !graph.hasNode(from)) return;
  if (graph.hasEdge(from, to)) graph.getEdgeAttributes(from, to).lines.push(line);
  else graph.addDirectedEdge(from, to, { lines: [line] });
}

/**
 * The symbol graph: a node per definition (and per file's module scope), an edge from the
 * innermost definition using a symbol of another file to that symbol.
 */
export function buildSymbolGraph(view: IndexView, resolver: NameResolver = createNameResolver(view)): SymbolGraph {
  const graph: SymbolGraph = new DirectedGraph({ allowSelfLoops: false });
  const paths = [...view.filePaths()];
  for (const p of paths) addNodes(graph, view, p);
  for (const path of paths) {
    const facts = view.facts(path)!;
    const bindings = resolver.bindingsOf(path);
    if (bindings.size === 0) continue;
    for (const r of facts.references) {
      let target: SymbolId | undefined;
      if (r.receiver !== undefined) {
        if (bindings.has(r.receiver)) target = resolver.resolveMember(path, r.receiver, r.name);
      } else if (bindings.has(r.name)) target = resolver.resolveName(path, r.name);
      if (target && !target.startsWith(`${path}#`)) addUse(graph, resolver.enclosing(path, r.line), target, r.line);
    }
  }
  return graph;
}

/**
 * The call graph: an edge caller → callee per resolved call (functions, methods, classes for
 * `new` and rendered JSX components), within and across files.
 */
export function buildCallGraph(view: IndexView, resolver: NameResolver = createNameResolver(view)): CallGraph {
  const graph: CallGraph = new DirectedGraph({ allowSelfLoops: true });
  const paths = [...view.filePaths()];
  for (const p of paths) addNodes(graph, view, p);
  for (const path of paths) {
    const facts = view.facts(path)!;
    const defs = new Set(facts.definitions.map((d) => d.qualifiedName));
    for (const c of facts.calls) {
      const caller = symbolId(path, defs.has(c.caller) ? c.caller : MODULE_SCOPE);
      let callee: SymbolId | undefined;
      if (c.receiver === undefined) {
        // The nearest enclosing scope that defines the name, then the file's top level / imports.
        const scopes = c.caller === MODULE_SCOPE ? [] : c.caller.split('.');
        for (let k = scopes.length; k > 0 && !callee; k--) {
          const q = [...scopes.slice(0, k), c.name].join('.');
          if (defs.has(q)) callee = symbolId(path, q);
        }
        callee ??= resolver.resolveName(path, c.name);
      } else if (c.receiver === 'this' || c.receiver === 'self' || c.receiver === 'cls') {
        const scopes = c.caller.split('.');
        for (let k = scopes.length - 1; k > 0 && !callee; k--) {
          const q = [...scopes.slice(0, k), c.name].join('.');
          if (defs.has(q)) callee = symbolId(path, q);
        }
      } else callee = resolver.resolveMember(path, c.receiver, c.name);
      if (callee && !callee.endsWith(`#${MODULE_SCOPE}`)) addUse(graph, caller, callee, c.line);
    }
  }
  return graph;
}
