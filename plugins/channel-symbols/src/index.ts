/**
 * The symbols channel: read/write hazards between two agents at the level of definitions.
 *
 *   write/write      both agents change one symbol (the innermost definition around each edit:
 *                    a method, an inner function, a hook, an inner component), and
 *                      - their changed regions inside it overlap or touch (git's conflict rule,
 *                        core's ranges.ts, in merge-base lines)                  (writeWrite)
 *                      - or lie apart: `writeWriteApart · 0.5^((d − 1) / writeWriteHalfLifeLines)`
 *                        for d unchanged lines between them, and the evidence says so
 *                      - or are the same change (same new blob, or identical hunks by contentId,
 *                        as in the overlap channel): git merges it; evidence, risk `identicalRisk` (0)
 *   write → read     one changes a symbol's signature (or deletes it) that  (signatureRead)
 *                    the other's changed lines read; or changes its body     (bodyRead)
 *   write → touched  the read is elsewhere in a file the reader changed      (touchedSignatureRead,
 *                                                                             touchedBodyRead)
 *   class body       the writer changes a class outside its members (docstring, comments,
 *                    class-level statements): its methods are writes of their own, so a reader of
 *                    the class (a constructor call, a subclass) is exposed to little   (classBodyRead)
 *
 * A read resolved by name only (no import or scope says which definition it is) counts
 * `lowConfidenceFactor` as much and says so in its evidence. Each hazard is scaled by the two
 * files' recency weights; the channel's risk is the strongest hazard in either direction.
 *
 * Symbol precision needs line information: a hazard that rests on a file edited without it (over
 * the size limit, an agent without a merge base: every definition of the file looks written) is
 * file-level evidence, reported through `preciseRisk`, so it raises traffic at most.
 */
import {
  displayName,
  conflicts,
  defineChannel,
  describeNames,
  describeRange,
  groupRuns,
  isInsertion,
  nearestPair,
  spanOf,
  withinGap,
  type Agent,
  type Evidence,
  type EvidenceSide,
  type FileEdit,
  type Hunk,
  type Range,
  type Ranges,
  type SymbolRead,
  type OptionsSchema,
  type SymbolWrite,
} from '@airspace/core';

export interface SymbolsOptions {
  /** Both change one symbol with overlapping or touching regions (git would report a conflict). */
  readonly writeWrite: number;
  /** Both change one symbol, one unchanged line apart; halves every `writeWriteHalfLifeLines`. */
  readonly writeWriteApart: number;
  readonly writeWriteHalfLifeLines: number;
  /** Both made the same change to a symbol (git merges identical changes; the overlap channel says so too). */
  readonly identicalRisk: number;
  readonly signatureRead: number;
  readonly bodyRead: number;
  readonly touchedSignatureRead: number;
  readonly touchedBodyRead: number;
  /**
   * One changes a class's own lines (outside its methods and fields: its docstring, comments,
   * class-level statements) that the other reads; the read's strength does not raise it.
   */
  readonly classBodyRead: number;
  readonly lowConfidenceFactor: number;
  /** At most this many evidence items per pair (strongest first). */
  readonly maxEvidence: number;
}

const unit = { type: 'number', min: 0, max: 1 } as const;

export const SYMBOLS_OPTIONS_SCHEMA: OptionsSchema<SymbolsOptions> = {
  writeWrite: unit,
  writeWriteApart: unit,
  writeWriteHalfLifeLines: { type: 'number', above: 0 },
  identicalRisk: unit,
  signatureRead: unit,
  bodyRead: unit,
  classBodyRead: unit,
  touchedSignatureRead: unit,
  touchedBodyRead: unit,
  lowConfidenceFactor: unit,
  maxEvidence: { type: 'number', integer: true, min: 1 },
};

export const DEFAULT_SYMBOLS_OPTIONS: SymbolsOptions = {
  writeWrite: 0.9,
  writeWriteApart: 0.3,
  writeWriteHalfLifeLines: 12,
  identicalRisk: 0,
  signatureRead: 0.9,
  bodyRead: 0.45,
  touchedSignatureRead: 0.3,
  touchedBodyRead: 0.15,
  classBodyRead: 0.15,
  lowConfidenceFactor: 0.5,
  maxEvidence: 8,
};

interface AgentSymbols {
  readonly writes: ReadonlyMap<string, SymbolWrite>;
  readonly reads: readonly SymbolRead[];
  readonly files: ReadonlyMap<string, FileEdit>;
  /** The agent's files are whole-file stand-ins (it is incomplete: no merge base, no diff). */
  readonly fallback: boolean;
}

type Prepared = ReadonlyMap<string, AgentSymbols>;

/**
 * A found hazard; `coarse` when it rests on a file edited without line information, `declared` when
 * on declared intent; `run` when it may share one evidence line with its neighbours (`groupFound`).
 */
type Found = Evidence & { readonly coarse?: boolean; readonly declared?: boolean; readonly run?: Run };

/**
 * How a finding joins neighbours saying the same thing: findings with one `key` whose symbols are
 * neighbours on each side (`spans`, one per side) become one line, which `message` words and
 * `sides` places. `changed` are each side's changed lines in the spans' coordinates: a gap between
 * two symbols that the agent changed too (comments deleted with them) does not break a run.
 */
interface Run {
  readonly key: string;
  /** The writes the finding is about, one per side of `spans`. */
  readonly writes: readonly SymbolWrite[];
  readonly spans: readonly (Range | undefined)[];
  readonly changed: readonly (Ranges | undefined)[];
  readonly message: (group: readonly Found[]) => string;
  readonly sides: (group: readonly Found[]) => Pick<Evidence, 'a' | 'b'>;
}

function where(path: string, range: Range | undefined): string {
  if (!range) return path;
  return range[0] === range[1] ? `${path}:${range[0]}` : `${path}:${range[0]}–${range[1]}`;
}

/**
 * A body change of a class is a change to its own lines only — a method or field changed is written
 * as itself — so what it changes is mostly documentation and declarations, not what a caller runs.
 * Members the analysis does not extract count as own lines: Python class attributes, and method
 * signatures of a TypeScript `declare class` (a .d.ts overload added to a class scores this too).
 */
const isClassBody = (w: SymbolWrite): boolean => w.kind === 'class' && w.change === 'body';

function describeWrite(w: SymbolWrite): string {
  if (w.renamedTo) return `renames ${w.qualifiedName} → ${w.renamedTo.qualifiedName}`;
  if (w.renamedFrom) return `renames ${w.renamedFrom} → ${w.qualifiedName}`;
  if (isClassBody(w))
    return `changes the class ${w.qualifiedName} outside the methods and fields found in it (docstring, comments, class-level statements or member declarations)`;
  switch (w.change) {
    case 'signature':
      return `changes the signature of ${w.qualifiedName}`;
    case 'body':
      return `changes the body of ${w.qualifiedName}`;
    case 'added':
      return `adds ${w.qualifiedName}`;
    case 'deleted':
      return `deletes ${w.qualifiedName}`;
  }
}

/** What several writes of one kind and change do, with their names in one phrase. */
function describeWrites(ws: readonly SymbolWrite[]): string {
  const w = ws[0]!;
  if (ws.length === 1) return describeWrite(w);
  const names = describeNames(ws.map((x) => x.qualifiedName));
  if (isClassBody(w)) return `changes the classes ${names} outside the methods and fields found in them`;
  switch (w.change) {
    case 'signature':
      return `changes the signatures of ${names}`;
    case 'body':
      return `changes the bodies of ${names}`;
    case 'added':
      return `adds ${names}`;
    case 'deleted':
      return `deletes ${names}`;
  }
}

/** Where a write is: the new lines of a renamed definition, else its lines on the side it exists. */
const spanOfWrite = (w: SymbolWrite): Range | undefined =>
  w.renamedTo?.range ?? (w.change === 'deleted' ? w.baseRange : (w.range ?? w.baseRange));
const whereWrite = (w: SymbolWrite): string => where(w.path, w.renamedTo?.range ?? w.range ?? w.baseRange);
const whereWrites = (ws: readonly SymbolWrite[]): string =>
  ws.length === 1 ? whereWrite(ws[0]!) : where(ws[0]!.path, spanOf(ws.map(spanOfWrite).filter((r): r is Range => r !== undefined)));

/** The lines a side changed, in the coordinates of `spanOfWrite(w)`. */
const changedAround = (f: FileEdit | undefined, w: SymbolWrite): Ranges | undefined =>
  f === undefined ? undefined : w.change === 'deleted' && !w.renamedTo ? f.baseRanges : f.newRanges;

/** A group key for a write: what it does, to what kind of definition, in which file (renames never group). */
const writeKey = (w: SymbolWrite): string | undefined =>
  w.renamedTo || w.renamedFrom ? undefined : `${w.change}\0${w.kind}\0${isClassBody(w)}\0${w.path}`;

/** Are the lines between a run and the next symbol few, or all changed by the side too (on every side)? */
function joins(covered: readonly (Range | undefined)[], next: readonly (Range | undefined)[], item: Found): boolean {
  return next.every((r, side) => {
    const prev = covered[side];
    if (r === undefined || prev === undefined || withinGap(prev, r)) return true;
    const changed = item.run?.changed[side];
    const from = Math.max(prev[0], prev[1]) + 1;
    const to = r[0] - 1;
    return changed === 'whole' || (changed !== undefined && changed.some((c) => c[0] <= from && to <= c[1]));
  });
}

/** Neighbouring findings that say the same thing become one evidence line (`Run`). */
function groupFound(found: readonly Found[]): Found[] {
  return groupRuns(
    found,
    (f) => f.run?.key,
    (f) => f.run?.spans ?? [],
    joins,
  ).map((group) => {
    const first = group[0]!;
    if (group.length === 1 || !first.run) return first;
    return { ...first, ...first.run.sides(group), message: first.run.message(group) };
  });
}

/** The writes of a group of findings on one side of their runs. */
const writesOf = (group: readonly Found[], side: number): SymbolWrite[] => group.map((f) => f.run!.writes[side]!);

/** A grouped side names at most this many symbols (its message and range cover them all). */
const MAX_SIDE_SYMBOLS = 50;

/** One side of a group of writes: its symbols (the first `MAX_SIDE_SYMBOLS`), and the span of their lines. */
function sideOfWrites(agent: Agent, ws: readonly SymbolWrite[]): EvidenceSide {
  if (ws.length === 1) return side(agent, ws[0]!);
  const ranges = ws.map((w) => w.range).filter((r): r is Range => r !== undefined);
  const baseRanges = ws.map((w) => w.baseRange).filter((r): r is Range => r !== undefined);
  return {
    agent: agent.id,
    path: ws[0]!.path,
    symbols: ws.slice(0, MAX_SIDE_SYMBOLS).map((w) => w.qualifiedName),
    access: 'write',
    ...(ranges.length === ws.length ? { range: spanOf(ranges) } : {}),
    ...(baseRanges.length === ws.length ? { baseRange: spanOf(baseRanges) } : {}),
  };
}

/** The agent's edit of a path (either side of a rename). */
function fileOf(s: AgentSymbols, path: string): FileEdit | undefined {
  return s.files.get(path);
}

/**
 * No line information: every definition of the file looks written (or read on a changed line).
 * A declared edit (intent, not a change yet) counts as such too: look-ahead is file-level.
 */
function lineless(s: AgentSymbols, f: FileEdit | undefined): boolean {
  if (s.fallback || !f || f.declared) return true;
  return f.baseRanges === 'whole' && f.status !== 'added' && f.status !== 'deleted';
}

/** Does a (possibly zero-width) range meet the closed line span [from, to]? */
function meets(r: Range, span: Range): boolean {
  if (isInsertion(r)) return span[0] <= r[0] && r[1] <= span[1];
  return r[0] <= span[1] && r[1] >= span[0];
}

/**
 * The changed regions of one side inside a symbol, in base lines: the hunks whose base side meets
 * the symbol's base span or whose current side meets its current span (an added symbol has no
 * base span); without hunks (a probe, an observation), the base ranges meeting the base span.
 */
function regionsIn(f: FileEdit, w: SymbolWrite): Hunk[] {
  if (f.baseRanges === 'whole') return [];
  if (f.hunks && f.hunks.length > 0) {
    return f.hunks.filter(
      (h) => (w.baseRange && meets(h.base, w.baseRange)) || (w.change !== 'deleted' && w.range && meets(h.current, w.range)),
    );
  }
  const span = w.baseRange;
  return span ? f.baseRanges.filter((r) => meets(r, span)).map((r) => ({ base: r, current: r })) : [];
}

const hunkKey = (h: Hunk): string => `${h.base[0]}:${h.base[1]}:${h.contentId}`;

export function symbolsChannel() {
  return defineChannel({
    id: 'symbols',
    // Held at 1 in the fit of docs/evaluation.md ("Shipped defaults"): its symbol-precise hazards
    // (a changed signature the other side calls) are semantic collisions a textual label cannot see.
    defaultWeight: 1,
    meta: {
      description:
        'Read/write hazards: one agent changes a definition (signature, body, export) that the other reads, or both change one symbol.',
      precision: 'symbol',
    },
    defaultOptions: DEFAULT_SYMBOLS_OPTIONS,
    optionsSchema: SYMBOLS_OPTIONS_SCHEMA,
    requires: ['symbols'],
    prepare(agents: readonly Agent[], ctx): Prepared {
      const service = ctx.services.symbols;
      const prepared = new Map<string, AgentSymbols>();
      for (const agent of agents) {
        try {
          const writes = new Map(service.writes(agent).map((w) => [w.symbol, w]));
          const files = new Map<string, FileEdit>();
          for (const f of agent.files) {
            files.set(f.path, f);
            if (f.oldPath && !files.has(f.oldPath)) files.set(f.oldPath, f);
          }
          prepared.set(agent.id, { writes, reads: service.reads(agent), files, fallback: (agent.incomplete?.length ?? 0) > 0 });
        } catch (error) {
          ctx.logger.warn(`symbols: could not analyse ${agent.id}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      return prepared;
    },
    score(a, b, ctx) {
      const o = ctx.options;
      const sa = ctx.prepared.get(a.id);
      const sb = ctx.prepared.get(b.id);
      if (!sa || !sb) return { risk: 0, evidence: [] };
      const found: Found[] = [];
      // Different merge bases: base lines of the two sides differ, so regions are compared by
      // their offset from the symbol's start in each side's base (an approximation; said so).
      const differentBases = a.base !== undefined && b.base !== undefined && a.base !== b.base;

      // write/write
      for (const [symbol, wa] of sa.writes) {
        const wb = sb.writes.get(symbol);
        if (!wb) continue;
        found.push(writeWrite(a, wa, sa, b, wb, sb, o, weightOf(sa, wa.path) * weightOf(sb, wb.path), differentBases));
      }
      // write by one, read by the other, both directions
      found.push(...readHazards(a, sa, b, sb, true, o), ...readHazards(b, sb, a, sa, false, o));

      const grouped = groupFound(found);
      grouped.sort((x, y) => (y.risk ?? 0) - (x.risk ?? 0) || x.message.localeCompare(y.message));
      const risk = Math.min(1, grouped[0]?.risk ?? 0);
      const precise = Math.min(1, grouped.find((f) => !f.coarse)?.risk ?? 0);
      const evidence = grouped.slice(0, o.maxEvidence).map(({ coarse, declared, run: _, ...e }) =>
        coarse
          ? {
              ...e,
              message: `${e.message} (${declared ? 'declared intent, not a change yet' : 'no line information'}: file-level evidence)`,
            }
          : e,
      );
      return { risk, ...(precise < risk ? { preciseRisk: precise } : {}), evidence };
    },
  });
}

const weightOf = (s: AgentSymbols, path: string): number => fileOf(s, path)?.weight ?? 1;

/** The risk of a read of a written symbol, before weights and confidence. */
function readRisk(w: SymbolWrite, read: SymbolRead, o: SymbolsOptions): number {
  const structural = w.change === 'signature' || w.change === 'deleted';
  if (isClassBody(w)) return Math.min(o.classBodyRead, read.strength === 'changed' ? o.bodyRead : o.touchedBodyRead);
  if (read.strength === 'changed') return structural ? o.signatureRead : o.bodyRead;
  return structural ? o.touchedSignatureRead : o.touchedBodyRead;
}

/** Write by one, read by the other: the writer's symbols the reader's changed files use. */
function readHazards(writer: Agent, sw: AgentSymbols, reader: Agent, sr: AgentSymbols, writerIsA: boolean, o: SymbolsOptions): Found[] {
  const found: Found[] = [];
  for (const read of sr.reads) {
    const w = sw.writes.get(read.symbol);
    if (!w || w.change === 'added' || sr.writes.has(read.symbol)) continue;
    let risk = readRisk(w, read, o);
    if (read.confidence === 'low') risk *= o.lowConfidenceFactor;
    risk *= weightOf(sw, w.path) * weightOf(sr, read.path);
    const how = read.strength === 'changed' ? 'in its changed lines' : 'elsewhere in a file it changed';
    const guess = read.confidence === 'low' ? ` (resolved by name only: ${displayName(read.symbol)} may be another definition)` : '';
    const readerSide: EvidenceSide = {
      agent: reader.id,
      path: read.path,
      range: [read.line, read.line],
      symbol: read.qualifiedName,
      access: 'read',
    };
    const coarse = lineless(sw, fileOf(sw, w.path)) || (read.strength === 'changed' && lineless(sr, fileOf(sr, read.path)));
    const declared = !!fileOf(sw, w.path)?.declared || (read.strength === 'changed' && !!fileOf(sr, read.path)?.declared);
    const kind = read.strength === 'changed' ? 'write-read' : 'write-read-touched';
    const key = writeKey(w);
    const reads = (group: readonly Found[]) => group.map((f) => f[writerIsA ? 'b' : 'a']!);
    const run: Run | undefined =
      key === undefined
        ? undefined
        : {
            key: [kind, risk, read.confidence, coarse, declared, key, read.path].join('\0'),
            writes: [w],
            spans: [spanOfWrite(w)],
            changed: [changedAround(fileOf(sw, w.path), w)],
            message: (group) => {
              const lines = [...new Set(reads(group).map((r) => r.range![0]))].sort((x, y) => x - y);
              const at = lines.length <= 3 ? describeNames(lines.map(String), 'lines') : `${lines[0]}–${lines[lines.length - 1]}`;
              const guesses = read.confidence === 'low' ? ' (resolved by name only: these may be other definitions)' : '';
              const ws = writesOf(group, 0);
              return `${writer.label} ${describeWrites(ws)} (${whereWrites(ws)}), which ${reader.label} reads at ${read.path}:${at} ${how}${guesses}.`;
            },
            sides: (group) => {
              const ws = writesOf(group, 0);
              const rs = reads(group);
              const readers: EvidenceSide = {
                agent: reader.id,
                path: read.path,
                range: spanOf(rs.map((r) => r.range!)),
                symbols: rs.slice(0, MAX_SIDE_SYMBOLS).map((r) => r.symbol!),
                access: 'read',
              };
              const writers = sideOfWrites(writer, ws);
              return writerIsA ? { a: writers, b: readers } : { a: readers, b: writers };
            },
          };
    found.push({
      ...(coarse ? { coarse } : {}),
      ...(declared ? { declared } : {}),
      ...(run ? { run } : {}),
      kind,
      risk,
      confidence: read.confidence,
      message: `${writer.label} ${describeWrite(w)} (${whereWrite(w)}), which ${reader.label} reads at ${read.path}:${read.line} ${how}${guess}.`,
      ...(writerIsA ? { a: side(writer, w), b: readerSide } : { a: readerSide, b: side(writer, w) }),
    });
  }
  return found;
}

/** Both agents change one symbol: how close their changes inside it are decides the risk. */
function writeWrite(
  a: Agent,
  wa: SymbolWrite,
  sa: AgentSymbols,
  b: Agent,
  wb: SymbolWrite,
  sb: AgentSymbols,
  o: SymbolsOptions,
  w: number,
  differentBases: boolean,
): Found {
  const fa = fileOf(sa, wa.path);
  const fb = fileOf(sb, wb.path);
  const both = `${a.label} ${describeWrite(wa)} (${whereWrite(wa)}) and ${b.label} ${describeWrite(wb)} (${whereWrite(wb)})`;
  const sides = { a: side(a, wa), b: side(b, wb) };
  /** A write/write finding that joins its neighbours' into one line, `tail` worded for many symbols. */
  const run = (f: Found, tail: string): Found => {
    const keys = [writeKey(wa), writeKey(wb)];
    if (keys.includes(undefined)) return f;
    const key = [f.kind, tail, f.risk, f.confidence, f.coarse, f.declared, ...keys].join('\0');
    const message = (group: readonly Found[]) => {
      const [was, wbs] = [writesOf(group, 0), writesOf(group, 1)];
      return `${a.label} ${describeWrites(was)} (${whereWrites(was)}) and ${b.label} ${describeWrites(wbs)} (${whereWrites(wbs)})${tail}`;
    };
    const sidesOf = (group: readonly Found[]) => ({ a: sideOfWrites(a, writesOf(group, 0)), b: sideOfWrites(b, writesOf(group, 1)) });
    const changed = [changedAround(fa, wa), changedAround(fb, wb)];
    return { ...f, run: { key, writes: [wa, wb], spans: [spanOfWrite(wa), spanOfWrite(wb)], changed, message, sides: sidesOf } };
  };
  if (fa?.newBlob !== undefined && fa.newBlob === fb?.newBlob && fa.path === fb.path) {
    const risk = w * o.identicalRisk;
    return {
      kind: 'identical-change',
      risk,
      ...sides,
      message: `${a.label} and ${b.label} made the same change to ${wa.qualifiedName} (${wa.path} has the same content on both sides); git merges identical changes cleanly.`,
    };
  }
  if (lineless(sa, fa) || lineless(sb, fb)) {
    const f: Found = {
      kind: 'write-write',
      risk: w * o.writeWrite,
      coarse: true,
      ...(fa?.declared || fb?.declared ? { declared: true } : {}),
      ...sides,
      message: `${both}.`,
    };
    return run(f, '.');
  }
  let ra = regionsIn(fa!, wa);
  let rb = regionsIn(fb!, wb);
  // Hunks both sides made identically (same base lines, same content) merge cleanly: set aside.
  const mine = new Set(ra.filter((h) => h.contentId !== undefined).map(hunkKey));
  const same = new Set(rb.filter((h) => h.contentId !== undefined && mine.has(hunkKey(h))).map(hunkKey));
  if (same.size > 0) {
    ra = ra.filter((h) => !same.has(hunkKey(h)));
    rb = rb.filter((h) => !same.has(hunkKey(h)));
    if (ra.length === 0 || rb.length === 0) {
      const more = ra.length + rb.length > 0 ? `, and only ${ra.length > 0 ? a.label : b.label} changes more of it` : '';
      return {
        kind: 'identical-change',
        risk: w * o.identicalRisk,
        ...sides,
        message: `${a.label} and ${b.label} made the same change inside ${wa.qualifiedName} (identical hunks)${more}; git merges this cleanly.`,
      };
    }
  }
  // Whole-file sides (added or deleted files: add/add, modify/delete) and regions we cannot place
  // are a write/write on the symbol as such; git reports add/add and modify/delete as conflicts.
  if (ra.length === 0 || rb.length === 0) return run({ kind: 'write-write', risk: w * o.writeWrite, ...sides, message: `${both}.` }, '.');
  const offset = (s: SymbolWrite) => (differentBases ? (s.baseRange?.[0] ?? 1) - 1 : 0);
  const shift = (hs: readonly Hunk[], by: number): Range[] => hs.map((h) => [h.base[0] - by, h.base[1] - by] as Range);
  const A = shift(ra, offset(wa));
  const B = shift(rb, offset(wb));
  const guess = differentBases ? { confidence: 'low' as const } : {};
  const basesNote = differentBases ? ' (the agents have different merge bases: compared by offset inside the symbol)' : '';
  const clash = conflicts(A, B)[0];
  if (clash) {
    const kind = Math.max(clash.a[0], clash.b[0]) <= Math.min(clash.a[1], clash.b[1]) ? 'overlapping' : 'touching';
    const f: Found = {
      kind: 'write-write',
      risk: w * o.writeWrite,
      ...guess,
      ...sides,
      message: `${both}: their changes inside it (${describeRange(clash.a)}, ${describeRange(clash.b)} of the merge base) are ${kind}${basesNote}.`,
    };
    return run(f, `: their changes inside each overlap or touch${basesNote}.`);
  }
  const near = nearestPair(A, B)!;
  const risk = w * o.writeWriteApart * Math.pow(0.5, (near.distance - 1) / Math.max(1e-9, o.writeWriteHalfLifeLines));
  const f: Found = {
    kind: 'write-write-apart',
    risk,
    ...guess,
    ...sides,
    message: `${both}, ${near.distance} unchanged line${near.distance === 1 ? '' : 's'} apart inside it (${describeRange(near.a)} and ${describeRange(near.b)} of the merge base)${basesNote}; git merges this cleanly, but both change one definition.`,
  };
  return run(f, `, their changes apart inside each${basesNote}; git merges this cleanly, but both change each of these definitions.`);
}

function side(agent: Agent, w: SymbolWrite): EvidenceSide {
  const range = w.renamedTo?.range ?? w.range;
  return {
    agent: agent.id,
    path: w.path,
    symbol: w.qualifiedName,
    access: 'write' as const,
    ...(range ? { range } : {}),
    ...(w.baseRange ? { baseRange: w.baseRange } : {}),
  };
}

/** @public What a config naming this package as a plugin loads (`docs/plugins.md`). */
export default symbolsChannel;
