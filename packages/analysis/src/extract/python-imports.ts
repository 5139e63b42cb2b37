/**
 * Imports of Python from the imports query's matches (`queries/python/imports.scm`): `import a.b
 * as c` and `from .m import x`, marked `guarded` inside `if TYPE_CHECKING:` and `lazy` inside a
 * function body.
 */
import type { ImportedName, ImportFact } from '../facts.js';
import type { Match } from './matches.js';
import { capture, insideFunction, line, oneLine, rolesOf } from './roles.js';

const PYTHON_FUNCTIONS = new Set(['function_definition']);

export function pythonImports(matches: readonly Match[]): ImportFact[] {
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
