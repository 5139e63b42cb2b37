/**
 * What counts as a semantic collision: a diagnostic the merge has that neither side nor the base
 * has. Diagnostics are matched by file, code and message, with lines mapped by their content: a
 * merged line is "the same line" as a side's when its text is the same (the merge moves lines
 * but keeps their text), so a line one side wrote that the other side's change breaks has no
 * counterpart, while an error already in the base or a side (missing dependencies, a broken
 * base, a side that does not compile alone) matches and never counts. Matching is a multiset:
 * two identical broken lines in the merge against one in a side leave one new error.
 */

export interface Diag {
  /** Path in the tree. */
  readonly path: string;
  /** 1-based line in the tree it was found in. */
  readonly line: number;
  readonly code: number;
  /** The compiler's message, its chain flattened with newlines. */
  readonly message: string;
  /** The text of its line, trimmed (the line's identity across trees). */
  readonly text: string;
  /** Offset in the file. */
  readonly start: number;
}

const keyOf = (d: Diag): string => `${d.path}\0${d.code}\0${d.message}\0${d.text}`;

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

/** `TS2554 Expected 2 arguments, but got 1`: the code and the message's first line, without its full stop. */
export function describeDiag(d: Diag): string {
  return `TS${d.code} ${d.message.split('\n')[0]!.replace(/\.$/, '')}`;
}
