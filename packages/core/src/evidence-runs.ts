/**
 * Evidence in runs: findings that say the same thing about neighbouring lines or symbols become
 * one evidence line with a range ("deletes v35–v52 (18 symbols) (src/x.ts:36–53)"), so that an
 * evidence list does not repeat itself line by line. Channels group their findings with these
 * before they rank and cut them (docs/channels.md, "Grouped evidence").
 */
import type { Range } from './model.js';
import { describeRange, isInsertion } from './ranges.js';

/** Two findings are neighbours when at most this many lines lie between them (blank lines, a decorator). */
export const RUN_GAP_LINES = 2;

/** Is `next` (starting at or after `prev`'s start) a neighbour of `prev`: overlapping, touching or at most `gap` lines after it? */
export function withinGap(prev: Range, next: Range, gap = RUN_GAP_LINES): boolean {
  return next[0] <= Math.max(prev[0], prev[1]) + 1 + gap;
}

/** Does a finding with ranges `next` (per side) join a run spanning `covered` (per side)? */
export type Joins<T> = (covered: readonly (Range | undefined)[], next: readonly (Range | undefined)[], item: T) => boolean;

/** The default `Joins`: on every side both have, the finding is within `RUN_GAP_LINES` of the run. */
export function everySideWithinGap(covered: readonly (Range | undefined)[], next: readonly (Range | undefined)[]): boolean {
  return next.every((r, side) => r === undefined || covered[side] === undefined || withinGap(covered[side]!, r));
}

/**
 * A `Joins` for pairs of changes (one range per side): the pair joins a run when it shares a change
 * with it (one side's range meets the run's span on that side: one large change against several
 * small ones), or when every side is a neighbour (`everySideWithinGap`).
 */
export function sharesOrWithinGap(covered: readonly (Range | undefined)[], next: readonly (Range | undefined)[]): boolean {
  const shares = next.some((r, side) => {
    const c = covered[side];
    return r !== undefined && c !== undefined && r[0] <= c[1] && c[0] <= r[1];
  });
  return shares || everySideWithinGap(covered, next);
}

/**
 * Several ranges of one side in words: each of up to three (`line 12, line 30 and lines 55–56`),
 * else their span and how many (`lines 10–18, 5 changes`; `6 insertions after lines 319–354`).
 */
export function describeRanges(ranges: readonly Range[]): string {
  const distinct = [...new Map(ranges.map((r) => [`${r[0]}:${r[1]}`, r])).values()].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  if (distinct.length <= 3) return describeNames(distinct.map(describeRange));
  if (distinct.every(isInsertion))
    return `${distinct.length} insertions after lines ${distinct[0]![1]}–${distinct[distinct.length - 1]![1]}`;
  const [s, e] = spanOf(distinct);
  return `lines ${s}–${e}, ${distinct.length} changes`;
}

/** The smallest range covering all of `ranges` (a zero-width insertion counts at its point). */
export function spanOf(ranges: readonly Range[]): Range {
  let start = Infinity;
  let end = -Infinity;
  for (const [s, e] of ranges) {
    start = Math.min(start, s);
    end = Math.max(end, e);
  }
  return [start, end];
}

/**
 * Groups findings into runs: findings with the same `keyOf` (undefined: never grouped) whose ranges
 * are neighbours, one range per side as `spansOf` gives them (in a fixed order; an undefined side
 * is not compared). A run breaks where the next finding does not join the run so far: `joins`
 * gets the run's span per side and the finding's ranges; by default every side must be within
 * `RUN_GAP_LINES` of the run (`withinGap`). Runs come in the order of their first finding.
 */
export function groupRuns<T>(
  items: readonly T[],
  keyOf: (item: T) => string | undefined,
  spansOf: (item: T) => readonly (Range | undefined)[],
  joins: Joins<T> = everySideWithinGap,
): T[][] {
  const byKey = new Map<string, T[]>();
  const order: (T[] | T)[] = [];
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) {
      order.push(item);
      continue;
    }
    const list = byKey.get(key);
    if (list) list.push(item);
    else {
      const fresh = [item];
      byKey.set(key, fresh);
      order.push(fresh);
    }
  }
  const runs: T[][] = [];
  for (const entry of order) {
    if (!Array.isArray(entry)) runs.push([entry as T]);
    else runs.push(...splitRuns(entry as T[], spansOf, joins));
  }
  const position = new Map(items.map((item, i) => [item, i]));
  return runs.sort((x, y) => position.get(x[0]!)! - position.get(y[0]!)!);
}

function splitRuns<T>(list: readonly T[], spansOf: (item: T) => readonly (Range | undefined)[], joins: Joins<T>): T[][] {
  const start = (item: T): number => spansOf(item).find((r) => r !== undefined)?.[0] ?? 0;
  const sorted = [...list].sort((x, y) => start(x) - start(y));
  const runs: T[][] = [];
  let run: T[] = [];
  let covered: (Range | undefined)[] = [];
  for (const item of sorted) {
    const spans = spansOf(item);
    const fits = run.length > 0 && joins(covered, spans, item);
    if (!fits && run.length > 0) {
      runs.push(run);
      run = [];
    }
    covered =
      run.length === 0 ? [...spans] : spans.map((r, side) => (r && covered[side] ? spanOf([covered[side]!, r]) : (r ?? covered[side])));
    run.push(item);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** Names in evidence: `v35`, `v35 and v36`, `v35, v36 and v37`, `v35–v52 (18 symbols)`. */
export function describeNames(names: readonly string[], noun = 'symbols'): string {
  if (names.length <= 1) return names[0] ?? '';
  if (names.length === 2) return `${names[0]} and ${names[1]}`;
  if (names.length === 3) return `${names[0]}, ${names[1]} and ${names[2]}`;
  return `${names[0]}–${names[names.length - 1]} (${names.length} ${noun})`;
}
