/**
 * Reading a query match: its role capture (`<prefix><kind>`) with the `name` and `receiver`
 * captures, the text of a capture read from the source, and the small node and text helpers the
 * readers (`js-imports.ts`, `python-imports.ts`, `definitions.ts`, `references.ts`, `calls.ts`) share.
 */
import type ParserType from 'tree-sitter';
import type { Capture, Match } from './matches.js';

export type SyntaxNode = ParserType.SyntaxNode;

export const MAX_RECEIVER = 120;
export const MAX_CALLEE = 200;

export const line = (n: SyntaxNode): number => n.startPosition.row + 1;
export const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
export const oneLine = (s: string): string => s.replace(/\s+/g, '');

export function capture(match: Match, name: string): SyntaxNode | undefined {
  for (const c of match.captures) if (c.name === name) return c.node;
  return undefined;
}

/** A match's role capture (named `<prefix><kind>`, e.g. `call.method`) with its `name` and `receiver` captures. */
export interface Roles {
  readonly at: Capture;
  readonly kind: string;
  readonly name: Capture | undefined;
  readonly receiver: Capture | undefined;
}

export function rolesOf(match: Match, prefix: string): Roles | undefined {
  let at: Capture | undefined;
  let name: Capture | undefined;
  let receiver: Capture | undefined;
  for (const c of match.captures) {
    if (c.name === 'name') name = c;
    else if (c.name === 'receiver') receiver = c;
    else if (!at && c.name.startsWith(prefix)) at = c;
  }
  return at && { at, kind: at.name.slice(prefix.length), name, receiver };
}

/** Whether a node sits inside a function body (so it runs when the function is called, not at load). */
export function insideFunction(node: SyntaxNode, functions: ReadonlySet<string>): boolean {
  for (let p = node.parent; p; p = p.parent) if (functions.has(p.type)) return true;
  return false;
}

/** A position as one number (rows and columns of any real file fit), so sets of sites allocate no strings. */
export const siteKey = (row: number, column: number): number => row * 0x1000000 + column;

/** The identifier starting at the capture: ASCII name characters read from the source, else the node's text. */
export function identifierText(c: Capture, source: string | undefined): string {
  if (source === undefined) return c.node.text;
  const start = c.startIndex;
  let end = start;
  for (;;) {
    const ch = source.charCodeAt(end);
    if ((ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90) || (ch >= 48 && ch <= 57) || ch === 95 || ch === 36) end++;
    else if (ch >= 128 || ch === 92)
      return c.node.text; // non-ASCII or an escape: let the tree say
    else break;
  }
  return end > start ? source.slice(start, end) : c.node.text;
}

/**
 * A member's receiver (`a.b` in `a.b.c`): the source from the receiver's start to the member's
 * name less the `.` or `?.` between them, else the node's text when a comment may sit there.
 */
export function receiverText(receiver: Capture, name: Capture, source: string | undefined): string {
  if (source === undefined || name.startIndex <= receiver.startIndex) return receiver.node.text;
  let text = source.slice(receiver.startIndex, name.startIndex).trimEnd();
  if (text.endsWith('?.')) text = text.slice(0, -2);
  else if (text.endsWith('.')) text = text.slice(0, -1);
  else return receiver.node.text;
  return /[/#]/.test(text) ? receiver.node.text : text;
}
