/**
 * Parser for `git diff -z --raw -p -U0 --no-abbrev --full-index`: one git call per agent gives
 * every changed path (from the NUL-separated raw records, which never quote or mangle names) and
 * every hunk (from the patch that follows). Pure: bytes in, entries out.
 */
import { createHash } from 'node:crypto';
import type { FileStatus, Hunk, Range } from '@airspace/core';
import { decodeLatin1Path } from './path-bytes.js';

export const ZERO_OID = /^0+$/;

export interface DiffEntry {
  readonly status: FileStatus | 'typechange';
  /** Path on the new side. */
  readonly path: string;
  /** Path on the old side (differs for renames). */
  readonly oldPath: string;
  readonly oldMode: string;
  readonly newMode: string;
  /** Blob ids; undefined for the missing side of an add or delete. */
  readonly oldBlob?: string;
  readonly newBlob?: string;
  /** Git said "Binary files … differ". */
  readonly binary: boolean;
  readonly hunks: readonly Hunk[];
}

/** File type bits of a git mode: regular file, symlink (120000) or gitlink/submodule (160000). */
export function modeKind(mode: string): 'file' | 'symlink' | 'gitlink' | 'none' {
  if (mode === '000000' || mode === '') return 'none';
  if (mode.startsWith('120')) return 'symlink';
  if (mode.startsWith('160')) return 'gitlink';
  return 'file';
}

const STATUS: Record<string, DiffEntry['status']> = { M: 'modified', A: 'added', D: 'deleted', R: 'renamed', C: 'added', T: 'typechange' };

interface RawRecord {
  oldMode: string;
  newMode: string;
  oldBlob: string;
  newBlob: string;
  letter: string;
  oldPath: string;
  path: string;
}

/** Parses git's combined raw + patch output. Throws only on output that is not git's. */
export function parseRawPatch(output: Buffer): DiffEntry[] {
  const text = output.toString('latin1');
  const records: RawRecord[] = [];
  let pos = 0;
  while (pos < text.length && text[pos] === ':') {
    const headEnd = text.indexOf('\0', pos);
    if (headEnd < 0) throw new Error('truncated raw diff record');
    const fields = text.slice(pos + 1, headEnd).split(' ');
    const [oldMode = '', newMode = '', oldBlob = '', newBlob = '', status = ''] = fields;
    const letter = status.charAt(0);
    const p1End = text.indexOf('\0', headEnd + 1);
    if (p1End < 0) throw new Error('truncated raw diff path');
    const first = decodeLatin1Path(text.slice(headEnd + 1, p1End));
    pos = p1End + 1;
    let second = first;
    if (letter === 'R' || letter === 'C') {
      const p2End = text.indexOf('\0', pos);
      if (p2End < 0) throw new Error('truncated raw diff rename path');
      second = decodeLatin1Path(text.slice(pos, p2End));
      pos = p2End + 1;
    }
    records.push({ oldMode, newMode, oldBlob, newBlob, letter, oldPath: first, path: second });
  }
  if (text[pos] === '\0') pos++;
  const sections = splitSections(text.slice(pos));

  const entries: DiffEntry[] = [];
  let s = 0;
  for (const r of records) {
    const oldKind = modeKind(r.oldMode);
    const newKind = modeKind(r.newMode);
    // git splits a change of file type (file ⇄ symlink ⇄ submodule) into a deletion and a creation.
    const count = oldKind !== 'none' && newKind !== 'none' && oldKind !== newKind ? 2 : 1;
    const own = sections.slice(s, s + count);
    s += count;
    const binary = own.some((sec) => sec.binary);
    const hunks = count === 1 && own[0] ? own[0].hunks : [];
    const status = STATUS[r.letter] ?? 'modified';
    entries.push({
      status: r.letter === 'M' && oldKind !== newKind ? 'typechange' : status,
      path: r.path,
      oldPath: r.oldPath,
      oldMode: r.oldMode,
      newMode: r.newMode,
      ...(ZERO_OID.test(r.oldBlob) ? {} : { oldBlob: r.oldBlob }),
      ...(ZERO_OID.test(r.newBlob) ? {} : { newBlob: r.newBlob }),
      binary,
      hunks,
    });
  }
  return entries;
}

interface Section {
  binary: boolean;
  hunks: Hunk[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** A side of a hunk header as a Range: `k,0` is the zero-width point after line k, `[k+1, k]`. */
export function headerRange(start: number, count: number): Range {
  return count === 0 ? [start + 1, start] : [start, start + count - 1];
}

function splitSections(patch: string): Section[] {
  const sections: Section[] = [];
  let current: Section | undefined;
  let hunk: { base: Range; current: Range; added: string[] } | undefined;
  const flush = () => {
    if (hunk && current) current.hunks.push({ base: hunk.base, current: hunk.current, contentId: contentId(hunk.added) });
    hunk = undefined;
  };
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      flush();
      current = { binary: false, hunks: [] };
      sections.push(current);
      continue;
    }
    if (!current) continue;
    if (line.startsWith('@@ ')) {
      flush();
      const m = HUNK_HEADER.exec(line);
      if (!m) continue;
      const oldCount = m[2] === undefined ? 1 : Number(m[2]);
      const newCount = m[4] === undefined ? 1 : Number(m[4]);
      hunk = { base: headerRange(Number(m[1]), oldCount), current: headerRange(Number(m[3]), newCount), added: [] };
      continue;
    }
    if (hunk) {
      if (line.startsWith('+')) hunk.added.push(line.slice(1));
      // "\ No newline at end of file" after an added line is part of that line's content.
      else if (line.startsWith('\\') && hunk.added.length > 0) hunk.added.push('\\');
      continue;
    }
    if (line.startsWith('Binary files ') || line === 'GIT binary patch') current.binary = true;
  }
  flush();
  return sections;
}

/** Content id of a hunk's new lines: equal ids on two sides mean the same text was written. */
export function contentId(addedLines: readonly string[]): string {
  const h = createHash('sha1');
  for (const l of addedLines) h.update(Buffer.from(l, 'latin1')).update('\n');
  return h.digest('hex').slice(0, 16);
}
