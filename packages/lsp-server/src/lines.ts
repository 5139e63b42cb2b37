/**
 * The one place where lines change coordinates. Findings carry 1-based inclusive ranges in
 * today's file (`[s, e]`; a zero-width point after line k is `[k+1, k]`); evidence may carry base
 * lines (the merge base's), mapped to today's through the agent's hunks; the protocol counts
 * lines from 0.
 */
import type { Agent, EvidenceSide, Range } from '@airspace/core';
import { baseToCurrent } from '@airspace/git';
import type { Range as LspRange } from 'vscode-languageserver';

/** Far past any line: the end of a range the client clips to the line's length. */
const LINE_END = Number.MAX_SAFE_INTEGER >>> 21;

/**
 * Today's 1-based range as an LSP range, clipped to a document of `lineCount` lines. A point
 * after line k marks the start of line k+1 (0-based k), or the end of the file.
 */
export function toLspRange(range: Range, lineCount: number = Number.MAX_SAFE_INTEGER): LspRange {
  const last = Math.max(0, lineCount - 1);
  const [start, end] = range;
  if (end < start) {
    const line = Math.min(Math.max(0, end), last);
    return { start: { line, character: 0 }, end: { line, character: 0 } };
  }
  const s = Math.min(Math.max(0, start - 1), last);
  const e = Math.min(Math.max(s, end - 1), last);
  return { start: { line: s, character: 0 }, end: { line: e, character: LINE_END } };
}

/** Whether a 1-based range is shown on the 0-based protocol line `line0` (as `toLspRange` places it). */
export function coversLine(range: Range, line0: number): boolean {
  const { start, end } = toLspRange(range);
  return start.line <= line0 && line0 <= end.line;
}

/** Whether a 1-based range is shown on any 0-based protocol line from `from0` to `to0`. */
export function coversLines(range: Range, from0: number, to0: number): boolean {
  const { start, end } = toLspRange(range);
  return start.line <= to0 && from0 <= end.line;
}

/** The 1-based line a reader is sent to for a range (a point after line 0 still goes to line 1). */
export const firstLine = (range: Range | undefined): number => Math.max(1, range?.[0] ?? 1);

/** A 0-based protocol line as a reader counts it. */
export const oneBased = (line0: number): number => line0 + 1;

/** Today's lines of one evidence side in its agent's worktree; base lines mapped through its hunks. */
export function todayRange(side: EvidenceSide, agent: Agent | undefined): Range | undefined {
  if (side.range) return side.range;
  if (!side.baseRange) return undefined;
  const file = agent?.files.find((f) => f.path === side.path);
  if (file?.hunks) return baseToCurrent(file.hunks, side.baseRange);
  // No hunks: the file is unchanged on this side (or whole-file), base lines are today's lines.
  return side.baseRange;
}
