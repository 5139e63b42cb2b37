/**
 * `scanAirspace`: one pass from agents to advisories. Prepare each channel once, score every pair
 * (a < b by id) with every channel, combine by noisy-OR, classify with the TCAS bands and the
 * escalation discipline, embed for the view. A failing channel costs its own score, never the scan.
 */
import type { AnyChannel, ChannelContext, ChannelScore, Evidence, Logger, Precision, Problem, ScoreContext } from './channel.js';
import { embedAgents } from './embedding.js';
import {
  AirspaceError,
  ChannelStopped,
  channelOverBudget,
  channelThrew,
  channelTimedOut,
  duplicateAgentId,
  incomparableAgents,
  incompleteAgent,
  invalidRange,
  invalidRecencyWeight,
  invalidWeight,
  invalidThresholds,
  malformedAgent,
  missingEvidence,
  missingService,
  riskOutOfRange,
} from './errors.js';
import type { Agent, FileEdit, Range } from './model.js';
import { resolveOptions } from './options.js';
import { isValidRange } from './ranges.js';
import type { ChannelEntry } from './registry.js';
import { ChannelRegistry } from './registry.js';
import type { Advisory, ChannelBreakdown, Level, Link, ScanCounts, ScanResult, Thresholds } from './scan-types.js';
import { DEFAULT_THRESHOLDS } from './scan-types.js';
import { serviceDefect, type ServiceName, type Services, type ServicesOf } from './services.js';
import type { EscalationOptions, WeightedChannel } from './tcas.js';
import { DEFAULT_ESCALATION, bandOf, classifyRisk, comparability, levelRank, rightOfWay } from './tcas.js';

export interface ScanContext {
  /** Channels (objects or factories) or a registry. */
  readonly channels: readonly ChannelEntry[] | ChannelRegistry;
  /** Facts and graphs that channels `require` (e.g. `importGraph`, `git`). */
  readonly services?: Readonly<Partial<Services>>;
  readonly logger?: Logger;
  /** Milliseconds since the epoch; default `Date.now()`. */
  readonly now?: number;
  readonly repository?: { readonly id: string; readonly root?: string };
}

export interface ScanOptions {
  /** ω per channel id; default each channel's `defaultWeight`. */
  readonly weights?: Readonly<Record<string, number>>;
  readonly thresholds?: Partial<Thresholds>;
  /** Options per channel id, merged over the channel's `defaultOptions`. */
  readonly channelOptions?: Readonly<Record<string, unknown>>;
  readonly escalation?: EscalationOptions;
  /** Dependency edges `[from, to]` for the 3D embedding's averaging step. */
  readonly edges?: Iterable<readonly [string, string]>;
  /** How many evidence items a link keeps (strongest first); default 10. Breakdowns keep all. */
  readonly maxLinkEvidence?: number;
  /** Pairs scored so far, now and then (every `PROGRESS_EVERY` pairs and at the end): a long scan shows progress. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Time budgets per channel id (third-party channels); a channel without one is not timed. */
  readonly budgets?: Readonly<Record<string, ChannelBudget>>;
  /**
   * Score every pair with every channel's `score` and keep a link for every pair (evidence for
   * every non-zero risk): the straightforward scan, O(pairs × channels). Default false: only the
   * pairs some channel names as a candidate are scored (see `Channel.candidates`), evidence is
   * built for reported pairs only, and pairs left out get no link. Eval, which needs every
   * channel's risk for each pair, and the equivalence tests scan exhaustively.
   */
  readonly exhaustive?: boolean;
  /**
   * Evidence is built for every advisory and for every link whose risk reaches this; below it a
   * clear link keeps its risk with `deferredEvidence`. Default `DEFAULT_EVIDENCE_MIN_RISK`.
   */
  readonly evidenceMinRisk?: number;
  /**
   * The previous scan's pair scores (`createPairCache()`, one per sequence of scans): pairs of two
   * agents whose working sets (`workingSetKey`) did not change are not scored again. Everything
   * else a pair's score depends on must be in `reuseKey` (the base commit and import graph, the
   * config): when it, the channels, weights, thresholds or options change, every pair is scored.
   */
  readonly reuse?: PairCache;
  /** What the scores depend on besides the agents and the scan options (see `reuse`). */
  readonly reuseKey?: string;
}

/**
 * By default every link the scan keeps gets its evidence: once pairs sharing nothing are left out
 * and evidence is bounded per pair, building it cost nothing measurable (100 agents × 50 files:
 * 650–750 ms of CPU with and without). A caller that keeps many links (dense channels) may raise
 * it: clear links below it then keep `deferredEvidence`.
 */
export const DEFAULT_EVIDENCE_MIN_RISK = 0;

/** Pair scores kept between scans (opaque; `createPairCache`). */
export interface PairCache {
  readonly size: number;
}

interface CachedPair {
  readonly a: string;
  readonly b: string;
  readonly channels: readonly ChannelBreakdown[];
}

interface PairCacheState extends PairCache {
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

/** A channel's part of a pair while it is scored: `deferred` (risk without evidence), `quiet` (its problem is already recorded). */
type Part = Mutable<ChannelBreakdown> & { deferred?: boolean; quiet?: boolean };

function plainPart(c: Part): ChannelBreakdown {
  const { deferred: _deferred, quiet: _quiet, ...rest } = c;
  return rest;
}

/** How long one channel may take in one scan. */
export interface ChannelBudget {
  /** Total time of its `prepare` and `score` calls in one scan; beyond it, it scores 0. */
  readonly channelMs: number;
  /** Longest one call may take: a promise that never settles is cut here. */
  readonly callMs: number;
}

/** Pairs between two progress reports. */
const PROGRESS_EVERY = 500;

const EMPTY: readonly Evidence[] = Object.freeze([]) as readonly Evidence[];
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const COMPARABLE = { comparable: true, reasons: [] as string[] } as const;
const SILENT: Logger = { debug() {}, info() {}, warn() {} };
/** Scan-level problems of one kind (code × channel) beyond this are counted, not listed. */
const MAX_PROBLEMS_PER_KIND = 20;

interface ActiveChannel {
  readonly channel: AnyChannel;
  readonly weight: number;
  readonly precision: Precision;
  readonly ctx: ScoreContext<unknown, unknown>;
  readonly clock?: Timekeeper;
  /** Set when the channel was stopped in this scan; it scores 0 for every later pair. */
  stopped?: Problem;
}

function isChannelStopped(error: unknown): error is ChannelStopped {
  // By name too: a host may bundle its own copy of this module.
  return (
    error instanceof ChannelStopped ||
    (error instanceof Error && error.name === 'ChannelStopped' && typeof (error as { problem?: unknown }).problem === 'object')
  );
}

/**
 * A budgeted channel's clock for one scan. Each call is cut at the per-call limit or at what is
 * left of the budget, whichever comes first; a synchronous call cannot be cut, but once it has
 * spent the budget the channel is not called again. Stopping aborts `ctx.signal`.
 */
class Timekeeper {
  private spent = 0;
  readonly controller = new AbortController();
  constructor(
    private readonly id: string,
    private readonly budget: ChannelBudget,
  ) {}

  async run<T>(call: () => T | PromiseLike<T>, agents?: [string, string]): Promise<T> {
    const left = this.budget.channelMs - this.spent;
    if (left <= 0) throw this.stop(channelOverBudget(this.id, this.budget.channelMs, agents));
    const byBudget = left < this.budget.callMs;
    const limit = Math.min(this.budget.callMs, left);
    const start = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const value = call();
      if (!isThenable<T>(value)) return value;
      return await new Promise<T>((resolve, reject) => {
        timer = setTimeout(
          () =>
            reject(
              this.stop(byBudget ? channelOverBudget(this.id, this.budget.channelMs, agents) : channelTimedOut(this.id, limit, agents)),
            ),
          limit,
        );
        value.then(resolve, reject);
      });
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      this.spent += performance.now() - start;
    }
  }

  private stop(problem: Problem): ChannelStopped {
    this.controller.abort(problem);
    return new ChannelStopped(problem);
  }
}

/**
 * Freezes a value and everything in it: agents handed to channels, so no channel can change what
 * the next channel, the result or the front end sees (the model's types already say `readonly`).
 * Frozen objects are skipped: agents kept between scans are frozen once.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}

class ProblemLog {
  readonly list: Problem[] = [];
  private readonly counts = new Map<string, number>();
  add(problem: Problem): void {
    const key = `${problem.code}\u0000${problem.channel ?? ''}`;
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    if (n <= MAX_PROBLEMS_PER_KIND) this.list.push(problem);
  }
  finish(): Problem[] {
    for (const [key, n] of this.counts) {
      if (n <= MAX_PROBLEMS_PER_KIND) continue;
      const [code, channel] = key.split('\u0000') as [string, string];
      this.list.push({
        code,
        ...(channel ? { channel } : {}),
        message: `…and ${n - MAX_PROBLEMS_PER_KIND} more ${code} problems${channel ? ` from channel "${channel}"` : ''}.`,
      });
    }
    return this.list;
  }
}

function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** Drops invalid ranges and clamps weights, reporting each; returns the agent itself when valid. */
function sanitizeAgent(agent: Agent, problems: ProblemLog): Agent {
  let changed = false;
  let input: readonly FileEdit[] = agent.files;
  if (!Array.isArray(input)) {
    problems.add(malformedAgent(agent.id, '"files" is not an array; it was treated as empty'));
    return { ...agent, files: [] };
  }
  if (!input.every((f) => typeof f === 'object' && f !== null && typeof f.path === 'string' && f.path.length > 0)) {
    input = input.filter((f) => {
      if (typeof f === 'object' && f !== null && typeof f.path === 'string' && f.path.length > 0) return true;
      problems.add(malformedAgent(agent.id, `a file entry without a path (${JSON.stringify(f)?.slice(0, 80)}) was ignored`));
      return false;
    });
    changed = true;
  }
  const files = input.map((f): FileEdit => {
    let edit = f;
    for (const key of ['baseRanges', 'newRanges'] as const) {
      const ranges: unknown = edit[key];
      if (ranges === 'whole') continue;
      if (!Array.isArray(ranges)) {
        // Malformed input: be conservative and treat the file as wholly changed.
        problems.add(invalidRange(ranges, agent.id, f.path));
        edit = { ...edit, [key]: 'whole' };
        continue;
      }
      if (ranges.every((r) => isValidRange(r))) continue;
      const kept = (ranges as unknown[]).filter((r): r is Range => {
        if (isValidRange(r)) return true;
        problems.add(invalidRange(r, agent.id, f.path));
        return false;
      });
      edit = { ...edit, [key]: kept };
    }
    if (!(edit.weight >= 0 && edit.weight <= 1)) {
      const used = Number.isNaN(edit.weight) || typeof edit.weight !== 'number' ? 1 : Math.min(1, Math.max(0, edit.weight));
      problems.add(invalidRecencyWeight(agent.id, f.path, edit.weight, used));
      edit = { ...edit, weight: used };
    }
    if (edit !== f) changed = true;
    return edit;
  });
  return changed ? { ...agent, files } : agent;
}

function weightedOf(c: ChannelBreakdown): WeightedChannel {
  return {
    channel: c.channel,
    weighted: c.weighted,
    precision: c.precision,
    ...(c.preciseRisk !== undefined ? { weightedPrecise: c.weight * c.preciseRisk } : {}),
  };
}

function strength(e: Evidence, fallback: number, weight: number): number {
  return (typeof e.risk === 'number' && Number.isFinite(e.risk) ? e.risk : fallback) * weight;
}

export function agentName(agent: Agent | undefined, id: string): string {
  return agent?.label && agent.label !== id ? `${agent.label} (${id})` : id;
}

function advisoryMessage(link: Link, a: Agent, b: Agent, steer?: Agent, hold?: Agent): string {
  const pair = `${agentName(a, a.id)} × ${agentName(b, b.id)}`;
  const top = link.evidence[0];
  const because = top ? ` Strongest evidence: ${top.message}` : '';
  const reason = link.levelReason ? ` (${link.levelReason})` : '';
  if (link.level === 'resolution' && steer && hold) {
    return `RESOLUTION ${pair}, risk ${link.risk.toFixed(2)}: ${agentName(steer, steer.id)} steers away, ${agentName(hold, hold.id)} holds course.${because}`;
  }
  if (link.level === 'traffic') return `TRAFFIC ${pair}, risk ${link.risk.toFixed(2)}${reason}: both transmit intent.${because}`;
  return `UNKNOWN ${pair}, risk ${link.risk.toFixed(2)}: cannot be cleared${reason}.${because}`;
}

/** Resolves context channels; invalid or duplicate entries become problems, the first id wins. */
function resolveChannels(entries: ScanContext['channels'], problems: ProblemLog): AnyChannel[] {
  if (entries instanceof ChannelRegistry) return entries.list();
  const out: AnyChannel[] = [];
  const registry = new ChannelRegistry();
  for (const entry of entries) {
    try {
      const channel = registry.register(entry);
      out.push(channel);
    } catch (error) {
      if (error instanceof AirspaceError)
        problems.add({ code: error.code, message: error.message, ...(error.channel ? { channel: error.channel } : {}) });
      else problems.add({ code: 'INVALID_CHANNEL', message: String(error) });
    }
  }
  return out;
}

export async function scanAirspace(agents: readonly Agent[], context: ScanContext, options: ScanOptions = {}): Promise<ScanResult> {
  const now = context.now ?? Date.now();
  const logger = context.logger ?? SILENT;
  const services: Readonly<Record<string, unknown>> = context.services ?? {};
  const problems = new ProblemLog();
  let thresholds: Thresholds = { ...DEFAULT_THRESHOLDS, ...(options.thresholds ?? {}) };
  if (!(thresholds.traffic >= 0 && thresholds.resolution <= 1 && thresholds.traffic <= thresholds.resolution)) {
    problems.add(invalidThresholds(thresholds));
    thresholds = DEFAULT_THRESHOLDS;
  }
  const escalation: EscalationOptions = { ...DEFAULT_ESCALATION, ...(options.escalation ?? {}) };
  const maxEvidence = options.maxLinkEvidence ?? 10;

  // Agents: unique ids, sorted, sanitized for channels.
  const byId = new Map<string, Agent>();
  for (const agent of agents) {
    if (byId.has(agent.id)) {
      problems.add(duplicateAgentId(agent.id));
      continue;
    }
    byId.set(agent.id, agent);
  }
  const ordered = [...byId.values()].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  const scored = Object.freeze(ordered.map((agent) => deepFreeze(sanitizeAgent(agent, problems))));
  for (const agent of ordered)
    if (agent.incomplete && agent.incomplete.length > 0) problems.add(incompleteAgent(agent.id, agent.incomplete));

  // Channels: weights, options, services, prepare once.
  const weights: Record<string, number> = {};
  const active: ActiveChannel[] = [];
  const skipped: { channel: AnyChannel; weight: number; precision: Precision; problem: Problem }[] = [];
  for (const channel of resolveChannels(context.channels, problems)) {
    const raw = options.weights?.[channel.id] ?? channel.defaultWeight;
    let weight =
      typeof raw === 'number' && raw >= 0 && raw <= 1
        ? raw
        : Number.isNaN(raw) || typeof raw !== 'number'
          ? 0
          : Math.min(1, Math.max(0, raw));
    if (weight !== raw) problems.add(invalidWeight(channel.id, raw, weight));
    weights[channel.id] = weight;
    const precision: Precision = channel.meta?.precision ?? 'file';
    // The services it requires, checked against their contracts here so no channel needs a guard.
    let unserved: Problem | undefined;
    for (const name of channel.requires ?? []) {
      const defect = serviceDefect(name, services[name]);
      if (defect !== undefined) {
        unserved = missingService(channel.id, name, defect);
        break;
      }
    }
    if (unserved !== undefined) {
      problems.add(unserved);
      skipped.push({ channel, weight, precision, problem: unserved });
      continue;
    }
    const resolved = resolveOptions(channel.id, channel.defaultOptions, channel.optionsSchema, options.channelOptions?.[channel.id]);
    for (const p of resolved.problems) problems.add(p);
    const merged = resolved.options;
    const budget = options.budgets?.[channel.id];
    const clock = budget ? new Timekeeper(channel.id, budget) : undefined;
    const base: ChannelContext<unknown, ServiceName> = {
      options: deepFreeze(merged),
      now,
      logger,
      // Each required service was checked above; the others are the front end's, as supplied.
      services: services as ServicesOf<ServiceName>,
      ...(context.repository ? { repository: context.repository } : {}),
      ...(clock ? { signal: clock.controller.signal } : {}),
    };
    let prepared: unknown;
    try {
      const prepare = channel.prepare?.bind(channel);
      prepared = prepare ? await (clock ? clock.run(() => prepare(scored, base)) : prepare(scored, base)) : undefined;
    } catch (error) {
      const problem = isChannelStopped(error) ? error.problem : channelThrew(channel.id, error);
      problems.add(problem);
      skipped.push({ channel, weight, precision, problem });
      continue;
    }
    weight = weights[channel.id]!;
    active.push({ channel, weight, precision, ctx: { ...base, prepared }, ...(clock ? { clock } : {}) });
  }

  // Pairs.
  const allowed = new Set<Precision>(escalation.resolutionPrecisions ?? DEFAULT_ESCALATION.resolutionPrecisions);
  /** Agents with nothing that could make a pair incomparable or unknown (the common case). */
  const plain = ordered.map(
    (x) =>
      x.base === undefined && x.repository === undefined && !(x.incomplete && x.incomplete.length > 0) && context.repository === undefined,
  );
  const links: Link[] = [];
  const advisories: Advisory[] = [];
  const n = scored.length;
  const totalPairs = (n * (n - 1)) / 2;
  const counts = { agents: n, pairs: totalPairs, clear: 0, traffic: 0, resolution: 0, unknown: 0 };
  const exhaustive = options.exhaustive === true;
  const evidenceMinRisk = options.evidenceMinRisk ?? DEFAULT_EVIDENCE_MIN_RISK;
  const indexOf = new Map(scored.map((x, i) => [x.id, i]));
  const pairKeyOf = (i: number, j: number): number => (i < j ? i * n + j : j * n + i);

  // The previous scan's pair scores, for pairs of agents whose working sets did not change.
  const cache = !exhaustive && options.reuse ? (options.reuse as PairCacheState) : undefined;
  const keys = cache ? scored.map(workingSetKey) : undefined;
  /** Agents whose pairs are scored again; undefined: every agent's. */
  let changed: Set<string> | undefined;
  if (cache) {
    const version = JSON.stringify({
      key: options.reuseKey ?? '',
      channels: active.map((c) => c.channel.id),
      skipped: skipped.map((c) => c.channel.id),
      weights,
      thresholds,
      escalation,
      channelOptions: options.channelOptions ?? null,
      maxEvidence,
      evidenceMinRisk,
      repository: context.repository?.id ?? null,
    });
    if (cache.version !== version) {
      cache.version = version;
      cache.agentKeys.clear();
      cache.pairs.clear();
    } else {
      changed = new Set();
      for (let i = 0; i < n; i++) if (cache.agentKeys.get(scored[i]!.id) !== keys![i]) changed.add(scored[i]!.id);
    }
  }

  // Which pairs to score. A sparse channel (one with `candidates`) names the pairs it may score
  // above 0; the others are dense. A pair that no sparse channel outside the light set names
  // is left out (no link; counted clear): only light channels can score it, and together they
  // stay below τ_TA (1 − Π(1 − ω) over them), so its level is clear whatever they score and its
  // risk at most that bound. Without such a sparse channel every pair is scored. Agents that
  // could make a pair unknown are always scored.
  const sparse: (Set<number> | undefined)[] = active.map(() => undefined);
  let toScore: number[];
  if (exhaustive) {
    toScore = [];
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) toScore.push(i * n + j);
  } else {
    // Light channels: the dense ones, then sparse ones by rising weight, as long as together they
    // stay below τ_TA. They are scored on the pairs the others name; their own candidates are
    // not asked for (a dependency channel's would need every agent's import reach).
    let lightKeep = 1;
    const light = new Set<number>();
    for (let c = 0; c < active.length; c++) if (!active[c]!.channel.candidates) (light.add(c), (lightKeep *= 1 - active[c]!.weight));
    const bySize = [...active.keys()].filter((c) => !light.has(c)).sort((x, y) => active[x]!.weight - active[y]!.weight);
    for (const c of bySize) {
      if (1 - lightKeep * (1 - active[c]!.weight) >= thresholds.traffic) break;
      light.add(c);
      lightKeep *= 1 - active[c]!.weight;
    }
    // The dense channels alone can reach τ_TA: every pair is scored.
    let allPairs = 1 - lightKeep >= thresholds.traffic;
    for (let c = 0; c < active.length; c++) {
      const entry = active[c]!;
      if (light.has(c) || !entry.channel.candidates || entry.stopped) continue;
      try {
        const call = () => entry.channel.candidates!(scored, entry.ctx, changed);
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
    const involved = (i: number, j: number) => !changed || changed.has(scored[i]!.id) || changed.has(scored[j]!.id);
    if (allPairs || sparse.every((x) => x === undefined)) {
      toScore = [];
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (involved(i, j)) toScore.push(i * n + j);
    } else {
      const union = new Set<number>();
      for (const set of sparse) if (set) for (const k of set) if (involved(Math.floor(k / n), k % n)) union.add(k);
      for (let i = 0; i < n; i++) {
        if (plain[i]) continue;
        for (let j = 0; j < n; j++) if (j !== i && involved(i, j)) union.add(pairKeyOf(i, j));
      }
      toScore = [...union];
    }
  }
  /** Pairs kept from the previous scan, by pair key. */
  const reused = new Map<number, readonly ChannelBreakdown[]>();
  if (cache && changed) {
    for (const entry of cache.pairs.values()) {
      const i = indexOf.get(entry.a);
      const j = indexOf.get(entry.b);
      if (i === undefined || j === undefined || changed.has(entry.a) || changed.has(entry.b)) continue;
      reused.set(pairKeyOf(i, j), entry.channels);
    }
  }
  const order = reused.size > 0 ? [...new Set([...toScore, ...reused.keys()])] : toScore;
  order.sort((x, y) => x - y);
  const nextPairs = new Map<string, CachedPair>();
  const skippedIds = new Set(skipped.map((x) => x.channel.id));

  /** One channel's part of a pair: `score` (with evidence) or `risk` (evidence deferred). */
  const callChannel = async (entry: ActiveChannel, a: Agent, b: Agent, withEvidence: boolean): Promise<Part> => {
    // Already recorded once: not logged again for each pair.
    if (entry.stopped)
      return {
        channel: entry.channel.id,
        weight: entry.weight,
        risk: 0,
        weighted: 0,
        precision: entry.precision,
        evidence: EMPTY,
        problems: [entry.stopped],
        quiet: true,
      };
    const cheap = !withEvidence && entry.channel.risk !== undefined;
    let result: unknown;
    let pairProblems: Problem[] | undefined; // allocated only when something goes wrong
    try {
      const call = cheap ? () => entry.channel.risk!(a, b, entry.ctx) : () => entry.channel.score(a, b, entry.ctx);
      if (entry.clock) result = await entry.clock.run(call, [a.id, b.id]);
      else {
        result = call();
        if (isThenable<ChannelScore>(result)) result = await result;
      }
    } catch (error) {
      if (isChannelStopped(error)) entry.stopped = error.problem;
      (pairProblems ??= []).push(isChannelStopped(error) ? error.problem : channelThrew(entry.channel.id, error, [a.id, b.id]));
      result = undefined;
    }
    let risk = 0;
    let precisePart: number | undefined;
    let evidence: readonly Evidence[] = EMPTY;
    if (result !== undefined) {
      const r = result as Partial<ChannelScore> | null;
      const value = r?.risk;
      if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || value > 1) {
        (pairProblems ??= []).push(riskOutOfRange(entry.channel.id, value, [a.id, b.id]));
      } else {
        evidence = Array.isArray(r!.evidence) ? r!.evidence : EMPTY;
        // A risk nobody can point at is not acted on: a problem, and it counts as 0.
        if (value > 0 && evidence.length === 0 && !cheap)
          (pairProblems ??= []).push(missingEvidence(entry.channel.id, value, [a.id, b.id]));
        else risk = value;
        const precise = r!.preciseRisk;
        if (typeof precise === 'number' && precise >= 0 && precise < risk) precisePart = precise;
      }
      if (Array.isArray(r?.problems) && r!.problems.length > 0) {
        for (const p of r!.problems) (pairProblems ??= []).push(p.channel ? p : { ...p, channel: entry.channel.id });
      }
    }
    const part: Part = {
      channel: entry.channel.id,
      weight: entry.weight,
      risk,
      weighted: entry.weight * risk,
      precision: entry.precision,
      ...(precisePart !== undefined ? { preciseRisk: precisePart } : {}),
      evidence,
    };
    if (pairProblems) part.problems = pairProblems;
    if (cheap && risk > 0 && evidence.length === 0) part.deferred = true;
    return part;
  };

  const classify = (
    breakdown: readonly ChannelBreakdown[],
    comparable: { comparable: boolean; reasons: readonly string[] },
  ): { risk: number; level: Level; levelReason?: string } => {
    // Risks and weights are validated, so the noisy-OR is computed in place (no copies):
    // R over every channel, and over the channels allowed to escalate to resolution.
    let keep = 1;
    let keepPrecise = 1;
    for (const c of breakdown) {
      keep *= 1 - c.weighted;
      if (allowed.has(c.precision)) keepPrecise *= 1 - (c.preciseRisk !== undefined ? c.weight * c.preciseRisk : c.weighted);
    }
    const risk = Math.min(1, Math.max(0, 1 - keep));
    const preciseRisk = Math.min(1, Math.max(0, 1 - keepPrecise));
    let level: Level;
    let levelReason: string | undefined;
    if (!comparable.comparable) {
      level = 'unknown';
      levelReason = comparable.reasons.join('; ');
    } else {
      level = bandOf(risk, thresholds);
      if (level === 'resolution' && preciseRisk < thresholds.resolution) {
        const classified = classifyRisk(breakdown.map(weightedOf), thresholds, escalation);
        level = classified.level;
        levelReason = classified.levelReason;
      }
      if (comparable.reasons.length > 0) {
        // Missing data can hide risk, never remove it: such a pair is never clear. Nor does
        // file-level evidence raise an advisory for it (an incomplete agent's files are whole
        // fallbacks): only line- or symbol-precise evidence does; otherwise it is unknown.
        const why = comparable.reasons.join('; ');
        if (level === 'clear' || preciseRisk < thresholds.traffic) {
          const coarse = level !== 'clear' ? `; file-level evidence alone (risk ${risk.toFixed(2)}) raises no advisory for it` : '';
          level = 'unknown';
          levelReason = `${why}${coarse}`;
        } else {
          levelReason = levelReason ? `${levelReason}; ${why}` : why;
        }
      }
    }
    return { risk, level, ...(levelReason !== undefined ? { levelReason } : {}) };
  };

  let pairsDone = 0;
  for (const key of order) {
    if (options.onProgress && pairsDone > 0 && pairsDone % PROGRESS_EVERY === 0) options.onProgress(pairsDone, order.length);
    pairsDone++;
    const i = Math.floor(key / n);
    const j = key % n;
    const a = scored[i]!;
    const b = scored[j]!;
    const comparable = plain[i] && plain[j] ? COMPARABLE : comparability(ordered[i]!, ordered[j]!, context.repository?.id);
    let breakdown: readonly Part[];
    const kept = reused.get(key);
    if (kept) {
      breakdown = kept;
      for (const c of kept) if (!skippedIds.has(c.channel)) for (const p of c.problems ?? []) problems.add(p);
      if (!comparable.comparable) problems.add(incomparableAgents(a.id, b.id, comparable.reasons.join('; ')));
    } else {
      const parts: Part[] = [];
      if (!comparable.comparable) {
        problems.add(incomparableAgents(a.id, b.id, comparable.reasons.join('; ')));
      } else {
        for (let c = 0; c < active.length; c++) {
          const entry = active[c]!;
          const set = sparse[c];
          if (set && !set.has(key)) {
            parts.push({
              channel: entry.channel.id,
              weight: entry.weight,
              risk: 0,
              weighted: 0,
              precision: entry.precision,
              evidence: EMPTY,
            });
            continue;
          }
          // With no evidence floor every pair with a risk gets its evidence: `score` at once, not
          // `risk` and then `score` (a channel's `risk` is its `score`'s, without evidence).
          parts.push(await callChannel(entry, a, b, exhaustive || evidenceMinRisk <= 0));
        }
      }
      for (const s of skipped) {
        parts.push({
          channel: s.channel.id,
          weight: s.weight,
          risk: 0,
          weighted: 0,
          precision: s.precision,
          evidence: [],
          problems: [s.problem],
          quiet: true,
        });
      }
      let classified = classify(parts, comparable);
      // Evidence for the pairs that are reported: an advisory, or a link worth showing.
      if (parts.some((p) => p.deferred) && (classified.level !== 'clear' || (classified.risk > 0 && classified.risk >= evidenceMinRisk))) {
        for (let c = 0; c < parts.length; c++) {
          if (!parts[c]!.deferred) continue;
          parts[c] = await callChannel(
            active.find((x) => x.channel.id === parts[c]!.channel)!,
            a,
            b,
            true,
          );
        }
        classified = classify(parts, comparable);
      }
      for (const p of parts) if (!p.quiet) for (const q of p.problems ?? []) problems.add(q);
      breakdown = parts;
    }
    const { risk, level, levelReason } = classify(breakdown, comparable);
    let evidence: readonly Evidence[] = EMPTY;
    let withEvidence = 0;
    let deferredEvidence = false;
    for (const c of breakdown) {
      if (c.evidence.length > 0) (withEvidence++, (evidence = c.evidence));
      else if (c.risk > 0) deferredEvidence = true;
    }
    if (withEvidence > 1 || evidence.length > maxEvidence) {
      const ranked: { e: Evidence; s: number }[] = [];
      for (const c of breakdown) for (const e of c.evidence) ranked.push({ e, s: strength(e, c.risk, c.weight) });
      ranked.sort((x, y) => y.s - x.s);
      evidence = ranked.slice(0, maxEvidence).map((x) => x.e);
    }
    const channels: readonly ChannelBreakdown[] = breakdown.map((c) => ('deferred' in c || 'quiet' in c ? plainPart(c) : c));
    if (cache) nextPairs.set(`${a.id}\u0000${b.id}`, { a: a.id, b: b.id, channels });
    const link: Link = {
      a: a.id,
      b: b.id,
      risk,
      distance: 1 - risk,
      level,
      ...(levelReason !== undefined ? { levelReason } : {}),
      channels,
      evidence,
      ...(deferredEvidence && !exhaustive ? { deferredEvidence: true as const } : {}),
    };
    links.push(link);
    counts[level]++;
    if (level !== 'clear') {
      const A = ordered[i]!;
      const B = ordered[j]!;
      const way = level === 'resolution' ? rightOfWay(A, B) : undefined;
      advisories.push({
        a: a.id,
        b: b.id,
        level,
        risk: link.risk,
        ...(way ? { steer: way.steer.id, hold: way.hold.id } : {}),
        evidence: link.evidence,
        message: advisoryMessage(link, A, B, way?.steer, way?.hold),
      });
    }
  }
  // Pairs neither scored nor kept are clear (see above).
  counts.clear = totalPairs - counts.traffic - counts.resolution - counts.unknown;
  if (cache) {
    cache.pairs = nextPairs;
    cache.agentKeys.clear();
    for (let i = 0; i < n; i++) cache.agentKeys.set(scored[i]!.id, keys![i]!);
  }
  options.onProgress?.(order.length, order.length);
  advisories.sort(
    (x, y) => levelRank(y.level) - levelRank(x.level) || y.risk - x.risk || (x.a < y.a ? -1 : x.a > y.a ? 1 : x.b < y.b ? -1 : 1),
  );

  const { positions, fileCoordinates } = embedAgents(scored, options.edges ? { edges: options.edges } : {});
  logger.debug(`scanned ${ordered.length} agents, ${counts.pairs} pairs, ${active.length} channels`);
  const scanCounts: ScanCounts = counts;
  return {
    version: 1,
    generatedAt: new Date(now).toISOString(),
    thresholds,
    weights,
    agents: ordered,
    advisories,
    links,
    positions,
    fileCoordinates,
    counts: scanCounts,
    problems: problems.finish(),
  };
}
