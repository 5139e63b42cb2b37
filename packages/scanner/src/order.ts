/**
 * `airspace order`: in which order to merge the current agents into the base so that the fewest
 * conflicts are met. Exact where it can be: each candidate sequence is merged cumulatively with
 * `git merge-tree --write-tree` in the scratch object store (never the repository's), a conflicted
 * path carried forward as it was before that step and counted as a conflict for every later agent
 * that touches it (see `gitMerger`). The search is exact (depth-first, memoised by the
 * merged tree and the agents left, pruned by the best cost found) for up to `exactLimit` agents
 * that can conflict with each other, and greedy beyond; agents that share no path with any other
 * cannot conflict textually and are not merged at all.
 *
 * The cost of an order is the conflicted paths met. The search is branch and bound, bounded below
 * by the pairwise conflicts (see `searchOrder`), exploring the most promising step first; among
 * orders of equal cost the first found is kept, and steps are tried by the channels' risk that a
 * higher-priority agent (right of way) would absorb from lower-priority ones merged before it,
 * then by right of way.
 */
import { comparePriority, pairKey, type Agent, type Link, type ScanResult } from '@airspace/core';
import { rmSync } from 'node:fs';
import { runGit, type GitService } from '@airspace/git';
import { createScanner, type ScannerOptions } from './scanner.js';

export interface OrderConflict {
  /** An agent merged earlier whose work this step conflicts with. */
  readonly with: string;
  readonly paths: readonly string[];
}

export interface OrderStep {
  readonly agent: string;
  readonly conflicts: readonly OrderConflict[];
  readonly advice: string;
  /** False when this step's conflicts are a prediction from the channels, not a git merge. */
  readonly exact: boolean;
}

export interface MergeOrder {
  readonly order: readonly string[];
  readonly steps: readonly OrderStep[];
  /** Whether every group of agents that can conflict was searched exhaustively (else greedily). */
  readonly exact: boolean;
  /** git merges run (each cached). */
  readonly merges: number;
  readonly base: { readonly ref: string; readonly commit: string };
}

/** One cumulative merge: the state after merging `agent` into `state`, and what conflicted. */
export interface MergeStepResult {
  /** The new state (a commit) to merge the next agent into. */
  readonly state: string;
  /** Identity of the merged content (the tree): equal for orders that merged to the same result. */
  readonly key: string;
  readonly conflicted: readonly string[];
}

export interface OrderMerger {
  merge(state: string, agent: string): Promise<MergeStepResult>;
}

export interface SearchOptions {
  /** Exhaustive search up to this many agents (default 10); greedy beyond. */
  readonly exactLimit?: number;
  /** Merges at most for the exhaustive search of one group (default 5,000); greedy past it. */
  readonly maxMerges?: number;
  /** Risk the later agent `b` absorbs from `a` merged before it (0 when nothing to say): breaks ties. */
  readonly penalty?: (a: string, b: string) => number;
  /** Whether two agents' states conflict when merged alone (the lower bound of the search). */
  readonly conflicts?: (a: string, b: string) => boolean;
  readonly onMerge?: () => void;
}

interface Cost {
  readonly conflicts: number;
  readonly penalty: number;
}

const better = (x: Cost, y: Cost): boolean => x.conflicts < y.conflicts || (x.conflicts === y.conflicts && x.penalty < y.penalty - 1e-12);

class Budget extends Error {}

/**
 * The order of `agents` (given in priority order, which breaks remaining ties) that meets the
 * fewest conflicts when merged one after another from `start`.
 */
export async function searchOrder(
  agents: readonly string[],
  start: string,
  merger: OrderMerger,
  options: SearchOptions = {},
): Promise<{ order: string[]; exact: boolean }> {
  const penalty = options.penalty ?? (() => 0);
  const stepPenalty = (agent: string, merged: readonly string[]): number => merged.reduce((sum, m) => sum + penalty(m, agent), 0);
  let merges = 0;
  const merge = async (state: string, agent: string) => {
    if (++merges > (options.maxMerges ?? 5000)) throw new Budget();
    options.onMerge?.();
    return merger.merge(state, agent);
  };

  const greedy = async (): Promise<string[]> => {
    const order: string[] = [];
    let state = start;
    const left = [...agents];
    while (left.length) {
      let best: { agent: string; step: MergeStepResult; cost: Cost } | undefined;
      for (const agent of left) {
        const step = await merger.merge(state, agent);
        options.onMerge?.();
        const cost = { conflicts: step.conflicted.length, penalty: stepPenalty(agent, order) };
        if (!best || better(cost, best.cost)) best = { agent, step, cost };
      }
      order.push(best!.agent);
      state = best!.step.state;
      left.splice(left.indexOf(best!.agent), 1);
    }
    return order;
  };

  if (agents.length > (options.exactLimit ?? 10)) return { order: await greedy(), exact: false };

  // Branch and bound, with a lower bound on the conflicts still to meet (conflictBound).
  const pairwise = options.conflicts ?? (() => false);
  const hitsMerged = (agent: string, merged: readonly string[]): number => (merged.some((m) => pairwise(m, agent)) ? 1 : 0);
  const lowerBound = (merged: readonly string[], left: readonly string[]): number => conflictBound(pairwise, merged, left);

  // Best completion from (merged content, agents left) costing fewer than `limit` conflicts:
  // exact results memoised (orders that merged to the same content share their futures), and
  // the bounds under which a node had no such completion.
  const exact = new Map<string, { conflicts: number; tail: string[] }>();
  const atLeast = new Map<string, number>();
  const best = async (
    state: string,
    key: string,
    left: readonly string[],
    limit: number,
  ): Promise<{ conflicts: number; tail: string[] } | undefined> => {
    if (left.length === 0) return limit > 0 ? { conflicts: 0, tail: [] } : undefined;
    const id = `${key}\0${left.join('\0')}`;
    const hit = exact.get(id);
    if (hit) return hit.conflicts < limit ? hit : undefined;
    if ((atLeast.get(id) ?? 0) >= limit) return undefined;
    const merged = agents.filter((a) => !left.includes(a));
    // Most promising first, so that a good order bounds the rest early; among equals, the least
    // risk absorbed by a higher-priority agent, then the given (priority) order.
    const children = left
      .map((agent, i) => {
        const rest = left.filter((a) => a !== agent);
        return {
          agent,
          i,
          rest,
          hit: hitsMerged(agent, merged),
          restBound: lowerBound([...merged, agent], rest),
          penalty: stepPenalty(agent, merged),
        };
      })
      .sort((x, y) => x.hit + x.restBound - (y.hit + y.restBound) || x.penalty - y.penalty || x.i - y.i);
    let found: { conflicts: number; tail: string[] } | undefined;
    for (const child of children) {
      // Once an order is found, only a strictly better one replaces it (ties keep the first).
      const cap = found ? found.conflicts : limit;
      if (child.hit + child.restBound >= cap) continue;
      const step = await merge(state, child.agent);
      const here = step.conflicted.length;
      if (here + child.restBound >= cap) continue;
      const rest = await best(step.state, step.key, child.rest, cap - here);
      if (rest) found = { conflicts: here + rest.conflicts, tail: [child.agent, ...rest.tail] };
    }
    // A found order is the optimum: every branch pruned could only cost at least as much.
    if (found) exact.set(id, found);
    else atLeast.set(id, Math.max(limit, atLeast.get(id) ?? 0));
    return found;
  };
  try {
    return { order: (await best(start, start, agents, Infinity))!.tail, exact: true };
  } catch (e) {
    if (!(e instanceof Budget)) throw e;
    return { order: await greedy(), exact: false };
  }
}

/**
 * Groups of agents that can conflict textually, transitively: they share a path (either side of a
 * rename), or a file of one is a directory of another. Agents of different groups merge cleanly
 * in any order.
 */
export function conflictGroups(agents: readonly Agent[]): Agent[][] {
  const parent = agents.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const join = (i: number, j: number | undefined): void => {
    if (j !== undefined) parent[find(j)] = find(i);
  };
  const fileOwner = new Map<string, number>();
  const dirOwners = new Map<string, number[]>();
  agents.forEach((agent, i) => {
    for (const f of agent.files) {
      for (const path of [f.path, f.oldPath].filter((p): p is string => !!p)) {
        join(i, fileOwner.get(path));
        for (const j of dirOwners.get(path) ?? []) join(i, j); // my file is their directory
        fileOwner.set(path, i);
        const parts = path.split('/');
        for (let k = 1; k < parts.length; k++) {
          const dir = parts.slice(0, k).join('/');
          join(i, fileOwner.get(dir)); // their file is my directory
          dirOwners.set(dir, [...(dirOwners.get(dir) ?? []), i]);
        }
      }
    }
  });
  const groups = new Map<number, Agent[]>();
  agents.forEach((agent, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), agent]));
  return [...groups.values()];
}

export interface PlanOptions {
  readonly exactLimit?: number;
  readonly maxMerges?: number;
  /** After each git merge: merges done, and an upper estimate of the total (exact searches usually need far fewer). */
  readonly onMerge?: (done: number, total: number) => void;
}

/**
 * The merged tree with each conflicted path as it was before this step (`ours`): the rebasing
 * agent is taken to redo its change of those files on top, so later agents meet the earlier
 * agents' lines there, as they would. (Carrying git's conflict markers instead lets a later diff
 * align with one side's copy of the base lines inside the markers and hides real conflicts.)
 */
async function keepOurs(git: GitService, merged: string, ours: string, paths: readonly string[]): Promise<string> {
  const index = git.scratch.tempPath('order-index');
  const env = git.scratch.env({ GIT_INDEX_FILE: index });
  const cwd = git.cwd;
  try {
    await runGit(['read-tree', merged], { cwd, env });
    const listed = await runGit(['ls-tree', '-r', '-z', '--full-tree', ours, '--', ...paths.map((p) => `:(literal)${p}`)], { cwd, env });
    const found = new Map<string, string>();
    for (const record of listed.split('\0').filter(Boolean)) {
      const tab = record.indexOf('\t');
      const [mode, , id] = record.slice(0, tab).split(' ');
      found.set(record.slice(tab + 1), `${mode} ${id}\t${record.slice(tab + 1)}\0`);
    }
    // A path absent before this step is removed (mode 0); others get their earlier entry back.
    const zero = '0'.repeat(40);
    const records = paths.map((p) => found.get(p) ?? `0 ${zero}\t${p}\0`).join('');
    await runGit(['update-index', '-z', '--index-info'], { cwd, env, input: records });
    return (await runGit(['write-tree'], { cwd, env })).trim();
  } finally {
    rmSync(index, { force: true });
  }
}

/**
 * The git side of the search: cumulative merges of state commits in the scratch store. A state is
 * `<commit>` plus the paths resolved by hand so far (`<commit>\0<path>\0…`): a conflicted path
 * keeps its earlier content (`keepOurs`) and is counted as a conflict for every later agent that
 * touches it — what the rebasing agent writes there is not known, so it is never taken as clean.
 */
function gitMerger(git: GitService, commits: ReadonlyMap<string, string>, touched: ReadonlyMap<string, ReadonlySet<string>>): OrderMerger {
  return {
    async merge(state, agent) {
      const [at, ...resolved] = state.split('\0');
      const commit = commits.get(agent)!;
      const outcome = await git.mergeCommits(at!, commit);
      if (outcome.error || !outcome.tree) throw new Error(`git merge-tree could not merge ${agent}: ${outcome.error ?? 'no tree'}`);
      const byGit = outcome.conflicts.map((c) => c.path);
      const mine = touched.get(agent) ?? new Set<string>();
      const conflicted = [...new Set([...byGit, ...resolved.filter((p) => mine.has(p))])].sort();
      const tree = byGit.length ? await keepOurs(git, outcome.tree, at!, byGit) : outcome.tree;
      const next = [...new Set([...resolved, ...byGit])].sort();
      const key = [tree, ...next].join('\0');
      return { state: [git.writeCommit(tree, [at!, commit]), ...next].join('\0'), key, conflicted };
    },
  };
}

/**
 * The merge order of a scan's agents. Agents without a git state to merge (an unreadable published
 * agent) go last, their conflicts predicted from the channels' evidence.
 */
export async function planOrder(
  result: ScanResult,
  state: { agents: readonly Agent[]; git: GitService; base: { ref: string; commit: string } },
  options: PlanOptions = {},
): Promise<MergeOrder> {
  const { git, base } = state;
  const links = new Map<string, Link>(result.links.map((l) => [pairKey(l.a, l.b), l]));
  const byPriority = [...result.agents].sort(comparePriority);
  const rank = new Map(byPriority.map((a, i) => [a.id, i]));
  const commits = new Map<string, string>();
  const unmergeable: Agent[] = [];
  for (const agent of byPriority) {
    const commit = agent.incomplete?.length ? undefined : await git.stateCommit(agent.id);
    if (commit) commits.set(agent.id, commit);
    else unmergeable.push(agent);
  }
  const mergeable = byPriority.filter((a) => commits.has(a.id));
  // Risk a higher-priority agent would absorb from a lower-priority one merged before it.
  const penalty = (earlier: string, later: string): number =>
    (rank.get(later) ?? 0) < (rank.get(earlier) ?? 0) ? (links.get(pairKey(earlier, later))?.risk ?? 0) : 0;
  const groups = conflictGroups(mergeable);
  const limit = options.exactLimit ?? 10;
  const budget = options.maxMerges ?? 5000;
  // Exact: at most (agents left) merges per subset, within the budget; greedy: n + (n−1) + … + 1.
  const total =
    groups.reduce((sum, g) => {
      const n = g.length;
      if (n < 2) return sum;
      const greedy = (n * (n + 1)) / 2;
      return sum + (n > limit ? greedy : Math.min(budget, n * 2 ** (n - 1)));
    }, 0) + mergeable.length;
  let done = 0;
  const onMerge = (): void => {
    done++;
    options.onMerge?.(done, Math.max(total, done));
  };
  const touched = new Map(mergeable.map((a) => [a.id, new Set(a.files.flatMap((f) => [f.path, ...(f.oldPath ? [f.oldPath] : [])]))]));
  const merger = gitMerger(git, commits, touched);

  let exact = true;
  const order: string[] = [];
  for (const group of groups) {
    if (group.length === 1) {
      order.push(group[0]!.id);
      continue;
    }
    // Pairwise merges (cached; the merge channel ran most of them) bound the exact search.
    const clash = new Set<string>();
    for (let i = 0; group.length <= limit && i < group.length; i++) {
      for (let j = i + 1; j < group.length; j++) {
        const outcome = await git.merge(group[i]!.id, group[j]!.id);
        if (!outcome.clean && !outcome.error) clash.add(pairKey(group[i]!.id, group[j]!.id));
      }
    }
    const conflicts = (a: string, b: string): boolean => clash.has(pairKey(a, b));
    const found = await searchOrder(
      group.map((a) => a.id),
      base.commit,
      merger,
      {
        penalty,
        conflicts,
        onMerge,
        ...(options.exactLimit !== undefined ? { exactLimit: options.exactLimit } : {}),
        ...(options.maxMerges !== undefined ? { maxMerges: options.maxMerges } : {}),
      },
    );
    exact &&= found.exact;
    order.push(...found.order);
  }
  // Groups never conflict with each other: interleave them by right of way, keeping each group's order.
  const sequence = interleave(order, mergeable, rank);

  // Replay the chosen order once to say, per step, what conflicts and with whom.
  const steps: OrderStep[] = [];
  let current = base.commit;
  const merged: string[] = [];
  for (const id of sequence) {
    const step = await merger.merge(current, id);
    onMerge();
    const conflicts = await attribute(id, step.conflicted, merged, state.agents, git);
    steps.push({ agent: id, conflicts, advice: advise(id, conflicts, merged, links), exact: true });
    current = step.state;
    merged.push(id);
  }
  for (const agent of unmergeable) {
    const conflicts = predicted(agent.id, merged, links);
    const why = agent.incomplete?.length ? agent.incomplete.join('; ') : 'no git state';
    steps.push({
      agent: agent.id,
      conflicts,
      advice: `merge last: its state cannot be merged exactly (${why}); ${conflicts.length ? `the channels predict conflicts with ${conflicts.map((c) => c.with).join(', ')}` : 'the channels predict no conflict'}`,
      exact: false,
    });
    merged.push(agent.id);
  }
  return { order: steps.map((s) => s.agent), steps, exact: exact && unmergeable.length === 0, merges: done, base };
}

/** Merges groups' orders by right of way of their next agent (a stable k-way merge). */
function interleave(order: readonly string[], agents: readonly Agent[], rank: ReadonlyMap<string, number>): string[] {
  const groupOf = new Map<string, number>();
  conflictGroups(agents).forEach((g, i) => g.forEach((a) => groupOf.set(a.id, i)));
  const queues = new Map<number, string[]>();
  for (const id of order) queues.set(groupOf.get(id)!, [...(queues.get(groupOf.get(id)!) ?? []), id]);
  const out: string[] = [];
  while (out.length < order.length) {
    let pick: number | undefined;
    for (const [g, q] of queues) if (q.length && (pick === undefined || rank.get(q[0]!)! < rank.get(queues.get(pick)![0]!)!)) pick = g;
    out.push(queues.get(pick!)!.shift()!);
  }
  return out;
}

/** Who each conflicted path is with: earlier agents whose pairwise merge conflicts there, else those touching it. */
async function attribute(
  id: string,
  paths: readonly string[],
  merged: readonly string[],
  agents: readonly Agent[],
  git: GitService,
): Promise<OrderConflict[]> {
  if (paths.length === 0) return [];
  const byWith = new Map<string, string[]>();
  const touches = (agentId: string, path: string) =>
    agents.find((a) => a.id === agentId)?.files.some((f) => f.path === path || f.oldPath === path) ?? false;
  for (const path of paths) {
    const pairwise: string[] = [];
    for (const other of merged) {
      const outcome = await git.merge(id, other);
      if (outcome.conflicts.some((c) => c.path === path)) pairwise.push(other);
    }
    const who = pairwise.length ? pairwise : merged.filter((other) => touches(other, path));
    for (const w of who.length ? who : ['(earlier merges)']) byWith.set(w, [...(byWith.get(w) ?? []), path]);
  }
  return [...byWith].map(([w, p]) => ({ with: w, paths: p }));
}

function predicted(id: string, merged: readonly string[], links: ReadonlyMap<string, Link>): OrderConflict[] {
  const out: OrderConflict[] = [];
  for (const other of merged) {
    const link = links.get(pairKey(id, other));
    if (!link || link.level === 'clear' || link.level === 'unknown') continue;
    const paths = [...new Set(link.evidence.flatMap((e) => [e.a?.path, e.b?.path]).filter((p): p is string => !!p))];
    out.push({ with: other, paths });
  }
  return out;
}

function advise(id: string, conflicts: readonly OrderConflict[], merged: readonly string[], links: ReadonlyMap<string, Link>): string {
  const close = merged
    .map((other) => links.get(pairKey(id, other)))
    .filter((l): l is Link => !!l && (l.level === 'traffic' || l.level === 'resolution'))
    .filter((l) => !conflicts.some((c) => c.with === l.a || c.with === l.b))
    .map((l) => `${l.a === id ? l.b : l.a} (${l.level}, risk ${l.risk.toFixed(2)})`);
  const review = close.length ? `; no textual conflict, but the channels rate it close to ${close.join(', ')}: review after rebasing` : '';
  if (conflicts.length === 0) return `${merged.length === 0 ? 'merge first' : 'merges cleanly after the steps before'}${review}`;
  const paths = [...new Set(conflicts.flatMap((c) => c.paths))];
  const withWhom = conflicts.map((c) => c.with).join(', ');
  return `${id} should rebase onto the base after ${withWhom} ${conflicts.length === 1 ? 'has' : 'have'} merged and resolve ${paths.length} path${paths.length === 1 ? '' : 's'} (${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', …' : ''}) before merging${review}`;
}

/** Scan once, then plan the merge order of its agents. */
export async function mergeOrder(options: ScannerOptions & PlanOptions = {}): Promise<{ order: MergeOrder; result: ScanResult }> {
  const scanner = createScanner(options);
  try {
    const result = await scanner.scan();
    const state = scanner.scanned?.();
    if (!state) throw new Error('The scan read no git state.');
    return { order: await planOrder(result, state, options), result };
  } finally {
    await scanner.dispose();
  }
}

/**
 * A lower bound on the conflicts still to meet: every agent left that conflicts pairwise with one
 * already merged meets at least one (a conflict between two agents persists once both are merged:
 * a clean merge keeps the hunk, a conflicted path is counted for every later agent touching it),
 * and of two agents left that conflict pairwise, the later one does (so any matching among the
 * rest counts too).
 */
function conflictBound(pairwise: (a: string, b: string) => boolean, merged: readonly string[], left: readonly string[]): number {
  let bound = 0;
  const free: string[] = [];
  for (const a of left) {
    if (merged.some((m) => pairwise(m, a))) bound++;
    else free.push(a);
  }
  const used = new Set<string>();
  for (let i = 0; i < free.length; i++) {
    if (used.has(free[i]!)) continue;
    for (let j = i + 1; j < free.length; j++) {
      if (!used.has(free[j]!) && pairwise(free[i]!, free[j]!)) {
        used.add(free[i]!).add(free[j]!);
        bound++;
        break;
      }
    }
  }
  return bound;
}
