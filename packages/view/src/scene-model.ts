/**
 * ScanResult → what the page draws. Pure and DOM-free, so the browser bundle and the unit tests
 * share it: colours by level, sizes, label text, evidence lines, the pair list, agents placed by
 * their pairs (`layout.ts`) and files around the agents that touch them.
 */
import {
  DEFAULT_THRESHOLDS,
  chanceText,
  forecastSignalText,
  levelRank,
  clamp01,
  percentText,
  type Advisory,
  type Agent,
  type Evidence,
  type EvidenceSide,
  type Forecast,
  type Level,
  type Link,
  type Problem,
  type Range,
  type ScanCounts,
  type ScanResult,
  type Vec3,
} from '@airspace/core';
import { COMPACT_FROM, labelSize } from './label-layout.js';
import { layoutAgents, type LayoutLabel, type LayoutLink } from './layout.js';

/** Radius of the sphere the whole airspace is scaled into, in scene units. */
export const SCENE_RADIUS = 50;

/** TCAS-like colours: cyan-green clear, amber traffic, red resolution, grey unknown. */
export const LEVEL_COLORS: Readonly<Record<Level, string>> = {
  clear: '#3fc1a5',
  traffic: '#f5b33c',
  resolution: '#ff4b5c',
  unknown: '#9aa3b8',
};

/** Agent colours: distinct on a dark background and kept away from the amber and red of the levels. */
export const AGENT_PALETTE: readonly string[] = [
  '#5aa9ff',
  '#b78cff',
  '#4fd6e0',
  '#8fe36b',
  '#ff8fd0',
  '#7f8cff',
  '#e0d16a',
  '#5fe0a8',
  '#c9a5ff',
  '#79c7ff',
  '#d6e86b',
  '#ff9f7a',
];

/**
 * A forecast link (clear today, likely to collide later): magenta, away from the level colours,
 * and drawn dashed so that it never reads as one of them.
 */
export const FORECAST_COLOR = '#e36bff';

/**
 * A clear pair whose risk is this close under τ_TA (e.g. 0.455 under 0.526) is marked "near
 * threshold": drawn dotted in `NEAR_THRESHOLD_COLOR` while other clear links are hidden, and listed.
 */
export const NEAR_THRESHOLD_MARGIN = 0.1;
/** Pale yellow: between clear's green and traffic's amber, and apart from both. */
export const NEAR_THRESHOLD_COLOR = '#e9e57a';

/** A file no agent touches. */
export const UNTOUCHED_FILE_COLOR = '#34425e';
/** A file two or more agents touch, when no advisory cites it. */
export const SHARED_FILE_COLOR = '#f2f5ff';

export interface SceneFile {
  readonly path: string;
  readonly position: Vec3;
  /** Ids of the agents that touch this file. */
  readonly agents: readonly string[];
  /** Worst level of an advisory whose evidence cites this file, if any. */
  readonly citedLevel?: Exclude<Level, 'clear'>;
  readonly color: string;
  /** Point diameter in scene units. */
  readonly size: number;
}

export interface SceneAgent {
  readonly id: string;
  readonly label: string;
  readonly position: Vec3;
  readonly color: string;
  /** Marker radius in scene units. */
  readonly radius: number;
  /** Indexes into `SceneModel.files`. */
  readonly files: readonly number[];
  /** Worst level over this agent's links. */
  readonly level: Level;
  /** The label's first line (the agent's name) and second line (what it is doing). */
  readonly title: string;
  readonly subtitle: string;
  readonly worktree?: string;
  readonly incomplete?: readonly string[];
}

export interface SceneLink {
  readonly a: string;
  readonly b: string;
  readonly from: Vec3;
  readonly to: Vec3;
  readonly risk: number;
  readonly level: Level;
  readonly color: string;
  /** Tube radius in scene units; 0 means "draw as a hairline". */
  readonly radius: number;
  readonly opacity: number;
  /** The link's calibrated probability, when the scan has one (`Link.probability`). */
  readonly probability?: number;
  /**
   * Set on a clear link the scan forecasts to collide later: the forecast's probability. Such a
   * link is drawn dashed in `FORECAST_COLOR`, and its pair is in `SceneModel.forecasts`.
   */
  readonly forecast?: number;
  /** A clear link within `NEAR_THRESHOLD_MARGIN` under τ_TA (see `isNearThreshold`). */
  readonly nearThreshold?: true;
  /** A plain clear link: the page draws it only when asked to show clear links. */
  readonly hiddenByDefault: boolean;
  /** The pair's strongest evidence line (`Link.evidence[0]`), if the scan has one. */
  readonly evidence?: string;
}

/** One row of the pair list (the view without WebGL, or beside the scene). */
export interface ScenePair {
  readonly key: string;
  readonly a: string;
  readonly b: string;
  readonly title: string;
  readonly level: Level;
  /** Set on a clear pair that is listed all the same. */
  readonly mark?: 'near threshold' | 'forecast';
  readonly color: string;
  /** `0.90`. */
  readonly riskText: string;
  /** `84%`, when the scan has a probability. */
  readonly percentText?: string;
  /** The strongest evidence line, or '' when the scan has none. */
  readonly evidence: string;
}

export interface EvidenceSideText {
  readonly agent: string;
  readonly agentLabel: string;
  readonly path: string;
  /** `lines 12–18`, `after line 4` …; empty when the evidence names the file only. */
  readonly lines: string;
  readonly symbol?: string;
}

export interface EvidenceText {
  readonly message: string;
  readonly kind?: string;
  readonly sides: readonly EvidenceSideText[];
  readonly chain?: readonly string[];
}

export interface SceneAdvisory {
  /** `a|b`, stable across updates. */
  readonly key: string;
  readonly a: string;
  readonly b: string;
  readonly title: string;
  readonly level: Exclude<Level, 'clear'>;
  readonly color: string;
  readonly risk: number;
  /** `0.90`: R, as the table shows it (a score, not a chance). */
  readonly riskText: string;
  /** The scan's calibrated probability, when it has one (`Advisory.probability`). */
  readonly probability?: number;
  /** `84%`. */
  readonly percentText?: string;
  /** `84% chance of colliding`, the wording of the table and the editors. */
  readonly chanceText?: string;
  readonly message: string;
  /** `B steers away · A holds course`, for resolution advisories. */
  readonly rightOfWay?: string;
  readonly evidence: readonly EvidenceText[];
  /** Evidence items not listed (beyond `MAX_EVIDENCE`). */
  readonly moreEvidence: number;
}

/** A clear pair the scan forecasts to collide later (`Link.forecast`): not an advisory, listed after them. */
export interface SceneForecast {
  /** `a|b`, stable across updates (a pair has an advisory or a forecast, never both). */
  readonly key: string;
  readonly a: string;
  readonly b: string;
  readonly title: string;
  readonly probability: number;
  /** `12%`. */
  readonly percentText: string;
  /** `12% chance of colliding later`. */
  readonly chanceText: string;
  /** The signals that raised it, strongest first: `co-change 0.90`, `files changed on both sides`. */
  readonly signals: readonly string[];
  readonly evidence: readonly EvidenceText[];
  /** Evidence items not listed (beyond `MAX_EVIDENCE`). */
  readonly moreEvidence: number;
}

export interface SceneModel {
  readonly generatedAt: string;
  readonly files: readonly SceneFile[];
  readonly agents: readonly SceneAgent[];
  readonly links: readonly SceneLink[];
  /** Pairs with an advisory, near the threshold or forecast, worst first. */
  readonly pairs: readonly ScenePair[];
  readonly advisories: readonly SceneAdvisory[];
  /** Forecast pairs, most likely first. */
  readonly forecasts: readonly SceneForecast[];
  readonly counts: ScanCounts;
  readonly problems: readonly Problem[];
  /** `NEAR_THRESHOLD_MARGIN`, for the legend. */
  readonly nearThresholdMargin: number;
  /** Scene units per embedding unit (of the files' backdrop). */
  readonly scale: number;
}

export const MAX_EVIDENCE = 8;

export function levelColor(level: Level): string {
  return LEVEL_COLORS[level] ?? LEVEL_COLORS.unknown;
}

export function agentColor(index: number): string {
  return AGENT_PALETTE[((index % AGENT_PALETTE.length) + AGENT_PALETTE.length) % AGENT_PALETTE.length]!;
}

export function worseLevel(x: Level, y: Level): Level {
  return levelRank(y) > levelRank(x) ? y : x;
}

/** How much markers and tubes shrink in a crowded airspace: 1 up to 16 agents, 0.4 from 100. */
export function crowdFactor(agentCount: number): number {
  return Math.min(1, Math.max(0.4, Math.sqrt(16 / Math.max(1, agentCount))));
}

/** Tube radius of a link: hairline when clear or unknown, thicker with risk otherwise. */
export function linkRadius(level: Level, risk: number, agentCount = 1): number {
  if (level === 'clear' || level === 'unknown') return 0;
  const r = clamp01(risk);
  return ((level === 'resolution' ? 0.35 : 0.15) + 0.9 * r) * crowdFactor(agentCount);
}

export function linkOpacity(level: Level, risk: number): number {
  if (level === 'resolution') return 0.95;
  if (level === 'traffic') return 0.8;
  if (level === 'unknown') return 0.35;
  return 0.08 + 0.3 * clamp01(risk);
}

/** A forecast line is brighter than a clear hairline (it says something), and brighter the likelier it is. */
export function forecastOpacity(probability: number): number {
  return 0.7 + 0.3 * clamp01(probability);
}

/**
 * Marker radius: grows with the square root of the agent's number of files, within [1.4, 4], and
 * shrinks as the airspace gets crowded (down to 40% at 100 agents) so markers do not hide each other.
 */
export function agentRadius(fileCount: number, agentCount = 1): number {
  return Math.min(4, 1.4 + 0.3 * Math.sqrt(Math.max(0, fileCount))) * crowdFactor(agentCount);
}

/**
 * Point diameter of a file. Touched files are larger, contested ones larger still; everything
 * shrinks gently as the file count grows so that 10,000 files stay readable.
 */
export function fileSize(agentCount: number, cited: boolean, totalFiles: number): number {
  const density = Math.min(1.4, Math.max(0.45, Math.sqrt(800 / Math.max(1, totalFiles))));
  const base = cited ? 2.6 : agentCount >= 2 ? 2.1 : agentCount === 1 ? 1.5 : 0.9;
  return base * density;
}

/** `lines 12–18`, `line 12`, `after line 4` (a zero-width insertion `[k+1, k]`), or '' for no range. */
export function formatLines(range: Range | undefined): string {
  if (!range) return '';
  const [start, end] = range;
  if (end < start) return end <= 0 ? 'top of file' : `after line ${end}`;
  return start === end ? `line ${start}` : `lines ${start}–${end}`;
}

/** R as the table shows it, two decimals: a score, never written as a percentage (that is the probability). */
export function formatRisk(risk: number): string {
  return clamp01(risk).toFixed(2);
}

/** A scan's probability, when it is a number (a hand-written or older scan may have none). */
function usableProbability(p: unknown): number | undefined {
  return typeof p === 'number' && Number.isFinite(p) ? clamp01(p) : undefined;
}

function sideText(side: EvidenceSide, labels: ReadonlyMap<string, string>): EvidenceSideText {
  const text: EvidenceSideText = {
    agent: side.agent,
    agentLabel: labels.get(side.agent) ?? side.agent,
    path: side.path,
    lines: formatLines(side.range ?? side.baseRange),
    ...(side.symbol ? { symbol: side.symbol } : {}),
  };
  return text;
}

export function evidenceText(evidence: Evidence, labels: ReadonlyMap<string, string>): EvidenceText {
  const sides: EvidenceSideText[] = [];
  if (evidence.a) sides.push(sideText(evidence.a, labels));
  if (evidence.b) sides.push(sideText(evidence.b, labels));
  return {
    message: evidence.message,
    ...(evidence.kind ? { kind: evidence.kind } : {}),
    sides,
    ...(evidence.chain && evidence.chain.length > 0 ? { chain: evidence.chain } : {}),
  };
}

export function advisoryModel(advisory: Advisory, labels: ReadonlyMap<string, string>): SceneAdvisory {
  const name = (id: string): string => labels.get(id) ?? id;
  const rightOfWay =
    advisory.steer !== undefined || advisory.hold !== undefined
      ? [
          advisory.steer !== undefined ? `${name(advisory.steer)} steers away` : '',
          advisory.hold !== undefined ? `${name(advisory.hold)} holds course` : '',
        ]
          .filter((s) => s.length > 0)
          .join(' · ')
      : undefined;
  return {
    key: `${advisory.a}|${advisory.b}`,
    a: advisory.a,
    b: advisory.b,
    title: `${name(advisory.a)} ↔ ${name(advisory.b)}`,
    level: advisory.level,
    color: levelColor(advisory.level),
    risk: advisory.risk,
    riskText: formatRisk(advisory.risk),
    ...chanceOf(advisory.probability),
    message: advisory.message,
    ...(rightOfWay ? { rightOfWay } : {}),
    evidence: advisory.evidence.slice(0, MAX_EVIDENCE).map((e) => evidenceText(e, labels)),
    moreEvidence: Math.max(0, advisory.evidence.length - MAX_EVIDENCE),
  };
}

function chanceOf(p: unknown): Pick<SceneAdvisory, 'probability' | 'percentText' | 'chanceText'> {
  const probability = usableProbability(p);
  return probability === undefined ? {} : { probability, percentText: percentText(probability), chanceText: chanceText(probability) };
}

/** The forecast of a link as the page shows it; the wording is the one the table and the editors use. */
export function sceneForecast(link: Pick<Link, 'a' | 'b'>, forecast: Forecast, labels: ReadonlyMap<string, string>): SceneForecast {
  const name = (id: string): string => labels.get(id) ?? id;
  const probability = clamp01(forecast.probability);
  const evidence = Array.isArray(forecast.evidence) ? forecast.evidence : [];
  return {
    key: `${link.a}|${link.b}`,
    a: link.a,
    b: link.b,
    title: `${name(link.a)} ↔ ${name(link.b)}`,
    probability,
    percentText: percentText(probability),
    chanceText: `${chanceText(probability)} later`,
    signals: (Array.isArray(forecast.signals) ? forecast.signals : []).map(forecastSignalText),
    evidence: evidence.slice(0, MAX_EVIDENCE).map((e) => evidenceText(e, labels)),
    moreEvidence: Math.max(0, evidence.length - MAX_EVIDENCE),
  };
}

/** Sorting forecasts: most likely first, then by key for stability. */
function forecastOrder(x: SceneForecast, y: SceneForecast): number {
  return y.probability - x.probability || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);
}

/** A forecast the page can use: a scan's, or one in a hand-written JSON with a numeric probability. */
function usableForecast(link: Link): Forecast | undefined {
  const f = link.forecast;
  return f && typeof f === 'object' && typeof f.probability === 'number' && Number.isFinite(f.probability) ? f : undefined;
}

function finiteVec(v: Vec3 | undefined): v is Vec3 {
  return Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'number' && Number.isFinite(x));
}

/** Centre and scale that map every finite point into a sphere of `SCENE_RADIUS`. */
function normaliser(points: Iterable<Vec3>): { map: (p: Vec3) => Vec3; scale: number } {
  let minX = Infinity,
    minY = Infinity,
    minZ = Infinity,
    maxX = -Infinity,
    maxY = -Infinity,
    maxZ = -Infinity;
  const all: Vec3[] = [];
  for (const p of points) {
    all.push(p);
    minX = Math.min(minX, p[0]);
    maxX = Math.max(maxX, p[0]);
    minY = Math.min(minY, p[1]);
    maxY = Math.max(maxY, p[1]);
    minZ = Math.min(minZ, p[2]);
    maxZ = Math.max(maxZ, p[2]);
  }
  if (all.length === 0) return { map: (p) => p, scale: 1 };
  const c: Vec3 = [(minX + maxX) / 2, (minY + maxY) / 2, (minZ + maxZ) / 2];
  let far = 0;
  for (const p of all) far = Math.max(far, Math.hypot(p[0] - c[0], p[1] - c[1], p[2] - c[2]));
  const scale = far > 1e-12 ? SCENE_RADIUS / far : 1;
  return { map: (p) => [(p[0] - c[0]) * scale, (p[1] - c[1]) * scale, (p[2] - c[2]) * scale], scale };
}

/** Sorting advisories: resolution first, then by risk, then by key for stability. */
function advisoryOrder(x: SceneAdvisory, y: SceneAdvisory): number {
  return levelRank(y.level) - levelRank(x.level) || y.risk - x.risk || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);
}

/** What the scan gives, with missing arrays empty (a hand-written or older JSON may lack some). */
interface SceneInput {
  readonly agents: readonly Agent[];
  readonly links: readonly Link[];
  readonly advisories: readonly Advisory[];
  readonly coordinates: Readonly<Record<string, Vec3>>;
  readonly problems: Problem[];
  readonly labels: ReadonlyMap<string, string>;
  readonly colorOf: ReadonlyMap<string, string>;
  /** τ_TA of the scan (its `thresholds`, or the default). */
  readonly traffic: number;
}

function readInput(result: ScanResult): SceneInput {
  const agents: readonly Agent[] = Array.isArray(result.agents) ? result.agents : [];
  const labels = new Map<string, string>();
  for (const agent of agents) labels.set(agent.id, agent.label || agent.id);
  const colorOf = new Map<string, string>();
  agents.forEach((a, i) => colorOf.set(a.id, agentColor(i)));
  const traffic = result.thresholds?.traffic;
  return {
    agents,
    links: Array.isArray(result.links) ? result.links : [],
    advisories: Array.isArray(result.advisories) ? result.advisories : [],
    coordinates: result.fileCoordinates ?? {},
    problems: Array.isArray(result.problems) ? [...result.problems] : [],
    labels,
    colorOf,
    traffic: typeof traffic === 'number' && Number.isFinite(traffic) ? traffic : DEFAULT_THRESHOLDS.traffic,
  };
}

/**
 * A clear pair within `NEAR_THRESHOLD_MARGIN` under τ_TA: no advisory, but one small change from
 * one. Its link is drawn (dotted, in `NEAR_THRESHOLD_COLOR`) even while clear links are hidden.
 */
export function isNearThreshold(level: Level, risk: number, traffic: number): boolean {
  return level === 'clear' && risk < traffic && risk >= traffic - NEAR_THRESHOLD_MARGIN;
}

/** How hard a pair pulls its agents together in the layout: resolution most, a clear pair not at all. */
function pullOf(level: Level, near: boolean, forecast: boolean): number {
  if (level === 'resolution') return 1;
  if (level === 'traffic') return 0.7;
  return near || forecast ? 0.35 : 0;
}

/** The links the page can draw: clear ones with no risk and no forecast carry nothing and are dropped. */
function sceneLinksOf(input: SceneInput, posOf: ReadonlyMap<string, Vec3>): { links: SceneLink[]; forecasts: SceneForecast[] } {
  const links: SceneLink[] = [];
  const forecasts: SceneForecast[] = [];
  const agentCount = input.agents.length;
  for (const link of input.links) {
    const from = posOf.get(link.a);
    const to = posOf.get(link.b);
    if (!from || !to) continue;
    // The core puts forecasts on clear links only; a link with an advisory keeps its level's look.
    const forecast = link.level === 'clear' ? usableForecast(link) : undefined;
    if (link.level === 'clear' && !(link.risk > 0) && !forecast) continue;
    if (forecast) forecasts.push(sceneForecast(link, forecast, input.labels));
    const probability = forecast ? clamp01(forecast.probability) : undefined;
    const near = isNearThreshold(link.level, link.risk, input.traffic);
    const strongest = Array.isArray(link.evidence) ? link.evidence[0]?.message : undefined;
    links.push({
      a: link.a,
      b: link.b,
      from,
      to,
      risk: clamp01(link.risk),
      level: link.level,
      color: forecast ? FORECAST_COLOR : near ? NEAR_THRESHOLD_COLOR : levelColor(link.level),
      radius: linkRadius(link.level, link.risk, agentCount),
      opacity: probability !== undefined ? forecastOpacity(probability) : near ? 0.9 : linkOpacity(link.level, link.risk),
      hiddenByDefault: link.level === 'clear' && !forecast && !near,
      ...(near ? { nearThreshold: true as const } : {}),
      ...(usableProbability(link.probability) !== undefined ? { probability: usableProbability(link.probability)! } : {}),
      ...(probability !== undefined ? { forecast: probability } : {}),
      ...(typeof strongest === 'string' && strongest ? { evidence: strongest } : {}),
    });
  }
  // Draw order: clear first (near-threshold and forecasts last among them), resolution last (on top).
  const rank = (l: SceneLink): number => (l.forecast !== undefined ? 2 : l.nearThreshold ? 1 : 0);
  links.sort((x, y) => levelRank(x.level) - levelRank(y.level) || rank(x) - rank(y) || x.risk - y.risk);
  forecasts.sort(forecastOrder);
  return { links, forecasts };
}

/** Agent positions from the pairs (`layoutAgents`): who collides sits together, off other pairs' links. */
function placeAgents(input: SceneInput, radii: readonly number[], labels: readonly LayoutLabel[]): Vec3[] {
  const index = new Map(input.agents.map((a, i) => [a.id, i] as const));
  const layoutLinks: LayoutLink[] = [];
  for (const link of input.links) {
    const a = index.get(link.a);
    const b = index.get(link.b);
    if (a === undefined || b === undefined) continue;
    const forecast = link.level === 'clear' && usableForecast(link) !== undefined;
    const near = isNearThreshold(link.level, link.risk, input.traffic);
    layoutLinks.push({
      a,
      b,
      pull: pullOf(link.level, near, forecast),
      drawn: link.level !== 'clear' || forecast || near,
      width: Math.max(0.3, linkRadius(link.level, link.risk, input.agents.length)),
    });
  }
  return layoutAgents(radii, layoutLinks, labels);
}

/** Files cited by advisories, with the worst level citing them. */
function citedFiles(advisories: readonly Advisory[]): Map<string, Exclude<Level, 'clear'>> {
  const cited = new Map<string, Exclude<Level, 'clear'>>();
  for (const adv of advisories) {
    for (const e of adv.evidence ?? []) {
      for (const side of [e.a, e.b]) {
        if (!side) continue;
        const before = cited.get(side.path);
        if (!before || levelRank(adv.level) > levelRank(before)) cited.set(side.path, adv.level);
      }
    }
  }
  return cited;
}

/**
 * Files: every coordinate the scan has (a touched file without one is reported). A file of one
 * or two agents sits just behind them, spread by its embedding; any other in a dim backdrop far
 * behind the agents, placed by the embedding.
 */
function placeFiles(
  input: SceneInput,
  agentAt: ReadonlyMap<string, { position: Vec3; radius: number }>,
): { files: SceneFile[]; scale: number } {
  const { coordinates } = input;
  const paths = Object.keys(coordinates).filter((p) => finiteVec(coordinates[p]));
  paths.sort();
  const fileIndex = new Map(paths.map((p, i) => [p, i] as const));
  const touchedBy: string[][] = paths.map(() => []);
  const missing: string[] = [];
  for (const agent of input.agents)
    for (const f of agent.files ?? []) {
      const i = fileIndex.get(f.path);
      if (i === undefined) missing.push(f.path);
      else if (!touchedBy[i]!.includes(agent.id)) touchedBy[i]!.push(agent.id);
    }
  if (missing.length > 0)
    input.problems.push({
      code: 'VIEW_MISSING_COORDINATES',
      message: `${missing.length} touched file(s) have no coordinate and are not drawn (first: ${missing[0]}).`,
    });
  const cited = citedFiles(input.advisories);
  const { map: normalise, scale } = normaliser(paths.map((p) => coordinates[p]!));
  const files = paths.map((path, i): SceneFile => {
    const by = touchedBy[i]!;
    const citedLevel = cited.get(path);
    const color = citedLevel
      ? levelColor(citedLevel)
      : by.length >= 2
        ? SHARED_FILE_COLOR
        : by.length === 1
          ? input.colorOf.get(by[0]!)!
          : UNTOUCHED_FILE_COLOR;
    return {
      path,
      position: filePosition(normalise(coordinates[path]!), by, agentAt),
      agents: by,
      ...(citedLevel ? { citedLevel } : {}),
      color,
      size: fileSize(by.length, citedLevel !== undefined, paths.length),
    };
  });
  return { files, scale };
}

/** Where a file is drawn: behind its agents' centre (touched) or in the backdrop (untouched). */
function filePosition(q: Vec3, by: readonly string[], agentAt: ReadonlyMap<string, { position: Vec3; radius: number }>): Vec3 {
  const u = [q[0] / SCENE_RADIUS, q[1] / SCENE_RADIUS, q[2] / SCENE_RADIUS] as const;
  const owners = by.map((id) => agentAt.get(id)).filter((x) => x !== undefined);
  // A file of more than two agents has no one place among them (its centroid would sit on some
  // other pair's link): it joins the backdrop, and its spokes show whose it is on focus.
  if (owners.length === 0 || owners.length > 2) return [q[0] * 1.25, q[1] * 1.25, -SCENE_RADIUS * 0.9 + q[2] * 0.4];
  let cx = 0,
    cy = 0,
    r = 0;
  for (const o of owners) {
    cx += o.position[0] / owners.length;
    cy += o.position[1] / owners.length;
    r = Math.max(r, o.radius);
  }
  const spread = r * 1.6 + 2;
  return [cx + u[0] * spread, cy + u[1] * spread, -(r + 1.5) - Math.abs(u[2]) * spread];
}

function sceneAgentsOf(input: SceneInput, links: readonly Link[]): Array<Omit<SceneAgent, 'files'>> {
  const worst = new Map<string, Level>();
  const forecastAgents = new Set<string>();
  for (const link of links) {
    worst.set(link.a, worseLevel(worst.get(link.a) ?? 'clear', link.level));
    worst.set(link.b, worseLevel(worst.get(link.b) ?? 'clear', link.level));
    if (usableForecast(link)) forecastAgents.add(link.a).add(link.b);
  }
  const radii = input.agents.map((agent) => agentRadius(agent.files?.length ?? 0, input.agents.length));
  const texts = input.agents.map((agent) => {
    const fileCount = agent.files?.length ?? 0;
    const level = worst.get(agent.id) ?? 'clear';
    const parts = [`${fileCount} file${fileCount === 1 ? '' : 's'}`];
    if (level !== 'clear') parts.push(level);
    else if (forecastAgents.has(agent.id)) parts.push('forecast');
    if (agent.incomplete && agent.incomplete.length > 0) parts.push('incomplete');
    return { level, title: input.labels.get(agent.id)!, subtitle: parts.join(' · ') };
  });
  const compact = input.agents.length > COMPACT_FROM;
  const labels = texts.map((t) => ({ ...labelSize(t.title, t.subtitle, compact), rank: labelRank(t.level) }));
  const at = placeAgents(input, radii, labels);
  return input.agents.map((agent, i) => ({
    id: agent.id,
    label: texts[i]!.title,
    position: at[i]!,
    color: input.colorOf.get(agent.id)!,
    radius: radii[i]!,
    ...texts[i]!,
    ...(agent.worktree ? { worktree: agent.worktree } : {}),
    ...(agent.incomplete && agent.incomplete.length > 0 ? { incomplete: agent.incomplete } : {}),
  }));
}

/** The order the page places labels in, lower first: the focused agents, then resolution … clear. */
export function labelRank(level: Level, focused = false): number {
  return focused ? -1 : levelRank('resolution') - levelRank(level);
}

/** The pair list: every pair with an advisory, a near-threshold or a forecast, worst first. */
function scenePairs(links: readonly SceneLink[], labels: ReadonlyMap<string, string>): ScenePair[] {
  const name = (id: string): string => labels.get(id) ?? id;
  return links
    .filter((l) => !l.hiddenByDefault)
    .map((l) => ({
      key: `${l.a}|${l.b}`,
      a: l.a,
      b: l.b,
      title: `${name(l.a)} ↔ ${name(l.b)}`,
      level: l.level,
      mark: l.nearThreshold ? ('near threshold' as const) : l.forecast !== undefined ? ('forecast' as const) : undefined,
      color: l.color,
      riskText: formatRisk(l.risk),
      ...(l.probability !== undefined ? { percentText: percentText(l.probability) } : {}),
      evidence: l.evidence ?? '',
    }))
    .map(({ mark, ...p }) => (mark ? { ...p, mark } : p))
    .sort((x, y) => levelRank(y.level) - levelRank(x.level) || (x.riskText < y.riskText ? 1 : x.riskText > y.riskText ? -1 : 0));
}

const EMPTY_COUNTS: ScanCounts = { agents: 0, pairs: 0, clear: 0, traffic: 0, resolution: 0, unknown: 0 };

/**
 * Builds the scene from a scan. Tolerant of partial input (a hand-written or older JSON): missing
 * arrays are empty, files without a coordinate are skipped and reported in `problems`. Agents are
 * placed by their pairs (`layoutAgents`), files around the agents that touch them.
 */
export function buildSceneModel(result: ScanResult): SceneModel {
  const input = readInput(result);
  const placed = sceneAgentsOf(input, input.links);
  const { files, scale } = placeFiles(input, new Map(placed.map((a) => [a.id, a] as const)));
  const agentFiles = new Map<string, number[]>();
  files.forEach((f, i) => {
    for (const id of f.agents) (agentFiles.get(id) ?? agentFiles.set(id, []).get(id)!).push(i);
  });
  const agents: SceneAgent[] = placed.map((a) => ({ ...a, files: agentFiles.get(a.id) ?? [] }));
  const { links, forecasts } = sceneLinksOf(input, new Map(agents.map((a) => [a.id, a.position] as const)));
  return {
    generatedAt: typeof result.generatedAt === 'string' ? result.generatedAt : '',
    files,
    agents,
    links,
    pairs: scenePairs(links, input.labels),
    advisories: input.advisories.map((a) => advisoryModel(a, input.labels)).sort(advisoryOrder),
    forecasts,
    counts: result.counts ?? { ...EMPTY_COUNTS, agents: input.agents.length },
    problems: input.problems,
    nearThresholdMargin: NEAR_THRESHOLD_MARGIN,
    scale,
  };
}

/** The links the page draws: all of them when clear links are shown, else those not hidden by default. */
export function drawnLinks(model: Pick<SceneModel, 'links'>, showClear: boolean): SceneLink[] {
  return model.links.filter((l) => showClear || !l.hiddenByDefault);
}
