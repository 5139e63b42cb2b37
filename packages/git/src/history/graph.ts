/**
 * The mined history in memory: commits (id, time, parents, files as path numbers) and, per path,
 * the commits that changed it. A view "as of commit C" walks C's ancestors newest first by commit
 * time (git's own walk: a priority queue by date) until `window` commits are taken; co-change
 * counts are then read on demand for the paths asked about (the commits of one path, filtered by
 * the view), so a view costs one walk of `window` commits and nothing is aggregated ahead: a
 * window sliding forward drops the old commits' contributions by construction.
 */
import type { CoChangePartner, CoChangeView, CoChangeViewOptions } from '@airspace/core';
import type { MinedCommit } from './mine.js';

/** Commits with more files than this keep only their file count (never useful for coupling). */
export const STORED_FILES_LIMIT = 1000;

export class HistoryGraph {
  readonly ids: string[] = [];
  private readonly byId = new Map<string, number>();
  readonly times: number[] = [];
  readonly parents: (readonly string[])[] = [];
  /** Per commit, its paths' numbers (empty for a merge or a commit over STORED_FILES_LIMIT). */
  readonly files: Int32Array[] = [];
  /** Per commit, how many files it changed. */
  readonly sizes: number[] = [];
  readonly paths: string[] = [];
  private readonly pathIds = new Map<string, number>();
  /** Per path number, the commits that changed it (indices, in insertion order). */
  private readonly postings: number[][] = [];

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  indexOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  pathId(path: string): number {
    let id = this.pathIds.get(path);
    if (id === undefined) {
      id = this.paths.length;
      this.paths.push(path);
      this.pathIds.set(path, id);
      this.postings.push([]);
    }
    return id;
  }

  /** Adds a commit once (a commit mined again is ignored); returns whether it was new. */
  add(commit: MinedCommit): boolean {
    const files = commit.files.length <= STORED_FILES_LIMIT ? [...new Set(commit.files.map((p) => this.pathId(p)))] : [];
    return this.addNumbered(commit.id, commit.time, commit.parents, commit.files.length, files);
  }

  /** Adds a commit by path numbers, which must be distinct (as `add` and the cache give them). */
  addNumbered(id: string, time: number, parents: readonly string[], size: number, files: readonly number[]): boolean {
    if (this.byId.has(id)) return false;
    const index = this.ids.length;
    this.ids.push(id);
    this.byId.set(id, index);
    this.times.push(time);
    this.parents.push(parents);
    this.sizes.push(size);
    const numbers = Int32Array.from(files);
    this.files.push(numbers);
    for (let i = 0; i < numbers.length; i++) this.postings[numbers[i]!]!.push(index);
    return true;
  }

  /** Commits (indices) that changed the path. */
  commitsOf(path: string): readonly number[] {
    const id = this.pathIds.get(path);
    return id === undefined ? [] : this.postings[id]!;
  }

  /**
   * The window of `asOf`: its `window` most recent ancestors by commit time, itself included.
   * `missing` says a parent not in the graph was met before the window was full (the window may
   * then lack commits older than what was mined).
   */
  walk(asOf: string, window: number): { members: Uint8Array; taken: number; missing: boolean } | undefined {
    const start = this.byId.get(asOf);
    if (start === undefined) return undefined;
    const members = new Uint8Array(this.ids.length);
    const heap = new CommitHeap(this.times);
    const seen = new Uint8Array(this.ids.length);
    seen[start] = 1;
    heap.push(start);
    let taken = 0;
    let missing = false;
    while (taken < window && heap.size > 0) {
      const c = heap.pop();
      members[c] = 1;
      taken++;
      for (const p of this.parents[c]!) {
        const pi = this.byId.get(p);
        if (pi === undefined) missing = true;
        else if (!seen[pi]) {
          seen[pi] = 1;
          heap.push(pi);
        }
      }
    }
    return { members, taken, missing };
  }

  view(asOf: string, options: CoChangeViewOptions): HistoryView | undefined {
    const walked = this.walk(asOf, options.window);
    return walked ? new HistoryView(this, asOf, walked.members, options.maxFilesPerCommit) : undefined;
  }
}

/** A max-heap of commit indices by commit time (ties: the later-added commit first, as mined newest first). */
class CommitHeap {
  private readonly items: number[] = [];
  constructor(private readonly times: readonly number[]) {}
  get size(): number {
    return this.items.length;
  }
  private before(a: number, b: number): boolean {
    const ta = this.times[a]!;
    const tb = this.times[b]!;
    return ta > tb || (ta === tb && a < b);
  }
  push(x: number): void {
    const h = this.items;
    h.push(x);
    let i = h.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!this.before(h[i]!, h[up]!)) break;
      [h[i], h[up]] = [h[up]!, h[i]!];
      i = up;
    }
  }
  pop(): number {
    const h = this.items;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.before(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

export class HistoryView implements CoChangeView {
  readonly commits: number;

  constructor(
    private readonly graph: HistoryGraph,
    readonly asOf: string,
    /** Window membership by commit index (commits added to the graph later are outside). */
    private readonly members: Uint8Array,
    private readonly maxFilesPerCommit: number,
  ) {
    let n = 0;
    for (let c = 0; c < members.length; c++) if (members[c] && this.counts(c)) n++;
    this.commits = n;
  }

  /** In the window, a change (not a merge), and not over the size limit. */
  private counts(c: number): boolean {
    const size = this.graph.sizes[c]!;
    return (
      c < this.members.length && this.members[c] === 1 && size > 0 && size <= this.maxFilesPerCommit && this.graph.files[c]!.length > 0
    );
  }

  count(path: string): number {
    let n = 0;
    for (const c of this.graph.commitsOf(path)) if (this.counts(c)) n++;
    return n;
  }

  partners(path: string, minSupport: number): CoChangePartner[] {
    const self = this.graph.commitsOf(path);
    if (self.length === 0) return [];
    const together = new Map<number, number>();
    for (const c of self) {
      if (!this.counts(c)) continue;
      for (const p of this.graph.files[c]!) together.set(p, (together.get(p) ?? 0) + 1);
    }
    const own = this.graph.pathId(path); // known: it has commits
    const out: CoChangePartner[] = [];
    for (const [p, support] of together) if (p !== own && support >= minSupport) out.push({ path: this.graph.paths[p]!, support });
    out.sort((x, y) => y.support - x.support || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
    return out;
  }
}
