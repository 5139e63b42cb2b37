/**
 * The overlap channel: model eq. 3 (docs/model.md) in merge-base coordinates, with git's conflict rule.
 *
 * Per file both agents change (matched by path, or by the base path of a rename):
 *   lineOverlap = |A ∩ B| / min(|A|, |B|)  (overlap coefficient of the base ranges)
 *   r_file      = w_a · w_b · lineOverlap
 *   r_overlap   = max over shared files
 * with these rules on top:
 *   - a git conflict is a conflict: when any pair of changes conflicts under git's rule
 *     (overlapping, touching, an insertion at or inside a change, two insertions at one point),
 *     the file scores at least `conflictFloor` (default 0.9) — even for a thin overlap of two large
 *     regions, for insertions (which cover no lines) and for old edits: recency weights scale
 *     what git would merge cleanly, never a conflict it will report;
 *   - whole-file edits (added, deleted, binary, no line info) overlap fully; the same path added by
 *     both, a modify/delete, a binary file changed on both sides and a rename of one base file to
 *     two paths are certain conflicts (at least `conflictFloor`); a modified file without line
 *     information (e.g. an observation without ranges) scores w_a · w_b;
 *   - content is compared as git's "zealous" merge does: equal `newBlob` on both sides (or both
 *     deleting the file) is an identical change → `identicalRisk` (default 0.05) with evidence
 *     `identical-change`; hunks with the same base range and `contentId` on both sides are
 *     compatible and left out of the comparison (evidence `compatible-change`, risk 0);
 *   - disjoint changes close to each other add a proximity risk that git would still merge
 *     cleanly: `proximityRisk · 0.5^((d − 1) / proximityHalfLifeLines)` for d ≤ `proximityMaxLines`
 *     unchanged lines apart (defaults 0.3, 4, 30; `proximityRisk: 0` turns it off). At 0.3 it stays
 *     below τ_TA on its own; with the tree channel's same-file prior it raises a traffic advisory.
 *
 * Declared intent is look-ahead. Declared edits (`FileEdit.declared`: the scanner turns each
 * declared path into a whole-file edit of weight 1, declared lines into those lines) are scored as
 * edits but are file-level evidence only (traffic at most on their own) and their evidence says
 * "declared". A path only listed in `Agent.intent` (no edit of it) that the other agent changes or
 * declared too scores `intentRisk` (default 0.5), evidence kind `intent`.
 *
 * Agents whose `base` differs are compared in the pair's merge base when the front end supplies
 * the `git` service with `pairEdits(a, b, path)`; without it, each agent's own base coordinates
 * are used and the evidence says so (confidence low).
 */
import {
  conflicts,
  defineChannel,
  describeRange,
  describeRanges,
  groupRuns,
  isInsertion,
  mapToCurrent,
  nearestPair,
  overlapCoefficient,
  pairsSharingKeys,
  sharesOrWithinGap,
  spanOf,
  type Agent,
  type Evidence,
  type EvidenceSide,
  type FileEdit,
  type OptionsSchema,
  type PairedEdits,
  type Problem,
  type Range,
  type RangeConflict,
  editWeight,
} from '@airspace/core';

export interface OverlapOptions {
  /** Minimum lineOverlap of a file where git would report a conflict. */
  readonly conflictFloor: number;
  /** Risk of a file both agents changed to identical content. */
  readonly identicalRisk: number;
  /** Proximity risk of disjoint changes one line apart (0 disables proximity). */
  readonly proximityRisk: number;
  /** Lines of distance over which the proximity risk halves. */
  readonly proximityHalfLifeLines: number;
  /** Beyond this many unchanged lines apart, no proximity risk. */
  readonly proximityMaxLines: number;
  /** Evidence items per file at most (the strongest conflicting pairs). */
  readonly maxEvidencePerFile: number;
  /** Risk of a path one agent declared it is about to touch and the other changes or declared (0 disables). */
  readonly intentRisk: number;
}

export const OVERLAP_OPTIONS_SCHEMA: OptionsSchema<OverlapOptions> = {
  conflictFloor: { type: 'number', min: 0, max: 1 },
  identicalRisk: { type: 'number', min: 0, max: 1 },
  proximityRisk: { type: 'number', min: 0, max: 1 },
  proximityHalfLifeLines: { type: 'number', above: 0 },
  proximityMaxLines: { type: 'number', min: 0 },
  maxEvidencePerFile: { type: 'number', integer: true, min: 1 },
  intentRisk: { type: 'number', min: 0, max: 1 },
};

export const DEFAULT_OVERLAP_OPTIONS: OverlapOptions = {
  conflictFloor: 0.9,
  identicalRisk: 0.05,
  proximityRisk: 0.3,
  proximityHalfLifeLines: 4,
  proximityMaxLines: 30,
  maxEvidencePerFile: 5,
  intentRisk: 0.5,
};

/** Per agent: its file edits by path and by base path (for renames). */
type Prepared = ReadonlyMap<string, ReadonlyMap<string, readonly FileEdit[]>>;

interface FileResult {
  readonly risk: number;
  readonly evidence: Evidence[];
  /**
   * The risk rests on file-level evidence only (a whole-file edit without line information,
   * declared intent): it may raise traffic, never a resolution advisory on its own.
   */
  readonly coarse?: boolean;
  /** Of a coarse result, the part of the risk that rests on line evidence (real edits beside declared ones). */
  readonly precise?: number;
}

const baseKey = (f: FileEdit): string => f.oldPath ?? f.path;

function indexFiles(agent: Agent): Map<string, FileEdit[]> {
  const byKey = new Map<string, FileEdit[]>();
  const add = (key: string, f: FileEdit): void => {
    const list = byKey.get(key);
    if (!list) byKey.set(key, [f]);
    else if (!list.includes(f)) list.push(f);
  };
  for (const f of agent.files) {
    add(f.path, f);
    add(baseKey(f), f);
  }
  return byKey;
}

/** Pairs of (a's edit, b's edit) of one file: same path, or same base path. */
function sharedFiles(a: Agent, indexB: ReadonlyMap<string, readonly FileEdit[]>): [FileEdit, FileEdit][] {
  let out: [FileEdit, FileEdit][] | undefined; // most pairs share nothing: allocate on the first hit
  for (const f of a.files) {
    const byPath = indexB.get(f.path);
    const byOld = f.oldPath !== undefined && f.oldPath !== f.path ? indexB.get(f.oldPath) : undefined;
    if (!byPath && !byOld) continue;
    const seen = new Set<FileEdit>();
    for (const list of [byPath, byOld]) {
      for (const g of list ?? []) {
        if (seen.has(g)) continue;
        if (g.path === f.path || baseKey(g) === baseKey(f)) {
          seen.add(g);
          (out ??= []).push([f, g]);
        }
      }
    }
  }
  return out ?? NONE;
}

const NONE: [FileEdit, FileEdit][] = [];

function side(agent: string, f: FileEdit, baseRange?: Range): EvidenceSide {
  const range = baseRange && f.hunks && f.hunks.length > 0 ? mapToCurrent(f.hunks, baseRange) : undefined;
  return { agent, path: f.path, ...(baseRange ? { baseRange } : {}), ...(range ? { range } : {}) };
}

/** The base ranges of an edit after dropping hunks the other side made identically. */
function comparableRanges(f: FileEdit, compatible: ReadonlySet<string>): readonly Range[] {
  if (f.baseRanges === 'whole') return [];
  if (!f.hunks || f.hunks.length === 0 || compatible.size === 0) return f.baseRanges;
  return f.hunks.filter((h) => !(h.contentId !== undefined && compatible.has(hunkKey(h.base, h.contentId)))).map((h) => h.base);
}

const hunkKey = (r: Range, contentId: string): string => `${r[0]}:${r[1]}:${contentId}`;

function compatibleHunks(f: FileEdit, g: FileEdit): Set<string> {
  const out = new Set<string>();
  if (!f.hunks || !g.hunks) return out;
  const mine = new Set(f.hunks.filter((h) => h.contentId !== undefined).map((h) => hunkKey(h.base, h.contentId!)));
  for (const h of g.hunks) if (h.contentId !== undefined && mine.has(hunkKey(h.base, h.contentId))) out.add(hunkKey(h.base, h.contentId));
  return out;
}

function conflictKind(x: Range, y: Range): 'overlap' | 'touching' | 'same-insertion-point' {
  const ix = isInsertion(x);
  const iy = isInsertion(y);
  if (ix && iy) return 'same-insertion-point';
  if (!ix && !iy) return Math.max(x[0], y[0]) <= Math.min(x[1], y[1]) ? 'overlap' : 'touching';
  const [p, r] = ix ? [x, y] : [y, x];
  return r[0] < p[0] && p[0] <= r[1] ? 'overlap' : 'touching';
}

const KIND_TEXT = {
  overlap: 'overlapping lines',
  touching: 'touching lines',
  'same-insertion-point': 'the same insertion point',
} as const;

function whyWhole(f: FileEdit): string | undefined {
  if (f.declared && f.baseRanges === 'whole') return 'declared it is about to touch it';
  if (f.binary) return 'a binary file';
  if (f.status === 'deleted') return 'deletes it';
  if (f.status === 'added') return 'adds it';
  if (f.baseRanges === 'whole') return 'rewrites it (no line information)';
  return undefined;
}

export function scoreFile(aId: string, bId: string, f: FileEdit, g: FileEdit, options: OverlapOptions, lowConfidence = false): FileResult {
  if (!f.declared && !g.declared) return scoreEdits(aId, bId, f, g, options, lowConfidence);
  // Declared intent is look-ahead: it may raise traffic, never a resolution on its own.
  const who = [f.declared ? aId : undefined, g.declared ? bId : undefined].filter(Boolean).join(' and ');
  const note = ` (${who} only declared ${f.declared && g.declared ? 'they are' : 'it is'} about to change these lines)`;
  const declared = scoreEdits(aId, bId, f, g, options, lowConfidence);
  const asDeclared: FileResult = {
    ...declared,
    evidence: declared.evidence.map((e) => (/declared/.test(e.message) ? e : { ...e, message: e.message.replace(/\.$/, '') + note + '.' })),
    coarse: true,
  };
  // What the agents really changed in the file still counts at its own precision.
  const realF = realPart(f);
  const realG = realPart(g);
  const real = realF && realG ? scoreEdits(aId, bId, realF, realG, options, lowConfidence) : undefined;
  if (!real || real.risk === 0) return asDeclared;
  const precise = real.coarse ? (real.precise ?? 0) : real.risk;
  return { risk: Math.max(real.risk, asDeclared.risk), evidence: [...real.evidence, ...asDeclared.evidence], coarse: true, precise };
}

/** The part of an edit git can see, without what was declared on top of it; undefined if it is all declared. */
function realPart(f: FileEdit): FileEdit | undefined {
  if (!f.declared) return f;
  const { declared: _, ...rest } = f;
  if (f.hunks && f.hunks.length > 0) return { ...rest, baseRanges: f.hunks.map((h) => h.base), newRanges: f.hunks.map((h) => h.current) };
  // A modified file with neither hunks nor a blob of its own is nothing but the declaration.
  if (f.status === 'modified' && !f.binary && f.newBlob === undefined) return undefined;
  return rest;
}

/** What every step of scoring one file of a pair needs. */
interface EditPair {
  readonly aId: string;
  readonly bId: string;
  readonly f: FileEdit;
  readonly g: FileEdit;
  readonly options: OverlapOptions;
  /** w_a · w_b. */
  readonly w: number;
  /** The file in words; a renamed file by both names, old → new. */
  readonly where: string;
  readonly confidence: { readonly confidence?: 'low' };
}

/** A file in evidence: one path, or the base path and what one side renamed it to. */
function fileWords(aId: string, bId: string, f: FileEdit, g: FileEdit): string {
  if (f.path === g.path) return f.path;
  if (f.oldPath === g.path) return `${g.path} (${aId} renames it → ${f.path})`;
  if (g.oldPath === f.path) return `${f.path} (${bId} renames it → ${g.path})`;
  return `${f.path} / ${g.path}`;
}

function scoreEdits(aId: string, bId: string, f: FileEdit, g: FileEdit, options: OverlapOptions, lowConfidence: boolean): FileResult {
  const pair: EditPair = {
    aId,
    bId,
    f,
    g,
    options,
    w: editWeight(f) * editWeight(g),
    where: fileWords(aId, bId, f, g),
    confidence: lowConfidence ? { confidence: 'low' } : {},
  };
  return identicalFile(pair) ?? wholeFile(pair) ?? lineChanges(pair);
}

/** One evidence item about the pair's file as a whole. */
function fileEvidence(p: EditPair, kind: string, risk: number, message: string): Evidence {
  return { kind, risk, a: side(p.aId, p.f), b: side(p.bId, p.g), ...p.confidence, message };
}

/** Identical change (same new content, or both delete the file): git merges it cleanly. */
function identicalFile(p: EditPair): FileResult | undefined {
  const { f, g } = p;
  const bothDeleted = f.status === 'deleted' && g.status === 'deleted';
  if (!bothDeleted && !(f.newBlob !== undefined && f.newBlob === g.newBlob && f.path === g.path)) return undefined;
  const risk = p.w * p.options.identicalRisk;
  const what = bothDeleted ? 'both delete it' : `both changed it to the same content (blob ${f.newBlob!.slice(0, 10)})`;
  const message = `${p.aId} and ${p.bId} made the same change to ${p.where}: ${what}; git merges identical changes cleanly.`;
  return { risk, evidence: [fileEvidence(p, 'identical-change', risk, message)] };
}

/** Whole-file edits (added, deleted, binary, renamed apart, declared, no line information) overlap every change. */
function wholeFile(p: EditPair): FileResult | undefined {
  const { f, g, aId, bId } = p;
  /** `certain`: git will report this conflict (add/add, modify/delete, binary, rename/rename). */
  const whole = (text: string, certain: boolean): FileResult => {
    const risk = certain ? Math.max(p.w, p.options.conflictFloor) : p.w;
    const tail = certain ? '; git would report a conflict' : '; file-level evidence only';
    const evidence = [fileEvidence(p, 'whole-file', risk, `${aId} and ${bId} both change ${p.where}: ${text}${tail}.`)];
    return { risk, evidence, ...(certain ? {} : { coarse: true }) };
  };
  if (f.status === 'added' && g.status === 'added' && f.path === g.path) return whole('both add it with different content', true);
  if (f.oldPath !== undefined && g.oldPath !== undefined && f.oldPath === g.oldPath && f.path !== g.path) {
    return whole(`both rename ${f.oldPath}, to different paths (${f.path} and ${g.path})`, true);
  }
  const wf = f.baseRanges === 'whole' || f.binary || f.status === 'deleted' ? (whyWhole(f) ?? 'changes the whole file') : undefined;
  const wg = g.baseRanges === 'whole' || g.binary || g.status === 'deleted' ? (whyWhole(g) ?? 'changes the whole file') : undefined;
  if (f.declared && g.declared && f.baseRanges === 'whole' && g.baseRanges === 'whole') {
    const message = `${aId} and ${bId} both declared they are about to touch ${p.where}; file-level evidence only.`;
    return { risk: p.w, coarse: true, evidence: [fileEvidence(p, 'whole-file', p.w, message)] };
  }
  if (wf === undefined && wg === undefined) return undefined;
  const text = [wf !== undefined ? `${aId} ${wf}` : undefined, wg !== undefined ? `${bId} ${wg}` : undefined].filter(Boolean).join(', ');
  const certain =
    f.status === 'deleted' || g.status === 'deleted' || !!f.binary || !!g.binary || f.status === 'added' || g.status === 'added';
  return whole(`${text}; a whole-file change overlaps every change`, certain);
}

/** Line changes: git conflicts first; else how close the changes are, and the hunks made identically. */
function lineChanges(p: EditPair): FileResult {
  const compatible = compatibleHunks(p.f, p.g);
  const A = comparableRanges(p.f, compatible);
  const B = comparableRanges(p.g, compatible);
  const pairs = conflicts(A, B);
  if (pairs.length > 0) return conflictResult(p, pairs, Math.max(p.w * overlapCoefficient(A, B), p.options.conflictFloor));
  return nearbyResult(p, A, B, compatible);
}

/**
 * Pairs of changes git would report as conflicts, `risk` being w · lineOverlap but never below the
 * floor: a conflict git will report is not made harmless by the age of the edits. Neighbouring
 * pairs of one kind share one evidence line (a run: docs/channels.md, "Grouped evidence").
 */
function conflictResult(p: EditPair, pairs: readonly RangeConflict[], risk: number): FileResult {
  const order = { overlap: 0, 'same-insertion-point': 1, touching: 2 } as const;
  const ranked = pairs.map((c) => ({ ...c, kind: conflictKind(c.a, c.b) })).sort((x, y) => order[x.kind] - order[y.kind]);
  const runs = groupRuns(
    ranked,
    (c) => c.kind,
    (c) => [c.a, c.b],
    sharesOrWithinGap,
  );
  const shown = runs.slice(0, Math.max(1, p.options.maxEvidencePerFile));
  const evidence = shown.map((run): Evidence => {
    const [as, bs] = [run.map((c) => c.a), run.map((c) => c.b)];
    return {
      kind: run[0]!.kind,
      risk,
      a: side(p.aId, p.f, run.length === 1 ? as[0] : spanOf(as)),
      b: side(p.bId, p.g, run.length === 1 ? bs[0] : spanOf(bs)),
      ...p.confidence,
      message: `${p.aId} (${describeRanges(as)}) and ${p.bId} (${describeRanges(bs)}) change ${KIND_TEXT[run[0]!.kind]} of ${p.where} in the merge base; git would report a conflict.`,
    };
  });
  const more = runs.slice(shown.length).reduce((n, run) => n + run.length, 0);
  if (more > 0) {
    const last = evidence[evidence.length - 1]!;
    evidence[evidence.length - 1] = { ...last, message: `${last.message} (${more} more conflicting pairs in this file)` };
  }
  return { risk, evidence };
}

/** No conflict: a proximity risk for close changes, and a note on hunks both sides made identically. */
function nearbyResult(p: EditPair, A: readonly Range[], B: readonly Range[], compatible: ReadonlySet<string>): FileResult {
  const { aId, bId, options } = p;
  const evidence: Evidence[] = [];
  let risk = 0;
  const near = options.proximityRisk > 0 ? nearestPair(A, B) : undefined;
  if (near && near.distance <= options.proximityMaxLines) {
    risk = p.w * options.proximityRisk * Math.pow(0.5, (near.distance - 1) / Math.max(1e-9, options.proximityHalfLifeLines));
    evidence.push({
      kind: 'nearby',
      risk,
      a: side(aId, p.f, near.a),
      b: side(bId, p.g, near.b),
      ...p.confidence,
      message: `${aId} (${describeRange(near.a)}) and ${bId} (${describeRange(near.b)}) change ${p.where} ${near.distance} unchanged line${near.distance === 1 ? '' : 's'} apart; git merges this cleanly, but the changes are close.`,
    });
  }
  if (compatible.size > 0) {
    const [first] = compatible;
    const [s, e] = first!.split(':').map(Number) as [number, number];
    const shown: Range = [s, e];
    evidence.push({
      kind: 'compatible-change',
      risk: 0,
      a: side(aId, p.f, shown),
      b: side(bId, p.g, shown),
      ...p.confidence,
      message: `${aId} and ${bId} made the same change to ${describeRange(shown)} of ${p.where}${compatible.size > 1 ? ` (and ${compatible.size - 1} more identical hunks)` : ''}; git merges identical hunks cleanly.`,
    });
  }
  return { risk, evidence };
}

/** Look-ahead: paths one agent declared it will touch that the other changes or declared too. */
export function scoreIntent(
  a: Agent,
  b: Agent,
  indexA: ReadonlyMap<string, readonly FileEdit[]>,
  indexB: ReadonlyMap<string, readonly FileEdit[]>,
  options: OverlapOptions,
): FileResult {
  const evidence: Evidence[] = [];
  let risk = 0;
  if (options.intentRisk <= 0 || ((!a.intent || a.intent.length === 0) && (!b.intent || b.intent.length === 0))) return { risk, evidence };
  const seen = new Set<string>();
  const look = (
    me: Agent,
    other: Agent,
    otherIndex: ReadonlyMap<string, readonly FileEdit[]>,
    myIndex: ReadonlyMap<string, readonly FileEdit[]>,
    mine: 'a' | 'b',
  ): void => {
    for (const path of me.intent ?? []) {
      if (seen.has(path) || myIndex.has(path)) continue; // an actual edit of the path is scored as such
      const edits = otherIndex.get(path);
      const declared = other.intent?.includes(path) ?? false;
      if (!edits && !declared) continue;
      seen.add(path);
      const w = edits ? Math.max(...edits.map((e) => editWeight(e))) : 1;
      const r = w * options.intentRisk;
      risk = Math.max(risk, r);
      const what = edits ? `which ${other.id} is changing` : `which ${other.id} also declared`;
      const meSide: EvidenceSide = { agent: me.id, path };
      const otherSide: EvidenceSide = edits ? side(other.id, edits[0]!) : { agent: other.id, path };
      evidence.push({
        kind: 'intent',
        risk: r,
        ...(mine === 'a' ? { a: meSide, b: otherSide } : { a: otherSide, b: meSide }),
        message: `${me.id} declared it is about to touch ${path}, ${what}.`,
      });
    }
  };
  look(a, b, indexB, indexA, 'a');
  look(b, a, indexA, indexB, 'b');
  return { risk, evidence, coarse: true };
}

function toPaired(value: unknown): PairedEdits | undefined {
  if (Array.isArray(value) && value.length === 2) return { a: value[0] as FileEdit, b: value[1] as FileEdit };
  if (typeof value === 'object' && value !== null && 'a' in value && 'b' in value) return value as PairedEdits;
  return undefined;
}

/**
 * The strongest file, and the strongest file resting on line evidence (`preciseRisk`, when lower).
 * `fallback`: one agent is incomplete (e.g. no merge base), so its whole-file edits are stand-ins
 * for lines nobody could read and even the "certain" whole-file conflicts are file-level.
 */
function combine(
  results: FileResult[],
  problems: Problem[],
  fallback = false,
): { risk: number; preciseRisk?: number; evidence: Evidence[]; problems?: Problem[] } {
  let risk = 0;
  let precise = 0;
  const evidence: Evidence[] = [];
  for (const r of results) {
    risk = Math.max(risk, r.risk);
    const coarse = r.coarse || (fallback && r.evidence.some((e) => e.kind === 'whole-file'));
    precise = Math.max(precise, coarse ? (r.precise ?? 0) : r.risk);
    evidence.push(...r.evidence);
  }
  evidence.sort((x, y) => (y.risk ?? 0) - (x.risk ?? 0));
  return {
    risk,
    ...(precise < risk ? { preciseRisk: precise } : {}),
    evidence: evidence.slice(0, 25),
    ...(problems.length > 0 ? { problems } : {}),
  };
}

const isIncomplete = (agent: Agent): boolean => (agent.incomplete?.length ?? 0) > 0;

export function overlapChannel() {
  return defineChannel({
    id: 'overlap',
    defaultWeight: 1.0,
    meta: {
      description:
        'Edits of one file that overlap, touch or insert at the same point in merge-base coordinates (what git reports as a conflict), identical changes excepted.',
      precision: 'line',
    },
    defaultOptions: DEFAULT_OVERLAP_OPTIONS,
    optionsSchema: OVERLAP_OPTIONS_SCHEMA,
    prepare(agents): Prepared {
      return new Map(agents.map((agent) => [agent.id, indexFiles(agent)]));
    },
    candidates(agents, ctx, only) {
      // Only agents that share a path (current or base) or a declared path can overlap: an
      // inverted index path → agents names those pairs, so pairs sharing nothing cost nothing.
      const keysOf = (agent: Agent): Set<string> =>
        new Set([...(ctx.prepared?.get(agent.id) ?? indexFiles(agent)).keys(), ...(agent.intent ?? [])]);
      return pairsSharingKeys(agents, keysOf, only);
    },
    score(a, b, ctx) {
      const opts = ctx.options;
      const indexB = ctx.prepared?.get(b.id) ?? indexFiles(b);
      const shared = sharedFiles(a, indexB);
      const intent = a.intent || b.intent ? scoreIntent(a, b, ctx.prepared?.get(a.id) ?? indexFiles(a), indexB, opts) : undefined;
      if (shared.length === 0) return intent ? combine([intent], []) : { risk: 0, evidence: [] };
      const problems: Problem[] = [];
      const differentBases = a.base !== undefined && b.base !== undefined && a.base !== b.base;
      // The git service is optional here: without it each agent's own base coordinates are used.
      const git = ctx.services.git;
      if (differentBases && git) {
        return (async () => {
          const results: FileResult[] = [];
          for (const [f, g] of shared) {
            let paired: PairedEdits | undefined;
            try {
              paired = toPaired(await git.pairEdits(a, b, f.path));
            } catch (error) {
              problems.push({
                code: 'PAIR_EDITS_FAILED',
                channel: 'overlap',
                path: f.path,
                message: `Re-basing ${f.path} for ${a.id} × ${b.id} failed: ${error instanceof Error ? error.message : String(error)}; compared in each agent's own base.`,
              });
            }
            results.push(paired ? scoreFile(a.id, b.id, paired.a, paired.b, opts) : scoreFile(a.id, b.id, f, g, opts, true));
          }
          if (intent) results.push(intent);
          return combine(results, problems, isIncomplete(a) || isIncomplete(b));
        })();
      }
      const results = shared.map(([f, g]) => scoreFile(a.id, b.id, f, g, opts, differentBases));
      if (intent) results.push(intent);
      return combine(results, problems, isIncomplete(a) || isIncomplete(b));
    },
  });
}

export default overlapChannel();
