/**
 * `scanAirspace`: one pass from agents to advisories. Sanitize and freeze the agents
 * (scan-input.ts); weigh, check and prepare each channel once (scan-channels.ts); choose the pairs
 * to score (pair-selection.ts), keep unchanged pairs from the previous scan (pair-cache.ts); score
 * each pair, combine by noisy-OR and classify with the TCAS bands and the escalation discipline
 * (pair-scoring.ts); embed for the view. A failing channel costs its own score, never the scan.
 */
import type { Logger, Precision } from './channel.js';
import { embedAgents } from './embedding.js';
import {
  duplicateAgentId,
  incomparableAgents,
  incompleteAgent,
  invalidForecastModel,
  invalidProbabilityMap,
  invalidThresholds,
} from './errors.js';
import {
  DEFAULT_FORECAST_MODEL,
  forecastFor,
  forecastModelProblem,
  gitMergeOf,
  sharedChangedFiles,
  type ForecastModel,
} from './forecast.js';
import {
  agentRecentConflicts,
  DEFAULT_PROBABILITY_MAP,
  pairProbability,
  pairRecentConflicts,
  probabilityMapProblem,
  type ProbabilityMap,
} from './probability.js';
import type { Agent } from './model.js';
import {
  changedAgents,
  keptPairs,
  rememberScan,
  workingSetKey,
  type CachedPair,
  type PairCache,
  type PairCacheState,
} from './pair-cache.js';
import { choosePairs } from './pair-selection.js';
import { classifyPair, linkEvidence, plainPart, scorePair, type LevelRules, type Part } from './pair-scoring.js';
import type { ChannelEntry, ChannelRegistry } from './registry.js';
import type { ChannelBudget } from './scan-budget.js';
import { prepareChannels } from './scan-channels.js';
import { deepFreeze, ProblemLog, resolveChannels, sanitizeAgent } from './scan-input.js';
import type { Advisory, ChannelBreakdown, Link, ScanCounts, ScanResult, Thresholds } from './scan-types.js';
import { DEFAULT_THRESHOLDS } from './scan-types.js';
import type { PastConflictsService, Services } from './services.js';
import type { EscalationOptions } from './tcas.js';
import { DEFAULT_ESCALATION, comparability, levelRank, rightOfWay } from './tcas.js';

export { createPairCache, workingSetKey, type PairCache } from './pair-cache.js';
export type { ChannelBudget } from './scan-budget.js';
export { deepFreeze } from './scan-input.js';

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
  /** Risk → probability for each link (`probability.ts`); default the shipped map. */
  readonly probability?: ProbabilityMap;
  /** The forecast of clear pairs (`forecast.ts`); default the shipped model, false: none. */
  readonly forecast?: ForecastModel | false;
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
  /**
   * git's verdict on a pair's real states (`clean` or `conflict`; undefined when it cannot say),
   * for pairs the merge channel did not score because it was left out (a probe: an edit not yet
   * made). A pair's probability reads the map part its git verdict selects (`pairProbability`), so
   * with it a probe's pair reads the same part as the scan of that pair: one number on every surface.
   */
  readonly gitMerge?: (a: Agent, b: Agent) => Promise<'clean' | 'conflict' | undefined>;
}

/**
 * By default every link the scan keeps gets its evidence: once pairs sharing nothing are left out
 * and evidence is bounded per pair, building it cost nothing measurable (100 agents × 50 files:
 * 650–750 ms of CPU with and without). A caller that keeps many links (dense channels) may raise
 * it: clear links below it then keep `deferredEvidence`.
 */
export const DEFAULT_EVIDENCE_MIN_RISK = 0;

/** Pairs between two progress reports. */
const PROGRESS_EVERY = 500;
const COMPARABLE = { comparable: true, reasons: [] as string[] } as const;
const SILENT: Logger = { debug() {}, info() {}, warn() {} };

export async function scanAirspace(agents: readonly Agent[], context: ScanContext, options: ScanOptions = {}): Promise<ScanResult> {
  const now = context.now ?? Date.now();
  const logger = context.logger ?? SILENT;
  const problems = new ProblemLog();
  const settings = scanSettings(options, problems);
  const { ordered, scored } = orderAgents(agents, problems);

  // Channels: weights, services, options, prepare once.
  const { weights, active, skipped } = await prepareChannels(
    resolveChannels(context.channels, problems),
    scored,
    {
      services: context.services ?? {},
      now,
      logger,
      ...(options.weights ? { weights: options.weights } : {}),
      ...(options.channelOptions ? { channelOptions: options.channelOptions } : {}),
      ...(options.budgets ? { budgets: options.budgets } : {}),
      ...(context.repository ? { repository: context.repository } : {}),
    },
    problems,
  );

  const plan = await planPairs({ ordered, scored, active, skipped, weights, settings, context, options }, problems);
  const n = scored.length;
  const totalPairs = (n * (n - 1)) / 2;
  const counts = { agents: n, pairs: totalPairs, clear: 0, traffic: 0, resolution: 0, unknown: 0 };
  const links: Link[] = [];
  const advisories: Advisory[] = [];
  const nextPairs = new Map<string, CachedPair>();
  const recentOf = recentConflictsReader();
  const pairContext: PairContext = {
    ordered,
    scored,
    active,
    skipped,
    settings,
    context,
    options,
    plan,
    problems,
    recentOf,
    skippedIds: new Set(skipped.map((x) => x.channel.id)),
  };

  let pairsDone = 0;
  for (const key of plan.order) {
    if (options.onProgress && pairsDone > 0 && pairsDone % PROGRESS_EVERY === 0) options.onProgress(pairsDone, plan.order.length);
    pairsDone++;
    const i = Math.floor(key / n);
    const j = key % n;
    const link = await scoreLink(i, j, key, pairContext);
    if (plan.cache) nextPairs.set(`${link.a}\u0000${link.b}`, { a: link.a, b: link.b, channels: link.channels });
    links.push(link);
    counts[link.level]++;
    if (link.level !== 'clear') advisories.push(advisoryFor({ ...link, level: link.level }, ordered[i]!, ordered[j]!));
  }
  // Pairs neither scored nor kept are clear (see pair-selection.ts).
  counts.clear = totalPairs - counts.traffic - counts.resolution - counts.unknown;
  if (plan.cache) rememberScan(plan.cache, nextPairs, scored, plan.keys!);
  options.onProgress?.(plan.order.length, plan.order.length);
  advisories.sort(
    (x, y) => levelRank(y.level) - levelRank(x.level) || y.risk - x.risk || (x.a < y.a ? -1 : x.a > y.a ? 1 : x.b < y.b ? -1 : 1),
  );

  const { positions, fileCoordinates } = embedAgents(scored, options.edges ? { edges: options.edges } : {});
  logger.debug(`scanned ${ordered.length} agents, ${counts.pairs} pairs, ${active.length} channels`);
  const scanCounts: ScanCounts = counts;
  return {
    version: 1,
    generatedAt: new Date(now).toISOString(),
    thresholds: settings.thresholds,
    weights,
    probabilityLabel: settings.probabilityMap.label,
    agents: ordered,
    advisories,
    links,
    positions,
    fileCoordinates,
    counts: scanCounts,
    problems: problems.finish(),
  };
}

/** The scan's options, checked: a bad threshold, map or model is a problem and falls back to the default. */
interface ScanSettings {
  readonly thresholds: Thresholds;
  readonly escalation: EscalationOptions;
  readonly probabilityMap: ProbabilityMap;
  readonly forecastModel: ForecastModel | false;
  readonly maxEvidence: number;
  readonly rules: LevelRules;
  readonly exhaustive: boolean;
  readonly evidenceMinRisk: number;
}

function scanSettings(options: ScanOptions, problems: ProblemLog): ScanSettings {
  let thresholds: Thresholds = { ...DEFAULT_THRESHOLDS, ...(options.thresholds ?? {}) };
  if (!(thresholds.traffic >= 0 && thresholds.resolution <= 1 && thresholds.traffic <= thresholds.resolution)) {
    problems.add(invalidThresholds(thresholds));
    thresholds = DEFAULT_THRESHOLDS;
  }
  const escalation: EscalationOptions = { ...DEFAULT_ESCALATION, ...(options.escalation ?? {}) };
  let probabilityMap = options.probability ?? DEFAULT_PROBABILITY_MAP;
  const mapProblem = probabilityMapProblem(probabilityMap);
  if (mapProblem !== undefined) {
    problems.add(invalidProbabilityMap(mapProblem));
    probabilityMap = DEFAULT_PROBABILITY_MAP;
  }
  let forecastModel = options.forecast ?? DEFAULT_FORECAST_MODEL;
  const forecastProblem = forecastModel === false ? undefined : forecastModelProblem(forecastModel);
  if (forecastProblem !== undefined) {
    problems.add(invalidForecastModel(forecastProblem));
    forecastModel = DEFAULT_FORECAST_MODEL;
  }
  const rules: LevelRules = {
    thresholds,
    escalation,
    allowed: new Set<Precision>(escalation.resolutionPrecisions ?? DEFAULT_ESCALATION.resolutionPrecisions),
  };
  return {
    thresholds,
    escalation,
    probabilityMap,
    forecastModel,
    maxEvidence: options.maxLinkEvidence ?? 10,
    rules,
    exhaustive: options.exhaustive === true,
    evidenceMinRisk: options.evidenceMinRisk ?? DEFAULT_EVIDENCE_MIN_RISK,
  };
}

/** Agents with unique ids, sorted (`ordered`), and frozen, sanitized copies for channels (`scored`). */
function orderAgents(agents: readonly Agent[], problems: ProblemLog): { ordered: Agent[]; scored: readonly Agent[] } {
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
  return { ordered, scored };
}

type PreparedChannels = Awaited<ReturnType<typeof prepareChannels>>;

/** Which pairs this scan scores, which it keeps from the previous scan, and in what order. */
interface PairPlan {
  /** Pair keys (`i * n + j`, i < j) to score or keep, ascending. */
  readonly order: readonly number[];
  readonly sparse: Awaited<ReturnType<typeof choosePairs>>['sparse'];
  /** Pairs kept from the previous scan, by pair key. */
  readonly reused: ReadonlyMap<number, readonly ChannelBreakdown[]>;
  /** Agents with nothing that could make a pair incomparable or unknown (the common case). */
  readonly plain: readonly boolean[];
  readonly cache: PairCacheState | undefined;
  readonly keys: readonly string[] | undefined;
}

async function planPairs(
  input: {
    ordered: readonly Agent[];
    scored: readonly Agent[];
    active: PreparedChannels['active'];
    skipped: PreparedChannels['skipped'];
    weights: PreparedChannels['weights'];
    settings: ScanSettings;
    context: ScanContext;
    options: ScanOptions;
  },
  problems: ProblemLog,
): Promise<PairPlan> {
  const { ordered, scored, active, skipped, weights, settings, context, options } = input;
  const plain = ordered.map(
    (x) =>
      x.base === undefined && x.repository === undefined && !(x.incomplete && x.incomplete.length > 0) && context.repository === undefined,
  );
  const n = scored.length;
  const indexOf = new Map(scored.map((x, i) => [x.id, i]));
  const pairKeyOf = (i: number, j: number): number => (i < j ? i * n + j : j * n + i);

  // The previous scan's pair scores, for pairs of agents whose working sets did not change.
  const cache = !settings.exhaustive && options.reuse ? (options.reuse as PairCacheState) : undefined;
  const keys = cache ? scored.map(workingSetKey) : undefined;
  /** Agents whose pairs are scored again; undefined: every agent's. */
  const changed = cache
    ? changedAgents(
        cache,
        JSON.stringify({
          key: options.reuseKey ?? '',
          channels: active.map((c) => c.channel.id),
          skipped: skipped.map((c) => c.channel.id),
          weights,
          thresholds: settings.thresholds,
          escalation: settings.escalation,
          channelOptions: options.channelOptions ?? null,
          maxEvidence: settings.maxEvidence,
          evidenceMinRisk: settings.evidenceMinRisk,
          repository: context.repository?.id ?? null,
        }),
        scored,
        keys!,
      )
    : undefined;

  const { toScore, sparse } = await choosePairs(
    { agents: scored, active, traffic: settings.thresholds.traffic, exhaustive: settings.exhaustive, plain, changed, indexOf, pairKeyOf },
    problems,
  );
  const reused =
    cache && changed
      ? keptPairs(cache, changed, (x, y) => {
          const i = indexOf.get(x);
          const j = indexOf.get(y);
          return i === undefined || j === undefined ? undefined : pairKeyOf(i, j);
        })
      : new Map<number, readonly ChannelBreakdown[]>();
  const order = reused.size > 0 ? [...new Set([...toScore, ...reused.keys()])] : toScore;
  order.sort((x, y) => x - y);
  return { order, sparse, reused, plain, cache, keys };
}

/** Each agent's recent conflict rate, read once per scan (every clean pair of it reads it). */
function recentConflictsReader(): (agent: Agent, service: PastConflictsService, merges: number) => Promise<number | undefined> {
  const recentByAgent = new Map<string, Promise<number | undefined>>();
  return (agent, service, merges) => {
    let rate = recentByAgent.get(agent.id);
    if (!rate) recentByAgent.set(agent.id, (rate = agentRecentConflicts(agent, service, merges)));
    return rate;
  };
}

interface PairContext {
  readonly ordered: readonly Agent[];
  readonly scored: readonly Agent[];
  readonly active: PreparedChannels['active'];
  readonly skipped: PreparedChannels['skipped'];
  readonly settings: ScanSettings;
  readonly context: ScanContext;
  readonly options: ScanOptions;
  readonly plan: PairPlan;
  readonly problems: ProblemLog;
  readonly recentOf: ReturnType<typeof recentConflictsReader>;
  readonly skippedIds: ReadonlySet<string>;
}

/** One pair's link: its channels' parts (scored now or kept), its level, probability and forecast. */
async function scoreLink(i: number, j: number, key: number, pc: PairContext): Promise<Link> {
  const { ordered, scored, settings, context, plan, problems } = pc;
  const a = scored[i]!;
  const b = scored[j]!;
  const comparable = plan.plain[i] && plan.plain[j] ? COMPARABLE : comparability(ordered[i]!, ordered[j]!, context.repository?.id);
  let breakdown: readonly Part[];
  const kept = plan.reused.get(key);
  if (kept) {
    breakdown = kept;
    for (const c of kept) if (!pc.skippedIds.has(c.channel)) for (const p of c.problems ?? []) problems.add(p);
    if (!comparable.comparable) problems.add(incomparableAgents(a.id, b.id, comparable.reasons.join('; ')));
  } else {
    if (!comparable.comparable) problems.add(incomparableAgents(a.id, b.id, comparable.reasons.join('; ')));
    const parts = await scorePair(
      a,
      b,
      key,
      comparable,
      { active: pc.active, sparse: plan.sparse, skipped: pc.skipped },
      {
        withEvidence: settings.exhaustive || settings.evidenceMinRisk <= 0,
        evidenceMinRisk: settings.evidenceMinRisk,
        rules: settings.rules,
      },
    );
    for (const p of parts) if (!p.quiet) for (const q of p.problems ?? []) problems.add(q);
    breakdown = parts;
  }
  const { risk, level, levelReason } = classifyPair(breakdown, comparable, settings.rules);
  const { evidence, deferredEvidence } = linkEvidence(breakdown, settings.maxEvidence);
  const channels: readonly ChannelBreakdown[] = breakdown.map((c) => ('deferred' in c || 'quiet' in c ? plainPart(c) : c));
  const probability = await linkProbability(ordered[i]!, ordered[j]!, { a, b, risk, level, channels }, pc);
  const forecast = settings.forecastModel
    ? forecastFor({ a: a.id, b: b.id, level, channels }, () => sharedChangedFiles(a, b), settings.forecastModel)
    : undefined;
  return {
    a: a.id,
    b: b.id,
    risk,
    distance: 1 - risk,
    ...(probability !== undefined ? { probability } : {}),
    level,
    ...(levelReason !== undefined ? { levelReason } : {}),
    channels,
    evidence,
    ...(deferredEvidence && !settings.exhaustive ? { deferredEvidence: true as const } : {}),
    ...(forecast ? { forecast } : {}),
  };
}

/**
 * A pair git merges cleanly reads the map's clean part with the repository's recent conflict
 * rate; one whose merge is unknown reads the risk's map. A probe leaves the merge channel out:
 * git's verdict on the pair's real states (`gitMerge`) selects the part, as a scan's would.
 * An unknown pair has no probability: its risk is what could be seen, not a measure of it.
 */
async function linkProbability(
  realA: Agent,
  realB: Agent,
  pair: { a: Agent; b: Agent; risk: number; level: Link['level']; channels: readonly ChannelBreakdown[] },
  pc: PairContext,
): Promise<number | undefined> {
  const { probabilityMap } = pc.settings;
  const pastConflicts = pc.context.services?.pastConflicts;
  const { options } = pc;
  const verdict =
    gitMergeOf(pair.channels) ??
    (options.gitMerge &&
    pair.level !== 'unknown' &&
    probabilityMap.clean &&
    pastConflicts &&
    !pair.channels.some((c) => c.channel === 'merge')
      ? await options.gitMerge(realA, realB).catch(() => undefined)
      : undefined);
  const clean = verdict === 'clean';
  const recentConflicts =
    probabilityMap.clean && clean && pastConflicts
      ? pairRecentConflicts([
          await pc.recentOf(pair.a, pastConflicts, probabilityMap.clean.recentMerges),
          await pc.recentOf(pair.b, pastConflicts, probabilityMap.clean.recentMerges),
        ])
      : undefined;
  return pair.level === 'unknown'
    ? undefined
    : pairProbability(pair.risk, { clean, ...(recentConflicts !== undefined ? { recentConflicts } : {}) }, probabilityMap);
}

/** The advisory of a pair that is not clear: who steers and who holds at resolution, and why. */
function advisoryFor(link: Link & { level: Advisory['level'] }, A: Agent, B: Agent): Advisory {
  const way = link.level === 'resolution' ? rightOfWay(A, B) : undefined;
  return {
    a: link.a,
    b: link.b,
    level: link.level,
    risk: link.risk,
    ...(link.probability !== undefined ? { probability: link.probability } : {}),
    ...(way ? { steer: way.steer.id, hold: way.hold.id } : {}),
    evidence: link.evidence,
    message: advisoryMessage(link, A, B, way?.steer, way?.hold),
  };
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
