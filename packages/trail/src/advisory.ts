/**
 * The local advisory of a trail event: two footprints (observed, or one declared in a scope
 * revision) scored with the shipped channels through core's `scanAirspace`, then the trail's own
 * rules on top — `unknown` for pairs that cannot be compared, and exact path overlap taking
 * precedence over a low score.
 */
import type { Agent, ChannelEntry, Level, Link, Thresholds } from '@airspace/core';
import { importGraphOfEdges, levelRank, scanAirspace } from '@airspace/core';
import { builtinChannels } from '@airspace/scanner';
import { canonicalize, sha256Hex, sortedSet } from './canonical.js';
import type { ShadowObservation } from './observation.js';
import { comparabilityProblems } from './observation.js';

/** A dependency graph as supplied: edges `[from, to]` (from imports to), repository-relative paths. */
export interface DependencyGraphInput {
  readonly edges: readonly (readonly [string, string])[];
}

/** The graph as a trail stores it: edges sorted by (from, to) and deduplicated. */
export interface TrailGraph {
  readonly edges: readonly (readonly [string, string])[];
}

/** What one agent is taken to read and write for one advisory. */
export interface Footprint {
  readonly agentId: string;
  readonly readPaths: readonly string[];
  readonly writePaths: readonly string[];
}

/** Paths two footprints share exactly. `aWritesBReads`: written by the first agent, read by the second. */
export interface ExactOverlaps {
  readonly writeWrite: readonly string[];
  readonly aWritesBReads: readonly string[];
  readonly aReadsBWrites: readonly string[];
}

/** Which sides of the two footprints a scored link compares. */
export type LinkSides = 'write/write' | 'write/read' | 'read/write';

export interface ScoredLink {
  readonly sides: LinkSides;
  readonly risk: number;
  readonly level: Level;
}

export interface ChannelRisk {
  readonly channel: string;
  readonly weight: number;
  readonly risk: number;
}

export interface AdvisoryEvidence {
  readonly kind: string;
  readonly message: string;
}

/** The advisory a trail records. Every field is JSON; `null` stands for "not computed". */
export interface TrailAdvisory {
  /** `clear` means only: none found within the complete, comparable supplied scope and graph. */
  readonly level: Level;
  /** True for `traffic` and `resolution`. */
  readonly found: boolean;
  /** Combined risk R of the strongest link, or null when the pair is `unknown` (not scored). */
  readonly risk: number | null;
  /** Why the level is not simply the band of `risk` (unknown, exact-overlap precedence, capping). */
  readonly levelReason: string | null;
  /** Every reason the pair is `unknown`; empty otherwise. */
  readonly unknownReasons: readonly string[];
  readonly exactOverlaps: ExactOverlaps;
  /** The scored links (write/write, and read/write each way when a side reads), strongest first. */
  readonly links: readonly ScoredLink[];
  /** Channel breakdown of the strongest link, by channel id. */
  readonly channels: readonly ChannelRisk[];
  readonly evidence: readonly AdvisoryEvidence[];
  /** How many dependency edges the scoring saw, and the SHA-256 of their canonical JSON. */
  readonly graph: { readonly edgeCount: number; readonly digest: string };
  /** The sentence a reader needs: what this level does and does not say. */
  readonly statement: string;
}

export interface AdvisoryOptions {
  /** Channels to score with; default the shipped ones (`shippedChannels()`). */
  readonly channels?: readonly ChannelEntry[];
  readonly weights?: Readonly<Record<string, number>>;
  readonly thresholds?: Partial<Thresholds>;
}

const READS_SUFFIX = ' (reads)';
const EVIDENCE_KEPT = 10;

/**
 * The channels a trail scores with by default: the scanner's built-ins that work from observations
 * alone (paths and a supplied graph, no repository access), in the order receipts have always
 * listed them.
 */
export function shippedChannels(): ChannelEntry[] {
  return builtinChannels(['overlap', 'dependency', 'tree']).map((c) => c.channel);
}

/** Graph edges as the trail stores them (validated by the caller). */
export function normalizeGraph(graph: DependencyGraphInput | undefined): TrailGraph {
  const seen = new Map<string, readonly [string, string]>();
  for (const [from, to] of graph?.edges ?? []) seen.set(canonicalize([from, to]), [from, to]);
  const keys = sortedSet(seen.keys());
  return { edges: keys.map((k) => seen.get(k)!) };
}

export function graphDigest(graph: TrailGraph): string {
  return sha256Hex(canonicalize(graph.edges));
}

export function exactOverlaps(a: Footprint, b: Footprint): ExactOverlaps {
  const intersect = (x: readonly string[], y: readonly string[]): string[] => {
    const set = new Set(y);
    return sortedSet(x.filter((p) => set.has(p)));
  };
  return {
    writeWrite: intersect(a.writePaths, b.writePaths),
    aWritesBReads: intersect(a.writePaths, b.readPaths),
    aReadsBWrites: intersect(a.readPaths, b.writePaths),
  };
}

/** A footprint side as a core Agent: each path a whole-file edit (observations carry no line ranges). */
function sideAgent(id: string, label: string, paths: readonly string[], observation: ShadowObservation): Agent {
  return {
    id,
    label,
    startedAt: Date.parse(observation.observedAt),
    committedWork: 0,
    files: paths.map((path) => ({
      path,
      status: 'modified' as const,
      weight: 1,
      baseRanges: 'whole' as const,
      newRanges: 'whole' as const,
    })),
    base: observation.base,
    repository: observation.repositoryId,
  };
}

/**
 * Score two footprints with the channels: one `scanAirspace` over each agent's write side and,
 * when it reads anything, its read side; the pair's risk is its strongest write/write or
 * read/write link (read/read and an agent with itself are not hazards and are ignored).
 */
async function scanFootprints(
  a: Footprint,
  b: Footprint,
  observations: readonly [ShadowObservation, ShadowObservation],
  graph: TrailGraph,
  time: string,
  options: AdvisoryOptions,
): Promise<{ links: ScoredLink[]; strongest: Link | undefined }> {
  const agents: Agent[] = [];
  const sides = new Map<string, { agent: string; side: 'write' | 'read' }>();
  for (const [i, footprint] of [a, b].entries()) {
    const observation = observations[i]!;
    agents.push(sideAgent(footprint.agentId, footprint.agentId, footprint.writePaths, observation));
    sides.set(footprint.agentId, { agent: footprint.agentId, side: 'write' });
    if (footprint.readPaths.length > 0) {
      const id = `${footprint.agentId}${READS_SUFFIX}`;
      agents.push(sideAgent(id, id, footprint.readPaths, observation));
      sides.set(id, { agent: footprint.agentId, side: 'read' });
    }
  }
  const result = await scanAirspace(
    agents,
    { channels: options.channels ?? shippedChannels(), services: { importGraph: importGraphOfEdges(graph.edges) }, now: Date.parse(time) },
    // Every pair of sides is recorded, with every channel's risk (a few agents: nothing to prune).
    {
      ...(options.weights ? { weights: options.weights } : {}),
      ...(options.thresholds ? { thresholds: options.thresholds } : {}),
      edges: graph.edges,
      exhaustive: true,
    },
  );
  const scored: { link: Link; sides: LinkSides }[] = [];
  for (const link of result.links) {
    const x = sides.get(link.a);
    const y = sides.get(link.b);
    if (!x || !y || x.agent === y.agent || (x.side === 'read' && y.side === 'read')) continue;
    // Orient as (first footprint, second footprint).
    const [first, second] = x.agent === a.agentId ? [x, y] : [y, x];
    scored.push({ link, sides: `${first.side}/${second.side}` as LinkSides });
  }
  scored.sort((p, q) => q.link.risk - p.link.risk || levelRank(q.link.level) - levelRank(p.link.level) || (p.sides < q.sides ? -1 : 1));
  return { links: scored.map(({ link, sides }) => ({ sides, risk: link.risk, level: link.level })), strongest: scored[0]?.link };
}

function scopeSentence(o: ShadowObservation, graph: TrailGraph): string {
  return `repository ${JSON.stringify(o.repositoryId)}, base ${o.base}, task ${JSON.stringify(o.taskId)}, scope ${JSON.stringify(o.scopeId)}, and the supplied dependency graph (${graph.edges.length} edges)`;
}

/**
 * The advisory for two footprints at `time`. `observations` are the observations the footprints
 * come from (for a declared scope revision, one footprint is declared, its observation is still
 * the original one); they decide comparability.
 */
export async function computeAdvisory(
  footprints: readonly [Footprint, Footprint],
  observations: readonly [ShadowObservation, ShadowObservation],
  graph: TrailGraph,
  time: string,
  options: AdvisoryOptions = {},
): Promise<TrailAdvisory> {
  const [a, b] = footprints;
  const overlaps = exactOverlaps(a, b);
  const graphRef = { edgeCount: graph.edges.length, digest: graphDigest(graph) };
  const unknownReasons = comparabilityProblems(observations[0], observations[1], time);
  if (unknownReasons.length > 0) {
    return {
      level: 'unknown',
      found: false,
      risk: null,
      levelReason: 'the observations cannot be compared',
      unknownReasons,
      exactOverlaps: overlaps,
      links: [],
      channels: [],
      evidence: overlapEvidence(a, b, overlaps),
      graph: graphRef,
      statement: `Unknown: the pair was not scored because ${unknownReasons.join('; ')}. Nothing is cleared.`,
    };
  }
  const { links, strongest } = await scanFootprints(a, b, observations, graph, time, options);
  const risk = strongest?.risk ?? 0;
  let level: Level = strongest?.level ?? 'clear';
  let levelReason: string | null = strongest?.levelReason ?? null;
  const exact = overlapEvidence(a, b, overlaps);
  // An exact shared path is a fact about the footprints, not a heuristic: it is never `clear`.
  if (exact.length > 0 && level === 'clear') {
    level = 'traffic';
    levelReason = `exact path overlap takes precedence over the score ${risk.toFixed(2)}: ${exact.map((e) => e.message).join(' ')}`;
  }
  const channels: ChannelRisk[] = (strongest?.channels ?? [])
    .map((c) => ({ channel: c.channel, weight: c.weight, risk: c.risk }))
    .sort((p, q) => (p.channel < q.channel ? -1 : p.channel > q.channel ? 1 : 0));
  const evidence = [...exact, ...(strongest?.evidence ?? []).map((e) => ({ kind: e.kind ?? 'channel', message: e.message }))].slice(
    0,
    EVIDENCE_KEPT,
  );
  const found = level === 'traffic' || level === 'resolution';
  const scope = scopeSentence(observations[0], graph);
  const statement = found
    ? `${level === 'traffic' ? 'Traffic' : 'Resolution'} advisory between ${a.agentId} and ${b.agentId} (risk ${risk.toFixed(2)}) within ${scope}.`
    : level === 'unknown'
      ? `Unknown: ${levelReason ?? 'the scan could not clear the pair'}. Nothing is cleared.`
      : `No advisory was found within the complete, comparable supplied scope — ${scope}. This says nothing about paths outside the observations or dependencies not in the supplied graph.`;
  return {
    level,
    found,
    risk,
    levelReason,
    unknownReasons: [],
    exactOverlaps: overlaps,
    links,
    channels,
    evidence,
    graph: graphRef,
    statement,
  };
}

function overlapEvidence(a: Footprint, b: Footprint, overlaps: ExactOverlaps): AdvisoryEvidence[] {
  const out: AdvisoryEvidence[] = [];
  const list = (paths: readonly string[]) => paths.join(', ');
  if (overlaps.writeWrite.length > 0)
    out.push({ kind: 'write-write', message: `${a.agentId} and ${b.agentId} both write ${list(overlaps.writeWrite)}.` });
  if (overlaps.aWritesBReads.length > 0)
    out.push({ kind: 'write-read', message: `${a.agentId} writes ${list(overlaps.aWritesBReads)}, which ${b.agentId} reads.` });
  if (overlaps.aReadsBWrites.length > 0)
    out.push({ kind: 'write-read', message: `${b.agentId} writes ${list(overlaps.aReadsBWrites)}, which ${a.agentId} reads.` });
  return out;
}
