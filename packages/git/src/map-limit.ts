/**
 * Bounded concurrency for many small asynchronous jobs (git processes, file reads): the one
 * helper, used by `loadAgents` and by `@airspace/analysis`'s index.
 */

/** Runs `fn` over `items` with at most `limit` promises in flight; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, run));
  return out;
}
