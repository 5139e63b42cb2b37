/**
 * The import scanner for Python (see `import-scanner.ts`).
 */
import type { FileFacts, ImportedName, ImportFact } from '../facts.js';
import { isIdStart, isIdPart, isDigit } from './ecma-tokens.js';
import { bail, lineIndex, scannedFacts, unlessBailed } from './scan-support.js';

// ---------------------------------------------------------------------------------------------
// Python: logical lines (brackets and backslashes join lines), indentation blocks, and the two
// import statements, as `python-imports.ts` reads them from the tree.

interface PyToken {
  /** 0 name, 1 operator, 2 string, 3 number. */
  readonly kind: number;
  readonly text: string;
  readonly start: number;
}

/** Block kinds: a function body (`lazy`), `if TYPE_CHECKING:` (`guarded`), anything else. */
const PY_FUNCTION = 1;
const PY_GUARD = 2;
const PY_OTHER = 0;

export function scanPythonImportFacts(src: string): FileFacts | undefined {
  return unlessBailed(() => scannedFacts('python', src, pythonImports(src), []));
}

function pythonImports(src: string): ImportFact[] {
  const out: ImportFact[] = [];
  const lineOf = lineIndex(src);
  /** Open blocks: the indentation of their header and their kind. */
  const blocks: PyBlock[] = [];
  const indentation = { char: 0 }; // 32 or 9 once seen
  let pos = src.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (pos < src.length) {
    const line = pyLogicalLine(src, pos, indentation);
    pos = line.end;
    if (line.tokens.length > 0) pyLineStatements(line.tokens, line.indent, blocks, lineOf, out);
  }
  return out;
}

interface PyBlock {
  readonly indent: number;
  readonly kind: number;
}

/** One logical line from `lineStart` (brackets and backslashes join lines): its indentation, tokens, and where the next starts. */
function pyLogicalLine(src: string, lineStart: number, indentation: { char: number }): { indent: number; tokens: PyToken[]; end: number } {
  const n = src.length;
  let p = lineStart;
  while (src.charCodeAt(p) === 32 || src.charCodeAt(p) === 9 || src.charCodeAt(p) === 12) {
    const c = src.charCodeAt(p);
    if (c === 12) bail();
    if (indentation.char === 0) indentation.char = c;
    else if (c !== indentation.char) bail(); // tabs and spaces mixed: tree-sitter's columns are not ours
    p++;
  }
  const indent = p - lineStart;
  const tokens: PyToken[] = [];
  let depth = 0;
  for (;;) {
    const c = src.charCodeAt(p);
    if (p >= n) break;
    if (c === 10) {
      p++;
      if (depth === 0) break;
      continue;
    }
    if (c === 32 || c === 9 || c === 13 || c === 12) {
      p++;
      continue;
    }
    if (c === 35) {
      const e = src.indexOf('\n', p);
      p = e < 0 ? n : e;
      continue;
    }
    if (c === 92) {
      // line continuation
      if (src.charCodeAt(p + 1) === 10) p += 2;
      else if (src.charCodeAt(p + 1) === 13 && src.charCodeAt(p + 2) === 10) p += 3;
      else bail();
      continue;
    }
    if (c === 40 || c === 91 || c === 123) depth++;
    else if (c === 41 || c === 93 || c === 125) {
      if (--depth < 0) bail();
    }
    p = pyToken(src, p, tokens);
  }
  if (depth !== 0) bail();
  return { indent, tokens, end: p };
}

/** The token at `s` (a name, string, number or operator) pushed to `tokens`; returns the position after it. */
function pyToken(src: string, s: number, tokens: PyToken[]): number {
  const n = src.length;
  const c = src.charCodeAt(s);
  let p = s;
  if (isIdStart(c) && c !== 36) {
    while (p < n && isIdPart(src.charCodeAt(p)) && src.charCodeAt(p) !== 36) p++;
    const q = src.charCodeAt(p);
    if ((q === 34 || q === 39) && p - s <= 2 && /^[rRbBuUfF]+$/.test(src.slice(s, p))) {
      tokens.push({ kind: 2, text: '', start: s });
      return pyString(src, p, /[fF]/.test(src.slice(s, p)));
    }
    tokens.push({ kind: 0, text: src.slice(s, p), start: s });
    return p;
  }
  if (c === 34 || c === 39) {
    tokens.push({ kind: 2, text: '', start: s });
    return pyString(src, p, false);
  }
  if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(p + 1)))) {
    while (p < n && (isIdPart(src.charCodeAt(p)) || src.charCodeAt(p) === 46)) p++;
    tokens.push({ kind: 3, text: '', start: s });
    return p;
  }
  if (c === 96 || c === 36 || c === 63) bail(); // backticks (Python 2), stray characters
  // operators: one character each, except those the reader looks at
  let len = 1;
  if (c === 58 && src.charCodeAt(p + 1) === 61)
    len = 2; // :=
  else if (c === 45 && src.charCodeAt(p + 1) === 62)
    len = 2; // ->
  else if (c === 60 && src.charCodeAt(p + 1) === 62) bail(); // <> (Python 2)
  p += len;
  tokens.push({ kind: 1, text: src.slice(s, p), start: s });
  return p;
}

/** The simple statements of one logical line, split at `;`, in the blocks open at its indentation; a header's `:` opens a block. */
function pyLineStatements(
  tokens: readonly PyToken[],
  indent: number,
  blocks: PyBlock[],
  lineOf: (at: number) => number,
  out: ImportFact[],
): void {
  while (blocks.length && blocks[blocks.length - 1]!.indent >= indent) blocks.pop();
  let first = 0;
  let kinds = blocks.map((b) => b.kind);
  const headerEnd = pyHeaderColon(tokens);
  if (headerEnd >= 0) {
    const kind = pyBlockKind(tokens, headerEnd);
    if (headerEnd === tokens.length - 1) {
      blocks.push({ indent, kind });
      return;
    }
    kinds = [...kinds, kind];
    first = headerEnd + 1;
    if (pyHeaderColon(tokens.slice(first)) >= 0) bail(); // `if a: if b: …`
  }
  const guarded = kinds.includes(PY_GUARD);
  const lazy = !guarded && kinds.includes(PY_FUNCTION);
  for (let i = first; i < tokens.length;) {
    let e = i;
    while (e < tokens.length && tokens[e]!.text !== ';') e++;
    pyStatement(tokens.slice(i, e), guarded, lazy, lineOf, out);
    i = e + 1;
  }
}

/** Past the string whose quote is at `p`; f-strings whose braces hold quotes are not read. */
function pyString(src: string, p: number, f: boolean): number {
  const q = src.charCodeAt(p);
  const triple = src.charCodeAt(p + 1) === q && src.charCodeAt(p + 2) === q;
  const s = p;
  p += triple ? 3 : 1;
  for (;;) {
    if (p >= src.length) bail();
    const c = src.charCodeAt(p);
    if (c === 92) {
      p += 2;
      continue;
    }
    if (c === 10 && !triple) bail();
    if (c === q && (!triple || (src.charCodeAt(p + 1) === q && src.charCodeAt(p + 2) === q))) {
      p += triple ? 3 : 1;
      break;
    }
    p++;
  }
  if (f) {
    // `{` and `}` must pair (`{{`/`}}` are literal): else a nested quote ended the scan early
    const body = src.slice(s, p).replace(/\{\{|\}\}/g, '');
    let open = 0;
    for (const ch of body) {
      if (ch === '{') open++;
      else if (ch === '}' && --open < 0) bail();
    }
    if (open !== 0) bail();
  }
  return p;
}

const PY_COMPOUND = new Set([
  'if',
  'elif',
  'else',
  'for',
  'while',
  'try',
  'except',
  'finally',
  'with',
  'def',
  'class',
  'async',
  'match',
  'case',
]);

/** The index of the `:` ending a compound statement's header on this line, or -1. */
function pyHeaderColon(tokens: readonly PyToken[]): number {
  const t0 = tokens[0];
  if (!t0 || t0.kind !== 0) return -1;
  const w = t0.text;
  if (!PY_COMPOUND.has(w) && !(tokens[0]?.text === '@')) return -1;
  if ((w === 'match' || w === 'case') && tokens[tokens.length - 1]?.text !== ':') return -1;
  let depth = 0;
  for (let i = 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind !== 1) {
      if (t.kind === 0 && t.text === 'lambda' && depth === 0) bail();
      continue;
    }
    const c = t.text;
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ':' && depth === 0) return i;
  }
  return -1;
}

function pyBlockKind(tokens: readonly PyToken[], colon: number): number {
  const w = tokens[0]!.text;
  if (w === 'def' || (w === 'async' && tokens[1]?.text === 'def')) return PY_FUNCTION;
  if (w === 'if') {
    // `if TYPE_CHECKING:` or `if a.b.TYPE_CHECKING:`
    const cond = tokens.slice(1, colon);
    if (
      cond.length % 2 === 1 &&
      cond[cond.length - 1]!.text === 'TYPE_CHECKING' &&
      cond.every((t, i) => (i % 2 === 0 ? t.kind === 0 : t.text === '.'))
    )
      return PY_GUARD;
  }
  if (w === 'except') {
    // Python 2 `except E, e:` (a comma outside brackets)
    let depth = 0;
    for (const t of tokens.slice(1, colon)) {
      if (t.text === '(' || t.text === '[' || t.text === '{') depth++;
      else if (t.text === ')' || t.text === ']' || t.text === '}') depth--;
      else if (t.text === ',' && depth === 0) bail();
    }
  }
  return PY_OTHER;
}

const PY_KEYWORDS = new Set(['import', 'from', 'as', 'print', 'exec']);

/** One simple statement: an import makes facts; a Python 2 `print "x"` makes the file declined. */
function pyStatement(t: readonly PyToken[], guarded: boolean, lazy: boolean, lineOf: (at: number) => number, out: ImportFact[]): void {
  const w = t[0];
  if (!w) return;
  if (w.kind === 0 && (w.text === 'print' || w.text === 'exec') && t[1] && t[1].kind !== 1) bail();
  const where = guarded ? { guarded: true as const } : lazy ? { lazy: true as const } : {};
  const isName = (i: number) => t[i]?.kind === 0 && !PY_KEYWORDS.has(t[i]!.text);
  /** A dotted name from `i`: its text and the index after it. */
  const dotted = (i: number): [string, number] => {
    if (!isName(i)) bail();
    let text = t[i]!.text;
    i++;
    while (t[i]?.text === '.' && isName(i + 1)) {
      text += `.${t[i + 1]!.text}`;
      i += 2;
    }
    return [text, i];
  };
  if (w.kind === 0 && w.text === 'import') {
    const line = lineOf(w.start);
    let i = 1;
    for (;;) {
      const [name, j] = dotted(i);
      i = j;
      if (t[i]?.text === 'as') {
        if (!isName(i + 1)) bail();
        out.push({ specifier: name, kind: 'python-import', names: [], namespaceBinding: t[i + 1]!.text, ...where, line });
        i += 2;
      } else out.push({ specifier: name, kind: 'python-import', names: [], namespaceBinding: name.split('.')[0]!, ...where, line });
      if (i === t.length) return;
      if (t[i]?.text !== ',') bail();
      i++;
    }
  }
  if (w.kind === 0 && w.text === 'from') {
    const line = lineOf(w.start);
    let i = 1;
    let module = '';
    while (t[i]?.text === '.') {
      module += '.';
      i++;
    }
    if (isName(i)) {
      const [name, j] = dotted(i);
      module += name;
      i = j;
    }
    if (module === '' || t[i]?.text !== 'import') bail();
    if (module === '__future__') return; // a future statement: no import (tree-sitter's own node)
    i++;
    const names: ImportedName[] = [];
    let wildcard = false;
    let close = t.length;
    if (t[i]?.text === '*') {
      wildcard = true;
      i++;
    } else {
      if (t[i]?.text === '(') {
        if (t[t.length - 1]?.text !== ')') bail();
        close = t.length - 1;
        i++;
      }
      while (i < close) {
        const [name, j] = dotted(i);
        i = j;
        let alias = name;
        if (t[i]?.text === 'as') {
          if (!isName(i + 1)) bail();
          alias = t[i + 1]!.text;
          i += 2;
        }
        names.push({ name, alias });
        if (i === close) break;
        if (t[i]?.text !== ',') bail();
        i++;
      }
      i = close === t.length ? i : close + 1;
      if (names.length === 0) bail();
    }
    if (i !== t.length) bail();
    out.push({ specifier: module, kind: 'python-from', names, ...(wildcard ? { wildcard } : {}), ...where, line });
    return;
  }
  // `import`/`from` elsewhere in a statement: not a statement start (or not Python 3)
  for (const x of t) if (x.kind === 0 && x.text === 'import') bail();
}
