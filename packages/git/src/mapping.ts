/**
 * Base ⇄ current line mapping through an agent's hunks. Pure. The LSP server puts a warning
 * given in base coordinates on today's line with it; evidence maps back the other way.
 *
 * A line outside every hunk moves by the net size change of the hunks before it. A line inside a
 * changed region maps to that region's whole other side (zero-width when it was deleted). Ranges
 * are core's: inclusive, 1-based, a zero-width `[k+1, k]` is the point after line k.
 */
import { mapToCurrent, type Hunk, type Range } from '@airspace/core';

export type Side = 'base' | 'current';

const other = (side: Side): Side => (side === 'base' ? 'current' : 'base');

function sorted(hunks: readonly Hunk[], side: Side): readonly Hunk[] {
  for (let i = 1; i < hunks.length; i++) {
    if (hunks[i]![side][0] < hunks[i - 1]![side][0]) return [...hunks].sort((x, y) => x[side][0] - y[side][0]);
  }
  return hunks;
}

/** Maps one line of `from` to the corresponding range on the other side. */
export function mapLine(hunks: readonly Hunk[], line: number, from: Side = 'base'): Range {
  const to = other(from);
  let delta = 0;
  for (const h of sorted(hunks, from)) {
    const [fs, fe] = h[from];
    const [ts, te] = h[to];
    if (fe < line) {
      delta += te - ts + 1 - (fe - fs + 1);
      continue;
    }
    if (fs <= line && line <= fe) return [ts, te];
    break;
  }
  return [line + delta, line + delta];
}

/**
 * Maps a range of `from` to the other side: from where its first line lands to where its last
 * line lands. A zero-width point `[k+1, k]` maps to the point after wherever line k lands.
 */
export function mapRange(hunks: readonly Hunk[], range: Range, from: Side = 'base'): Range {
  const [start, end] = range;
  if (end < start) {
    const k = end;
    const after = k <= 0 ? 0 : mapLine(hunks, k, from)[1];
    // An insertion at the same point on this side lies before the point: step over it.
    let point = after;
    for (const h of hunks) if (h[from][0] === k + 1 && h[from][1] === k) point = Math.max(point, h[other(from)][1]);
    return [point + 1, point];
  }
  const first = mapLine(hunks, start, from);
  const last = mapLine(hunks, end, from);
  return [first[0], Math.max(last[1], first[0] - 1)];
}

/**
 * Where a base range is today, in the agent's current file: core's `mapToCurrent`, so that an
 * editor's warning and a channel's evidence (`range`) always name the same lines.
 */
export function baseToCurrent(hunks: readonly Hunk[], range: Range): Range {
  return mapToCurrent(hunks, range);
}

/** Where a current range was in the base. */
export function currentToBase(hunks: readonly Hunk[], range: Range): Range {
  return mapRange(hunks, range, 'current');
}
