/**
 * Base → current line mapping through a file's hunks. TEMPORARY copy of the rule that
 * `@airspace/git` owns (`baseToCurrent`); replaced by an import as soon as it is on main.
 */
import type { Hunk, Range } from '@airspace/core';

function mapLine(hunks: readonly Hunk[], line: number): Range {
  let delta = 0;
  for (const h of [...hunks].sort((x, y) => x.base[0] - y.base[0])) {
    const [fs, fe] = h.base;
    const [ts, te] = h.current;
    if (fe < line) {
      delta += te - ts + 1 - (fe - fs + 1);
      continue;
    }
    if (fs <= line && line <= fe) return [ts, te];
    break;
  }
  return [line + delta, line + delta];
}

export function baseToCurrent(hunks: readonly Hunk[], range: Range): Range {
  const [start, end] = range;
  if (end < start) {
    const after = end <= 0 ? 0 : mapLine(hunks, end)[1];
    let point = after;
    for (const h of hunks) if (h.base[0] === end + 1 && h.base[1] === end) point = Math.max(point, h.current[1]);
    return [point + 1, point];
  }
  const first = mapLine(hunks, start);
  const last = mapLine(hunks, end);
  return [first[0], Math.max(last[1], first[0] - 1)];
}
