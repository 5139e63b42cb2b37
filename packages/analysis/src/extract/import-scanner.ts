/**
 * Imports and exports of a JavaScript or TypeScript file without tree-sitter: a hand-written
 * single pass over the source (strings, template literals, comments, regular expressions, JSX
 * text, bracket nesting, function extents) and a reader of the few statement forms that make
 * import facts.
 *
 * Why: tree-sitter parses at 3–8 MB/s a thread here, and the import graph (`airspace graph`)
 * needs from each file only its import and export statements and its `require(…)`/`import(…)`
 * calls; scanning for those runs many times faster than the parse (see docs/benchmarks.md).
 *
 * The scanner answers only when sure: its facts must equal the imports-only extraction's
 * (`extractFacts(…, { importsOnly: true })`) for the same file. Whenever it meets something it
 * does not model (an unterminated token, unbalanced brackets, a TypeScript namespace, an import
 * statement inside a block, a `require` whose bindings it cannot tell, …) it returns undefined
 * and the file goes to tree-sitter. It cannot see every syntax error: a file tree-sitter would
 * mark `partial` may get whole-looking facts here (same imports, `partial: false`); the checks
 * over real repositories (`packages/bench/src/check-import-scanner.ts`) count how often.
 */
import type { ExportFact, FileFacts, ImportedName, ImportFact, Language } from '../facts.js';

/** Token kinds. */
const IDENT = 0;
const PUNCT = 1;
const STR = 2;
const TPL = 3;
const NUM = 4;
const REGEX = 5;
const JSX = 6;

/** Kinds of nesting (brackets, and the body of an arrow function without braces). */
const TOP = 0;
const BLOCK = 1;
const OBJECT = 2;
const CLASS = 3;
const PAREN = 4;
const PARAMS = 5;
const ARRAY = 6;
const TYPE = 7;
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

/** Thrown (one instance, no stack) when the scanner is not sure. */
class Bail {}
const BAIL = new Bail();
const bail = (): never => {
  throw BAIL;
};

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

const isIdStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c >= 128;
const isIdPart = (c: number): boolean => isIdStart(c) || (c >= 48 && c <= 57);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** The tokens of one file, as parallel arrays (reused from file to file: no garbage per token). */
interface Tokens {
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

function tokenize(src: string, jsx: boolean, typescript: boolean): Tokens {
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
const RESERVED = new Set(
  'break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static enum await implements package protected interface private public as from of'.split(
    ' ',
  ),
);
const ENTITY = /^&(#\d+|#x[\da-fA-F]+|[a-zA-Z][a-zA-Z\d]*);/;
/** Names that tree-sitter reads as their own nodes, not identifiers. */
const NOT_IDENTIFIERS = new Set(['undefined', 'null', 'true', 'false', 'this', 'super', 'import']);
/** TypeScript's contextual keywords: as a declared name they may be read as a modifier. */
const CONTEXTUAL = new Set([
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

const tokText = (src: string, t: Tokens, i: number): string => src.slice(t.start[i]!, t.end[i]!);
const tokIs = (src: string, t: Tokens, i: number, s: string): boolean =>
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
function asiBreak(src: string, t: Tokens, a: number, b: number): boolean {
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

interface Declarator {
  /** Identifier name, or an object pattern's names, or neither. */
  readonly name?: string;
  readonly pattern?: ImportedName[];
}

/** The scanner's reading of one file. */
class Reader {
  readonly imports: ImportFact[] = [];
  readonly localExports: ExportFact[] = [];
  /** `=` tokens of variable declarators, by token index. */
  readonly declarators = new Map<number, Declarator>();
  private lineStarts: number[] | undefined;

  constructor(
    private readonly src: string,
    private readonly t: Tokens,
    private readonly typescript: boolean,
  ) {}

  private is(i: number, s: string): boolean {
    return tokIs(this.src, this.t, i, s);
  }
  private text(i: number): string {
    return tokText(this.src, this.t, i);
  }
  private kind(i: number): number {
    return i < this.t.count ? this.t.kind[i]! : -1;
  }
  private isName(i: number): boolean {
    return this.kind(i) === IDENT && this.src.charCodeAt(this.t.start[i]!) !== 35;
  }
  line(i: number): number {
    const at = this.t.start[i]!;
    if (!this.lineStarts) {
      const ls = [0];
      for (let j = this.src.indexOf('\n'); j >= 0; j = this.src.indexOf('\n', j + 1)) ls.push(j + 1);
      this.lineStarts = ls;
    }
    const ls = this.lineStarts;
    let lo = 0;
    let hi = ls.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ls[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
  /** A specifier: a string without escapes (empty: no import at all, as tree-sitter's query). */
  private specifier(i: number): string | undefined {
    if (this.kind(i) !== STR) return bail();
    if (this.t.escaped[i]) bail();
    const s = this.text(i).slice(1, -1);
    return s.length > 0 ? s : undefined;
  }
  /** Whether a statement starts at token `i` (or its decorators end there). */
  private statementStarts(i: number): boolean {
    const p = i - 1;
    if (p < 0 || this.is(p, ';') || this.is(p, '}')) return true;
    return this.t.nl[i]! && asiBreak(this.src, this.t, p, i);
  }
  /** Whether the statement ends before token `i`. */
  private statementEnds(i: number): boolean {
    if (i >= this.t.count) return true;
    if (this.is(i, ';')) return true;
    return this.t.nl[i]! && asiBreak(this.src, this.t, i - 1, i);
  }
  /** Whether the expression ends before token `i`. */
  private expressionEnds(i: number): boolean {
    if (i >= this.t.count) return true;
    if (this.kind(i) === PUNCT && /^[;,)\]}:]$/.test(this.text(i))) return true;
    return this.t.nl[i]! && asiBreak(this.src, this.t, i - 1, i);
  }

  read(): void {
    const { t } = this;
    const n = t.count;
    for (let i = 0; i < n; i++) {
      if (t.kind[i] !== IDENT) continue;
      const afterDot = i > 0 && (this.is(i - 1, '.') || this.is(i - 1, '?.'));
      if (afterDot) continue;
      const w = keywordAt(this.src, t.start[i]!, t.end[i]!);
      if (w === '') continue;
      if (w === 'import') {
        if (this.is(i + 1, '(')) this.call(i, 'dynamic');
        else if (this.is(i + 1, '.')) {
          if (!this.is(i + 2, 'meta')) bail(); // `import.defer(…)`, `import.source(…)`
        } else if (this.is(i + 1, ':')) continue;
        else {
          if (t.frame[i] !== 0 || !this.statementStarts(i)) bail();
          i = this.importStatement(i) - 1;
        }
      } else if (w === 'export') {
        if (this.is(i + 1, ':')) continue;
        if (t.frame[i] !== 0) bail();
        this.exportStatement(i);
      } else if (w === 'require') {
        if (this.is(i + 1, '(')) {
          if (i > 0 && (this.is(i - 1, 'new') || this.is(i - 1, 'function'))) bail();
          this.call(i, 'require');
        } else if (this.typescript && this.is(i + 1, '<')) bail();
      } else if (w === 'const' || w === 'let' || w === 'var') {
        if (this.isName(i + 1) || this.is(i + 1, '{') || this.is(i + 1, '[')) {
          if (w === 'let' && this.isName(i + 1) && /^(in|of|instanceof)$/.test(this.text(i + 1))) continue;
          // `var x: T`: a Flow annotation, a parse error for tree-sitter-javascript
          if (!this.typescript && this.isName(i + 1) && this.is(i + 2, ':')) bail();
          try {
            this.declaration(i + 1);
          } catch (e) {
            // Needed only if a call's bindings depend on it (see `bindings`).
            if (e !== BAIL) throw e;
            if (this.unsureFrom < 0) this.unsureFrom = i;
          }
        }
      }
    }
  }
  /** The first declaration the reader could not read (its `=` are unknown from there on). */
  private unsureFrom = -1;

  /** Declarators from token `i` (after `const`/`let`/`var`): their names, their `=` recorded. */
  declaration(i: number): Declarator[] {
    const { t } = this;
    const d = t.depth[i]!;
    const out: Declarator[] = [];
    for (;;) {
      let decl: Declarator;
      let j: number;
      if (this.isName(i)) {
        if (this.typescript && CONTEXTUAL.has(this.text(i))) bail(); // `let\nabstract\nclass`: read otherwise
        decl = { name: this.text(i) };
        j = i + 1;
      } else if (this.is(i, '{')) {
        const pattern = this.objectPattern(i);
        decl = pattern ? { pattern } : {};
        j = t.match[i]! + 1;
      } else if (this.is(i, '[')) {
        decl = {};
        j = t.match[i]! + 1;
      } else return bail();
      out.push(decl);
      if (
        out.length > 1 &&
        !(
          this.is(j, '=') ||
          this.is(j, ':') ||
          this.is(j, '!') ||
          this.is(j, ',') ||
          this.is(j, 'of') ||
          this.is(j, 'in') ||
          this.statementEnds(j) ||
          this.is(j, ')')
        )
      )
        bail();
      if (this.is(j, '!')) j++;
      if (this.is(j, ':')) {
        if (!this.typescript) bail(); // a Flow annotation: tree-sitter-javascript fails there
        j = this.skipType(j + 1, d);
      }
      if (this.is(j, '=')) {
        this.declarators.set(j, decl);
        j = this.skipInitializer(j + 1, d);
      }
      if (this.is(j, ',') && t.depth[j] === d) {
        i = j + 1;
        continue;
      }
      return out;
    }
  }

  /** Skips a type annotation: to the `=`, `,`, `;` or statement end at depth `d`. */
  private skipType(j: number, d: number): number {
    const { t } = this;
    let angle = 0;
    for (; j < t.count; j++) {
      if (t.depth[j]! < d) return j;
      if (t.depth[j]! > d || (t.match[j]! >= 0 && t.match[j]! < j)) continue;
      if (this.is(j, '<')) angle++;
      else if (this.is(j, '>')) angle = Math.max(0, angle - 1);
      else if (angle === 0 && (this.is(j, '=') || this.is(j, ',') || this.is(j, ';'))) return j;
      else if (angle === 0 && t.nl[j] && asiBreak(this.src, t, j - 1, j) && !this.is(j, '|') && !this.is(j, '&')) return j;
    }
    return j;
  }

  /** Skips an initializer: to the `,` or statement end at depth `d`. */
  private skipInitializer(j: number, d: number): number {
    const { t, src } = this;
    let angle = 0;
    let angleComma = false;
    for (; j < t.count; j++) {
      if (t.depth[j]! < d) break;
      if (t.depth[j]! > d || (t.match[j]! >= 0 && t.match[j]! < j)) continue;
      const k = t.kind[j]!;
      if (k === PUNCT) {
        const s = this.text(j);
        if (s === ';') break;
        if (s === ',') {
          if (angle > 0) {
            angleComma = true;
            continue;
          }
          break;
        }
        if (
          this.typescript &&
          s === '<' &&
          j > 0 &&
          (this.isName(j - 1) || this.is(j - 1, '>') || /^(=|\(|,|=>|\?|:)$/.test(this.text(j - 1))) &&
          (this.isName(j + 1) || this.is(j + 1, '{') || this.is(j + 1, '[') || this.is(j + 1, '('))
        )
          angle++;
        else if (s === '>' && angle > 0) {
          angle--;
          if (angle === 0 && angleComma) {
            if (!(this.is(j + 1, '(') || this.kind(j + 1) === TPL)) bail();
            angleComma = false;
          }
        }
      }
      if (t.nl[j] && j > 0 && asiBreak(src, t, j - 1, j) && angle === 0) break;
    }
    if (angle > 0 && angleComma) bail();
    return j;
  }

  /** `{ a, b: c, d = 1 }` as `objectPatternNames` reads it; undefined for a form it does not know. */
  private objectPattern(open: number): ImportedName[] | undefined {
    const { t } = this;
    const close = t.match[open]!;
    const d = t.depth[open]! + 1;
    const names: ImportedName[] = [];
    let i = open + 1;
    while (i < close) {
      // one property: up to the next `,` at depth d
      let e = i;
      while (e < close && !(this.is(e, ',') && t.depth[e] === d)) e++;
      if (e === i) bail();
      if (this.is(i, '...')) {
        // rest pattern: not a name
      } else if (this.isName(i) && e === i + 1) names.push({ name: this.text(i), alias: this.text(i) });
      else if (this.isName(i) && this.is(i + 1, '=')) names.push({ name: this.text(i), alias: this.text(i) });
      else if (this.isName(i) && this.is(i + 1, ':')) {
        if (this.isName(i + 2) && e === i + 3) names.push({ name: this.text(i), alias: this.text(i + 2) });
        else if (this.isName(i + 2) && this.is(i + 3, '=')) {
          // value with a default: not an identifier
        } else if (this.is(i + 2, '{') || this.is(i + 2, '[')) {
          if (t.match[i + 2]! + 1 !== e) bail();
        } else bail();
      } else bail();
      i = e + 1;
    }
    return names;
  }

  /** Reads the import statement at `i`; returns the index of the token after it. */
  private importStatement(i: number): number {
    const at = this.line(i);
    let j = i + 1;
    let typeOnly = false;
    if (this.is(j, 'type')) {
      if (!this.typescript) bail();
      if (this.is(j + 1, '{') || this.is(j + 1, '*') || (this.isName(j + 1) && !this.is(j + 1, 'from') && !this.is(j + 2, '='))) {
        typeOnly = true;
        j++;
      } else bail();
    }
    if (this.kind(j) === STR) {
      if (typeOnly) bail();
      const specifier = this.specifier(j);
      this.end(j + 1);
      if (specifier !== undefined) this.imports.push({ specifier, kind: 'static', names: [], line: at });
      return j + 1;
    }
    const fact: { names: ImportedName[]; defaultBinding?: string; namespaceBinding?: string } = { names: [] };
    if (this.isName(j) && !this.is(j, 'from')) {
      if (this.is(j + 1, '=')) {
        // TypeScript `import x = require('m')`
        if (typeOnly || !this.typescript) bail();
        if (!this.is(j + 2, 'require') || !this.is(j + 3, '(') || this.kind(j + 4) !== STR || !this.is(j + 5, ')')) bail();
        const specifier = this.specifier(j + 4);
        this.end(j + 6);
        if (specifier !== undefined) this.imports.push({ specifier, kind: 'require', names: [], namespaceBinding: this.text(j), line: at });
        return j + 6;
      }
      fact.defaultBinding = this.text(j);
      if (RESERVED.has(fact.defaultBinding) || CONTEXTUAL.has(fact.defaultBinding)) bail(); // `import default from`
      j++;
      if (this.is(j, ',')) {
        j++;
        if (!this.is(j, '*') && !this.is(j, '{')) bail();
      } else if (!this.is(j, 'from')) bail();
    } else if (this.is(j, 'from') && this.is(j + 1, 'from')) bail();
    if (this.is(j, '*')) {
      if (!this.is(j + 1, 'as') || !this.isName(j + 2)) bail();
      fact.namespaceBinding = this.text(j + 2);
      j += 3;
    } else if (this.is(j, '{')) {
      j = this.specifiers(j, typeOnly, fact.names, undefined, undefined, true);
    }
    if (!this.is(j, 'from')) bail();
    const specifier = this.specifier(j + 1);
    this.end(j + 2);
    if (specifier !== undefined) this.imports.push({ specifier, kind: typeOnly ? 'type' : 'static', ...fact, line: at });
    return j + 2;
  }

  /** `{ a, b as c, type D }`: names into `out`; returns the token after `}`. */
  private specifiers(
    open: number,
    typeOnly: boolean,
    out: ImportedName[],
    locals?: ExportFact[],
    line?: number,
    importing = false,
  ): number {
    const close = this.t.match[open]!;
    let j = open + 1;
    while (j < close) {
      let typed = typeOnly;
      if (this.is(j, 'type')) {
        if (!this.typescript) bail();
        if (this.isName(j + 1) && !this.is(j + 1, 'as')) {
          typed = true;
          j++;
        } else bail();
      }
      if (!this.isName(j)) bail();
      const name = this.text(j);
      let alias = name;
      j++;
      if (this.is(j, 'as')) {
        if (!this.isName(j + 1)) bail();
        alias = this.text(j + 1);
        j += 2;
      }
      // `{ do_ as do }`: tree-sitter's parse has an error there; `import { default }` too
      if ((RESERVED.has(alias) && (alias !== 'default' || importing)) || (RESERVED.has(name) && name !== 'default')) bail();
      if (locals) locals.push({ name: alias, local: name, kind: 'local', line: line! });
      else out.push(typed ? { name, alias, typeOnly: true } : { name, alias });
      if (this.is(j, ',')) j++;
      else if (j !== close) bail();
    }
    return close + 1;
  }

  /** The statement must end at token `j` (`;`, a line break, the end of the file). */
  private end(j: number): void {
    if (this.is(j, 'with') || this.is(j, 'assert')) bail();
    if (!this.statementEnds(j)) bail();
  }

  private exportStatement(i: number): void {
    const { t } = this;
    // Decorators before `export` belong to the statement: it starts at the first of them.
    let first = i;
    for (let j = i - 1; j >= 0;) {
      let k = j;
      if (this.is(k, ')')) k = t.match[k]! - 1;
      while (k >= 1 && this.isName(k) && this.is(k - 1, '.')) k -= 2;
      if (!this.isName(k) || !this.is(k - 1, '@')) break;
      first = k - 1;
      j = k - 2;
    }
    const at = this.line(first);
    let j = i + 1;
    if (!this.statementStarts(first)) bail();
    if (t.comment[j]) bail();
    if (this.is(j, 'default')) {
      j++;
      if (this.expressionEnds(j)) bail(); // `export default,`
      if (this.is(j, 'async') && this.is(j + 1, 'function') && !t.nl[j + 1]) j++;
      else if (this.isName(j) && (CONTEXTUAL.has(this.text(j)) || /^(await|using|yield|let)$/.test(this.text(j)))) bail();
      if (this.is(j, 'function') || this.is(j, 'class') || (this.is(j, 'abstract') && this.is(j + 1, 'class'))) {
        if (this.is(j, 'abstract')) j++;
        j++;
        if (this.is(j, '*')) j++;
        const local = this.isName(j) && !this.is(j, 'extends') && !this.is(j, 'implements') ? this.text(j) : undefined;
        if (this.typescript) {
          // an overload signature (`export default function (a: A): R;`) has no body: not read here
          let k = j;
          while (k < t.count && !this.is(k, '(') && !this.is(k, '{')) k++;
          if (this.is(k, '('))
            for (k = t.match[k]! + 1; k < t.count && !this.is(k, '{'); k++) if (this.is(k, ';') || t.depth[k]! < t.depth[j]!) bail();
        }
        this.localExports.push({ name: 'default', ...(local ? { local } : {}), kind: 'default', line: at });
        return;
      }
      if (/^(interface|enum|type|namespace|module|declare)$/.test(this.isName(j) ? this.text(j) : '')) bail();
      const local =
        this.isName(j) && this.expressionEnds(j + 1) && !this.is(j + 1, ':') && !NOT_IDENTIFIERS.has(this.text(j))
          ? this.text(j)
          : undefined;
      this.localExports.push({ name: 'default', ...(local ? { local } : {}), kind: 'default', line: at });
      return;
    }
    let typeOnly = false;
    if (this.is(j, 'type') && (this.is(j + 1, '{') || this.is(j + 1, '*'))) {
      if (!this.typescript || this.is(j + 1, '*')) bail();
      typeOnly = true;
      j++;
    }
    if (this.is(j, '{')) {
      const close = t.match[j]!;
      if (this.is(close + 1, 'from')) {
        const names: ImportedName[] = [];
        this.specifiers(j, typeOnly, names);
        const specifier = this.specifier(close + 2);
        this.end(close + 3);
        if (specifier !== undefined) this.imports.push({ specifier, kind: 'reexport', names, line: at });
      } else {
        this.specifiers(j, typeOnly, [], this.localExports, at);
        this.end(close + 1);
      }
      return;
    }
    if (this.is(j, '*')) {
      const names: ImportedName[] = [];
      j++;
      if (this.is(j, 'as')) {
        if (!this.isName(j + 1) || RESERVED.has(this.text(j + 1))) bail();
        names.push({ name: '*', alias: this.text(j + 1) });
        j += 2;
      }
      if (!this.is(j, 'from')) bail();
      const specifier = this.specifier(j + 1);
      this.end(j + 2);
      if (specifier !== undefined)
        this.imports.push({ specifier, kind: 'reexport', names, ...(names.length ? {} : { wildcard: true }), line: at });
      return;
    }
    if (this.is(j, '=')) {
      if (!this.typescript) bail();
      const local =
        this.isName(j + 1) && this.expressionEnds(j + 2) && !this.is(j + 2, ':') && !NOT_IDENTIFIERS.has(this.text(j + 1))
          ? this.text(j + 1)
          : undefined;
      this.localExports.push({ name: 'default', ...(local ? { local } : {}), kind: 'assignment', line: at });
      return;
    }
    if (this.is(j, 'declare')) return; // an ambient declaration: no names (as `declarationNames` reads it)
    if (this.is(j, 'const') && this.is(j + 1, 'enum')) j++;
    if (this.is(j, 'async') && this.is(j + 1, 'function')) j++;
    if (this.is(j, 'abstract') && this.is(j + 1, 'class') && !t.nl[j + 1]) j++;
    const w = this.isName(j) ? this.text(j) : '';
    if (w === 'const' || w === 'let' || w === 'var') {
      for (const d of this.declaration(j + 1)) {
        if (d.name !== undefined) this.localExports.push({ name: d.name, local: d.name, kind: 'local', line: at });
        else for (const p of d.pattern ?? []) this.localExports.push({ name: p.alias, local: p.alias, kind: 'local', line: at });
      }
      return;
    }
    if (w === 'function' || w === 'class' || (this.typescript && (w === 'interface' || w === 'enum' || w === 'type'))) {
      j++;
      if (this.is(j, '*')) j++;
      if (!this.isName(j)) bail();
      if (w === 'type' && !(this.is(j + 1, '=') || this.is(j + 1, '<'))) bail();
      this.localExports.push({ name: this.text(j), local: this.text(j), kind: 'local', line: at });
      return;
    }
    bail();
  }

  /** `require('m')` or `import('m')` at token `i`. */
  private call(i: number, kind: 'require' | 'dynamic'): void {
    const { t } = this;
    const argOpen = i + 1;
    const close = t.match[argOpen]!;
    const arg = i + 2;
    if (t.kind[arg] !== STR) return; // not a string first: no import (as the query)
    // A comment before the string (`import(/* webpackChunkName: … */ './m')`): the query's
    // anchor then does not match, so tree-sitter reports no import either.
    if (t.comment[arg] || !(this.is(arg + 1, ')') || this.is(arg + 1, ','))) return;
    const specifier = this.specifier(arg);
    if (specifier === undefined) return;
    let typeOnly = false;
    if (kind === 'dynamic' && this.typescript) {
      // inside `type T = …`: a type
      for (let j = i - 1; j >= 0 && j > i - 400; j--) {
        if (t.depth[j]! < t.depth[i]! || (t.depth[j] === t.depth[i] && this.is(j, ';'))) break;
        if (this.is(j, 'type') && this.isName(j + 1) && (this.is(j + 2, '=') || this.is(j + 2, '<'))) bail();
      }
      const p = i - 1;
      if (
        p >= 0 &&
        (TYPE_BEFORE.has(this.kind(p) === IDENT || this.kind(p) === PUNCT ? this.text(p) : '') || t.frames[t.frame[i]!]!.kind === TYPE)
      )
        bail();
      if (
        (this.is(close + 1, '.') || this.is(close + 1, '?.')) &&
        this.isName(close + 2) &&
        !/^(then|catch|finally)$/.test(this.text(close + 2))
      )
        bail();
      typeOnly = false;
    }
    const fact: ImportFact = {
      specifier,
      kind,
      ...this.bindings(i, close),
      ...(kind === 'require' && this.lazy(i) ? { lazy: true as const } : {}),
      ...(typeOnly ? { typeOnly: true as const } : {}),
      line: this.line(i),
    };
    this.imports.push(fact);
  }

  /** Whether token `i` sits inside a function (its parameters or body). */
  private lazy(i: number): boolean {
    const { frames } = this.t;
    for (let f = this.t.frame[i]!; f >= 0; f = frames[f]!.parent) if (frames[f]!.fn) return true;
    return false;
  }

  /** The names a call at `s`…`close` binds, as `bindingsOfCall` reads them from the tree. */
  private bindings(s: number, close: number): { names: ImportedName[]; namespaceBinding?: string } {
    const { t } = this;
    const after = close + 1;
    if ((this.is(after, '.') || this.is(after, '?.')) && this.kind(after + 1) === IDENT) {
      if (!this.isName(after + 1)) bail();
      const prop = this.text(after + 1);
      const decl = this.is(s - 1, '=') ? this.declarators.get(s - 1) : undefined;
      if (!decl && this.is(s - 1, '=') && this.unsureFrom >= 0 && this.unsureFrom < s) bail();
      const local = decl?.name !== undefined && this.expressionEnds(after + 2) ? decl.name : undefined;
      return { names: [{ name: prop, alias: local ?? prop }] };
    }
    if (this.is(after, '!')) return bail(); // TypeScript's non-null (`import('m')!.x`): left to the tree
    if (this.is(after, '(') || this.is(after, '[') || this.is(after, '?.') || this.kind(after) === TPL) return { names: [] };
    let node = s;
    if (this.is(s - 1, 'await')) node = s - 1;
    const eq = node - 1;
    if (!this.is(eq, '=')) return { names: [] };
    if (!this.expressionEnds(after)) {
      if (this.kind(after) === PUNCT || /^(in|instanceof|as|satisfies)$/.test(this.text(after))) return { names: [] };
      return bail();
    }
    const decl = this.declarators.get(eq);
    if (!decl && this.unsureFrom >= 0 && this.unsureFrom < eq) bail();
    if (decl) {
      if (decl.name !== undefined) return { names: [], namespaceBinding: decl.name };
      return { names: decl.pattern ?? [] };
    }
    // an assignment (or a default value of a pattern or parameter, or a class field)
    const fk = t.frames[t.frame[eq]!]!.kind;
    if (fk === CLASS || fk === OBJECT || fk === PARAMS) return { names: [] };
    if (fk === ARRAY || fk === TYPE) return bail();
    const left = eq - 1;
    if (this.isName(left)) {
      if (this.is(left - 1, '.') || this.is(left - 1, '?.')) return { names: [] };
      if (this.is(left - 1, ':')) return bail();
      return { names: [], namespaceBinding: this.text(left) };
    }
    if (this.is(left, '}')) {
      if (this.is(left + 0, '}') && t.match[left]! >= 0) {
        const names = this.objectPattern(t.match[left]!);
        if (!names) return bail();
        return { names };
      }
      return bail();
    }
    if (this.is(left, ']') || this.is(left, '>')) return { names: [] };
    return bail();
  }
}

/** Before a TypeScript `import(…)` in a type. */
const TYPE_BEFORE = new Set(['typeof', ':', '<', '|', '&', 'extends', 'keyof', 'as', 'satisfies', 'is']);

/**
 * The imports-only facts of a JavaScript or TypeScript source (see `ExtractOptions.importsOnly`),
 * or undefined when the scanner is not sure of them (the caller then parses the file).
 */
export function scanImportFacts(source: string, language: Language): FileFacts | undefined {
  // NUL characters (binary-like fixtures) make tree-sitter's parse fail.
  if (source.includes('\0')) return undefined;
  if (language === 'python') return scanPythonImportFacts(source);
  const typescript = language !== 'javascript';
  try {
    const tokens = tokenize(source, language !== 'typescript', typescript);
    const reader = new Reader(source, tokens, typescript);
    reader.read();
    const imports = reader.imports;
    const exports: ExportFact[] = [...reader.localExports];
    for (const i of imports) {
      if (i.kind !== 'reexport') continue;
      if (i.wildcard) exports.push({ name: '*', kind: 'reexport', line: i.line });
      for (const n of i.names) exports.push({ name: n.alias, kind: 'reexport', line: i.line });
    }
    let lineCount = 1;
    for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) lineCount++;
    return {
      language,
      partial: false,
      errorCount: 0,
      errorLines: [],
      lineCount,
      imports,
      exports,
      definitions: [],
      references: [],
      calls: [],
    };
  } catch (e) {
    if (e === BAIL) return undefined;
    throw e;
  }
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
function keywordAt(src: string, s: number, e: number): string {
  const c = src.charCodeAt(s);
  if (c < 97 || c > 122) return '';
  const list = KEYWORDS_BY_CHAR[c];
  if (!list) return '';
  const l = e - s;
  for (const w of list) if (w.length === l && src.startsWith(w, s)) return w;
  return '';
}

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

function scanPythonImportFacts(src: string): FileFacts | undefined {
  try {
    const imports = pythonImports(src);
    let lineCount = 1;
    for (let i = src.indexOf('\n'); i >= 0; i = src.indexOf('\n', i + 1)) lineCount++;
    return {
      language: 'python',
      partial: false,
      errorCount: 0,
      errorLines: [],
      lineCount,
      imports,
      exports: [],
      definitions: [],
      references: [],
      calls: [],
    };
  } catch (e) {
    if (e === BAIL) return undefined;
    throw e;
  }
}

function pythonImports(src: string): ImportFact[] {
  const n = src.length;
  const out: ImportFact[] = [];
  const lineStarts = [0];
  for (let j = src.indexOf('\n'); j >= 0; j = src.indexOf('\n', j + 1)) lineStarts.push(j + 1);
  const lineOf = (at: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  /** Open blocks: the indentation of their header and their kind. */
  const blocks: { indent: number; kind: number }[] = [];
  let indentChar = 0; // 32 or 9 once seen
  let pos = 0;
  if (src.charCodeAt(0) === 0xfeff) pos = 1;
  while (pos < n) {
    // one logical line
    const lineStart = pos;
    let p = pos;
    while (src.charCodeAt(p) === 32 || src.charCodeAt(p) === 9 || src.charCodeAt(p) === 12) {
      const c = src.charCodeAt(p);
      if (c === 12) bail();
      if (indentChar === 0) indentChar = c;
      else if (c !== indentChar) bail(); // tabs and spaces mixed: tree-sitter's columns are not ours
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
      const s = p;
      if (isIdStart(c) && c !== 36) {
        while (p < n && isIdPart(src.charCodeAt(p)) && src.charCodeAt(p) !== 36) p++;
        const q = src.charCodeAt(p);
        if ((q === 34 || q === 39) && p - s <= 2 && /^[rRbBuUfF]+$/.test(src.slice(s, p))) {
          p = pyString(src, p, /[fF]/.test(src.slice(s, p)));
          tokens.push({ kind: 2, text: '', start: s });
          continue;
        }
        tokens.push({ kind: 0, text: src.slice(s, p), start: s });
        continue;
      }
      if (c === 34 || c === 39) {
        p = pyString(src, p, false);
        tokens.push({ kind: 2, text: '', start: s });
        continue;
      }
      if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(p + 1)))) {
        while (p < n && (isIdPart(src.charCodeAt(p)) || src.charCodeAt(p) === 46)) p++;
        tokens.push({ kind: 3, text: '', start: s });
        continue;
      }
      if (c === 40 || c === 91 || c === 123) depth++;
      else if (c === 41 || c === 93 || c === 125) {
        if (--depth < 0) bail();
      } else if (c === 96 || c === 36 || c === 63) bail(); // backticks (Python 2), stray characters
      // operators: one character each, except those the reader looks at
      let len = 1;
      if (c === 58 && src.charCodeAt(p + 1) === 61)
        len = 2; // :=
      else if (c === 45 && src.charCodeAt(p + 1) === 62)
        len = 2; // ->
      else if (c === 60 && src.charCodeAt(p + 1) === 62) bail(); // <> (Python 2)
      p += len;
      tokens.push({ kind: 1, text: src.slice(s, p), start: s });
    }
    if (depth !== 0) bail();
    pos = p;
    if (tokens.length === 0) continue;
    while (blocks.length && blocks[blocks.length - 1]!.indent >= indent) blocks.pop();
    if (blocks.length === 0 && indent > 0 && out.length >= 0) {
      // indented without a header: only continuation of a docstring-free file is fine
    }
    // simple statements of the line, split at `;`; a header's `:` opens a block
    let first = 0;
    let kinds = blocks.map((b) => b.kind);
    const headerEnd = pyHeaderColon(tokens);
    if (headerEnd >= 0) {
      const kind = pyBlockKind(tokens, headerEnd);
      if (headerEnd === tokens.length - 1) {
        blocks.push({ indent, kind });
        continue;
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
  return out;
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
