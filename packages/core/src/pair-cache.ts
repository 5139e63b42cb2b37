/**
 * Pair scores kept between scans: a long-lived front end (watch, an editor) scores again only the
 * pairs with an agent whose working set (`workingSetKey`) changed, while everything else a score
 * depends on (the `version`: channels, weights, thresholds, options, the caller's key) stays.
 */
import type { Agent } from './model.js';
import type { ChannelBreakdown } from './scan-types.js';

/** Pair scores kept between scans (opaque; `createPairCache`). */
export interface PairCache {
  readonly size: number;
}

export interface CachedPair {
  readonly a: string;
  readonly b: string;
  readonly channels: readonly ChannelBreakdown[];
}

export interface PairCacheState extends PairCache {
  version?: string;
  readonly agentKeys: Map<string, string>;
  pairs: Map<string, CachedPair>;
}

export function createPairCache(): PairCache {
  const state: PairCacheState = {
    agentKeys: new Map(),
    pairs: new Map(),
    get size() {
      return state.pairs.size;
    },
  };
  return state;
}

/**
 * What a pair's scores depend on in one agent: everything in it (files, ranges, weights, blobs,
 * intent, base, meta), so any change scores its pairs again. Ids, labels and times only order and
 * name; they are left out so that an unchanged agent keeps its key.
 */
export function workingSetKey(agent: Agent): string {
  // Agents handed to channels are frozen, so a key computed once per object stays true.
  const known = Object.isFrozen(agent) ? workingSetKeys.get(agent) : undefined;
  if (known !== undefined) return known;
  const { label: _label, startedAt: _startedAt, committedWork: _committedWork, ...rest } = agent;
  const key = JSON.stringify(rest);
  if (Object.isFrozen(agent)) workingSetKeys.set(agent, key);
  return key;
}

const workingSetKeys = new WeakMap<Agent, string>();

/**
 * The agents whose pairs must be scored again: undefined (every agent's) when the cache is new or
 * its `version` changed — then it is emptied — else those whose working-set key changed, and both
 * agents of a pair a channel had not finished (`pending`).
 */
export function changedAgents(
  cache: PairCacheState,
  version: string,
  agents: readonly Agent[],
  keys: readonly string[],
): Set<string> | undefined {
  if (cache.version !== version) {
    cache.version = version;
    cache.agentKeys.clear();
    cache.pairs.clear();
    return undefined;
  }
  const changed = new Set<string>();
  for (let i = 0; i < agents.length; i++) if (cache.agentKeys.get(agents[i]!.id) !== keys[i]) changed.add(agents[i]!.id);
  // A pair whose result was not final (a channel still checking it) is scored again.
  for (const entry of cache.pairs.values()) if (entry.channels.some((c) => c.pending)) changed.add(entry.a).add(entry.b);
  return changed;
}

/** The previous scan's breakdowns of pairs of two unchanged agents, by the scan's pair key. */
export function keptPairs(
  cache: PairCacheState,
  changed: ReadonlySet<string>,
  keyOf: (a: string, b: string) => number | undefined,
): Map<number, readonly ChannelBreakdown[]> {
  const kept = new Map<number, readonly ChannelBreakdown[]>();
  for (const entry of cache.pairs.values()) {
    if (changed.has(entry.a) || changed.has(entry.b)) continue;
    const key = keyOf(entry.a, entry.b);
    if (key !== undefined) kept.set(key, entry.channels);
  }
  return kept;
}

/** Stores this scan's pairs and agent keys for the next scan. */
export function rememberScan(
  cache: PairCacheState,
  pairs: Map<string, CachedPair>,
  agents: readonly Agent[],
  keys: readonly string[],
): void {
  cache.pairs = pairs;
  cache.agentKeys.clear();
  for (let i = 0; i < agents.length; i++) cache.agentKeys.set(agents[i]!.id, keys[i]!);
}
