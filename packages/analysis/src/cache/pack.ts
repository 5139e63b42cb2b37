/**
 * The stored form of `FileFacts`, in two parts. The head (language, parse errors, line count,
 * imports) is what the import graph needs; the body (exports, definitions, references, calls)
 * is what the symbol and call-graph channels need. References and calls (most of the bytes) are
 * flat Int32 arrays over a string table. Unpacked facts decode the body on first access of one
 * of its fields, so a warm import graph never pays for it.
 */
import type { CallFact, DefinitionFact, ExportFact, FileFacts, ReferenceFact } from '../facts.js';

export interface PackedHead {
  readonly l: FileFacts['language'];
  readonly p: 0 | 1;
  readonly e: number;
  readonly el: readonly number[];
  readonly n: number;
  /** Imports, or (as stored on disk) their JSON text, parsed on first access. */
  readonly i: FileFacts['imports'] | string;
  /** Number of imports. */
  readonly ni: number;
  /** 1: extracted for the import graph only (the body is empty and must not be read). */
  readonly o?: 1;
}

export interface PackedBody {
  readonly x: FileFacts['exports'];
  readonly d: FileFacts['definitions'];
  /** String table. */
  readonly s: readonly string[];
  /** References: [name, line, column, endColumn, receiver (−1: none)] per reference. */
  readonly r: Int32Array;
  /** Calls: [callee, name, receiver (−1), kind, line, column, caller] per call. */
  readonly c: Int32Array;
}

export type PackedFacts = PackedHead & PackedBody;

const CALL_KINDS: readonly CallFact['kind'][] = ['function', 'method', 'new', 'jsx'];

export function packFacts(f: FileFacts): PackedFacts {
  const table: string[] = [];
  const ids = new Map<string, number>();
  const id = (s: string | undefined): number => {
    if (s === undefined) return -1;
    let n = ids.get(s);
    if (n === undefined) {
      n = table.length;
      table.push(s);
      ids.set(s, n);
    }
    return n;
  };
  const r = new Int32Array(f.references.length * 5);
  let k = 0;
  for (const x of f.references) {
    r[k++] = id(x.name);
    r[k++] = x.line;
    r[k++] = x.column;
    r[k++] = x.endColumn;
    r[k++] = id(x.receiver);
  }
  const c = new Int32Array(f.calls.length * 7);
  k = 0;
  for (const x of f.calls) {
    c[k++] = id(x.callee);
    c[k++] = id(x.name);
    c[k++] = id(x.receiver);
    c[k++] = CALL_KINDS.indexOf(x.kind);
    c[k++] = x.line;
    c[k++] = x.column;
    c[k++] = id(x.caller);
  }
  const head = {
    l: f.language,
    p: f.partial ? 1 : 0,
    e: f.errorCount,
    el: f.errorLines,
    n: f.lineCount,
    i: f.imports,
    ni: f.imports.length,
  } as const;
  return { ...head, ...(importsOnly.has(f) ? { o: 1 as const } : {}), x: f.exports, d: f.definitions, s: table, r, c };
}

/** Facts extracted for the import graph only (see `ExtractOptions.importsOnly`). */
const importsOnly = new WeakSet<FileFacts>();

export function markImportsOnly(f: FileFacts): void {
  importsOnly.add(f);
}

/**
 * True for facts extracted for the import graph only: their imports and exports are whole, their
 * definitions, references and calls were never extracted (reading them throws).
 */
export function isImportsOnly(f: FileFacts): boolean {
  return importsOnly.has(f);
}

/** Checks the shape of a stored head; undefined when it is not one (corrupt or foreign). */
export function validHead(v: unknown): PackedHead | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const p = v as Partial<PackedHead>;
  const ok =
    typeof p.l === 'string' &&
    (p.p === 0 || p.p === 1) &&
    typeof p.e === 'number' &&
    Array.isArray(p.el) &&
    typeof p.n === 'number' &&
    (Array.isArray(p.i) || typeof p.i === 'string') &&
    typeof p.ni === 'number' &&
    (p.o === undefined || p.o === 1);
  return ok ? (p as PackedHead) : undefined;
}

/** Throws when a decoded body does not hold together (indices out of the string table). */
export function checkBody(b: PackedBody): void {
  if (!Array.isArray(b.x) || !Array.isArray(b.d) || !Array.isArray(b.s)) throw new Error('body fields are not arrays');
  if (b.r.length % 5 !== 0 || b.c.length % 7 !== 0) throw new Error('reference or call array of a wrong length');
  const n = b.s.length;
  for (let k = 0; k < b.r.length; k += 5)
    if (b.r[k]! < 0 || b.r[k]! >= n || b.r[k + 4]! >= n) throw new Error('reference outside the string table');
  for (let k = 0; k < b.c.length; k += 7)
    if (b.c[k]! < 0 || b.c[k]! >= n || b.c[k + 1]! < 0 || b.c[k + 1]! >= n || b.c[k + 2]! >= n || b.c[k + 6]! < 0 || b.c[k + 6]! >= n)
      throw new Error('call outside the string table');
}

const packedForm = new WeakMap<FileFacts, PackedFacts>();

/** The packed form a facts object was unpacked from, if any (saves packing it again). */
export function packedOf(f: FileFacts): PackedFacts | undefined {
  return packedForm.get(f);
}

/** Facts whose stored body turned out corrupt: their body fields are empty; never reuse them. */
const damaged = new WeakSet<FileFacts>();
/** For lazily loaded facts: whether their body can still be loaded. */
const loadable = new WeakMap<FileFacts, () => boolean>();

const importCounts = new WeakMap<FileFacts, number>();

/** Number of imports of some facts, without decoding lazily stored imports. */
export function importCount(f: FileFacts): number {
  return importCounts.get(f) ?? f.imports.length;
}

/** Whether any stored body was ever found corrupt in this process (else nothing is damaged). */
let anyDamage = false;

export function noteDamage(): void {
  anyDamage = true;
}

/** True when the facts' body was found corrupt, or will be when first used. */
export function isDamaged(f: FileFacts): boolean {
  return anyDamage && (damaged.has(f) || loadable.get(f)?.() === false);
}

export function unpackFacts(p: PackedFacts): FileFacts {
  const facts = unpackLazy(p, () => p);
  packedForm.set(facts, p);
  return facts;
}

const EMPTY_BODY: PackedBody = { x: [], d: [], s: [], r: new Int32Array(0), c: new Int32Array(0) };

/**
 * Facts over a head and a body loaded on first use. `loadBody` returns undefined when the body
 * cannot be had (corrupt on disk): the body fields are then empty and the facts marked damaged.
 * `canLoad` tells, before the body is loaded, whether it still can be (see `isDamaged`).
 */
export function unpackLazy(h: PackedHead, loadBody: () => PackedBody | undefined, canLoad?: () => boolean): FileFacts {
  let body: PackedBody | undefined;
  let references: ReferenceFact[] | undefined;
  let calls: CallFact[] | undefined;
  const facts = {
    language: h.l,
    partial: h.p === 1,
    errorCount: h.e,
    errorLines: h.el,
    lineCount: h.n,
  } as FileFacts;
  importCounts.set(facts, h.ni);
  if (h.o === 1) importsOnly.add(facts);
  if (typeof h.i === 'string') defineStoredImports(facts, h.i);
  else Object.defineProperty(facts, 'imports', { enumerable: true, value: h.i, writable: false });
  if (canLoad) loadable.set(facts, () => body !== undefined || canLoad());
  const getBody = (): PackedBody => {
    // A caller that needs bodies asks the index for them (`IndexOptions.facts`): an empty body
    // read here would be a file without definitions, silently.
    if (h.o === 1)
      throw new Error(
        'these facts were extracted for the import graph only; index with facts: "all" to read definitions, references and calls',
      );
    if (!body) {
      body = loadBody();
      if (!body) {
        body = EMPTY_BODY;
        damaged.add(facts);
      }
    }
    return body;
  };
  Object.defineProperty(facts, 'exports', { enumerable: true, get: (): readonly ExportFact[] => getBody().x });
  Object.defineProperty(facts, 'definitions', { enumerable: true, get: (): readonly DefinitionFact[] => getBody().d });
  Object.defineProperty(facts, 'references', {
    enumerable: true,
    get: () => (references ??= decodeReferences(getBody())),
  });
  Object.defineProperty(facts, 'calls', {
    enumerable: true,
    get: () => (calls ??= decodeCalls(getBody())),
  });
  return facts;
}

/** `imports` as their stored JSON text, parsed on first access; unreadable text reads as none and marks the facts damaged. */
function defineStoredImports(facts: FileFacts, text: string): void {
  let imports: FileFacts['imports'] | undefined;
  Object.defineProperty(facts, 'imports', {
    enumerable: true,
    get() {
      if (!imports) {
        let v: unknown;
        try {
          v = JSON.parse(text);
        } catch {
          v = undefined;
        }
        if (Array.isArray(v)) imports = v as FileFacts['imports'];
        else {
          // Damaged on disk: no imports now, parsed again by the next index.
          imports = [];
          damaged.add(facts);
          noteDamage();
        }
      }
      return imports;
    },
  });
}

/** The references of a body: [name, line, column, endColumn, receiver (−1: none)] each. */
function decodeReferences({ r, s }: PackedBody): ReferenceFact[] {
  const references: ReferenceFact[] = [];
  for (let k = 0; k < r.length; k += 5) {
    const receiver = r[k + 4]!;
    references.push(
      receiver >= 0
        ? { name: s[r[k]!]!, receiver: s[receiver]!, line: r[k + 1]!, column: r[k + 2]!, endColumn: r[k + 3]! }
        : { name: s[r[k]!]!, line: r[k + 1]!, column: r[k + 2]!, endColumn: r[k + 3]! },
    );
  }
  return references;
}

/** The calls of a body: [callee, name, receiver (−1), kind, line, column, caller] each. */
function decodeCalls({ c, s }: PackedBody): CallFact[] {
  const calls: CallFact[] = [];
  for (let k = 0; k < c.length; k += 7) {
    const receiver = c[k + 2]!;
    const base = {
      callee: s[c[k]!]!,
      name: s[c[k + 1]!]!,
      kind: CALL_KINDS[c[k + 3]!] ?? 'function',
      line: c[k + 4]!,
      column: c[k + 5]!,
      caller: s[c[k + 6]!]!,
    };
    calls.push(
      receiver >= 0
        ? {
            callee: base.callee,
            name: base.name,
            receiver: s[receiver]!,
            kind: base.kind,
            line: base.line,
            column: base.column,
            caller: base.caller,
          }
        : base,
    );
  }
  return calls;
}
