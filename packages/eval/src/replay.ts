/**
 * extract → score → cache, one merge at a time: memory holds the merge list and the small scored
 * records, never more than one scenario's working sets.
 */
import { extractScenario, type IntentMode, type Scenario, type ScenarioLabels, type Skipped, type SkipReason } from './extract/scenario.js';
import { completeLabels } from './extract/history.js';
import { listMerges, type ListMergesOptions, type MergeCommit } from './extract/merges.js';
import { cacheKey, type ScenarioCache, type ScoredScenario } from './score/cache.js';
import type { ScenarioScorer } from './score/scorer.js';
import type { SemanticLabeller } from './score/semantic.js';
import type { SemanticCheck } from './extract/scenario.js';
import type { ScratchStore } from '@airspace/git';
import { sharedChangedFiles, type RecencyOptions } from '@airspace/core';

export interface ReplayProgress {
  readonly done: number;
  readonly total: number;
  readonly fromCache: number;
  readonly skipped: number;
  readonly merge: string;
}

export interface ReplayOptions extends ListMergesOptions {
  readonly repo: string;
  readonly scorer: ScenarioScorer;
  readonly scratch: ScratchStore;
  /** Observed fractions to replay; 1 is always included (the full diffs). */
  readonly early?: readonly number[];
  readonly cache?: ScenarioCache;
  readonly maxFiles?: number;
  readonly recency?: RecencyOptions;
  readonly repository?: string;
  readonly onProgress?: (progress: ReplayProgress) => void;
  /** Merges replayed at once (default 3). */
  readonly concurrency?: number;
  /** Also replay every early fraction with each side declaring its eventual files or directories. */
  readonly intent?: IntentMode;
  /** Check every observation's merge for a semantic break (`SemanticCheck`), kept on the records. */
  readonly semantic?: SemanticLabeller;
}

export const DEFAULT_CONCURRENCY = 3;

export interface ReplayResult {
  readonly merges: number;
  /** Scored scenarios per observed fraction (key: the fraction). */
  readonly scored: ReadonlyMap<number, ScoredScenario[]>;
  /** With `intent`: the early fractions' scenarios with declared intent, same merges as `scored`. */
  readonly declared: ReadonlyMap<number, ScoredScenario[]>;
  readonly skipped: readonly Skipped[];
  readonly skippedByReason: Readonly<Partial<Record<SkipReason, number>>>;
  readonly fromCache: number;
  /** Scenarios (of the full diffs) on which each problem code was met, e.g. a missing service. */
  readonly problemCounts: Readonly<Record<string, number>>;
}

export function toScored(
  s: Scenario,
  risks: Readonly<Record<string, number>>,
  problems: readonly string[],
  preciseRisks?: Readonly<Record<string, number>>,
  recentConflicts?: number | null,
): ScoredScenario {
  const [a, b] = s.agents;
  const shared = sharedChangedFiles(a, b).length;
  return {
    merge: s.merge,
    parents: s.parents,
    base: s.base,
    committedAt: s.committedAt,
    early: s.early,
    ...(s.intent ? { intent: s.intent } : {}),
    observedAt: s.now,
    observed: [s.sides[0].observed, s.sides[1].observed],
    chainLength: [s.sides[0].chainLength, s.sides[1].chainLength],
    files: [a.files.length, b.files.length],
    sharedFiles: shared,
    labels: s.labels,
    risks,
    ...(preciseRisks ? { preciseRisks } : {}),
    ...(problems.length ? { problems } : {}),
    ...(recentConflicts !== undefined ? { recentConflicts } : {}),
  };
}

/** One merge at every fraction; a merge skipped at one fraction is left out of all of them. */
interface Processed {
  readonly scored: Map<number, ScoredScenario>;
  readonly declared: Map<number, ScoredScenario>;
  readonly skipped?: Skipped;
}

interface Observation {
  readonly fraction: number;
  readonly intent?: IntentMode;
}

/** What the steps of one replay share: its options, observations, and the cache-hit count. */
interface ReplayState {
  readonly options: ReplayOptions;
  readonly observations: readonly Observation[];
  fromCache: number;
}

/** Every observation of a merge: each fraction (descending, 1 first), then with `intent` each early one declared. */
function observationsOf(fractions: readonly number[], intent: IntentMode | undefined): Observation[] {
  return [
    ...fractions.map((fraction) => ({ fraction })),
    ...(intent ? fractions.filter((f) => f < 1).map((fraction) => ({ fraction, intent })) : []),
  ];
}

/** A merge at one observation, extracted and scored; or why it is skipped (cached as such). */
async function scoreObservation(
  state: ReplayState,
  m: MergeCommit,
  { fraction, intent }: Observation,
  labels: ScenarioLabels | undefined,
): Promise<{ record: ScoredScenario } | { skipped: Skipped }> {
  const { options } = state;
  const key = cacheKey(m.merge, fraction, intent);
  const extracted = await extractScenario(options.repo, m, {
    scratch: options.scratch,
    early: fraction,
    ...(intent ? { intent } : {}),
    ...(options.maxFiles !== undefined ? { maxFiles: options.maxFiles } : {}),
    ...(options.recency ? { recency: options.recency } : {}),
    ...(options.repository ? { repository: options.repository } : {}),
    ...(labels ? { labels } : {}),
  });
  if ('skipped' in extracted) {
    options.cache?.put({ key, skipped: extracted.skipped });
    return { skipped: extracted.skipped };
  }
  try {
    const score = await options.scorer.score(extracted.scenario);
    const record = toScored(extracted.scenario, score.risks, score.problems, score.preciseRisks, score.recentConflicts);
    return { record: options.semantic ? { ...record, semantic: await options.semantic.check(extracted.scenario) } : record };
  } catch (error) {
    const skipped: Skipped = {
      merge: m.merge,
      reason: 'failed',
      detail: `scoring failed: ${error instanceof Error ? error.message : String(error)}`,
    };
    options.cache?.put({ key, skipped });
    return { skipped };
  }
}

/** One merge at every observation: from the cache where it can, else extracted and scored. */
async function processMerge(state: ReplayState, m: MergeCommit): Promise<Processed> {
  const { options } = state;
  const scored = new Map<number, ScoredScenario>();
  const declared = new Map<number, ScoredScenario>();
  const fresh = new Set<ScoredScenario>();
  for (const observation of state.observations) {
    const { fraction, intent } = observation;
    const into = intent ? declared : scored;
    const cached = options.cache?.get(cacheKey(m.merge, fraction, intent));
    if (cached) {
      state.fromCache++;
      if ('skipped' in cached) return { scored, declared, skipped: cached.skipped };
      const record = await withSemantic(state, m, observation, cached.scored);
      into.set(fraction, record);
      if (record !== cached.scored) fresh.add(record);
      continue;
    }
    const labels = scored.get(1)?.labels ?? options.cache?.labelsOf(m.merge);
    const done = await scoreObservation(state, m, observation, labels);
    if ('skipped' in done) return { scored, declared, skipped: done.skipped };
    into.set(fraction, done.record);
    fresh.add(done.record);
  }
  if (options.semantic) stampFinalSemantic(fresh, scored, declared);
  // Fresh records are cached once complete (with the collided label's parts), in one go.
  await completeMerge(options, m, fresh, scored, declared);
  return { scored, declared };
}

/**
 * A check cut off by its time limit, or one that failed (a git or compiler process that died),
 * gave no verdict on the trees, only on that run: a later replay checks it again rather than
 * keeping it as not checked. Other reasons (no tsconfig, no merge base) are the trees' own.
 */
const transient = (check: SemanticCheck): boolean =>
  check.status === 'not-checked' && /^(?:time limit reached|the check failed)\b/.test(check.reason);

/**
 * A cached record without the labeller's verdict (or with a transient one) on its observed states: the scenario extracted
 * again (its labels known) and checked. One that cannot be extracted again is not checked, and says why.
 */
async function withSemantic(state: ReplayState, m: MergeCommit, { fraction, intent }: Observation, record: ScoredScenario) {
  const { options } = state;
  const labeller = options.semantic;
  if (!labeller || (record.semantic?.checker === labeller.version && !transient(record.semantic))) return record;
  const extracted = await extractScenario(options.repo, m, {
    scratch: options.scratch,
    early: fraction,
    ...(intent ? { intent } : {}),
    ...(options.maxFiles !== undefined ? { maxFiles: options.maxFiles } : {}),
    ...(options.recency ? { recency: options.recency } : {}),
    ...(options.repository ? { repository: options.repository } : {}),
    labels: record.labels,
  });
  const semantic =
    'skipped' in extracted
      ? {
          status: 'not-checked' as const,
          checker: labeller.version,
          reason: `the scenario could not be extracted again (${extracted.skipped.reason})`,
        }
      : await labeller.check(extracted.scenario);
  return { ...record, semantic };
}

/** The final parents' verdict (the full diffs') as every record's `labels.semantic`; records it changes are fresh. */
function stampFinalSemantic(fresh: Set<ScoredScenario>, ...maps: Map<number, ScoredScenario>[]): void {
  const final = maps[0]!.get(1)?.semantic;
  if (!final) return;
  for (const map of maps)
    for (const [fraction, record] of map) {
      const known = record.labels.semantic;
      if (known?.status === final.status && known.checker === final.checker) continue;
      const stamped = { ...record, labels: { ...record.labels, semantic: final } };
      fresh.delete(record);
      fresh.add(stamped);
      map.set(fraction, stamped);
    }
}

/** The "collided at any point" label's parts (side histories, observed conflicts), cached with the records. */
async function completeMerge(
  options: ReplayOptions,
  m: MergeCommit,
  fresh: ReadonlySet<ScoredScenario>,
  ...maps: Map<number, ScoredScenario>[]
): Promise<void> {
  const entries = maps.flatMap((map) => [...map.entries()].map(([fraction, record]) => ({ map, fraction, record })));
  let completed = entries.map((e) => e.record);
  try {
    completed = (await completeLabels(options.repo, options.scratch, completed)).records;
  } catch {
    // Without them the collided label reads the final merge only; nothing else depends on them.
  }
  completed.forEach((record, i) => {
    const { map, fraction, record: before } = entries[i]!;
    if (record === before && !fresh.has(before)) return;
    map.set(fraction, record);
    options.cache?.put({ key: cacheKey(m.merge, fraction, record.intent), scored: record });
  });
}

/** Every merge processed, a few at a time (git calls are short and mostly wait, so overlapping them pays), in order. */
async function processAll(state: ReplayState, merges: readonly MergeCommit[]): Promise<Processed[]> {
  const results = new Array<Processed>(merges.length);
  let next = 0;
  let done = 0;
  let skippedSoFar = 0;
  const worker = async () => {
    while (next < merges.length) {
      const i = next++;
      const m = merges[i]!;
      results[i] = await processMerge(state, m);
      done++;
      if (results[i]!.skipped) skippedSoFar++;
      state.options.onProgress?.({ done, total: merges.length, fromCache: state.fromCache, skipped: skippedSoFar, merge: m.merge });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, state.options.concurrency ?? DEFAULT_CONCURRENCY) }, worker));
  return results;
}

/** The processed merges as the replay's result: records per fraction, skips by reason, problem counts. */
function collect(
  results: readonly Processed[],
  fractions: readonly number[],
  intent: IntentMode | undefined,
): Omit<ReplayResult, 'merges' | 'fromCache'> {
  const scored = new Map<number, ScoredScenario[]>(fractions.map((f) => [f, []]));
  const declared = new Map<number, ScoredScenario[]>(intent ? fractions.filter((f) => f < 1).map((f) => [f, []]) : []);
  const skipped: Skipped[] = [];
  const skippedByReason: Partial<Record<SkipReason, number>> = {};
  for (const r of results) {
    if (r.skipped) {
      skipped.push(r.skipped);
      skippedByReason[r.skipped.reason] = (skippedByReason[r.skipped.reason] ?? 0) + 1;
      continue;
    }
    for (const [fraction, record] of r.scored) scored.get(fraction)!.push(record);
    for (const [fraction, record] of r.declared) declared.get(fraction)?.push(record);
  }
  const problemCounts: Record<string, number> = {};
  for (const s of scored.get(1)!) for (const code of s.problems ?? []) problemCounts[code] = (problemCounts[code] ?? 0) + 1;
  return { scored, declared, skipped, skippedByReason, problemCounts };
}

export async function replay(options: ReplayOptions): Promise<ReplayResult> {
  const fractions = [...new Set([1, ...(options.early ?? [])])].sort((x, y) => y - x);
  const merges: MergeCommit[] = await listMerges(options.repo, options);
  const state: ReplayState = { options, observations: observationsOf(fractions, options.intent), fromCache: 0 };
  const results = await processAll(state, merges);
  return { merges: merges.length, ...collect(results, fractions, options.intent), fromCache: state.fromCache };
}
