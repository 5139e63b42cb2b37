/**
 * Which pairs a scan scores. A sparse channel (one with `candidates`) names the pairs it may score
 * above 0; the others are dense. A pair that no sparse channel outside the light set names is left
 * out (no link; counted clear): only light channels can score it, and together they stay below
 * τ_TA (1 − Π(1 − ω) over them), so its level is clear whatever they score and its risk at most
 * that bound. Without such a sparse channel every pair is scored. Agents that could make a pair
 * unknown are always scored. Pairs are numbers: `i * n + j` for agents i < j (sorted by id).
 */
import { channelThrew } from './errors.js';
import type { Agent } from './model.js';
import { isChannelStopped } from './scan-budget.js';
import type { ActiveChannel } from './scan-channels.js';
import type { ProblemLog } from './scan-input.js';

export interface PairSelection {
  /** The pairs to score, by key. */
  readonly toScore: number[];
  /** Per active channel: the pairs it named (a sparse channel), else undefined (scored on every pair). */
  readonly sparse: (Set<number> | undefined)[];
}

export interface PairSelectionInput {
  readonly agents: readonly Agent[];
  readonly active: readonly ActiveChannel[];
  readonly traffic: number;
  /** Every pair with every channel (eval, trail, equivalence tests). */
  readonly exhaustive: boolean;
  /** Agents that cannot make a pair incomparable or unknown (the common case); the others are always scored. */
  readonly plain: readonly boolean[];
  /** Only pairs involving these agents (the others are kept from the previous scan); undefined: all. */
  readonly changed: ReadonlySet<string> | undefined;
  readonly indexOf: ReadonlyMap<string, number>;
  readonly pairKeyOf: (i: number, j: number) => number;
}

export async function choosePairs(input: PairSelectionInput, problems: ProblemLog): Promise<PairSelection> {
  const { agents, active, traffic, plain, changed, indexOf, pairKeyOf } = input;
  const n = agents.length;
  const sparse: (Set<number> | undefined)[] = active.map(() => undefined);
  const toScore: number[] = [];
  if (input.exhaustive) {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) toScore.push(i * n + j);
    return { toScore, sparse };
  }
  // Light channels: the dense ones, then sparse ones by rising weight, as long as together they
  // stay below τ_TA. They are scored on the pairs the others name; their own candidates are
  // not asked for (a dependency channel's would need every agent's import reach).
  let lightKeep = 1;
  const light = new Set<number>();
  for (let c = 0; c < active.length; c++) if (!active[c]!.channel.candidates) (light.add(c), (lightKeep *= 1 - active[c]!.weight));
  const bySize = [...active.keys()].filter((c) => !light.has(c)).sort((x, y) => active[x]!.weight - active[y]!.weight);
  for (const c of bySize) {
    if (1 - lightKeep * (1 - active[c]!.weight) >= traffic) break;
    light.add(c);
    lightKeep *= 1 - active[c]!.weight;
  }
  // The dense channels alone can reach τ_TA: every pair is scored.
  let allPairs = 1 - lightKeep >= traffic;
  for (let c = 0; c < active.length; c++) {
    const entry = active[c]!;
    if (light.has(c) || !entry.channel.candidates || entry.stopped) continue;
    try {
      const call = () => entry.channel.candidates!(agents, entry.ctx, changed);
      const pairs = await (entry.clock ? entry.clock.run(call) : call());
      const set = new Set<number>();
      for (const [x, y] of pairs) {
        const i = indexOf.get(x);
        const j = indexOf.get(y);
        if (i !== undefined && j !== undefined && i !== j) set.add(pairKeyOf(i, j));
      }
      sparse[c] = set;
    } catch (error) {
      // Its candidates are unknown: every pair is scored.
      if (isChannelStopped(error)) entry.stopped = error.problem;
      problems.add(isChannelStopped(error) ? error.problem : channelThrew(entry.channel.id, error));
      allPairs = true;
    }
  }
  const involved = (i: number, j: number) => !changed || changed.has(agents[i]!.id) || changed.has(agents[j]!.id);
  if (allPairs || sparse.every((x) => x === undefined)) {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (involved(i, j)) toScore.push(i * n + j);
    return { toScore, sparse };
  }
  const union = new Set<number>();
  for (const set of sparse) if (set) for (const k of set) if (involved(Math.floor(k / n), k % n)) union.add(k);
  for (let i = 0; i < n; i++) {
    if (plain[i]) continue;
    for (let j = 0; j < n; j++) if (j !== i && involved(i, j)) union.add(pairKeyOf(i, j));
  }
  return { toScore: [...union], sparse };
}
