/**
 * What an agent writes and reads, at the level of symbols.
 *
 * Writes: the innermost definitions whose own lines (its span minus nested definitions) meet
 * the agent's changed lines — in the agent's version for added and modified code, in the base
 * version for deleted code. A change to a method writes the method, not its whole class.
 * A write is `signature` when it touches the definition's header (first line through the line of
 * its name), `body` otherwise, `added` / `deleted` when the definition exists on one side only;
 * a deleted and an added definition with one body are a rename (`renames.ts`).
 *
 * Reads: uses (references and calls) resolved to definitions; `changed` when the use is on one of
 * the agent's changed lines, `touched` when it is elsewhere in a file the agent changed.
 */
import type { Agent, FileEdit, Range, SymbolRead, SymbolWrite } from '@airspace/core';
import type { DefinitionFact, DefinitionKind } from '../facts.js';
import type { IndexView } from '../indexing/view.js';
import { markRenames } from './renames.js';
import { createSymbolResolver, symbolId, type SymbolResolver } from './resolve.js';

export type { SymbolRead, SymbolWrite } from '@airspace/core';

const WRITABLE: ReadonlySet<DefinitionKind> = new Set(['function', 'method', 'class', 'variable', 'field', 'interface', 'type', 'enum']);

/** Does a (possibly zero-width) changed range meet the line span [from, to]? */
function meets(r: Range, from: number, to: number): boolean {
  const [s, e] = r;
  if (e < s) return from <= e && s <= to; // insertion between e and s: strictly inside the span
  return s <= to && e >= from;
}

/** A definition's own lines: its span minus the spans of definitions nested in it. */
function ownSpans(def: DefinitionFact, all: readonly DefinitionFact[]): [number, number][] {
  const children = all
    .filter(
      (d) =>
        d !== def &&
        d.startLine >= def.startLine &&
        d.endLine <= def.endLine &&
        !(d.startLine === def.startLine && d.endLine === def.endLine),
    )
    .sort((x, y) => x.startLine - y.startLine);
  const spans: [number, number][] = [];
  let cursor = def.startLine;
  for (const c of children) {
    if (c.startLine > cursor) spans.push([cursor, c.startLine - 1]);
    cursor = Math.max(cursor, c.endLine + 1);
  }
  if (cursor <= def.endLine) spans.push([cursor, def.endLine]);
  return spans;
}

function touchedDefinitions(defs: readonly DefinitionFact[], ranges: FileEdit['newRanges']): { def: DefinitionFact; header: boolean }[] {
  const out: { def: DefinitionFact; header: boolean }[] = [];
  for (const def of defs) {
    if (!WRITABLE.has(def.kind)) continue;
    if (ranges === 'whole') {
      out.push({ def, header: true });
      continue;
    }
    const own = ownSpans(def, defs);
    const hit = ranges.some((r) => own.some(([from, to]) => meets(r, from, to)));
    if (!hit) continue;
    const header = ranges.some((r) => meets(r, def.startLine, Math.max(def.startLine, def.line)));
    out.push({ def, header });
  }
  return out;
}

/** Symbols the agent writes. `own` is the agent's view, `base` the merge base's. */
export function agentWrites(agent: Agent, own: IndexView, base: IndexView): SymbolWrite[] {
  const writes = new Map<string, SymbolWrite>();
  for (const file of agent.files) {
    const basePath = file.oldPath ?? file.path;
    const ownDefs = file.status === 'deleted' ? [] : (own.facts(file.path)?.definitions ?? []);
    const baseDefs = file.status === 'added' ? [] : (base.facts(basePath)?.definitions ?? []);
    const baseByName = new Map(baseDefs.map((d) => [d.qualifiedName, d]));
    const ownByName = new Map(ownDefs.map((d) => [d.qualifiedName, d]));
    let born = false; // a definition added, and one deleted: maybe a rename
    let gone = false;
    for (const { def, header } of touchedDefinitions(ownDefs, file.status === 'added' ? 'whole' : file.newRanges)) {
      const before = baseByName.get(def.qualifiedName);
      born ||= !before;
      writes.set(symbolId(file.path, def.qualifiedName), {
        symbol: symbolId(file.path, def.qualifiedName),
        path: file.path,
        qualifiedName: def.qualifiedName,
        kind: def.kind,
        change: before ? (header ? 'signature' : 'body') : 'added',
        range: [def.startLine, def.endLine],
        ...(before ? { baseRange: [before.startLine, before.endLine] as Range } : {}),
      });
    }
    // Code that is gone from the agent's version was written too (deleted), in base coordinates.
    for (const { def } of touchedDefinitions(baseDefs, file.status === 'deleted' ? 'whole' : file.baseRanges)) {
      if (ownByName.has(def.qualifiedName)) continue;
      gone = true;
      const id = symbolId(file.path, def.qualifiedName);
      if (!writes.has(id))
        writes.set(id, {
          symbol: id,
          path: file.path,
          qualifiedName: def.qualifiedName,
          kind: def.kind,
          change: 'deleted',
          baseRange: [def.startLine, def.endLine],
        });
      // A deleted definition under its base path, so readers that still import the old path match.
      if (basePath !== file.path) {
        const oldId = symbolId(basePath, def.qualifiedName);
        writes.set(oldId, {
          symbol: oldId,
          path: basePath,
          qualifiedName: def.qualifiedName,
          kind: def.kind,
          change: 'deleted',
          baseRange: [def.startLine, def.endLine],
        });
      }
    }
    if (born && gone && (file.status === 'modified' || file.status === 'renamed'))
      markRenames(writes, file.path, basePath, own.facts(file.path), base.facts(basePath));
  }
  return [...writes.values()];
}

function onChangedLine(file: FileEdit, line: number): boolean {
  if (file.status === 'added' || file.newRanges === 'whole') return true;
  return file.newRanges.some(([s, e]) => s <= line && line <= e);
}

/** Symbols the agent reads in the files it changed, resolved in its own view. */
export function agentReads(agent: Agent, own: IndexView, resolver: SymbolResolver = createSymbolResolver(own)): SymbolRead[] {
  const reads = new Map<string, SymbolRead>();
  for (const file of agent.files) {
    if (file.status === 'deleted') continue;
    const facts = own.facts(file.path);
    if (!facts) continue;
    const uses = new Map<string, { name: string; receiver?: string; line: number }>();
    for (const r of facts.references) uses.set(`${r.line}\0${r.receiver ?? ''}\0${r.name}`, r);
    for (const c of facts.calls) uses.set(`${c.line}\0${c.receiver ?? ''}\0${c.name}`, c);
    for (const use of uses.values()) {
      const strength = onChangedLine(file, use.line) ? 'changed' : 'touched';
      for (const r of resolver.resolve(file.path, use)) {
        // A definition's own name and a file's own definitions on the same line are not reads.
        if (r.symbol.path === file.path && r.symbol.line === use.line) continue;
        const key = `${r.symbol.id}\0${file.path}`;
        const prior = reads.get(key);
        const better = !prior || rank(strength, r.confidence) > rank(prior.strength, prior.confidence);
        if (better) {
          reads.set(key, {
            symbol: r.symbol.id,
            qualifiedName: r.symbol.qualifiedName,
            definedIn: r.symbol.path,
            path: file.path,
            line: use.line,
            strength,
            confidence: r.confidence,
            via: r.via,
          });
        }
      }
    }
  }
  return [...reads.values()];
}

function rank(strength: SymbolRead['strength'], confidence: SymbolRead['confidence']): number {
  return (strength === 'changed' ? 2 : 0) + (confidence === 'high' ? 1 : 0);
}
