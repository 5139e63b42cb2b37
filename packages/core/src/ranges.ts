/**
 * Range-set algebra on base coordinates. Every operation is O(n log n) in the number of ranges
 * (a sort, then a sweep), never O(lines): a range `[1, 1_000_000]` costs the same as `[1, 1]`.
 *
 * Representation (fixed in model.ts): a Range is an inclusive, 1-based `[start, end]` covering
 * `end − start + 1` lines; a pure insertion after base line k is the zero-width range `[k + 1, k]`
 * (`[1, 0]` inserts at the top of the file), as in git's `@@ -k,0` hunk headers.
 *
 * The conflict rule is git's (xdiff's merge): map a change `[s, e]` to the closed interval
 * `[s − 1, e]` (a zero-width insertion `[k + 1, k]` maps to the point `[k, k]`); two changes
 * conflict iff their closed intervals intersect. So
 *   - overlapping changes conflict, and so do touching (adjacent) ones: `[1,3]` × `[4,6]`;
 *   - an insertion conflicts with a change it touches or sits inside: `[4,3]` × `[4,6]`, `[7,6]` × `[4,6]`;
 *   - two insertions conflict only at the same point: `[4,3]` × `[4,3]`;
 *   - a one-line gap is clean: `[1,3]` × `[5,6]` (line 4 separates them).
 */
import type { Problem } from './channel.js';
import { invalidRange } from './errors.js';
import type { Hunk, Range } from './model.js';

/** A pair of changes, one from each side, that git would report as a conflict. */
export interface RangeConflict {
  readonly a: Range;
  readonly b: Range;
}

/** True for a zero-width range `[k + 1, k]` (a pure insertion after line k). */
export function isInsertion(range: Range): boolean {
  return range[1] === range[0] - 1;
}

/** A range in words for evidence: `line 4`, `lines 4–6`, `an insertion after line 3`. */
export function describeRange(range: Range): string {
  if (isInsertion(range)) return range[1] === 0 ? 'an insertion at the top' : `an insertion after line ${range[1]}`;
  return range[0] === range[1] ? `line ${range[0]}` : `lines ${range[0]}–${range[1]}`;
}

/** Number of base lines a range covers (0 for an insertion point). */
export function rangeLength(range: Range): number {
  return Math.max(0, range[1] - range[0] + 1);
}

/** A valid range has integral ends, `start ≥ 1` and `end ≥ start − 1`. */
export function isValidRange(range: unknown): range is Range {
  if (!Array.isArray(range) || range.length !== 2) return false;
  const [s, e] = range as [unknown, unknown];
  return Number.isInteger(s) && Number.isInteger(e) && (s as number) >= 1 && (e as number) >= (s as number) - 1;
}

/** Keeps the valid ranges, reports the others as problems (never throws). */
export function sanitizeRanges(
  ranges: readonly unknown[],
  where?: { agent?: string; path?: string },
): { ranges: Range[]; problems: Problem[] } {
  const kept: Range[] = [];
  const problems: Problem[] = [];
  for (const r of ranges) {
    if (isValidRange(r)) kept.push(r);
    else problems.push(invalidRange(r, where?.agent, where?.path));
  }
  return { ranges: kept, problems };
}

/** The closed interval `[s − 1, e]` of git's conflict rule. */
function lo(range: Range): number {
  return range[0] - 1;
}

function byStart(x: Range, y: Range): number {
  return x[0] - y[0] || x[1] - y[1];
}

/**
 * Sorted, canonical form: line ranges that overlap or are adjacent are merged; insertion points
 * are deduplicated and dropped when a line range already touches them (`s ≤ k + 1 ≤ e + 1`).
 * Normalization preserves both the set of lines and the conflict relation; afterwards the
 * conflict intervals `[s − 1, e]` of one set are pairwise disjoint.
 */
export function normalizeRanges(ranges: readonly Range[]): Range[] {
  if (ranges.length === 0) return [];
  const sorted = [...ranges].sort(byStart);
  const lines: Range[] = [];
  const points: number[] = [];
  for (const r of sorted) {
    if (isInsertion(r)) {
      points.push(r[0]);
      continue;
    }
    const last = lines[lines.length - 1];
    if (last && r[0] <= last[1] + 1) {
      if (r[1] > last[1]) lines[lines.length - 1] = [last[0], r[1]];
    } else {
      lines.push([r[0], r[1]]);
    }
  }
  // Merge the two sorted lists, dropping points touched by a line range.
  const out: Range[] = [];
  let i = 0;
  let lastPoint = -1;
  for (const p of points) {
    if (p === lastPoint) continue;
    lastPoint = p;
    while (i < lines.length && lines[i]![1] + 1 < p) out.push(lines[i++]!);
    const line = lines[i];
    if (line && line[0] <= p && p <= line[1] + 1) continue;
    out.push([p, p - 1]);
  }
  while (i < lines.length) out.push(lines[i++]!);
  return out;
}

/** A ∪ B, normalized. */
export function unionRanges(a: readonly Range[], b: readonly Range[]): Range[] {
  return normalizeRanges([...a, ...b]);
}

/** |A|: number of distinct base lines covered. */
export function rangesSize(ranges: readonly Range[]): number {
  let total = 0;
  for (const r of normalizeRanges(ranges)) total += rangeLength(r);
  return total;
}

/** |A ∩ B| in lines. */
export function intersectionSize(a: readonly Range[], b: readonly Range[]): number {
  const x = normalizeRanges(a).filter((r) => !isInsertion(r));
  const y = normalizeRanges(b).filter((r) => !isInsertion(r));
  let i = 0;
  let j = 0;
  let total = 0;
  while (i < x.length && j < y.length) {
    const p = x[i]!;
    const q = y[j]!;
    const start = Math.max(p[0], q[0]);
    const end = Math.min(p[1], q[1]);
    if (end >= start) total += end - start + 1;
    if (p[1] < q[1]) i++;
    else j++;
  }
  return total;
}

/**
 * Overlap coefficient |A ∩ B| / min(|A|, |B|) (model eq. 3, docs/model.md): stays high when a small edit sits
 * inside a large one. 0 when either side covers no lines (insertions only); insertion conflicts
 * are `conflicts`' business.
 */
export function overlapCoefficient(a: readonly Range[], b: readonly Range[]): number {
  const sa = rangesSize(a);
  const sb = rangesSize(b);
  const min = Math.min(sa, sb);
  if (min === 0) return 0;
  return intersectionSize(a, b) / min;
}

/** Whether two single changes conflict under git's rule. */
export function rangesConflict(a: Range, b: Range): boolean {
  return lo(a) <= b[1] && lo(b) <= a[1];
}

/** The nearest pair of changes (one per side) and the unchanged base lines between them. */
export interface NearestPair {
  readonly a: Range;
  readonly b: Range;
  /** 0 when the pair conflicts, 1 for a one-line gap. */
  readonly distance: number;
}

/** The nearest pair of changes, one from each side; `undefined` when either side is empty. */
export function nearestPair(a: readonly Range[], b: readonly Range[]): NearestPair | undefined {
  if (a.length === 0 || b.length === 0) return undefined;
  let best: NearestPair | undefined;
  const consider = (x: Range, y: Range, d: number): void => {
    if (!best || d < best.distance) best = { a: x, b: y, distance: d };
  };
  // For each interval of one side, the nearest interval of the other side that starts at or
  // before it is the one with the largest end among those (a running maximum), and the nearest
  // one after it is the next by start. Two sweeps, one per side.
  const sweep = (p: readonly Range[], q: readonly Range[], flip: boolean): void => {
    let j = 0;
    let furthest: Range | undefined;
    for (const r of p) {
      while (j < q.length && lo(q[j]!) <= lo(r)) {
        if (!furthest || q[j]![1] > furthest[1]) furthest = q[j]!;
        j++;
      }
      if (furthest) {
        const d = Math.max(0, lo(r) - furthest[1]);
        flip ? consider(furthest, r, d) : consider(r, furthest, d);
      }
      const next = q[j];
      if (next) {
        const d = Math.max(0, lo(next) - r[1]);
        flip ? consider(next, r, d) : consider(r, next, d);
      }
    }
  };
  const x = [...a].sort(byStart);
  const y = [...b].sort(byStart);
  sweep(x, y, false);
  sweep(y, x, true);
  return best;
}

/**
 * Number of unchanged base lines separating the nearest pair of changes, one from each side:
 * 0 when some pair conflicts, 1 for a one-line gap, `Infinity` when either side is empty.
 */
export function nearestDistance(a: readonly Range[], b: readonly Range[]): number {
  return nearestPair(a, b)?.distance ?? Infinity;
}

/**
 * Every pair (a ∈ A, b ∈ B) that conflicts under git's rule, for evidence. A sweep over the
 * conflict intervals sorted by start: O((n + m) log(n + m) + k) for k pairs reported.
 */
export function conflicts(a: readonly Range[], b: readonly Range[]): RangeConflict[] {
  const out: RangeConflict[] = [];
  if (a.length === 0 || b.length === 0) return out;
  const events = [...a.map((r) => ({ r, side: 0 as const })), ...b.map((r) => ({ r, side: 1 as const }))].sort(
    (x, y) => lo(x.r) - lo(y.r) || x.side - y.side || x.r[1] - y.r[1],
  );
  let activeA: Range[] = [];
  let activeB: Range[] = [];
  for (const { r, side } of events) {
    const start = lo(r);
    if (side === 0) {
      activeB = activeB.filter((q) => q[1] >= start);
      for (const q of activeB) out.push({ a: r, b: q });
      activeA.push(r);
    } else {
      activeA = activeA.filter((p) => p[1] >= start);
      for (const p of activeA) out.push({ a: p, b: r });
      activeB.push(r);
    }
  }
  out.sort((x, y) => byStart(x.a, y.a) || byStart(x.b, y.b));
  return out;
}

/** Whether any change of A conflicts with any change of B (git's rule). */
export function anyConflict(a: readonly Range[], b: readonly Range[]): boolean {
  return nearestDistance(a, b) === 0;
}

/**
 * Maps a base range to the agent's current lines through its hunks (for evidence that points at
 * today's lines). A hunk with the same base range maps to its current side; otherwise each end is
 * mapped on its own: a line inside a hunk goes to that hunk's current edge, a line between hunks
 * shifts by the net delta of the hunks before it. Hunks need not be sorted.
 */
export function mapToCurrent(hunks: readonly Hunk[], base: Range): Range {
  for (const h of hunks) if (h.base[0] === base[0] && h.base[1] === base[1]) return h.current;
  const delta = (h: Hunk): number => rangeLength(h.current) - rangeLength(h.base);
  /** Current line of base line `n` (n ≥ 1); `edge` picks the hunk edge when n was changed. */
  const position = (n: number, edge: 0 | 1): number => {
    let shift = 0;
    for (const h of hunks) {
      const [s, e] = h.base;
      if (isInsertion(h.base) ? s <= n : e < n) shift += delta(h);
      else if (s <= n && n <= e) return h.current[edge];
    }
    return n + shift;
  };
  if (isInsertion(base)) {
    const after = base[1] >= 1 ? position(base[1], 1) : 0;
    return [after + 1, after];
  }
  const start = position(base[0], 0);
  const end = Math.max(start - 1, position(base[1], 1));
  return [start, end];
}
