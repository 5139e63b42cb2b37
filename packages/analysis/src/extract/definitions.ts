/**
 * Definitions from the definitions query's matches: functions (a variable whose value is a
 * function, or wraps one, counts as one), classes, methods, fields and types, qualified by their
 * enclosing scopes, with whether they are exported.
 */
import type { DefinitionFact, DefinitionKind, ExportFact } from '../facts.js';
import type { Capture, Match } from './matches.js';
import { identifierText, rolesOf, siteKey, type SyntaxNode } from './roles.js';
import { enclosingScopes, insideClass, type ScopeMemo } from './scopes.js';

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

export function collectDefinitions(
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
