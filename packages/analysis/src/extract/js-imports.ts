/**
 * Imports and exports of JavaScript and TypeScript from the imports query's matches
 * (`queries/ecma/imports.scm` and each language's own): static, type-only, re-exported, required
 * and dynamic imports with the names they bind; local, default and re-exported exports.
 */
import type { ExportFact, ImportedName, ImportFact } from '../facts.js';
import type { Match } from './matches.js';
import { capture, insideFunction, line, rolesOf, type SyntaxNode } from './roles.js';

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

export function jsImports(matches: readonly Match[]): ImportFact[] {
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

export function jsExports(matches: readonly Match[], imports: readonly ImportFact[]): ExportFact[] {
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
