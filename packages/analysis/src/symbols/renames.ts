/**
 * Renamed definitions: a definition gone from one side whose body reappears under another name is
 * a rename, not a deletion, so evidence can name both ("renames referer_str → referrer_str").
 *
 * The rule (docs/channels.md, "Renames"): a deleted and an added definition of one file are a
 * rename when they have the same kind, the same parent scope (`Class` of `Class.method`) and the
 * same body once the name is replaced — compared by the names the parser extracted (references,
 * calls, nested definitions) on each line relative to the definition's first line, the old and
 * the new name counted as one. "Nearly equal" is allowed for bodies of five names or more (a Dice
 * coefficient of at least 0.8 over those names). A body without any names (`const v = 1`) is a
 * rename only in place (same first line). Each pairing must be the only best one both ways:
 * a deleted definition with two equally good new ones (or the reverse) stays a deletion.
 */
import type { SymbolWrite } from '@airspace/core';
import type { DefinitionFact, FileFacts } from '../facts.js';

const NEAR = 0.8;
const NEAR_MIN_NAMES = 5;

const parentOf = (qualifiedName: string): string => qualifiedName.slice(0, Math.max(0, qualifiedName.lastIndexOf('.')));

/** The names of a definition's body by relative line, its own name replaced by a placeholder. */
function fingerprint(def: DefinitionFact, facts: FileFacts): string[] {
  const inside = (line: number) => line >= def.startLine && line <= def.endLine;
  const name = (n: string) => (n === def.name ? '\0self' : n);
  const out: string[] = [];
  for (const r of facts.references) if (inside(r.line)) out.push(`r${r.line - def.startLine}:${name(r.name)}`);
  for (const c of facts.calls) if (inside(c.line)) out.push(`c${c.line - def.startLine}:${name(c.name)}`);
  for (const d of facts.definitions) {
    if (d === def || !inside(d.startLine) || d.endLine > def.endLine) continue;
    out.push(`d${d.startLine - def.startLine}-${d.endLine - def.startLine}:${d.kind}:${name(d.name)}`);
  }
  return out.sort();
}

/** Dice coefficient of two sorted multisets. */
function dice(x: readonly string[], y: readonly string[]): number {
  if (x.length + y.length === 0) return 1;
  let i = 0;
  let j = 0;
  let common = 0;
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) (common++, i++, j++);
    else if (x[i]! < y[j]!) i++;
    else j++;
  }
  return (2 * common) / (x.length + y.length);
}

interface Side {
  readonly write: SymbolWrite;
  readonly def: DefinitionFact;
  readonly names: string[];
}

function similarity(old: Side, now: Side): number {
  if (old.def.kind !== now.def.kind || parentOf(old.def.qualifiedName) !== parentOf(now.def.qualifiedName)) return 0;
  if (old.def.endLine - old.def.startLine !== now.def.endLine - now.def.startLine && old.names.length < NEAR_MIN_NAMES) return 0;
  if (old.names.length === 0 && now.names.length === 0) return old.def.startLine === now.def.startLine ? 1 : 0;
  const score = dice(old.names, now.names);
  if (score === 1) return 1;
  return Math.min(old.names.length, now.names.length) >= NEAR_MIN_NAMES && score >= NEAR ? score : 0;
}

/** The best partner of `one` among `others`, if it is the only best one. */
function onlyBest(one: Side, others: readonly Side[], score: (x: Side, y: Side) => number): Side | undefined {
  let best: Side | undefined;
  let bestScore = 0;
  let tie = false;
  for (const other of others) {
    const s = score(one, other);
    if (s <= 0) continue;
    if (s > bestScore) [best, bestScore, tie] = [other, s, false];
    else if (s === bestScore) tie = true;
  }
  return tie ? undefined : best;
}

/**
 * Marks the renames among one file's writes: `deleted` writes (base facts) get `renamedTo`, the
 * `added` ones (the agent's facts) `renamedFrom`. `writes` is updated in place, by symbol id.
 */
export function markRenames(
  writes: Map<string, SymbolWrite>,
  path: string,
  basePath: string,
  own: FileFacts | undefined,
  base: FileFacts | undefined,
): void {
  if (!own || !base) return;
  const sides = (facts: FileFacts, change: SymbolWrite['change'], at: string): Side[] => {
    const defs = new Map(facts.definitions.map((d) => [d.qualifiedName, d]));
    const out: Side[] = [];
    for (const w of writes.values()) {
      const def = w.change === change && w.path === at ? defs.get(w.qualifiedName) : undefined;
      if (def) out.push({ write: w, def, names: fingerprint(def, facts) });
    }
    return out;
  };
  const gone = sides(base, 'deleted', path);
  if (gone.length === 0) return;
  const born = sides(own, 'added', path);
  for (const old of gone) {
    const now = onlyBest(old, born, similarity);
    if (!now || onlyBest(now, gone, (x, y) => similarity(y, x)) !== old) continue;
    const renamedTo = { qualifiedName: now.def.qualifiedName, range: [now.def.startLine, now.def.endLine] as const };
    writes.set(old.write.symbol, { ...old.write, renamedTo });
    writes.set(now.write.symbol, { ...now.write, renamedFrom: old.def.qualifiedName });
    // The deletion is also recorded under the base path of a renamed file.
    if (basePath !== path) {
      for (const [id, w] of writes) {
        if (w.path === basePath && w.change === 'deleted' && w.qualifiedName === old.def.qualifiedName) writes.set(id, { ...w, renamedTo });
      }
    }
  }
}
