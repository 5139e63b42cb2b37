/**
 * Calls from the calls query's matches: function, method and constructor calls and rendered JSX
 * components, each with its callee, receiver and the qualified name of the caller.
 */
import type { CallFact } from '../facts.js';
import type { Capture, Match } from './matches.js';
import { clip, identifierText, MAX_CALLEE, MAX_RECEIVER, oneLine, receiverText, rolesOf } from './roles.js';
import { enclosingScopes, type ScopeMemo } from './scopes.js';

export function collectCalls(matches: readonly Match[], python: boolean, scopeMemo: ScopeMemo, source: string | undefined): CallFact[] {
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
