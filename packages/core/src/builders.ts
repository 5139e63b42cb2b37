/**
 * Tiny builders for agents and file edits, for tests, benchmarks and in-memory demos.
 *
 *   agent({ id: 'alice', files: [edit('src/a.ts', [[10, 20]])] })
 *   agent('bob', [edit('src/a.ts', [[15, 15]], { contentId: 'x' })], { committedWork: 3 })
 */
import type { Agent, FileEdit, FileStatus, Hunk, Range, Ranges } from './model.js';

export interface EditOptions {
  readonly status?: FileStatus;
  readonly weight?: number;
  readonly oldPath?: string;
  /** Default: the base ranges (no line shift), or 'whole'. */
  readonly newRanges?: Ranges;
  /** Default: one hunk per base range with `current` = the same range (or the given newRanges). */
  readonly hunks?: readonly Hunk[];
  /** Content id given to every generated hunk (equal ids on two sides = the same change). */
  readonly contentId?: string;
  readonly baseBlob?: string;
  readonly newBlob?: string;
  readonly binary?: boolean;
  readonly lastEditedAt?: number;
}

/** A file edit; `baseRanges` default `'whole'`. */
export function edit(path: string, baseRanges: Ranges = 'whole', options: EditOptions = {}): FileEdit {
  const newRanges = options.newRanges ?? baseRanges;
  let hunks = options.hunks;
  if (!hunks && baseRanges !== 'whole') {
    const current: readonly Range[] | undefined = newRanges !== 'whole' && newRanges.length === baseRanges.length ? newRanges : undefined;
    hunks = baseRanges.map((base, i) => ({
      base,
      current: current?.[i] ?? base,
      ...(options.contentId !== undefined ? { contentId: options.contentId } : {}),
    }));
  }
  const status = options.status ?? 'modified';
  return {
    path,
    status,
    weight: options.weight ?? 1,
    baseRanges,
    newRanges,
    ...(hunks ? { hunks } : {}),
    ...(options.oldPath !== undefined ? { oldPath: options.oldPath } : {}),
    ...(options.baseBlob !== undefined ? { baseBlob: options.baseBlob } : {}),
    ...(options.newBlob !== undefined ? { newBlob: options.newBlob } : {}),
    ...(options.binary !== undefined ? { binary: options.binary } : {}),
    ...(options.lastEditedAt !== undefined ? { lastEditedAt: options.lastEditedAt } : {}),
  };
}

export type AgentInit = Partial<Agent> & { readonly id: string };

/** An agent; `label` defaults to the id, `startedAt` and `committedWork` to 0. */
export function agent(init: AgentInit | string, files?: readonly FileEdit[], extra: Partial<Agent> = {}): Agent {
  const base: AgentInit = typeof init === 'string' ? { id: init } : init;
  return {
    label: base.id,
    startedAt: 0,
    committedWork: 0,
    files: [],
    ...base,
    ...(files ? { files } : {}),
    ...extra,
  };
}

/**
 * A seeded pseudo-random generator (mulberry32) in [0, 1), so generated test data and
 * benchmark repositories are the same on every run.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
