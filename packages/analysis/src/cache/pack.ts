/**
 * The stored form of `FileFacts`: references and calls (most of the bytes) as flat integer
 * arrays over a string table, decoded lazily on first access — the import graph of a warm index
 * never pays for them.
 */
import type { CallFact, FileFacts, ReferenceFact } from '../facts.js';

export interface PackedFacts {
  readonly l: FileFacts['language'];
  readonly p: 0 | 1;
  readonly e: number;
  readonly el: readonly number[];
  readonly n: number;
  readonly i: FileFacts['imports'];
  readonly x: FileFacts['exports'];
  readonly d: FileFacts['definitions'];
  /** String table. */
  readonly s: readonly string[];
  /** References: [name, line, column, endColumn, receiver (−1: none)] per reference. */
  readonly r: readonly number[];
  /** Calls: [callee, name, receiver (−1), kind, line, column, caller] per call. */
  readonly c: readonly number[];
}

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
  const r: number[] = [];
  for (const x of f.references) r.push(id(x.name), x.line, x.column, x.endColumn, id(x.receiver));
  const c: number[] = [];
  for (const x of f.calls) c.push(id(x.callee), id(x.name), id(x.receiver), CALL_KINDS.indexOf(x.kind), x.line, x.column, id(x.caller));
  return { l: f.language, p: f.partial ? 1 : 0, e: f.errorCount, el: f.errorLines, n: f.lineCount, i: f.imports, x: f.exports, d: f.definitions, s: table, r, c };
}

/** Checks the shape of a stored entry; undefined when it is not one (corrupt or foreign). */
export function validPacked(v: unknown): PackedFacts | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const p = v as Partial<PackedFacts>;
  const ok =
    typeof p.l === 'string' &&
    Array.isArray(p.i) &&
    Array.isArray(p.x) &&
    Array.isArray(p.d) &&
    Array.isArray(p.s) &&
    Array.isArray(p.r) &&
    p.r.length % 5 === 0 &&
    Array.isArray(p.c) &&
    p.c.length % 7 === 0 &&
    Array.isArray(p.el) &&
    typeof p.n === 'number';
  return ok ? (p as PackedFacts) : undefined;
}

const packedForm = new WeakMap<FileFacts, PackedFacts>();

/** The packed form a facts object was unpacked from, if any (saves packing it again). */
export function packedOf(f: FileFacts): PackedFacts | undefined {
  return packedForm.get(f);
}

export function unpackFacts(p: PackedFacts): FileFacts {
  let references: ReferenceFact[] | undefined;
  let calls: CallFact[] | undefined;
  const s = p.s;
  const facts = {
    language: p.l,
    partial: p.p === 1,
    errorCount: p.e,
    errorLines: p.el,
    lineCount: p.n,
    imports: p.i,
    exports: p.x,
    definitions: p.d,
  } as FileFacts;
  Object.defineProperty(facts, 'references', {
    enumerable: true,
    get() {
      if (!references) {
        references = [];
        const r = p.r;
        for (let k = 0; k < r.length; k += 5) {
          const receiver = r[k + 4]!;
          references.push(
            receiver >= 0
              ? { name: s[r[k]!]!, receiver: s[receiver]!, line: r[k + 1]!, column: r[k + 2]!, endColumn: r[k + 3]! }
              : { name: s[r[k]!]!, line: r[k + 1]!, column: r[k + 2]!, endColumn: r[k + 3]! },
          );
        }
      }
      return references;
    },
  });
  Object.defineProperty(facts, 'calls', {
    enumerable: true,
    get() {
      if (!calls) {
        calls = [];
        const c = p.c;
        for (let k = 0; k < c.length; k += 7) {
          const receiver = c[k + 2]!;
          const base = { callee: s[c[k]!]!, name: s[c[k + 1]!]!, kind: CALL_KINDS[c[k + 3]!] ?? 'function', line: c[k + 4]!, column: c[k + 5]!, caller: s[c[k + 6]!]! };
          calls.push(receiver >= 0 ? { callee: base.callee, name: base.name, receiver: s[receiver]!, kind: base.kind, line: base.line, column: base.column, caller: base.caller } : base);
        }
      }
      return calls;
    },
  });
  packedForm.set(facts, p);
  return facts;
}
