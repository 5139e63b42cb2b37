/**
 * What counts as a semantic collision: a diagnostic the merge has that neither side nor the base
 * has. Diagnostics are matched by file, code and message (`messageKey`: its head, unions in one
 * order), with lines mapped by their content: a merged line is "the same line" as a side's when
 * its text is the same (the merge moves lines but keeps their text), so a line one side wrote
 * that the other side's change breaks has no counterpart, while an error already in the base or a
 * side (missing dependencies, a broken base, a side that does not compile alone) matches and never
 * counts. Matching is a multiset: two identical broken lines in the merge against one in a side
 * leave one new error.
 */

export interface Diag {
  /** Path in the tree. */
  readonly path: string;
  /** 1-based line in the tree it was found in. */
  readonly line: number;
  /** TypeScript's error number (2554), or pyright's rule (`reportCallIssue`). */
  readonly code: number | string;
  /** The compiler's message, its chain flattened with newlines. */
  readonly message: string;
  /** The text of its line, trimmed (the line's identity across trees). */
  readonly text: string;
  /** Offset in the file. */
  readonly start: number;
}

const keyOf = (d: Diag): string => `${d.path}\0${d.code}\0${messageKey(d.message)}\0${d.text}`;

/** TypeScript's mark of a union printed in part. */
const TRUNCATED = /\.\.\. \d+ more \.\.\./;

/**
 * A message as a matching key: its head (the chain's first line) with the members of every quoted
 * union sorted. TypeScript prints a union in the order its checker created the member types,
 * which depends on what it checked before: the merge's program (the whole project, the changed
 * files first) and a side's (the erring files only) print the same error as `type 'A | B'` and
 * `type 'B | A'`, and elaborate it on the first member each met (`…on type 'A'` against
 * `…on type 'B'`). The head names the types; the rest of the chain follows from them, in that
 * order. Sorting (inside brackets too: `Promise<A | B>`, `{ k: A | B; }`) makes them one key;
 * the message shown stays the compiler's. A union too long to print whole (`'"a" | "b" | ... 98
 * more ... | C'`) names the members it met first, so two programs show different ones (and a
 * different count): such a type is only "a truncated type" in the key; the code, the rest of the
 * message and the line's text still have to match.
 */
export function messageKey(message: string): string {
  const head = message.split('\n')[0]!;
  return head.replace(/'([^'\n]*)'/g, (_quoted, type: string) => (TRUNCATED.test(type) ? `'…'` : `'${sortUnions(type)}'`));
}

const CLOSE: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}', '<': '>' };

/** A type's text with the members of each union sorted, at every depth; unbalanced text as it is. */
function sortUnions(type: string): string {
  let i = 0;
  // One bracket level up to `close` (or the end): its unions sorted, in pieces between `,` and `;`.
  const level = (close: string | undefined): string | undefined => {
    const pieces: string[] = [];
    let members: string[] = [];
    let current = '';
    const endMember = () => (members.push(current), (current = ''));
    const endPiece = (sep: string) => {
      endMember();
      pieces.push(joinUnion(members) + sep);
      members = [];
    };
    while (i < type.length) {
      const c = type[i]!;
      if (c === close) {
        i++;
        endPiece('');
        return pieces.join('');
      }
      if (c === ')' || c === ']' || c === '}' || (c === '>' && type[i - 1] !== '=')) return undefined;
      if (c === '"' || c === '`') {
        const end = stringEnd(type, i);
        current += type.slice(i, end);
        i = end;
      } else if (CLOSE[c] && !(c === '<' && type[i + 1] === '=')) {
        i++;
        const inner = level(CLOSE[c]);
        if (inner === undefined) return undefined;
        current += c + inner + CLOSE[c];
      } else if (type.startsWith(' | ', i)) {
        endMember();
        i += 3;
      } else if (c === ',' || c === ';') {
        i++;
        endPiece(c);
      } else {
        current += c;
        i++;
      }
    }
    if (close !== undefined) return undefined;
    endPiece('');
    return pieces.join('');
  };
  return level(undefined) ?? type;
}

/** A union's members sorted; a member that names what follows (`k: A`, `readonly k?: A`) keeps its name first. */
function joinUnion(members: string[]): string {
  if (members.length < 2) return members.join('');
  const head = /^(\s*(?:readonly\s+)?[\w$]+\??:\s)/.exec(members[0]!)?.[1] ?? '';
  const rest = [members[0]!.slice(head.length), ...members.slice(1)];
  return head + rest.sort().join(' | ');
}

/** The index after a string literal starting at `from` (its quote), escapes skipped. */
function stringEnd(text: string, from: number): number {
  const quote = text[from];
  for (let j = from + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === quote) return j + 1;
  }
  return text.length;
}

/** The merge's diagnostics that none of `others` (base, side a, side b) has, in the merge's order. */
export function newErrors(merge: readonly Diag[], others: readonly (readonly Diag[])[]): Diag[] {
  // A key's count in the merge above its largest count in any other tree is new.
  const allowed = new Map<string, number>();
  for (const list of others) {
    const counts = new Map<string, number>();
    for (const d of list) counts.set(keyOf(d), (counts.get(keyOf(d)) ?? 0) + 1);
    for (const [k, n] of counts) allowed.set(k, Math.max(allowed.get(k) ?? 0, n));
  }
  const out: Diag[] = [];
  for (const d of merge) {
    const k = keyOf(d);
    const left = allowed.get(k) ?? 0;
    if (left > 0) allowed.set(k, left - 1);
    else out.push(d);
  }
  return out;
}

/**
 * `TS2554 Expected 2 arguments, but got 1` (or `reportCallIssue Expected 1 positional argument`):
 * the code and the message's first line, without its full stop.
 */
export function describeDiag(d: Diag): string {
  const code = typeof d.code === 'number' ? `TS${d.code}` : d.code;
  return `${code} ${d.message.split('\n')[0]!.replace(/\.$/, '')}`;
}

/** The four trees of a pair, as listings (path → blob id). */
export interface PairListings {
  readonly base: ReadonlyMap<string, string>;
  readonly a: ReadonlyMap<string, string>;
  readonly b: ReadonlyMap<string, string>;
  readonly merge: ReadonlyMap<string, string>;
}

/** Paths whose blob differs between two listings (added, changed or removed). */
export function changedPaths(from: ReadonlyMap<string, string>, to: ReadonlyMap<string, string>): Set<string> {
  const out = new Set<string>();
  for (const [p, id] of to) if (from.get(p) !== id) out.add(p);
  for (const p of from.keys()) if (!to.has(p)) out.add(p);
  return out;
}

/**
 * The files to check: those either side changed (`changed`, in the merge), and unchanged files
 * that import (within `depth` steps, by `importers`: file → files importing it) changes of both
 * sides. An unchanged file whose imports reach the changes of one side only reads in the merge
 * what it reads in that side's tree, so its errors are that side's, never new.
 */
export function affectedFiles(
  changed: readonly string[],
  trees: PairListings,
  importers: ReadonlyMap<string, ReadonlySet<string>>,
  depth: number,
  keep: (rel: string) => boolean = () => true,
): Set<string> {
  const affected = new Set(changed);
  if (depth <= 0 || changed.length === 0) return affected;
  const reach = (from: readonly string[]): Set<string> => {
    const seen = new Set<string>(from);
    let frontier = [...from];
    for (let step = 0; step < depth && frontier.length > 0; step++) {
      const next: string[] = [];
      for (const p of frontier) for (const i of importers.get(p) ?? []) if (!seen.has(i) && keep(i)) (seen.add(i), next.push(i));
      frontier = next;
    }
    return seen;
  };
  const bySide = (side: ReadonlyMap<string, string>) => changed.filter((p) => side.get(p) !== trees.base.get(p));
  const ofB = reach(bySide(trees.b));
  for (const f of reach(bySide(trees.a))) if (ofB.has(f)) affected.add(f);
  return affected;
}

/** Which side wrote a merged line that breaks (its new code), and the line in that side's own version. */
export function readerOf(
  d: Diag,
  trees: PairListings,
  text: (id: string) => string | undefined,
): { reader?: 'a' | 'b'; readerLine?: number } {
  const changedBy = (side: 'a' | 'b') => trees[side].get(d.path) !== trees.base.get(d.path);
  const textOf = (side: 'a' | 'b' | 'base'): string[] | undefined => {
    const id = trees[side].get(d.path);
    return id ? text(id)?.split(/\r?\n/) : undefined;
  };
  const has = (lines: string[] | undefined) => !!lines?.some((l) => l.trim() === d.text);
  const inA = changedBy('a') && has(textOf('a'));
  const inB = changedBy('b') && has(textOf('b'));
  let reader: 'a' | 'b' | undefined;
  if (inA && !inB) reader = 'a';
  else if (inB && !inA) reader = 'b';
  else if (inA && inB) reader = has(textOf('base')) ? undefined : 'b';
  else if (changedBy('a') !== changedBy('b')) reader = changedBy('a') ? 'a' : 'b';
  const readerLine = reader ? nearestLine(textOf(reader), d.text, d.line) : undefined;
  return { ...(reader ? { reader } : {}), ...(readerLine ? { readerLine } : {}) };
}

function nearestLine(lines: string[] | undefined, text: string, near: number): number | undefined {
  if (!lines) return undefined;
  let best: number | undefined;
  lines.forEach((l, i) => {
    if (l.trim() === text && (best === undefined || Math.abs(i + 1 - near) < Math.abs(best - near))) best = i + 1;
  });
  return best;
}
