/** Small formatting helpers shared by the report's tables. */
import type { LabelKind } from '../extract/scenario.js';

export const LABEL_NAMES: Readonly<Record<LabelKind, string>> = {
  textual: 'textual conflict',
  manual: 'needed manual resolution',
  any: 'textual conflict or manual resolution',
  collided: 'collided at any point',
  semantic: 'merged cleanly into a program with new type errors',
  'textual+semantic': 'textual conflict or semantic break',
  'collided+semantic': 'collided at any point or semantic break',
};

/** A figure with `digits` decimals, or "–" when undefined. */
export function fmt(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined || Number.isNaN(v) ? '–' : v.toFixed(digits);
}

/** A plain-text table: the first `leftColumns` columns left-aligned, the rest right-aligned. */
export function alignedTable(headers: readonly string[], body: readonly (readonly string[])[], leftColumns = 2): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...body.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) => c.map((x, i) => (i < leftColumns ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ');
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

export const fractionTitle = (f: number): string =>
  f === 1 ? 'full diffs' : `after the first ${Math.round(f * 100)}% of each side's commits`;
