/**
 * The other agent's change itself: the hunks of its diff (against its merge base, uncommitted
 * work included) that touch a region, read with git. Read-only.
 */
import { END_OF_OPTIONS, gitOperand, readWorktreeFile, runGit } from '@airspace/git';
import type { Range } from '@airspace/core';

export interface DiffHunk {
  readonly header: string;
  readonly current: Range;
  readonly lines: readonly string[];
}

/** Splits a unified diff into hunks with their new-side ranges. */
export function parseUnifiedDiff(diff: string): DiffHunk[] {
  const out: { header: string; current: Range; lines: string[] }[] = [];
  for (const line of diff.split('\n')) {
    const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (m) {
      const start = Number(m[1]);
      const count = m[2] === undefined ? 1 : Number(m[2]);
      out.push({ header: line, current: count === 0 ? [start + 1, start] : [start, start + count - 1], lines: [] });
    } else if (out.length && /^[ +\-\\]/.test(line)) {
      out[out.length - 1]!.lines.push(line);
    }
  }
  return out;
}

const MAX_LINES = 40;

function near(h: DiffHunk, r: Range | undefined): boolean {
  if (!r) return true;
  const [s, e] = [Math.min(r[0], r[1]), Math.max(r[0], r[1])];
  return h.current[0] <= e + 1 && Math.max(h.current[1], h.current[0]) >= s - 1;
}

export interface OtherChangeQuery {
  readonly worktree: string;
  readonly path: string;
  /** Today's lines in the other worktree. */
  readonly range?: Range;
  /** The other agent's merge base (commit id); HEAD when unknown. */
  readonly base?: string;
}

/** The diff hunks of the other side near `range`, as unified-diff text, or a note why there is none. */
export async function otherChange(q: OtherChangeQuery): Promise<string> {
  const base = gitOperand(q.base ?? 'HEAD', 'base');
  const diff = await runGit(['diff', '--no-color', '--no-ext-diff', '-U2', END_OF_OPTIONS, base, '--', q.path], { cwd: q.worktree });
  if (diff.trim() === '') return untrackedExcerpt(q);
  const hunks = parseUnifiedDiff(diff).filter((h) => near(h, q.range));
  const lines: string[] = [];
  for (const h of hunks) {
    lines.push(h.header, ...h.lines);
    if (lines.length >= MAX_LINES) break;
  }
  if (lines.length > MAX_LINES) return [...lines.slice(0, MAX_LINES), '… (truncated)'].join('\n');
  return lines.join('\n') || '(their change does not touch these lines)';
}

/** A new, untracked file has no diff: show its lines as additions. */
async function untrackedExcerpt(q: OtherChangeQuery): Promise<string> {
  const read = await readWorktreeFile(q.worktree, q.path);
  if (!('content' in read)) return '(their file is deleted or unreadable)';
  const text = read.content.toString('utf8');
  const all = text.split('\n');
  const from = Math.max(0, (q.range?.[0] ?? 1) - 1);
  const slice = all.slice(from, from + MAX_LINES).map((l) => `+${l}`);
  return [`@@ new file ${q.path} @@`, ...slice].join('\n');
}
