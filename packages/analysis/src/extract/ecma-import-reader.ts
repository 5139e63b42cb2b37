/**
 * The import scanner's reader for JavaScript and TypeScript (see `import-scanner.ts`): over the
 * tokenizer's tokens and frames, the statement and call forms that make import and export facts.
 */
import type { ExportFact, ImportedName, ImportFact } from '../facts.js';
import {
  IDENT,
  PUNCT,
  STR,
  TPL,
  OBJECT,
  CLASS,
  PARAMS,
  ARRAY,
  TYPE,
  Tokens,
  RESERVED,
  NOT_IDENTIFIERS,
  CONTEXTUAL,
  tokText,
  tokIs,
  asiBreak,
  Declarator,
  keywordAt,
} from './ecma-tokens.js';
import { BAIL, bail, lineIndex } from './scan-support.js';

/** The scanner's reading of one file. */
export class Reader {
  readonly imports: ImportFact[] = [];
  readonly localExports: ExportFact[] = [];
  /** `=` tokens of variable declarators, by token index. */
  readonly declarators = new Map<number, Declarator>();
  private lineOf: ((at: number) => number) | undefined;

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
    // Indexed on first use: most files' facts need few lines.
    this.lineOf ??= lineIndex(this.src);
    return this.lineOf(this.t.start[i]!);
  }
  /** A specifier: a string without escapes (empty: no import at all, as tree-sitter's query). */
  private specifier(i: number): string | undefined {
    if (this.kind(i) !== STR) return bail();
    if (this.t.escaped[i]) bail();
    const s = this.text(i).slice(1, -1);
    return s.length > 0 ? s : undefined;
  }
  /**
   * Whether a template literal without substitutions starts at token `i`: its backticks are two
   * tokens side by side (a `${` between them would be a token of its own).
   */
  private plainTemplate(i: number): boolean {
    return this.kind(i) === TPL && this.kind(i + 1) === TPL && this.src.charCodeAt(this.t.start[i + 1]!) === 96;
  }
  /**
   * The specifier of the plain template at token `i` (see `plainTemplate`), as the query reads one
   * (`(template_string . (string_fragment) .)`): empty, no import; an escape makes an
   * `escape_sequence` node beside the fragments, left to the tree.
   */
  private templateSpecifier(i: number): string | undefined {
    const s = this.src.slice(this.t.end[i]!, this.t.start[i + 1]!);
    if (s.includes('\\')) bail();
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

  /** `export …` at token `i`: one of `exportDefault`, `exportList`, `exportStar`, `export =`, or `exportDeclaration`. */
  private exportStatement(i: number): void {
    const { t } = this;
    const first = this.decoratorsBefore(i);
    const at = this.line(first);
    let j = i + 1;
    if (!this.statementStarts(first)) bail();
    if (t.comment[j]) bail();
    if (this.is(j, 'default')) return this.exportDefault(j + 1, at);
    let typeOnly = false;
    if (this.is(j, 'type') && (this.is(j + 1, '{') || this.is(j + 1, '*'))) {
      if (!this.typescript || this.is(j + 1, '*')) bail();
      typeOnly = true;
      j++;
    }
    if (this.is(j, '{')) return this.exportList(j, typeOnly, at);
    if (this.is(j, '*')) return this.exportStar(j + 1, at);
    if (this.is(j, '=')) {
      if (!this.typescript) bail();
      const local =
        this.isName(j + 1) && this.expressionEnds(j + 2) && !this.is(j + 2, ':') && !NOT_IDENTIFIERS.has(this.text(j + 1))
          ? this.text(j + 1)
          : undefined;
      this.localExports.push({ name: 'default', ...(local ? { local } : {}), kind: 'assignment', line: at });
      return;
    }
    this.exportDeclaration(j, at);
  }

  /** Decorators before `export` at `i` belong to the statement: the token it starts at (the first `@`, or `i`). */
  private decoratorsBefore(i: number): number {
    let first = i;
    for (let j = i - 1; j >= 0;) {
      let k = j;
      if (this.is(k, ')')) k = this.t.match[k]! - 1;
      while (k >= 1 && this.isName(k) && this.is(k - 1, '.')) k -= 2;
      if (!this.isName(k) || !this.is(k - 1, '@')) break;
      first = k - 1;
      j = k - 2;
    }
    return first;
  }

  /** `export default …` from token `j` (after `default`): a function or class (its name as local), or an expression. */
  private exportDefault(j: number, at: number): void {
    const { t } = this;
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
      this.isName(j) && this.expressionEnds(j + 1) && !this.is(j + 1, ':') && !NOT_IDENTIFIERS.has(this.text(j)) ? this.text(j) : undefined;
    this.localExports.push({ name: 'default', ...(local ? { local } : {}), kind: 'default', line: at });
  }

  /** `export { … }` (local names) or `export { … } from 'm'` (a re-export), the `{` at `j`. */
  private exportList(j: number, typeOnly: boolean, at: number): void {
    const close = this.t.match[j]!;
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
  }

  /** `export * from 'm'` or `export * as ns from 'm'`, from token `j` (after `*`). */
  private exportStar(j: number, at: number): void {
    const names: ImportedName[] = [];
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
  }

  /** `export const|let|var|function|class|interface|enum|type …` from token `j`: the names it declares. */
  private exportDeclaration(j: number, at: number): void {
    const { t } = this;
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
    // Comments are not tokens: `import(/* webpackChunkName: … */ './m')` reads as `import('./m')`,
    // as the query skips them (`(comment)*`).
    const arg = i + 2;
    const last = this.plainTemplate(arg) ? arg + 1 : arg;
    if (last === arg && t.kind[arg] !== STR) return; // no string first: no import (as the query)
    if (!(this.is(last + 1, ')') || this.is(last + 1, ','))) return;
    const specifier = last === arg ? this.specifier(arg) : this.templateSpecifier(arg);
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
