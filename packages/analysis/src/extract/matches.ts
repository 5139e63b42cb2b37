/**
 * Query matches whose captures are read from the binding's transfer buffer, without a
 * `SyntaxNode` per captured node.
 *
 * The Node binding's `Query.matches` turns every captured node into a JavaScript object that it
 * registers in the tree's node cache with a weak reference and a finalizer; the getters of each
 * (`startPosition`, `startIndex`, `text`) then cross into native code again. Most captures are
 * identifier uses, of which only the start and the name are needed, and the transfer buffer
 * already holds the start (byte offset, row, column, in UTF-16 bytes). So captures here are
 * plain records with the start, and a `node` built on first use for the few that need the
 * tree.
 *
 * This reads the binding's internals (`Query.prototype._matches`, `nodeTransferArray`, the six
 * fields of a node), pinned with `tree-sitter@0.25.1`. `rawMatchesWork` checks them against
 * the public API once per language; if they disagree, matches come from the public API.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type ParserType from 'tree-sitter';

type SyntaxNode = ParserType.SyntaxNode;
type Tree = ParserType.Tree;
type Query = ParserType.Query;

const require = createRequire(import.meta.url);

/** A node's six transfer fields: id (two words), start byte, start row, start column byte, alias. */
const NODE_FIELDS = 6;

export interface Capture {
  readonly name: string;
  /** Start row (0-based), start column and start index, in UTF-16 code units as in the public API. */
  readonly row: number;
  readonly column: number;
  readonly startIndex: number;
  /** The node itself, built on first use. */
  readonly node: SyntaxNode;
}

export interface Match {
  readonly pattern: number;
  readonly captures: readonly Capture[];
}

interface Binding {
  readonly nodeTransferArray: Uint32Array;
}

interface Internals {
  readonly binding: Binding;
  readonly SyntaxNode: new (tree: Tree) => SyntaxNode;
  readonly rawMatches: (this: Query, tree: Tree, ...args: number[]) => [(number | string)[], (object | number | null)[]];
}

let internals: Internals | null | undefined;

function loadInternals(): Internals | null {
  if (internals !== undefined) return internals;
  internals = null;
  try {
    const Parser = require('tree-sitter') as typeof ParserType & { SyntaxNode: Internals['SyntaxNode'] };
    const entry = require.resolve('tree-sitter');
    const binding = createRequire(entry)('node-gyp-build')(dirname(entry)) as Binding & { Query?: unknown };
    const rawMatches = (Parser.Query.prototype as unknown as { _matches?: Internals['rawMatches'] })._matches;
    if (binding.Query === Parser.Query && typeof rawMatches === 'function' && typeof Parser.SyntaxNode === 'function') {
      internals = { binding, SyntaxNode: Parser.SyntaxNode, rawMatches };
    }
  } catch {
    internals = null;
  }
  return internals;
}

class BufferCapture implements Capture {
  private built: SyntaxNode | undefined;
  constructor(
    readonly name: string,
    private readonly tree: Tree,
    private readonly f0: number,
    private readonly f1: number,
    private readonly f2: number,
    private readonly f3: number,
    private readonly f4: number,
    private readonly f5: number,
  ) {}
  get row(): number {
    return this.f3;
  }
  get column(): number {
    return this.f4 >>> 1;
  }
  get startIndex(): number {
    return this.f2 >>> 1;
  }
  get node(): SyntaxNode {
    if (this.built) return this.built;
    const node = new internals!.SyntaxNode(this.tree) as unknown as Record<number, number>;
    node[0] = this.f0;
    node[1] = this.f1;
    node[2] = this.f2;
    node[3] = this.f3;
    node[4] = this.f4;
    node[5] = this.f5;
    return (this.built = node as unknown as SyntaxNode);
  }
}

class NodeCapture implements Capture {
  constructor(
    readonly name: string,
    readonly node: SyntaxNode,
  ) {}
  get row(): number {
    return this.node.startPosition.row;
  }
  get column(): number {
    return this.node.startPosition.column;
  }
  get startIndex(): number {
    return this.node.startIndex;
  }
}

/**
 * Where a query looks: a range of the source in UTF-16 code units (as `startIndex`), and how
 * deep a match's first node may start below the root (1: the root's children).
 */
export interface MatchLimits {
  readonly startIndex?: number;
  readonly endIndex?: number;
  readonly maxStartDepth?: number;
}

/** The binding's arguments after the tree: points (unused), byte range, match limit, depth, timeout. */
function rawArgs(limits: MatchLimits): number[] {
  // The binding hands the range to tree-sitter as bytes of the UTF-16 text it parsed, unconverted.
  const start = (limits.startIndex ?? 0) * 2;
  const end = limits.endIndex === undefined ? 0 : limits.endIndex * 2;
  return [0, 0, 0, 0, start, end, 0xffffffff, limits.maxStartDepth ?? 0xffffffff, 0];
}

/** The public API's matches, as `Match`es. */
export function publicMatches(query: Query, root: SyntaxNode, limits: MatchLimits = {}): Match[] {
  const [, , , , startIndex, endIndex, , maxStartDepth] = rawArgs(limits);
  return query
    .matches(root, { startIndex: startIndex!, endIndex: endIndex!, maxStartDepth: maxStartDepth! })
    .map((m) => ({ pattern: m.pattern, captures: m.captures.map((c) => new NodeCapture(c.name, c.node)) }));
}

type Predicate = (captures: { name: string; node: SyntaxNode }[]) => boolean;

/** All matches of `query` under `root` (the tree's root node), read from the transfer buffer. */
export function bufferMatches(query: Query, tree: Tree, root: SyntaxNode, limits: MatchLimits = {}): Match[] {
  const x = loadInternals()!;
  const rootFields = root as unknown as Record<number, number>;
  // The native side reads the node to search from the first slot of the buffer.
  const before = x.binding.nodeTransferArray;
  for (let i = 0; i < NODE_FIELDS; i++) before[i] = rootFields[i]!;
  const [flat, nodes] = x.rawMatches.call(query, tree, ...rawArgs(limits));
  const buf = x.binding.nodeTransferArray;
  const predicates = (query as unknown as { predicates: Predicate[][] }).predicates;
  const out: Match[] = [];
  let offset = 0;
  let n = 0;
  let i = 0;
  while (i < flat.length) {
    const pattern = flat[i++] as number;
    const captures: Capture[] = [];
    while (i < flat.length && typeof flat[i] === 'string') {
      const name = flat[i++] as string;
      const value = nodes[n++];
      if (value !== null && typeof value === 'object') {
        // A node the tree already holds an object for (the root, say): its fields are on it.
        const o = value as Record<number, number>;
        captures.push(new BufferCapture(name, tree, o[0]!, o[1]!, o[2]!, o[3]!, o[4]!, o[5]!));
      } else {
        captures.push(
          new BufferCapture(
            name,
            tree,
            buf[offset]!,
            buf[offset + 1]!,
            buf[offset + 2]!,
            buf[offset + 3]!,
            buf[offset + 4]!,
            buf[offset + 5]!,
          ),
        );
        offset += NODE_FIELDS;
      }
    }
    const tests = predicates[pattern];
    if (tests && tests.length && !tests.every((p) => p(captures as unknown as { name: string; node: SyntaxNode }[]))) continue;
    out.push({ pattern, captures });
  }
  return out;
}

/**
 * Whether `bufferMatches` gives what `query.matches` gives (pattern, capture names, start
 * positions and text of every capture) on `tree`.
 */
export function rawMatchesWork(query: Query, tree: Tree): boolean {
  if (!loadInternals()) return false;
  try {
    const expected = query.matches(tree.rootNode);
    const actual = bufferMatches(query, tree, tree.rootNode);
    if (expected.length !== actual.length || expected.length === 0) return false;
    for (let m = 0; m < expected.length; m++) {
      const e = expected[m]!;
      const a = actual[m]!;
      if (e.pattern !== a.pattern || e.captures.length !== a.captures.length) return false;
      for (let c = 0; c < e.captures.length; c++) {
        const ec = e.captures[c]!;
        const ac = a.captures[c]!;
        const p = ec.node.startPosition;
        if (ec.name !== ac.name || p.row !== ac.row || p.column !== ac.column || ec.node.startIndex !== ac.startIndex) return false;
        if (ec.node.text !== ac.node.text || ec.node.type !== ac.node.type || ec.node.endIndex !== ac.node.endIndex) return false;
      }
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops the binding from registering every node object it hands out in its tree's node cache
 * (a weak reference and a finalizer each, so that a node met twice is the same object). Nothing
 * here compares nodes by identity, and without it making a node costs about half. For threads
 * that run only this extractor: the parse workers.
 */
export function dropNodeCache(): void {
  let proto: Record<string, unknown> | undefined;
  try {
    proto = (require('tree-sitter') as { Tree?: { prototype: Record<string, unknown> } }).Tree?.prototype;
  } catch {
    return; // no native binding: nothing to change
  }
  if (proto && typeof proto._cacheNode === 'function' && typeof proto._cacheNodes === 'function') {
    proto._cacheNode = () => undefined;
    proto._cacheNodes = () => undefined;
  }
}
