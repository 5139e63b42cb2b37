/**
 * The import scanner's tokenizer for JavaScript and TypeScript (see `import-scanner.ts`): one pass
 * over the source into tokens (kinds, extents, matching brackets) and frames (what each bracket
 * opens: a block, a function's parameters or body, an object, a class, a type, a template, JSX),
 * so the reader can tell where a statement is and whether a call runs lazily.
 */
import type { ImportedName } from '../facts.js';
import { bail } from './scan-support.js';

/** Token kinds. */
export const IDENT = 0;
export const PUNCT = 1;
export const STR = 2;
export const TPL = 3;
const NUM = 4;
const REGEX = 5;
const JSX = 6;

/** Kinds of nesting (brackets, and the body of an arrow function without braces). */
const TOP = 0;
const BLOCK = 1;
export const OBJECT = 2;
export const CLASS = 3;
const PAREN = 4;
export const PARAMS = 5;
export const ARRAY = 6;
export const TYPE = 7;
const TEMPLATE = 8;
const JSX_EXPR = 9;
const ARROW = 10;
const HEADER = 11;

interface Frame {
  kind: number;
  /** A function's parameters or body: what is inside runs when the function is called. */
  fn: boolean;
  parent: number;
  /** Token index of the opening bracket (-1 for the top and arrow bodies). */
  open: number;
  /** A function or method header in this frame waits for its parameters (1) or body (2). */
  pending: number;
  /** The parameters' frame of the pending header. */
  pendingParams: number;
  /** `class` (1) or `interface` (2) seen in this frame: its next `{` is the body. */
  pendingBody: number;
  /** Object or class body: no `:`, `=`, `=>` since the member started (a `(` then starts a method). */
  memberClean: boolean;
  /** Arrow body: `?` not yet matched by `:`. */
  questions: number;
  /** The paren frame last closed in this frame, and whether `:` followed (TypeScript return type). */
  lastParen: number;
}

/** Keywords after which `/` starts a regular expression and `<` a JSX element. */
const EXPRESSION_BEFORE = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
  'extends',
]);
/** The length of the punctuator at `pos` (`>` is always one character, as TypeScript scans it). */
function punctuatorLength(src: string, pos: number, c: number): number {
  const c1 = src.charCodeAt(pos + 1);
  const c2 = src.charCodeAt(pos + 2);
  switch (c) {
    case 46: // .
      return c1 === 46 && c2 === 46 ? 3 : 1;
    case 61: // =
      if (c1 === 61) return c2 === 61 ? 3 : 2;
      return c1 === 62 ? 2 : 1;
    case 33: // !
      if (c1 === 61) return c2 === 61 ? 3 : 2;
      return 1;
    case 42: // *
    case 60: // <
    case 38: // &
    case 124: // |
      if (c1 === c) return c2 === 61 ? 3 : 2;
      return c1 === 61 ? 2 : 1;
    case 63: // ?
      if (c1 === 63) return c2 === 61 ? 3 : 2;
      return c1 === 46 && !(c2 >= 48 && c2 <= 57) ? 2 : 1; // `a?.5:b` is a conditional
    case 43: // +
    case 45: // -
      return c1 === c || c1 === 61 ? 2 : 1;
    case 37: // %
    case 94: // ^
    case 47: // /
      return c1 === 61 ? 2 : 1;
    default:
      return 1;
  }
}

export const isIdStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c >= 128;
export const isIdPart = (c: number): boolean => isIdStart(c) || (c >= 48 && c <= 57);
export const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** The tokens of one file, as parallel arrays (reused from file to file: no garbage per token). */
export interface Tokens {
  /** How many tokens (the arrays may be longer: left from a larger file). */
  count: number;
  /** How many frames. */
  frameCount: number;
  readonly kind: number[];
  readonly start: number[];
  readonly end: number[];
  /** The frame the token sits in (for a bracket: the frame outside it). */
  readonly frame: number[];
  /** Bracket depth (arrow bodies not counted). */
  readonly depth: number[];
  /** A line break before the token. */
  readonly nl: boolean[];
  /** A comment right before the token. */
  readonly comment: boolean[];
  /** For a bracket, the index of its partner. */
  readonly match: number[];
  /** Whether a string token holds an escape. */
  readonly escaped: boolean[];
  readonly frames: Frame[];
}

export function tokenize(src: string, jsx: boolean, typescript: boolean): Tokens {
  const t = TOKENS;
  t.count = 0;
  t.frameCount = 0;
  const frames = t.frames;
  const frameOpened = FRAME_OPENED;
  newFrameAt(t, TOP, false, -1, -1);
  const { kind, start, end, frame: frameOf, depth: depthOf, nl: nlOf, comment: commentOf, match, escaped } = t;
  const n = src.length;
  let pos = 0;
  let cur = 0; // current frame
  let depth = 0;
  let sawNl = false;
  let sawComment = false;
  /** Decorator: `@` then a name; a `(` right after the name is its call, not a method. */
  let decorator = false;

  if (src.charCodeAt(0) === 35 && src.charCodeAt(1) === 33) {
    pos = src.indexOf('\n');
    if (pos < 0) pos = n;
  }

  const last = () => t.count - 1;
  const text = (i: number) => src.slice(start[i]!, end[i]!);
  const isP = (i: number, p: string) =>
    i >= 0 &&
    kind[i] === PUNCT &&
    end[i]! - start[i]! === p.length &&
    src.charCodeAt(start[i]!) === p.charCodeAt(0) &&
    (p.length === 1 || src.startsWith(p, start[i]!));
  /** An identifier's text when it may be a keyword (short, lower case), else '' (no string made for most names). */
  const word = (i: number): string => keywordAt(src, start[i]!, end[i]!);
  const isId = (i: number, w: string) => i >= 0 && kind[i] === IDENT && end[i]! - start[i]! === w.length && src.startsWith(w, start[i]!);
  const afterDot = (i: number) => i > 0 && (isP(i - 1, '.') || isP(i - 1, '?.'));

  const push = (k: number, s: number, e: number): number => {
    const i = t.count++;
    kind[i] = k;
    start[i] = s;
    end[i] = e;
    frameOf[i] = cur;
    depthOf[i] = depth;
    nlOf[i] = sawNl;
    commentOf[i] = sawComment;
    match[i] = -1;
    escaped[i] = false;
    sawNl = false;
    sawComment = false;
    return i;
  };

  /** Whether an expression may start here (so `/` is a regular expression, `<` JSX). */
  const expressionStarts = (): boolean => {
    const i = last();
    if (i < 0) return true;
    const k = kind[i]!;
    if (k === IDENT) return !afterDot(i) && EXPRESSION_BEFORE.has(word(i));
    if (k !== PUNCT) return false;
    const c = src.charCodeAt(start[i]!);
    if (c === 41) return frames[closedFrame(i)]?.kind === HEADER; // )
    if (c === 93) return false; // ]
    if (c === 125) {
      const f = frames[closedFrame(i)]?.kind;
      return f === BLOCK || f === CLASS || f === TYPE;
    }
    if (isP(i, '++') || isP(i, '--')) return false;
    return true;
  };
  const closedFrame = (i: number): number => {
    const o = match[i]!;
    return o >= 0 ? frameOpened[o]! : -1;
  };

  const open = (k: number, fn: boolean, tok: number): number => {
    const id = newFrameAt(t, k, fn, cur, tok);
    frameOpened[tok] = id;
    cur = id;
    depth++;
    return cur;
  };

  /** Ends arrow bodies at the top of the stack. */
  const popArrows = () => {
    while (frames[cur]!.kind === ARROW) cur = frames[cur]!.parent;
  };

  const close = (tok: number, closer: number) => {
    popArrows();
    const f = frames[cur]!;
    if (f.open < 0) bail();
    const opener = src.charCodeAt(start[f.open]!);
    if ((closer === 41 && opener !== 40) || (closer === 93 && opener !== 91) || (closer === 125 && opener !== 123 && !isTplOpen(f.open)))
      bail();
    match[tok] = f.open;
    match[f.open] = tok;
    cur = f.parent;
    depth--;
    frameOf[tok] = cur;
    depthOf[tok] = depth;
    const parent = frames[cur]!;
    if (f.kind === PARAMS && parent.pending === 1 && parent.pendingParams === frameOpened[f.open]) parent.pending = 2;
    if (closer === 41) parent.lastParen = frameOpened[f.open]!;
    if (closer === 125 && (parent.kind === CLASS || parent.kind === OBJECT) && (f.kind === BLOCK || f.kind === CLASS))
      parent.memberClean = true;
  };
  const isTplOpen = (i: number) => kind[i] === TPL;

  const operandStarts = (i: number): boolean => {
    const k = kind[i]!;
    if (k === NUM || k === STR) return true;
    return k === IDENT && !INFIX_WORDS.has(word(i));
  };
  const operandEnds = (i: number): boolean => {
    const k = kind[i]!;
    if (k === NUM || k === STR || k === REGEX) return true;
    if (k === IDENT) return !afterDot(i) ? !WORDS_BEFORE_OPERAND.has(word(i)) : true;
    if (k === PUNCT && (isP(i, ']') || (isP(i, ')') && frames[closedFrame(i)]?.kind !== HEADER))) return true;
    return false;
  };

  /** Whether a line break between `a` and `b` ends a statement (tree-sitter-javascript's automatic semicolon). */
  const breaks = (a: number, b: number): boolean => asiBreak(src, t, a, b);

  const onToken = (i: number) => {
    const f = frames[cur]!;
    // Two operands side by side on one line (`x as T`, `type T = …`, `declare var`): not
    // JavaScript, so tree-sitter's parse has errors; the scanner leaves such files to it.
    if (!typescript && !nlOf[i] && i > 0 && operandStarts(i) && operandEnds(i - 1)) bail();
    if (!typescript && !nlOf[i] && i > 0 && isId(i, 'as') && !afterDot(i) && (operandEnds(i - 1) || isP(i - 1, '}')) && f.kind !== OBJECT)
      bail();
    // A line break may end an arrow body or a class member.
    if (nlOf[i] && i > 0) {
      while (frames[cur]!.kind === ARROW && breaks(i - 1, i)) cur = frames[cur]!.parent;
      frameOf[i] = cur;
      if (frames[cur]!.kind === CLASS && breaks(i - 1, i)) frames[cur]!.memberClean = true;
    }
  };

  const scanTemplate = (): void => {
    // at a backtick or right after the `}` of `${`
    for (;;) {
      if (pos >= n) bail();
      const c = src.charCodeAt(pos);
      if (c === 96) {
        pos++;
        return;
      }
      if (c === 92) pos += 2;
      else if (c === 36 && src.charCodeAt(pos + 1) === 123) {
        const i = push(TPL, pos, pos + 2);
        pos += 2;
        open(TEMPLATE, false, i);
        code(cur);
        if (src.charCodeAt(pos - 1) !== 125) bail();
      } else pos++;
    }
  };

  const skipSpace = (): void => {
    let p = pos;
    for (;;) {
      const c = src.charCodeAt(p);
      if (c === 32 || c === 9 || c === 13) p++;
      else if (c === 10) {
        sawNl = true;
        p++;
      } else if (c === 47 && src.charCodeAt(p + 1) === 47) {
        const e = src.indexOf('\n', p);
        p = e < 0 ? n : e;
        sawComment = true;
      } else if (c === 47 && src.charCodeAt(p + 1) === 42) {
        const e = src.indexOf('*/', p + 2);
        if (e < 0) bail();
        if (src.lastIndexOf('\n', e) > p) sawNl = true;
        p = e + 2;
        sawComment = true;
      } else if (c === 11 || c === 12 || c === 0xa0 || c === 0xfeff) p++;
      else if (c === 0x2028 || c === 0x2029) {
        sawNl = true;
        p++;
      } else if (c > 127 && /\s/.test(src[p]!)) p++;
      else break;
    }
    pos = p;
  };

  /** A JSX element from its `<` to its end, with the code in its braces scanned as code. */
  const scanJsx = (): void => {
    const s = pos;
    const nl0 = sawNl;
    sawNl = false;
    jsxElement();
    sawNl = nl0;
    push(JSX, s, pos);
  };
  const jsxName = (): boolean => {
    const s = pos;
    while (pos < n) {
      const c = src.charCodeAt(pos);
      if (isIdPart(c) || c === 45 || c === 46 || c === 58) pos++;
      else break;
    }
    return pos > s;
  };
  const jsxSpace = skipSpace;
  const jsxBraces = (): void => {
    // at `{`
    const i = push(PUNCT, pos, pos + 1);
    pos++;
    open(JSX_EXPR, false, i);
    code(cur);
  };
  const jsxElement = (): void => {
    // at `<`
    pos++;
    jsxSpace();
    const fragment = src.charCodeAt(pos) === 62;
    if (!fragment && !jsxName()) bail();
    if (typescript && src.charCodeAt(pos) === 60) {
      // `<Table<Row> …>`: type arguments (no brackets or strings in them, or the file is left to tree-sitter)
      let angle = 0;
      for (; pos < n; pos++) {
        const c = src.charCodeAt(pos);
        if (c === 60) angle++;
        else if (c === 62 && src.charCodeAt(pos - 1) !== 61 && --angle === 0) break;
        else if (c === 34 || c === 39 || c === 96 || c === 47) bail();
      }
      pos++;
    }
    // attributes
    for (;;) {
      jsxSpace();
      const c = src.charCodeAt(pos);
      if (c === 47 && src.charCodeAt(pos + 1) === 62) {
        pos += 2;
        return;
      }
      if (c === 62) {
        pos++;
        break;
      }
      if (c === 123) {
        jsxBraces();
        continue;
      }
      const attr = pos;
      if (!jsxName()) bail();
      // `class="x"`: tree-sitter-javascript reads a reserved word there as an error
      if (!typescript && RESERVED.has(src.slice(attr, pos))) bail();
      jsxSpace();
      if (src.charCodeAt(pos) !== 61) continue;
      pos++;
      jsxSpace();
      const v = src.charCodeAt(pos);
      if (v === 34 || v === 39) {
        const e = src.indexOf(String.fromCharCode(v), pos + 1);
        if (e < 0) bail();
        jsxAmpersands(pos + 1, e);
        pos = e + 1;
      } else if (v === 123) jsxBraces();
      else if (v === 60) jsxElement();
      else bail();
    }
    // children
    for (;;) {
      if (pos >= n) bail();
      const c = src.charCodeAt(pos);
      if (c === 123) jsxBraces();
      else if (c === 60) {
        if (src.charCodeAt(pos + 1) === 47) {
          pos += 2;
          jsxSpace();
          jsxName();
          jsxSpace();
          if (src.charCodeAt(pos) !== 62) bail();
          pos++;
          return;
        }
        jsxElement();
      } else {
        if (c === 38) jsxAmpersands(pos, pos + 1);
        pos++;
      }
    }
  };
  /** tree-sitter-javascript reads `&` in JSX text as an entity: one that is not makes a parse error. */
  const jsxAmpersands = (from: number, to: number): void => {
    for (let a = src.indexOf('&', from); a >= 0 && a < to; a = src.indexOf('&', a + 1)) {
      if (!ENTITY.test(src.slice(a, a + 12))) bail();
    }
  };

  /** Scans code until the frame `until` closes (or the end of the file for the top). */
  const code = (until: number): void => {
    for (;;) {
      skipSpace();
      if (pos >= n) {
        if (until !== 0) bail();
        return;
      }
      const c = src.charCodeAt(pos);
      const s = pos;
      if (isIdStart(c) || c === 35) {
        let q = pos + 1; // a local: the captured `pos` is slower to step
        while (q < n && isIdPart(src.charCodeAt(q))) q++;
        pos = q;
        if (src.charCodeAt(pos) === 92) bail();
        const i = push(IDENT, s, pos);
        onToken(i);
        ident(i);
        continue;
      }
      if (c === 92) bail();
      if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(pos + 1)))) {
        pos++;
        while (pos < n) {
          const d = src.charCodeAt(pos);
          if (isIdPart(d) || d === 46) pos++;
          else if ((d === 43 || d === 45) && (src.charCodeAt(pos - 1) | 32) === 101 && !/^0[xX]/.test(src.slice(s, s + 2))) pos++;
          else break;
        }
        onToken(push(NUM, s, pos));
        continue;
      }
      if (c === 34 || c === 39) {
        let q = pos + 1;
        let esc = false;
        for (;;) {
          if (q >= n) bail();
          const d = src.charCodeAt(q);
          if (d === c) break;
          if (d === 92) {
            esc = true;
            q += 2;
            continue;
          }
          if (d === 10 || d === 13) bail();
          q++;
        }
        pos = q + 1;
        const i = push(STR, s, pos);
        escaped[i] = esc;
        onToken(i);
        continue;
      }
      if (c === 96) {
        const i = push(TPL, s, s + 1);
        onToken(i);
        pos++;
        scanTemplate();
        // The template's end: what follows sees a finished operand.
        push(TPL, pos - 1, pos);
        continue;
      }
      if (c === 47 && expressionStarts()) {
        // regular expression
        pos++;
        let inClass = false;
        for (;;) {
          if (pos >= n) bail();
          const d = src.charCodeAt(pos);
          if (d === 10 || d === 13) bail();
          if (d === 92) pos += 2;
          else {
            pos++;
            if (d === 91) inClass = true;
            else if (d === 93) inClass = false;
            else if (d === 47 && !inClass) break;
          }
        }
        while (pos < n && isIdPart(src.charCodeAt(pos))) pos++;
        onToken(push(REGEX, s, pos));
        continue;
      }
      if (c === 60 && jsx && expressionStarts()) {
        const d = src.charCodeAt(pos + 1);
        // In TSX `<T extends U>(…) =>`, `<T,>(…) =>`, `<T = U>(…) =>` are type parameters.
        if ((isIdStart(d) || d === 62) && !(typescript && TYPE_PARAMETERS.test(src.slice(pos, pos + 200)))) {
          scanJsx();
          onToken(last());
          continue;
        }
      }
      // punctuator
      const len = punctuatorLength(src, pos, c);
      pos += len;
      const i = push(PUNCT, s, pos);
      onToken(i);
      if (len === 1) {
        if (c === 40 || c === 91 || c === 123) {
          opening(i, c);
          continue;
        }
        if (c === 41 || c === 93 || c === 125) {
          const f = frames[cur]!;
          const closes = popArrowsThen(f);
          const fk = frames[closes]!;
          close(i, c);
          if (closes === until) {
            if (fk.kind === TEMPLATE) return;
            if (fk.kind === JSX_EXPR) return;
          }
          decorator = false;
          continue;
        }
      }
      punct(i, c, len);
    }
  };
  const popArrowsThen = (f: Frame): number => {
    let id = cur;
    let g = f;
    while (g.kind === ARROW) {
      id = g.parent;
      g = frames[id]!;
    }
    return id;
  };

  const opening = (i: number, c: number) => {
    const f = frames[cur]!;
    const p = i - 1;
    if (c === 40) {
      let k = PAREN;
      let fn = false;
      if (decorator) {
        decorator = false;
      } else if (f.pending === 1) {
        k = PARAMS;
        fn = true;
      } else if (p >= 0 && kind[p] === IDENT && !afterDot(p) && HEADER_WORDS.has(word(p))) k = HEADER;
      else if (p >= 1 && isId(p, 'await') && isId(p - 1, 'for')) k = HEADER;
      else if ((f.kind === CLASS || f.kind === OBJECT) && f.memberClean && p >= 0 && isMethodName(p)) {
        k = PARAMS;
        fn = true;
        f.pending = 1;
      }
      const id = open(k, fn, i);
      if (k === PARAMS) f.pendingParams = id;
      return;
    }
    if (c === 91) {
      open(ARRAY, false, i);
      return;
    }
    // `{`
    decorator = false;
    let k = OBJECT;
    let fn = false;
    const pt = p >= 0 ? (kind[p] === PUNCT || kind[p] === IDENT ? text(p) : '') : ';';
    let decided = false;
    if (f.pending === 2) {
      if (p >= 0 && isP(p, ')') && frameOpened[match[p]!] === f.pendingParams) {
        k = BLOCK;
        fn = true;
        f.pending = 0;
        decided = true;
      } else if (pt === '=' || pt === '(') f.pending = 0;
      else if (TYPE_CONTINUES.has(pt)) {
        k = TYPE;
        decided = true;
      } else {
        k = BLOCK;
        fn = true;
        f.pending = 0;
        decided = true;
      }
    }
    if (decided) {
      // decided above
    } else if (pt === '=>') {
      k = BLOCK;
      fn = true;
    } else if (f.pendingBody > 0 && !CLASS_HEAD_CONTINUES.has(pt)) {
      k = f.pendingBody === 1 ? CLASS : TYPE;
      f.pendingBody = 0;
    } else if (
      p < 0 ||
      pt === ';' ||
      pt === '}' ||
      pt === ')' ||
      pt === 'else' ||
      pt === 'do' ||
      pt === 'try' ||
      pt === 'catch' ||
      pt === 'finally' ||
      (pt === 'static' && f.kind === CLASS)
    )
      k = BLOCK;
    else if (pt === '{') k = f.kind === TOP || f.kind === BLOCK ? BLOCK : OBJECT;
    else if (nlOf[i] && endsExpression(src, t, p)) k = BLOCK;
    else if (pt === ':' && (f.kind === BLOCK || f.kind === TOP) && caseBefore(p)) k = BLOCK;
    open(k, fn, i);
    if (k === OBJECT || k === CLASS) frames[cur]!.memberClean = true;
  };
  const caseBefore = (p: number): boolean => {
    // `case x: {` / `default: {`: a `case` or `default` since the last `;`, `{`, `}` of this frame
    for (let j = p - 1; j >= 0 && j > p - 40; j--) {
      if (frameOf[j] !== cur) continue;
      if (isId(j, 'case') || (isId(j, 'default') && isP(j + 1, ':') && !isId(j - 1, 'export'))) return true;
      if (kind[j] === PUNCT && /^[;{}]$/.test(text(j))) return false;
    }
    return false;
  };
  const isMethodName = (p: number): boolean => {
    const k = kind[p]!;
    if (k === IDENT || k === STR || k === NUM) return !afterDot(p);
    if (isP(p, ']') || isP(p, '>') || isP(p, '*') || isP(p, '?')) return true;
    return false;
  };

  const ident = (i: number) => {
    const f = frames[cur]!;
    if (decorator) {
      if (isP(i - 1, '@') || isP(i - 1, '.')) return;
      decorator = false;
    }
    if (afterDot(i)) return;
    const w = word(i);
    if (w === '') return;
    const next = nextChar();
    if (w === 'function') {
      if (next === 58 || next === 44 || next === 125 || next === 61 || next === 41 || next === 59) return;
      f.pending = 1;
      f.memberClean = false;
    } else if (w === 'class') {
      if (next === 58 || next === 44 || next === 125 || next === 61 || next === 41 || next === 59 || next === 40) return;
      f.pendingBody = 1;
    } else if (typescript && w === 'interface' && isIdStart(next)) f.pendingBody = 2;
    else if (
      typescript &&
      (w === 'namespace' || w === 'module' || w === 'global') &&
      next !== 58 &&
      next !== 46 &&
      next !== 40 &&
      next !== 61 &&
      next !== 44 &&
      next !== 41
    ) {
      // `namespace N {`, `declare module 'm' {`, `declare global {`: statements nest; left to tree-sitter
      if (NESTED.test(src.slice(start[i]!, start[i]! + 200))) bail();
    }
  };
  const nextChar = (): number => {
    let p = pos;
    for (;;) {
      const c = src.charCodeAt(p);
      if (c === 32 || c === 9 || c === 10 || c === 13) p++;
      else if (c === 47 && (src.charCodeAt(p + 1) === 47 || src.charCodeAt(p + 1) === 42)) return 0;
      else return c;
    }
  };

  const punct = (i: number, c: number, len: number) => {
    const f = frames[cur]!;
    if (len === 1 && c === 64) {
      decorator = true;
      return;
    }
    if (decorator && !(len === 1 && c === 46)) decorator = false;
    if (len === 2 && isP(i, '=>')) {
      f.memberClean = false;
      // arrow parameters: the paren closed right before (or before a return type)
      const p = i - 1;
      let params = -1;
      if (isP(p, ')')) params = frameOpened[match[p]!]!;
      else if (typescript && f.lastParen >= 0 && frames[f.lastParen]!.pendingBody === -1) params = f.lastParen;
      if (params >= 0) {
        frames[params]!.kind = PARAMS;
        frames[params]!.fn = true;
      }
      if (nextChar() !== 123) {
        cur = newFrameAt(t, ARROW, true, cur, -1);
      }
      return;
    }
    if (len === 1 && c === 58) {
      // `):` a return type follows the parameters
      if (isP(i - 1, ')')) {
        const pf = frameOpened[match[i - 1]!]!;
        frames[pf]!.pendingBody = -1; // marks "a type annotation followed"
      }
      // ends arrow bodies unless a `?` is open in them
      while (frames[cur]!.kind === ARROW) {
        const a = frames[cur]!;
        if (a.questions > 0) {
          a.questions--;
          return;
        }
        cur = a.parent;
      }
      frameOf[i] = cur;
      const g = frames[cur]!;
      g.memberClean = false;
      if (g.questions > 0) g.questions--;
      else if (!typescript) {
        // Flow or TypeScript annotations in JavaScript: tree-sitter's parse has errors there.
        if (g.kind === PAREN || g.kind === PARAMS || g.kind === HEADER || g.kind === CLASS || g.kind === ARRAY) bail();
        if (isP(i - 1, ')') && (frames[frameOpened[match[i - 1]!]!]!.kind === PARAMS || !caseBefore(i))) bail();
      }
      return;
    }
    if (len === 1 && c === 63) {
      f.questions++;
      return;
    }
    if (len === 1 && (c === 44 || c === 59)) {
      popArrows();
      frameOf[i] = cur;
      const g = frames[cur]!;
      if (g.kind === OBJECT || g.kind === CLASS) g.memberClean = true;
      if (g.pending === 2) g.pending = 0;
      if (c === 59 && g.pendingBody > 0) g.pendingBody = 0;
      return;
    }
    if (len === 1 && c === 61) f.memberClean = false;
    if (len === 3 && c === 46) f.memberClean = false;
  };

  code(0);
  popArrows();
  if (cur !== 0) bail();
  return t;
}

/** Words after which an operand may follow on the same line. */
const WORDS_BEFORE_OPERAND = new Set([
  ...EXPRESSION_BEFORE,
  'export',
  'import',
  'default',
  'from',
  'as',
  'async',
  'get',
  'set',
  'static',
  'let',
  'const',
  'var',
  'function',
  'class',
  'if',
  'while',
  'for',
  'with',
  'switch',
  'catch',
  'try',
  'finally',
  'break',
  'continue',
  'of',
  'accessor',
]);
/** Words that may follow an operand on the same line. */
const INFIX_WORDS = new Set(['in', 'instanceof', 'of', 'as', 'from', 'extends']);
/** Reserved words (never a binding's name). */
export const RESERVED = new Set(
  'break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static enum await implements package protected interface private public as from of'.split(
    ' ',
  ),
);
const ENTITY = /^&(#\d+|#x[\da-fA-F]+|[a-zA-Z][a-zA-Z\d]*);/;
/** Names that tree-sitter reads as their own nodes, not identifiers. */
export const NOT_IDENTIFIERS = new Set(['undefined', 'null', 'true', 'false', 'this', 'super', 'import']);
/** TypeScript's contextual keywords: as a declared name they may be read as a modifier. */
export const CONTEXTUAL = new Set([
  'abstract',
  'declare',
  'type',
  'namespace',
  'module',
  'readonly',
  'async',
  'get',
  'set',
  'static',
  'as',
  'from',
  'of',
  'global',
  'override',
  'accessor',
  'satisfies',
  'infer',
  'is',
  'keyof',
  'unique',
]);
const TYPE_PARAMETERS = /^<\s*(const\s+)?[A-Za-z_$][\w$]*\s*(extends\b|,|=[^>])/;
const HEADER_WORDS = new Set(['if', 'while', 'for', 'with', 'switch', 'catch']);
const NESTED = /^(namespace|module|global)\b\s*[\w$."'`]*\s*\{/;
/** Before a `{` that continues a type (so is not a function body). */
const TYPE_CONTINUES = new Set([':', '|', '&', '<', ',', '=>', '?', '(', '[', 'keyof', 'typeof', 'extends', '=', 'is', 'as']);
/** Before a `{` inside a class head (`extends A<{…}>`). */
const CLASS_HEAD_CONTINUES = new Set(['<', ',', 'extends', 'implements', ':', '|', '&', '(', '=']);

/** A frame at the next free index of `t.frames` (its object reused); returns the index. */
function newFrameAt(t: Tokens, kind: number, fn: boolean, parent: number, open: number): number {
  const id = t.frameCount++;
  let f = t.frames[id];
  if (!f) {
    f = { kind, fn, parent, open, pending: 0, pendingParams: -1, pendingBody: 0, memberClean: false, questions: 0, lastParen: -1 };
    t.frames[id] = f;
    return id;
  }
  f.kind = kind;
  f.fn = fn;
  f.parent = parent;
  f.open = open;
  f.pending = 0;
  f.pendingParams = -1;
  f.pendingBody = 0;
  f.memberClean = false;
  f.questions = 0;
  f.lastParen = -1;
  return id;
}

const TOKENS: Tokens = {
  count: 0,
  frameCount: 0,
  kind: [],
  start: [],
  end: [],
  frame: [],
  depth: [],
  nl: [],
  comment: [],
  match: [],
  escaped: [],
  frames: [],
};
/** For an opening bracket token, the frame it opened. */
const FRAME_OPENED: number[] = [];

export const tokText = (src: string, t: Tokens, i: number): string => src.slice(t.start[i]!, t.end[i]!);
export const tokIs = (src: string, t: Tokens, i: number, s: string): boolean =>
  i >= 0 &&
  i < t.count &&
  t.end[i]! - t.start[i]! === s.length &&
  src.startsWith(s, t.start[i]!) &&
  (t.kind[i] === PUNCT || t.kind[i] === IDENT);

/** Whether token `i` can end an expression. */
function endsExpression(src: string, t: Tokens, i: number): boolean {
  const k = t.kind[i]!;
  if (k === PUNCT) {
    const s = tokText(src, t, i);
    return s === ')' || s === ']' || s === '}' || s === '++' || s === '--';
  }
  if (k === IDENT) return !EXPRESSION_BEFORE.has(tokText(src, t, i)) || tokText(src, t, i) === 'this';
  return true;
}

/**
 * Whether a line break between tokens `a` and `b` inserts a semicolon, as tree-sitter-javascript's
 * scanner decides it (`scan_automatic_semicolon`) where the expression can end at `a`.
 */
export function asiBreak(src: string, t: Tokens, a: number, b: number): boolean {
  if (!endsExpression(src, t, a)) return false;
  const k = t.kind[b]!;
  if (k === TPL) return false;
  if (k === REGEX) return false;
  if (k === IDENT) {
    const w = tokText(src, t, b);
    return w !== 'in' && w !== 'instanceof';
  }
  if (k !== PUNCT) return true;
  const s = tokText(src, t, b);
  const c = s.charCodeAt(0);
  // , : ; * % > < = [ ( ? ^ | & / .
  if (',:;*%><=[(?^|&/.'.includes(s[0]!)) return false;
  if (c === 43 || c === 45) return s === '++' || s === '--';
  if (c === 33) return !s.startsWith('!=');
  return true;
}

export interface Declarator {
  /** Identifier name, or an object pattern's names, or neither. */
  readonly name?: string;
  readonly pattern?: ImportedName[];
}

/** The words the scanner looks at, by first character (see `keywordAt`). */
const KEYWORDS_BY_CHAR = (() => {
  const all = new Set([
    ...EXPRESSION_BEFORE,
    ...WORDS_BEFORE_OPERAND,
    ...INFIX_WORDS,
    ...HEADER_WORDS,
    ...RESERVED,
    ...CONTEXTUAL,
    ...NOT_IDENTIFIERS,
    'function',
    'class',
    'interface',
    'namespace',
    'module',
    'global',
    'import',
    'export',
    'require',
    'const',
    'let',
    'var',
    'this',
  ]);
  const by: string[][] = [];
  for (const w of all) (by[w.charCodeAt(0)] ??= []).push(w);
  return by;
})();

/** The word at `s`…`e` when it is one the scanner looks at (no string made), else ''. */
export function keywordAt(src: string, s: number, e: number): string {
  const c = src.charCodeAt(s);
  if (c < 97 || c > 122) return '';
  const list = KEYWORDS_BY_CHAR[c];
  if (!list) return '';
  const l = e - s;
  for (const w of list) if (w.length === l && src.startsWith(w, s)) return w;
  return '';
}
