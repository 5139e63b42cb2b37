/**
 * extract → score → cache, one merge at a time: memory holds the merge list and the small scored
 * records, never more than one scenario's working sets.
 */
import { extractScenario, type Scenario, type Skipped, type SkipReason } from './extract/scenario.js';
import { listMerges, type ListMergesOptions, type MergeCommit } from './extract/merges.js';
import { cacheKey, type ScenarioCache, type ScoredScenario } from './score/cache.js';
import type { ScenarioScorer } from './score/scorer.js';
import type { ScratchStore } from '@airspace/git';
import type { RecencyOptions } from '@airspace/core';

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
}

export const DEFAULT_CONCURRENCY = 3;

export interface ReplayResult {
  readonly merges: number;
  /** Scored scenarios per observed fraction (key: the fraction). */
  readonly scored: ReadonlyMap<number, ScoredScenario[]>;
  readonly skipped: readonly Skipped[];
  readonly skippedByReason: Readonly<Partial<Record<SkipReason, number>>>;
  readonly fromCache: number;
  /** Scenarios (of the full diffs) on which each problem code was met, e.g. a missing service. */
  readonly problemCounts: Readonly<Record<string, number>>;
}

export function toScored(s: Scenario, risks: Readonly<Record<string, number>>, problems: readonly string[], preciseRisks?: Readonly<Record<string, number>>): ScoredScenario {
  const [a, b] = s.agents;
  const paths = new Set(a.files.flatMap((f) => [f.path, ...(f.oldPath ? [f.oldPath] : [])]));
  const shared = b.files.filter((f) => paths.has(f.path) || (f.oldPath !== undefined && paths.has(f.oldPath))).length;
  return {
    merge: s.merge,
    parents: s.parents,
    base: s.base,
    committedAt: s.committedAt,
    early: s.early,
    observedAt: s.now,
    observed: [s.sides[0].observed, s.sides[1].observed],
    chainLength: [s.sides[0].chainLength, s.sides[1].chainLength],
    files: [a.files.length, b.files.length],
    sharedFiles: shared,
    labels: s.labels,
    risks,
    ...(preciseRisks ? { preciseRisks } : {}),
    ...(problems.length ? { problems } : {}),
  };
}

export async function replay(options: ReplayOptions): Promise<ReplayResult> {
  const fractions = [...new Set([1, ...(options.early ?? [])])].sort((x, y) => y - x);
  const merges: MergeCommit[] = await listMerges(options.repo, options);
  let fromCache = 0;
  let done = 0;
  let skippedSoFar = 0;

  /** One merge at every fraction; a merge skipped at one fraction is left out of all of them. */
  const processMerge = async (m: MergeCommit): Promise<{ scored: Map<number, ScoredScenario>; skipped?: Skipped }> => {
    const scored = new Map<number, ScoredScenario>();
    for (const fraction of fractions) {
      const key = cacheKey(m.merge, fraction);
      const cached = options.cache?.get(key);
      if (cached) {
        fromCache++;
        if ('skipped' in cached) return { scored, skipped: cached.skipped };
        scored.set(fraction, cached.scored);
        continue;
      }
      const labels = scored.get(1)?.labels ?? options.cache?.labelsOf(m.merge);
      const extracted = await extractScenario(options.repo, m, {
        scratch: options.scratch,
        early: fraction,
        ...(options.maxFiles !== undefined ? { maxFiles: options.maxFiles } : {}),
        ...(options.recency ? { recency: options.recency } : {}),
        ...(options.repository ? { repository: options.repository } : {}),
        ...(labels ? { labels } : {}),
      });
      if ('skipped' in extracted) {
        options.cache?.put({ key, skipped: extracted.skipped });
        return { scored, skipped: extracted.skipped };
      }
      let record: ScoredScenario;
      try {
        const score = await options.scorer.score(extracted.scenario);
        record = toScored(extracted.scenario, score.risks, score.problems, score.preciseRisks);
      } catch (error) {
        const skipped: Skipped = { merge: m.merge, reason: 'failed', detail: `scoring failed: ${error instanceof Error ? error.message : String(error)}` };
        options.cache?.put({ key, skipped });
        return { scored, skipped };
      }
      scored.set(fraction, record);
      options.cache?.put({ key, scored: record });
    }
    return { scored };
  };

  // A few merges at a time: git calls are short and mostly wait, so overlapping them pays.
  const results = new Array<{ scored: Map<number, ScoredScenario>; skipped?: Skipped }>(merges.length);
  let next = 0;
  const worker = async () => {
    while (next < merges.length) {
      const i = next++;
      const m = merges[i]!;
      results[i] = await processMerge(m);
      done++;
      if (results[i]!.skipped) skippedSoFar++;
      options.onProgress?.({ done, total: merges.length, fromCache, skipped: skippedSoFar, merge: m.merge });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY) }, worker));

  const scored = new Map<number, ScoredScenario[]>(fractions.map((f) => [f, []]));
  const skipped: Skipped[] = [];
  const skippedByReason: Partial<Record<SkipReason, number>> = {};
  for (const r of results) {
    if (r.skipped) {
      skipped.push(r.skipped);
      skippedByReason[r.skipped.reason] = (skippedByReason[r.skipped.reason] ?? 0) + 1;
      continue;
    }
    for (const [fraction, record] of r.scored) scored.get(fraction)!.push(record);
  }
  const problemCounts: Record<string, number> = {};
  for (const s of scored.get(1)!) for (const code of s.problems ?? []) problemCounts[code] = (problemCounts[code] ?? 0) + 1;
  return { merges: merges.length, scored, skipped, skippedByReason, fromCache, problemCounts };
}
