/**
 * Scored scenarios as JSON lines, one file per channel-set version: re-weighting, fitting and
 * re-reporting read this file and analyse nothing. Keyed by merge commit and observed fraction.
 * Appends only; a torn or malformed line (a run killed mid-write) is skipped, never fatal.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IntentMode, ScenarioLabels, SemanticCheck, Skipped } from '../extract/scenario.js';

/** What a replay keeps of a scenario: small, so thousands fit in memory. */
export interface ScoredScenario {
  readonly merge: string;
  readonly parents: readonly [string, string];
  /** The agents' base (part-way: the observed commits' merge base). */
  readonly base: string;
  readonly committedAt: number;
  readonly early: number;
  /** The moment of observation (ms): the later of the two observed commits. */
  readonly observedAt: number;
  /** Commits observed and first-parent commits in all, per side. */
  readonly observed: readonly [number, number];
  readonly chainLength: readonly [number, number];
  /** Files changed per side, and paths changed on both. */
  readonly files: readonly [number, number];
  readonly sharedFiles: number;
  readonly labels: ScenarioLabels;
  /** git's merge of the observed states conflicts (the merge channel's question, asked for the label). */
  readonly observedConflict?: boolean;
  /** The typecheck channel's verdict on the observed states' merge (with a semantic label). */
  readonly semantic?: SemanticCheck;
  /** Each side declared its eventual files or directories at the observation (`--intent`). */
  readonly intent?: IntentMode;
  /** r_i per channel id. */
  readonly risks: Readonly<Record<string, number>>;
  /** Channels whose risk rests partly on whole-file evidence: the part at their precision (`preciseRisk`). */
  readonly preciseRisks?: Readonly<Record<string, number>>;
  readonly problems?: readonly string[];
  /**
   * The pair's recent conflict rate (`recentConflictsOf`: the share of the newest past merges
   * that conflicted, as of each side's observed commit, averaged); null when no side had a view
   * of past merges; absent when the channel set has no past-conflicts service.
   */
  readonly recentConflicts?: number | null;
}

export type CacheRecord = { readonly key: string; readonly scored: ScoredScenario } | { readonly key: string; readonly skipped: Skipped };

/** 3: records carry `recentConflicts` (scored again once, rather than left without it). */
export const CACHE_FORMAT = 3;

/**
 * `merge@fraction`, `+files`/`+dirs` with declared intent. Part-way records carry `/own-base-2`:
 * they are diffed from the observed commits' own merge base (the closest of several, since
 * `/own-base-2`), so records cached before (from the final merge base, or from it where the
 * observed commits had several) are not reused.
 */
export function cacheKey(merge: string, early: number, intent?: IntentMode): string {
  return `${merge}@${early}${early < 1 ? '/own-base-2' : ''}${intent ? `+${intent}` : ''}`;
}

export class ScenarioCache {
  readonly file: string;
  private readonly records = new Map<string, CacheRecord>();
  /** Lines that could not be read. */
  readonly damaged: number;

  constructor(dir: string, channelSetVersion: string) {
    this.file = join(dir, `scenarios-v${CACHE_FORMAT}-${channelSetVersion}.jsonl`);
    let damaged = 0;
    if (existsSync(this.file)) {
      for (const line of readFileSync(this.file, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        try {
          const record = JSON.parse(line) as CacheRecord;
          if (typeof record?.key !== 'string' || !('scored' in record || 'skipped' in record)) throw new Error('not a record');
          this.records.set(record.key, record);
        } catch {
          damaged++;
        }
      }
    }
    this.damaged = damaged;
  }

  get size(): number {
    return this.records.size;
  }

  get(key: string): CacheRecord | undefined {
    return this.records.get(key);
  }

  /** Labels of a merge, from any observed fraction already cached. */
  labelsOf(merge: string): ScenarioLabels | undefined {
    const full = this.records.get(cacheKey(merge, 1));
    if (full && 'scored' in full) return full.scored.labels;
    return undefined;
  }

  put(record: CacheRecord): void {
    this.records.set(record.key, record);
    mkdirSync(join(this.file, '..'), { recursive: true });
    appendFileSync(this.file, JSON.stringify(record) + '\n');
  }
}
