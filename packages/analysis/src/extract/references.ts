/**
 * References from the references query's matches: every identifier and member use, less the
 * definition sites and the names an import binds.
 */
import type { ReferenceFact } from '../facts.js';
import type { Capture, Match } from './matches.js';
import { clip, identifierText, MAX_RECEIVER, oneLine, receiverText, rolesOf, siteKey, type SyntaxNode } from './roles.js';

/**
 * References are most of the captures: their names and receivers are read from `source` by
 * their starts (see `matches.ts`) when it is given, and from the nodes otherwise.
 */
export function collectReferences(
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
