import type { Agent, FileEdit, Range } from '@airspace/core';

export const numbered = (n: number, prefix = 'line'): string[] => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);
export const text = (lines: readonly string[]): string => lines.join('\n') + '\n';

/** `lines` with base lines [from, to] (1-based, inclusive) replaced by `tag` lines. */
export function replaced(lines: readonly string[], from: number, to: number, tag: string): string[] {
  return lines.map((l, i) => (i + 1 >= from && i + 1 <= to ? `${tag} ${i + 1}` : l));
}

export function agent(agents: readonly Agent[], id: string): Agent {
  const a = agents.find((x) => x.id === id);
  if (!a) throw new Error(`no agent ${id} among ${agents.map((x) => x.id).join(', ')}`);
  return a;
}

export function file(a: Agent, path: string): FileEdit {
  const f = a.files.find((x) => x.path === path);
  if (!f) throw new Error(`${a.id} has no edit of ${path}: ${a.files.map((x) => x.path).join(', ')}`);
  return f;
}

/** git's conflict rule on base ranges (as core's range algebra documents it): [s,e] → [s−1, e]. */
export function baseConflict(a: readonly Range[] | 'whole', b: readonly Range[] | 'whole'): boolean {
  if (a === 'whole' || b === 'whole') return true;
  return a.some((x) => b.some((y) => x[0] - 1 <= y[1] && y[0] - 1 <= x[1]));
}
