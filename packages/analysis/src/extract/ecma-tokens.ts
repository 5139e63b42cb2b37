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

/**
 * One pass over `src` into the shared `TOKENS` (reused from file to file). Throws through `bail()`
 * when the file is outside what the scanner reads (tree-sitter then reads it).
 */
export function tokenize(src: string, jsx: boolean, typescript: boolean): Tokens {
  const t = TOKENS;
  t.count = 0;
  t.frameCount = 0;
  newFrameAt(t, TOP, false, -1, -1);
  const scan = new EcmaTokenizer(src, jsx, typescript, t);
  scan.code(0);
  scan.popArrows();
  if (scan.cur !== 0) bail();
  return t;
}

/**
 * The tokenizer's state (position, current frame, depth, what came before the next token) and
 * its steps: `code` reads tokens until a frame closes; one scanner per token class (`identifier`,
 * `number`, `string`, `template`, `regex`, `jsxToken`, `punctuator`); `opening`, `close`, `ident`
 * and `punct` keep the frames (what each bracket opens) as tokens arrive.
 */
class EcmaTokenizer {
  readonly n: number;
  readonly frames: Frame[];
  readonly frameOpened = FRAME_OPENED;
  readonly kind: number[];
  readonly start: number[];
  readonly end: number[];
  readonly frameOf: number[];
  readonly depthOf: number[];
  readonly nlOf: boolean[];
  readonly commentOf: boolean[];
  readonly match: number[];
  readonly escaped: boolean[];
  pos = 0;
  /** The current frame. */
  cur = 0;
  depth = 0;
  sawNl = false;
  sawComment = false;
  /** Decorator: `@` then a name; a `(` right after the name is its call, not a method. */
  decorator = false;

  constructor(
    readonly src: string,
    readonly jsx: boolean,
    readonly typescript: boolean,
    readonly t: Tokens,
  ) {
    this.n = src.length;
    this.frames = t.frames;
    this.kind = t.kind;
    this.start = t.start;
    this.end = t.end;
    this.frameOf = t.frame;
    this.depthOf = t.depth;
    this.nlOf = t.nl;
    this.commentOf = t.comment;
    this.match = t.match;
    this.escaped = t.escaped;
    if (src.charCodeAt(0) === 35 && src.charCodeAt(1) === 33) {
      const p = src.indexOf('\n');
      this.pos = p < 0 ? this.n : p;
    }
  }

  last(): number {
    return this.t.count - 1;
  }
  text(i: number): string {
    return this.src.slice(this.start[i]!, this.end[i]!);
  }
  isP(i: number, p: string): boolean {
    const { src, start } = this;
    return (
      i >= 0 &&
      this.kind[i] === PUNCT &&
      this.end[i]! - start[i]! === p.length &&
      src.charCodeAt(start[i]!) === p.charCodeAt(0) &&
      (p.length === 1 || src.startsWith(p, start[i]!))
    );
  }
  /** An identifier's text when it may be a keyword (short, lower case), else '' (no string made for most names). */
  word(i: number): string {
    return keywordAt(this.src, this.start[i]!, this.end[i]!);
  }
  isId(i: number, w: string): boolean {
    return i >= 0 && this.kind[i] === IDENT && this.end[i]! - this.start[i]! === w.length && this.src.startsWith(w, this.start[i]!);
  }
  afterDot(i: number): boolean {
    return i > 0 && (this.isP(i - 1, '.') || this.isP(i - 1, '?.'));
  }

  push(k: number, s: number, e: number): number {
    const i = this.t.count++;
    this.kind[i] = k;
    this.start[i] = s;
    this.end[i] = e;
    this.frameOf[i] = this.cur;
    this.depthOf[i] = this.depth;
    this.nlOf[i] = this.sawNl;
    this.commentOf[i] = this.sawComment;
    this.match[i] = -1;
    this.escaped[i] = false;
    this.sawNl = false;
    this.sawComment = false;
    return i;
  }

  /** Whether an expression may start here (so `/` is a regular expression, `<` JSX). */
  expressionStarts(): boolean {
    const i = this.last();
    if (i < 0) return true;
    const k = this.kind[i]!;
    if (k === IDENT) return !this.afterDot(i) && EXPRESSION_BEFORE.has(this.word(i));
    if (k !== PUNCT) return false;
    const c = this.src.charCodeAt(this.start[i]!);
    if (c === 41) return this.frames[this.closedFrame(i)]?.kind === HEADER; // )
    if (c === 93) return false; // ]
    if (c === 125) {
      const f = this.frames[this.closedFrame(i)]?.kind;
      return f === BLOCK || f === CLASS || f === TYPE;
    }
    if (this.isP(i, '++') || this.isP(i, '--')) return false;
    return true;
  }
  closedFrame(i: number): number {
    const o = this.match[i]!;
    return o >= 0 ? this.frameOpened[o]! : -1;
  }

  open(k: number, fn: boolean, tok: number): number {
    const id = newFrameAt(this.t, k, fn, this.cur, tok);
    this.frameOpened[tok] = id;
    this.cur = id;
    this.depth++;
    return id;
  }

  /** Ends arrow bodies at the top of the stack. */
  popArrows(): void {
    const frames = this.frames;
    while (frames[this.cur]!.kind === ARROW) this.cur = frames[this.cur]!.parent;
  }

  close(tok: number, closer: number): void {
    this.popArrows();
    const { frames, frameOpened } = this;
    const f = frames[this.cur]!;
    if (f.open < 0) bail();
    const opener = this.src.charCodeAt(this.start[f.open]!);
    if (
      (closer === 41 && opener !== 40) ||
      (closer === 93 && opener !== 91) ||
      (closer === 125 && opener !== 123 && this.kind[f.open] !== TPL)
    )
      bail();
    this.match[tok] = f.open;
    this.match[f.open] = tok;
    this.cur = f.parent;
    this.depth--;
    this.frameOf[tok] = this.cur;
    this.depthOf[tok] = this.depth;
    const parent = frames[this.cur]!;
    if (f.kind === PARAMS && parent.pending === 1 && parent.pendingParams === frameOpened[f.open]) parent.pending = 2;
    if (closer === 41) parent.lastParen = frameOpened[f.open]!;
    if (closer === 125 && (parent.kind === CLASS || parent.kind === OBJECT) && (f.kind === BLOCK || f.kind === CLASS))
      parent.memberClean = true;
  }

  operandStarts(i: number): boolean {
    const k = this.kind[i]!;
    if (k === NUM || k === STR) return true;
    return k === IDENT && !INFIX_WORDS.has(this.word(i));
  }
  operandEnds(i: number): boolean {
    const k = this.kind[i]!;
    if (k === NUM || k === STR || k === REGEX) return true;
    if (k === IDENT) return !this.afterDot(i) ? !WORDS_BEFORE_OPERAND.has(this.word(i)) : true;
    if (k === PUNCT && (this.isP(i, ']') || (this.isP(i, ')') && this.frames[this.closedFrame(i)]?.kind !== HEADER))) return true;
    return false;
  }

  /** Whether a line break between `a` and `b` ends a statement (tree-sitter-javascript's automatic semicolon). */
  breaks(a: number, b: number): boolean {
    return asiBreak(this.src, this.t, a, b);
  }

  onToken(i: number): void {
    const frames = this.frames;
    const f = frames[this.cur]!;
    const nl = this.nlOf[i];
    // Two operands side by side on one line (`x as T`, `type T = …`, `declare var`): not
    // JavaScript, so tree-sitter's parse has errors; the scanner leaves such files to it.
    if (!this.typescript && !nl && i > 0 && this.operandStarts(i) && this.operandEnds(i - 1)) bail();
    if (
      !this.typescript &&
      !nl &&
      i > 0 &&
      this.isId(i, 'as') &&
      !this.afterDot(i) &&
      (this.operandEnds(i - 1) || this.isP(i - 1, '}')) &&
      f.kind !== OBJECT
    )
      bail();
    // A line break may end an arrow body or a class member.
    if (nl && i > 0) {
      while (frames[this.cur]!.kind === ARROW && this.breaks(i - 1, i)) this.cur = frames[this.cur]!.parent;
      this.frameOf[i] = this.cur;
      if (frames[this.cur]!.kind === CLASS && this.breaks(i - 1, i)) frames[this.cur]!.memberClean = true;
    }
  }

  skipSpace(): void {
    const src = this.src;
    const n = this.n;
    let p = this.pos;
    for (;;) {
      const c = src.charCodeAt(p);
      if (c === 32 || c === 9 || c === 13) p++;
      else if (c === 10) {
        this.sawNl = true;
        p++;
      } else if (c === 47 && src.charCodeAt(p + 1) === 47) {
        const e = src.indexOf('\n', p);
        p = e < 0 ? n : e;
        this.sawComment = true;
      } else if (c === 47 && src.charCodeAt(p + 1) === 42) {
        const e = src.indexOf('*/', p + 2);
        if (e < 0) bail();
        if (src.lastIndexOf('\n', e) > p) this.sawNl = true;
        p = e + 2;
        this.sawComment = true;
      } else if (c === 11 || c === 12 || c === 0xa0 || c === 0xfeff) p++;
      else if (c === 0x2028 || c === 0x2029) {
        this.sawNl = true;
        p++;
      } else if (c > 127 && /\s/.test(src[p]!)) p++;
      else break;
    }
    this.pos = p;
  }

  /** Scans code until the frame `until` closes (or the end of the file for the top). */
  code(until: number): void {
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.n) {
        if (until !== 0) bail();
        return;
      }
      if (this.token(until)) return;
    }
  }

  /** One token at `pos`, by its first character; true when it closes `until`, a template's `${` or a JSX `{`. */
  token(until: number): boolean {
    const src = this.src;
    const s = this.pos;
    const c = src.charCodeAt(s);
    if (isIdStart(c) || c === 35) {
      this.identifier(s);
      return false;
    }
    if (c === 92) bail();
    if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(s + 1)))) {
      this.number(s);
      return false;
    }
    if (c === 34 || c === 39) {
      this.string(s, c);
      return false;
    }
    if (c === 96) {
      this.template(s);
      return false;
    }
    if (c === 47 && this.expressionStarts()) {
      this.regex(s);
      return false;
    }
    if (c === 60 && this.jsx && this.expressionStarts()) {
      const d = src.charCodeAt(s + 1);
      // In TSX `<T extends U>(…) =>`, `<T,>(…) =>`, `<T = U>(…) =>` are type parameters.
      if ((isIdStart(d) || d === 62) && !(this.typescript && TYPE_PARAMETERS.test(src.slice(s, s + 200)))) {
        this.jsxToken();
        this.onToken(this.last());
        return false;
      }
    }
    return this.punctuator(s, c, until);
  }

  identifier(s: number): void {
    const src = this.src;
    const n = this.n;
    let q = s + 1; // a local: the field `pos` is slower to step
    while (q < n && isIdPart(src.charCodeAt(q))) q++;
    this.pos = q;
    if (src.charCodeAt(q) === 92) bail();
    const i = this.push(IDENT, s, q);
    this.onToken(i);
    this.ident(i);
  }

  number(s: number): void {
    const src = this.src;
    const n = this.n;
    let pos = s + 1;
    while (pos < n) {
      const d = src.charCodeAt(pos);
      if (isIdPart(d) || d === 46) pos++;
      else if ((d === 43 || d === 45) && (src.charCodeAt(pos - 1) | 32) === 101 && !/^0[xX]/.test(src.slice(s, s + 2))) pos++;
      else break;
    }
    this.pos = pos;
    this.onToken(this.push(NUM, s, pos));
  }

  /** A string quoted with `quote` (no line breaks in it). */
  string(s: number, quote: number): void {
    const src = this.src;
    const n = this.n;
    let q = s + 1;
    let esc = false;
    for (;;) {
      if (q >= n) bail();
      const d = src.charCodeAt(q);
      if (d === quote) break;
      if (d === 92) {
        esc = true;
        q += 2;
        continue;
      }
      if (d === 10 || d === 13) bail();
      q++;
    }
    this.pos = q + 1;
    const i = this.push(STR, s, this.pos);
    this.escaped[i] = esc;
    this.onToken(i);
  }

  /** A template: its backtick, a `${` token and the code of each substitution, its closing backtick. */
  template(s: number): void {
    const i = this.push(TPL, s, s + 1);
    this.onToken(i);
    this.pos++;
    this.templateRest();
    // The template's end: what follows sees a finished operand.
    this.push(TPL, this.pos - 1, this.pos);
  }
  templateRest(): void {
    const src = this.src;
    // at a backtick or right after the `}` of `${`
    for (;;) {
      if (this.pos >= this.n) bail();
      const c = src.charCodeAt(this.pos);
      if (c === 96) {
        this.pos++;
        return;
      }
      if (c === 92) this.pos += 2;
      else if (c === 36 && src.charCodeAt(this.pos + 1) === 123) {
        const i = this.push(TPL, this.pos, this.pos + 2);
        this.pos += 2;
        this.code(this.open(TEMPLATE, false, i));
        if (src.charCodeAt(this.pos - 1) !== 125) bail();
      } else this.pos++;
    }
  }

  regex(s: number): void {
    const src = this.src;
    const n = this.n;
    let pos = s + 1;
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
    this.pos = pos;
    this.onToken(this.push(REGEX, s, pos));
  }

  /** A punctuator; a bracket opens or closes a frame. True when it closes `until`, a template's or JSX's braces. */
  punctuator(s: number, c: number, until: number): boolean {
    const len = punctuatorLength(this.src, s, c);
    this.pos += len;
    const i = this.push(PUNCT, s, this.pos);
    this.onToken(i);
    if (len === 1) {
      if (c === 40 || c === 91 || c === 123) {
        this.opening(i, c);
        return false;
      }
      if (c === 41 || c === 93 || c === 125) {
        const closes = this.popArrowsThen();
        const fk = this.frames[closes]!;
        this.close(i, c);
        if (closes === until && (fk.kind === TEMPLATE || fk.kind === JSX_EXPR)) return true;
        this.decorator = false;
        return false;
      }
    }
    this.punct(i, c, len);
    return false;
  }
  /** The frame a closing bracket closes: the current one, past arrow bodies. */
  popArrowsThen(): number {
    let id = this.cur;
    let g = this.frames[id]!;
    while (g.kind === ARROW) {
      id = g.parent;
      g = this.frames[id]!;
    }
    return id;
  }

  /** A JSX element from its `<` to its end, with the code in its braces scanned as code. */
  jsxToken(): void {
    const s = this.pos;
    const nl0 = this.sawNl;
    this.sawNl = false;
    this.jsxElement();
    this.sawNl = nl0;
    this.push(JSX, s, this.pos);
  }
  jsxName(): boolean {
    const src = this.src;
    const s = this.pos;
    while (this.pos < this.n) {
      const c = src.charCodeAt(this.pos);
      if (isIdPart(c) || c === 45 || c === 46 || c === 58) this.pos++;
      else break;
    }
    return this.pos > s;
  }
  jsxBraces(): void {
    // at `{`
    const i = this.push(PUNCT, this.pos, this.pos + 1);
    this.pos++;
    this.code(this.open(JSX_EXPR, false, i));
  }
  jsxElement(): void {
    const src = this.src;
    // at `<`
    this.pos++;
    this.skipSpace();
    const fragment = src.charCodeAt(this.pos) === 62;
    if (!fragment && !this.jsxName()) bail();
    if (this.typescript && src.charCodeAt(this.pos) === 60) this.jsxTypeArguments();
    if (this.jsxAttributes()) this.jsxChildren();
  }
  /** `<Table<Row> …>`: type arguments (no brackets or strings in them, or the file is left to tree-sitter). */
  jsxTypeArguments(): void {
    const src = this.src;
    let angle = 0;
    for (; this.pos < this.n; this.pos++) {
      const c = src.charCodeAt(this.pos);
      if (c === 60) angle++;
      else if (c === 62 && src.charCodeAt(this.pos - 1) !== 61 && --angle === 0) break;
      else if (c === 34 || c === 39 || c === 96 || c === 47) bail();
    }
    this.pos++;
  }
  /** The attributes up to the end of the opening tag; false when the element closes itself (`/>`). */
  jsxAttributes(): boolean {
    const src = this.src;
    for (;;) {
      this.skipSpace();
      const c = src.charCodeAt(this.pos);
      if (c === 47 && src.charCodeAt(this.pos + 1) === 62) {
        this.pos += 2;
        return false;
      }
      if (c === 62) {
        this.pos++;
        return true;
      }
      if (c === 123) {
        this.jsxBraces();
        continue;
      }
      const attr = this.pos;
      if (!this.jsxName()) bail();
      // `class="x"`: tree-sitter-javascript reads a reserved word there as an error
      if (!this.typescript && RESERVED.has(src.slice(attr, this.pos))) bail();
      this.skipSpace();
      if (src.charCodeAt(this.pos) !== 61) continue;
      this.pos++;
      this.skipSpace();
      const v = src.charCodeAt(this.pos);
      if (v === 34 || v === 39) {
        const e = src.indexOf(String.fromCharCode(v), this.pos + 1);
        if (e < 0) bail();
        this.jsxAmpersands(this.pos + 1, e);
        this.pos = e + 1;
      } else if (v === 123) this.jsxBraces();
      else if (v === 60) this.jsxElement();
      else bail();
    }
  }
  /** Text, braces and elements up to the closing tag. */
  jsxChildren(): void {
    const src = this.src;
    for (;;) {
      if (this.pos >= this.n) bail();
      const c = src.charCodeAt(this.pos);
      if (c === 123) this.jsxBraces();
      else if (c === 60) {
        if (src.charCodeAt(this.pos + 1) === 47) {
          this.pos += 2;
          this.skipSpace();
          this.jsxName();
          this.skipSpace();
          if (src.charCodeAt(this.pos) !== 62) bail();
          this.pos++;
          return;
        }
        this.jsxElement();
      } else {
        if (c === 38) this.jsxAmpersands(this.pos, this.pos + 1);
        this.pos++;
      }
    }
  }
  /** tree-sitter-javascript reads `&` in JSX text as an entity: one that is not makes a parse error. */
  jsxAmpersands(from: number, to: number): void {
    const src = this.src;
    for (let a = src.indexOf('&', from); a >= 0 && a < to; a = src.indexOf('&', a + 1)) {
      if (!ENTITY.test(src.slice(a, a + 12))) bail();
    }
  }

  /** An opening bracket: the frame it opens. */
  opening(i: number, c: number): void {
    if (c === 40) this.openParen(i);
    else if (c === 91) this.open(ARRAY, false, i);
    else this.openBrace(i);
  }
  /** `(`: a call or group, a statement header, or a function's (or method's) parameters. */
  openParen(i: number): void {
    const f = this.frames[this.cur]!;
    const p = i - 1;
    let k = PAREN;
    let fn = false;
    if (this.decorator) {
      this.decorator = false;
    } else if (f.pending === 1) {
      k = PARAMS;
      fn = true;
    } else if (p >= 0 && this.kind[p] === IDENT && !this.afterDot(p) && HEADER_WORDS.has(this.word(p))) k = HEADER;
    else if (p >= 1 && this.isId(p, 'await') && this.isId(p - 1, 'for')) k = HEADER;
    else if ((f.kind === CLASS || f.kind === OBJECT) && f.memberClean && p >= 0 && this.isMethodName(p)) {
      k = PARAMS;
      fn = true;
      f.pending = 1;
    }
    const id = this.open(k, fn, i);
    if (k === PARAMS) f.pendingParams = id;
  }
  /** `{`: a block (a function's body or not), an object, a class or interface body, or a type. */
  openBrace(i: number): void {
    const f = this.frames[this.cur]!;
    const p = i - 1;
    this.decorator = false;
    let k = OBJECT;
    let fn = false;
    const pt = p >= 0 ? (this.kind[p] === PUNCT || this.kind[p] === IDENT ? this.text(p) : '') : ';';
    let decided = false;
    if (f.pending === 2) {
      if (p >= 0 && this.isP(p, ')') && this.frameOpened[this.match[p]!] === f.pendingParams) {
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
    } else if (p < 0 || BLOCK_AFTER.has(pt) || (pt === 'static' && f.kind === CLASS)) k = BLOCK;
    else if (pt === '{') k = f.kind === TOP || f.kind === BLOCK ? BLOCK : OBJECT;
    else if (this.nlOf[i] && endsExpression(this.src, this.t, p)) k = BLOCK;
    else if (pt === ':' && (f.kind === BLOCK || f.kind === TOP) && this.caseBefore(p)) k = BLOCK;
    this.open(k, fn, i);
    if (k === OBJECT || k === CLASS) this.frames[this.cur]!.memberClean = true;
  }
  caseBefore(p: number): boolean {
    // `case x: {` / `default: {`: a `case` or `default` since the last `;`, `{`, `}` of this frame
    for (let j = p - 1; j >= 0 && j > p - 40; j--) {
      if (this.frameOf[j] !== this.cur) continue;
      if (this.isId(j, 'case') || (this.isId(j, 'default') && this.isP(j + 1, ':') && !this.isId(j - 1, 'export'))) return true;
      if (this.kind[j] === PUNCT && /^[;{}]$/.test(this.text(j))) return false;
    }
    return false;
  }
  isMethodName(p: number): boolean {
    const k = this.kind[p]!;
    if (k === IDENT || k === STR || k === NUM) return !this.afterDot(p);
    if (this.isP(p, ']') || this.isP(p, '>') || this.isP(p, '*') || this.isP(p, '?')) return true;
    return false;
  }

  /** An identifier: `function`, `class`, `interface` announce a header or body; namespaces are left to tree-sitter. */
  ident(i: number): void {
    const f = this.frames[this.cur]!;
    if (this.decorator) {
      if (this.isP(i - 1, '@') || this.isP(i - 1, '.')) return;
      this.decorator = false;
    }
    if (this.afterDot(i)) return;
    const w = this.word(i);
    if (w === '') return;
    const next = this.nextChar();
    if (w === 'function') {
      if (next === 58 || next === 44 || next === 125 || next === 61 || next === 41 || next === 59) return;
      f.pending = 1;
      f.memberClean = false;
    } else if (w === 'class') {
      if (next === 58 || next === 44 || next === 125 || next === 61 || next === 41 || next === 59 || next === 40) return;
      f.pendingBody = 1;
    } else if (this.typescript && w === 'interface' && isIdStart(next)) f.pendingBody = 2;
    else if (
      this.typescript &&
      (w === 'namespace' || w === 'module' || w === 'global') &&
      next !== 58 &&
      next !== 46 &&
      next !== 40 &&
      next !== 61 &&
      next !== 44 &&
      next !== 41
    ) {
      // `namespace N {`, `declare module 'm' {`, `declare global {`: statements nest; left to tree-sitter
      if (NESTED.test(this.src.slice(this.start[i]!, this.start[i]! + 200))) bail();
    }
  }
  nextChar(): number {
    const src = this.src;
    let p = this.pos;
    for (;;) {
      const c = src.charCodeAt(p);
      if (c === 32 || c === 9 || c === 10 || c === 13) p++;
      else if (c === 47 && (src.charCodeAt(p + 1) === 47 || src.charCodeAt(p + 1) === 42)) return 0;
      else return c;
    }
  }

  /** A punctuator that is not a bracket: decorators, arrows, `:`, `?`, `,`, `;`, `=`, `...`. */
  punct(i: number, c: number, len: number): void {
    const f = this.frames[this.cur]!;
    if (len === 1 && c === 64) {
      this.decorator = true;
      return;
    }
    if (this.decorator && !(len === 1 && c === 46)) this.decorator = false;
    if (len === 2 && this.isP(i, '=>')) this.arrow(i, f);
    else if (len === 1 && c === 58) this.colon(i);
    else if (len === 1 && c === 63) f.questions++;
    else if (len === 1 && (c === 44 || c === 59)) {
      this.popArrows();
      this.frameOf[i] = this.cur;
      const g = this.frames[this.cur]!;
      if (g.kind === OBJECT || g.kind === CLASS) g.memberClean = true;
      if (g.pending === 2) g.pending = 0;
      if (c === 59 && g.pendingBody > 0) g.pendingBody = 0;
    } else if (len === 1 && c === 61) f.memberClean = false;
    else if (len === 3 && c === 46) f.memberClean = false;
  }
  /** `=>`: the paren before it held parameters; without a `{` next, an arrow body frame opens. */
  arrow(i: number, f: Frame): void {
    const frames = this.frames;
    f.memberClean = false;
    // arrow parameters: the paren closed right before (or before a return type)
    const p = i - 1;
    let params = -1;
    if (this.isP(p, ')')) params = this.frameOpened[this.match[p]!]!;
    else if (this.typescript && f.lastParen >= 0 && frames[f.lastParen]!.pendingBody === -1) params = f.lastParen;
    if (params >= 0) {
      frames[params]!.kind = PARAMS;
      frames[params]!.fn = true;
    }
    if (this.nextChar() !== 123) {
      this.cur = newFrameAt(this.t, ARROW, true, this.cur, -1);
    }
  }
  /** `:`: a return type after `)`, the end of arrow bodies unless a `?` is open in them; annotations bail in JavaScript. */
  colon(i: number): void {
    const frames = this.frames;
    if (this.isP(i - 1, ')')) {
      const pf = this.frameOpened[this.match[i - 1]!]!;
      frames[pf]!.pendingBody = -1; // marks "a type annotation followed"
    }
    while (frames[this.cur]!.kind === ARROW) {
      const a = frames[this.cur]!;
      if (a.questions > 0) {
        a.questions--;
        return;
      }
      this.cur = a.parent;
    }
    this.frameOf[i] = this.cur;
    const g = frames[this.cur]!;
    g.memberClean = false;
    if (g.questions > 0) g.questions--;
    else if (!this.typescript) {
      // Flow or TypeScript annotations in JavaScript: tree-sitter's parse has errors there.
      if (g.kind === PAREN || g.kind === PARAMS || g.kind === HEADER || g.kind === CLASS || g.kind === ARRAY) bail();
      if (this.isP(i - 1, ')') && (frames[this.frameOpened[this.match[i - 1]!]!]!.kind === PARAMS || !this.caseBefore(i))) bail();
    }
  }
}

/** Before a `{` that opens a block. */
const BLOCK_AFTER = new Set([';', '}', ')', 'else', 'do', 'try', 'catch', 'finally']);

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
