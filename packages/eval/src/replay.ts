/**
 * extract → score → cache, one merge at a time: memory holds the merge list and the small scored
 * records, never more than one scenario's working sets.
 */
import { extractScenario, type Scenario, type Skipped, type SkipReason } from './extract/scenario.js';
import { listMerges, type ListMergesOptions, type MergeCommit } from './extract/merges.js';
import { cacheKey, type ScenarioCache, type ScoredScenario } from './score/cache.js';
import type { ScenarioScorer } from './score/scorer.js';
import type { ScratchStore } from '@airspace/git';

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
  readonly repository?: string;
  readonly onProgress?: (progress: ReplayProgress) => void;
}

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

export function toScored(s: Scenario, risks: Readonly<Record<string, number>>, problems: readonly string[]): ScoredScenario {
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
    ...(problems.length ? { problems } : {}),
  };
}

export async function replay(options: ReplayOptions): Promise<ReplayResult> {
  const fractions = [...new Set([1, ...(options.early ?? [])])].sort((x, y) => y - x);
  const merges: MergeCommit[] = await listMerges(options.repo, options);
  const scored = new Map<number, ScoredScenario[]>(fractions.map((f) => [f, []]));
  const skipped: Skipped[] = [];
  const skippedByReason: Partial<Record<SkipReason, number>> = {};
  let fromCache = 0;
  let done = 0;
  for (const m of merges) {
    let mergeSkipped: Skipped | undefined;
    for (const fraction of fractions) {
      if (mergeSkipped) break;
      const key = cacheKey(m.merge, fraction);
      const cached = options.cache?.get(key);
      if (cached) {
        fromCache++;
        if ('skipped' in cached) mergeSkipped = cached.skipped;
        else scored.get(fraction)!.push(cached.scored);
        continue;
      }
      const labels = options.cache?.labelsOf(m.merge) ?? scored.get(1)!.find((s) => s.merge === m.merge)?.labels;
      const extracted = await extractScenario(options.repo, m, {
        scratch: options.scratch,
        early: fraction,
        ...(options.maxFiles !== undefined ? { maxFiles: options.maxFiles } : {}),
        ...(options.repository ? { repository: options.repository } : {}),
        ...(labels ? { labels } : {}),
      });
      if ('skipped' in extracted) {
        mergeSkipped = extracted.skipped;
        options.cache?.put({ key, skipped: extracted.skipped });
        continue;
      }
      let record: ScoredScenario;
      try {
        const score = await options.scorer.score(extracted.scenario);
        record = toScored(extracted.scenario, score.risks, score.problems);
      } catch (error) {
        mergeSkipped = { merge: m.merge, reason: 'failed', detail: `scoring failed: ${error instanceof Error ? error.message : String(error)}` };
        options.cache?.put({ key, skipped: mergeSkipped });
        continue;
      }
      scored.get(fraction)!.push(record);
      options.cache?.put({ key, scored: record });
    }
    if (mergeSkipped) {
      skipped.push(mergeSkipped);
      skippedByReason[mergeSkipped.reason] = (skippedByReason[mergeSkipped.reason] ?? 0) + 1;
      // A merge skipped at one fraction is left out of every fraction, so they compare the same merges.
      for (const list of scored.values()) if (list.length && list[list.length - 1]!.merge === m.merge) list.pop();
    }
    done++;
    options.onProgress?.({ done, total: merges.length, fromCache, skipped: skipped.length, merge: m.merge });
  }
  const problemCounts: Record<string, number> = {};
  for (const s of scored.get(1)!) for (const code of s.problems ?? []) problemCounts[code] = (problemCounts[code] ?? 0) + 1;
  return { merges: merges.length, scored, skipped, skippedByReason, fromCache, problemCounts };
}
