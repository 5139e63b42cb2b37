/**
 * Freshness without blocking: one scan at a time per repository, requests coalesced and
 * debounced, every result numbered so a stale one is dropped instead of stacked.
 */
export interface ScanLoopOptions<T> {
  readonly run: (seq: number) => Promise<T>;
  readonly publish: (result: T, seq: number) => void;
  readonly onError: (error: unknown, seq: number) => void;
}

export class ScanLoop<T> {
  private seq = 0;
  private published = 0;
  /** The scan in flight, whose end starts the next one. */
  private running: number | undefined;
  /** Results of scans up to this number are dropped: they were abandoned by `restart()`. */
  private abandoned = 0;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private waiters: { after: number; resolve: (r: T | undefined) => void }[] = [];
  private disposed = false;
  latest: T | undefined;

  constructor(private readonly options: ScanLoopOptions<T>) {}

  /** Asks for a scan in `delayMs` (debounced: each request restarts the delay; requests during a scan coalesce into one more scan). */
  request(delayMs: number): void {
    if (this.disposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), Math.max(0, delayMs));
  }

  /** Resolves with the first result published from a scan that starts after this call. */
  next(): Promise<T | undefined> {
    const after = this.seq;
    return new Promise((resolve) => {
      this.waiters.push({ after, resolve });
      this.request(0);
    });
  }

  /**
   * Abandons the scan in flight (its engine was replaced: its answer, if one ever comes, is
   * stale) and starts a new one now instead of waiting for it.
   */
  restart(): void {
    if (this.disposed) return;
    if (this.running !== undefined) {
      this.abandoned = this.running;
      this.running = undefined;
      this.again = false;
    }
    this.request(0);
  }

  private fire(): void {
    this.timer = undefined;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    void this.runOnce();
  }

  private async runOnce(): Promise<void> {
    const seq = ++this.seq;
    this.running = seq;
    try {
      const result = await this.options.run(seq);
      if (!this.disposed && seq > this.published && seq > this.abandoned) {
        this.published = seq;
        this.latest = result;
        this.options.publish(result, seq);
        this.settle(seq, result);
      }
    } catch (error) {
      if (seq > this.abandoned) {
        this.options.onError(error, seq);
        this.settle(seq, undefined);
      }
    } finally {
      // An abandoned scan's end starts nothing: its successor is already running.
      if (this.running === seq) {
        this.running = undefined;
        if (this.again && !this.disposed) {
          this.again = false;
          void this.runOnce();
        }
      }
    }
  }

  private settle(seq: number, result: T | undefined): void {
    const ready = this.waiters.filter((w) => seq > w.after);
    this.waiters = this.waiters.filter((w) => seq <= w.after);
    for (const w of ready) w.resolve(result ?? this.latest);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.waiters) w.resolve(this.latest);
    this.waiters = [];
  }
}
