/**
 * A harness's tool call (what a PreToolUse hook gets on stdin) read as the edit it is about to
 * make: which file, and which of its current lines. Each edit is judged by its own lines: the
 * call's edits are applied to the file as it is now (Edit, `replace_all` too; each of MultiEdit's
 * `edits` in turn; Write's `content` replaces the file) and the result is diffed line by line
 * against it, so two edits far apart stay two ranges, and a Write that rewrites exactly some lines
 * names exactly those. Calls that change no file (Read, Grep, Bash …), and files outside any git
 * work tree or inside `.git`, are not ours to judge: the hook lets them through silently.
 */
import { readRegularFileSync } from '@airspace/git';
import { isAbsolute, resolve } from 'node:path';
import { inWorkTree } from '@airspace/engine/client';
import type { Range } from '@airspace/core';
import { CliError } from '../errors.js';

/** The shape of a tool call, as far as a check needs it (Claude Code's PreToolUse input, and alike). */
interface ToolCall {
  readonly cwd?: unknown;
  readonly tool_name?: unknown;
  readonly tool_input?: {
    readonly file_path?: unknown;
    readonly notebook_path?: unknown;
    readonly path?: unknown;
    readonly old_string?: unknown;
    readonly new_string?: unknown;
    readonly replace_all?: unknown;
    readonly edits?: unknown;
    readonly content?: unknown;
  };
}

/** What to check: the file, relative to `cwd` or absolute, and its lines now (`12-14,80-80`); no lines = the whole file. */
export interface ToolCallTarget {
  readonly cwd: string;
  readonly target: string;
  readonly lines?: string;
}

/** Tools that change files and how they say so (Claude Code's, and Gemini CLI's `replace` / `write_file`). */
const EDITING_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'replace', 'write_file']);
/** Fields only a call that changes a file carries: a call of an unknown tool with one of them is judged. */
const EDITING_FIELDS = ['old_string', 'new_string', 'edits', 'content', 'new_source'] as const;

/** Above this many changed lines, a diff stops and the changed region is judged as one range. */
const MAX_DIFF_EDITS = 1000;

/**
 * The lines of `before` that turning it into `after` changes, in `before`'s 1-based lines: each
 * run of removed or replaced lines is one range; lines inserted between k and k+1 count as line k
 * (line 1 at the top), the line git's conflict rule puts them against. Myers' diff on what lies
 * between the common head and tail; a diff longer than `maxEdits` is one range over that middle.
 */
export function changedLines(before: string, after: string, maxEdits = MAX_DIFF_EDITS): Range[] {
  if (before === after) return [];
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const anchor = (i: number): Range => [Math.max(1, head + i), Math.max(1, head + i)];
  if (x.length === 0) return [anchor(0)];
  if (y.length === 0) return [[head + 1, head + x.length]];
  const script = myers(x, y, maxEdits);
  if (!script) return [[head + 1, head + x.length]];
  // `script[i]` tells whether x[i] is kept; inserted lines sit at the x index they come before.
  const ranges: Range[] = [];
  const push = (r: Range): void => {
    const last = ranges[ranges.length - 1];
    if (last && r[0] <= last[1]) ranges[ranges.length - 1] = [last[0], Math.max(last[1], r[1])];
    else ranges.push(r);
  };
  for (let i = 0; i < x.length;) {
    if (script.kept[i]) {
      if (script.insertedBefore[i]) push(anchor(i));
      i++;
      continue;
    }
    const start = i;
    while (i < x.length && !script.kept[i]) i++;
    push([head + start + 1, head + i]);
  }
  if (script.insertedBefore[x.length]) push(anchor(x.length));
  return ranges;
}

/** Myers' O(ND) diff: which lines of `x` are kept, and before which of them `y` inserts lines; undefined past `maxEdits`. */
function myers(x: readonly string[], y: readonly string[], maxEdits: number): { kept: boolean[]; insertedBefore: boolean[] } | undefined {
  const n = x.length;
  const m = y.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let i = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let j = i - k;
      while (i < n && j < m && x[i] === y[j]) {
        i++;
        j++;
      }
      next[offset + k] = i;
      if (i >= n && j >= m) {
        found = d;
        break;
      }
    }
    v = next;
  }
  if (found < 0) return undefined;
  const kept = new Array<boolean>(n).fill(false);
  const insertedBefore = new Array<boolean>(n + 1).fill(false);
  let i = n;
  let j = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d]!;
    const k = i - j;
    const down = k === -d || (k !== d && prev[offset + k - 1]! < prev[offset + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevI = prev[offset + prevK]!;
    const prevJ = prevI - prevK;
    while (i > prevI + (down ? 0 : 1) && j > prevJ + (down ? 1 : 0)) {
      kept[--i] = true;
      j--;
    }
    if (down) insertedBefore[prevI] = true;
    i = prevI;
    j = prevJ;
  }
  while (i > 0 && j > 0) {
    kept[--i] = true;
    j--;
  }
  return { kept, insertedBefore };
}

/** `old` replaced by `replacement` in `text`: the first occurrence, or every one; undefined when it is not there. */
function replaced(text: string, old: string, replacement: string, all: boolean): string | undefined {
  if (old === '' || !text.includes(old)) return undefined;
  return all ? text.split(old).join(replacement) : text.replace(old, () => replacement);
}

/** The file's text after the call, or undefined when the call's edits cannot be applied (then the whole file counts). */
function proposed(call: NonNullable<ToolCall['tool_input']>, current: string): string | undefined {
  if (typeof call.content === 'string') return call.content;
  const edits = Array.isArray(call.edits) ? (call.edits as ToolCall['tool_input'][]) : [call];
  let text = current;
  for (const edit of edits) {
    if (typeof edit?.old_string !== 'string' || typeof edit.new_string !== 'string') return undefined;
    const next = replaced(text, edit.old_string, edit.new_string, edit.replace_all === true);
    if (next === undefined) return undefined;
    text = next;
  }
  return text;
}

/**
 * The file (and lines) a harness's tool call is about to change. Undefined when there is nothing
 * to check: a tool that changes no file, a call without a file, a file outside any git work tree
 * or inside `.git`, or an edit that changes nothing.
 */
export function toolCallTarget(text: string, cwd: string): ToolCallTarget | undefined {
  let call: ToolCall;
  try {
    call = JSON.parse(text) as ToolCall;
  } catch {
    throw new CliError('--tool-call expects the tool call as JSON on standard input.');
  }
  const input = call?.tool_input;
  if (typeof input !== 'object' || input === null) return undefined;
  const tool = typeof call.tool_name === 'string' ? call.tool_name : undefined;
  if (tool !== undefined && !EDITING_TOOLS.has(tool) && !EDITING_FIELDS.some((f) => f in input)) return undefined;
  const file = [input.file_path, input.notebook_path, input.path].find((f): f is string => typeof f === 'string' && f !== '');
  if (!file) return undefined;
  const dir = typeof call.cwd === 'string' && isAbsolute(call.cwd) ? call.cwd : cwd;
  const absolute = resolve(dir, file);
  if (!inWorkTree(absolute)) return undefined;
  // Regular files only, never blocking on a FIFO nor following a link (`readRegularFileSync`).
  const read = readRegularFileSync(absolute);
  const current = 'content' in read ? read.content.toString('utf8') : undefined;
  // A new file, a notebook (cells, not lines), or edits that do not apply: the whole file.
  if (current === undefined || tool === 'NotebookEdit' || typeof input.notebook_path === 'string') return { cwd: dir, target: file };
  const after = proposed(input, current);
  if (after === undefined) return { cwd: dir, target: file };
  const ranges = changedLines(current, after);
  if (ranges.length === 0) return undefined;
  return { cwd: dir, target: file, lines: ranges.map(([s, e]) => `${s}-${e}`).join(',') };
}
