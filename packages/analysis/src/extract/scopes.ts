/**
 * Names of the classes and functions enclosing a node (`C.m`, a callback named by the variable it
 * is assigned to), remembered per file, so definitions and calls are qualified by their scope.
 */
import type { SyntaxNode } from './roles.js';

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
export type ScopeMemo = Map<number, readonly string[]>;

export function enclosingScopes(node: SyntaxNode, memo: ScopeMemo): readonly string[] {
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

export function insideClass(node: SyntaxNode): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (CLASS_TYPES.has(p.type)) return true;
    if (p.type === 'function_definition' || p.type === 'function_declaration' || p.type === 'arrow_function') return false;
  }
  return false;
}
