/**
 * ScanResult → what the page draws. Pure and DOM-free, so the browser bundle and the unit tests
 * share it: colours by level, sizes, label text, evidence lines, and coordinates normalised into
 * a sphere of `SCENE_RADIUS` around the origin (the core's embedding has no fixed scale).
 */
import {
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
  readonly advisories: readonly SceneAdvisory[];
  /** Forecast pairs, most likely first. */
  readonly forecasts: readonly SceneForecast[];
  readonly counts: ScanCounts;
  readonly problems: readonly Problem[];
  /** Scene units per embedding unit. */
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

/**
 * Pushes markers apart until no two overlap (with a margin), for display only: two agents editing
 * the same file sit at the same centroid, and a resolution link of length zero cannot be seen.
 * Deterministic; markers already apart do not move.
 */
export function separateMarkers(points: readonly Vec3[], radii: readonly number[], iterations = 40): Vec3[] {
  const p = points.map((v) => [v[0], v[1], v[2]] as [number, number, number]);
  for (let it = 0; it < iterations; it++) {
    let moved = false;
    for (let i = 0; i < p.length; i++) {
      for (let j = i + 1; j < p.length; j++) {
        const a = p[i]!,
          b = p[j]!;
        let dx = b[0] - a[0],
          dy = b[1] - a[1],
          dz = b[2] - a[2];
        let d = Math.hypot(dx, dy, dz);
        const min = (radii[i]! + radii[j]!) * 2.5 + 3;
        if (d >= min) continue;
        if (d < 1e-9) {
          // Coincident: split across the screen (x–y, the camera looks down −z), at an angle from
          // the pair's indexes (golden angle), not from chance.
          const theta = (i * 7 + j * 3 - 3) * 2.399963;
          dx = Math.cos(theta);
          dy = Math.sin(theta) * 0.5;
          dz = 0;
          const n = Math.hypot(dx, dy);
          dx /= n;
          dy /= n;
          d = 0;
        } else {
          dx /= d;
          dy /= d;
          dz /= d;
        }
        const push = (min - d) / 2;
        a[0] -= dx * push;
        a[1] -= dy * push;
        a[2] -= dz * push;
        b[0] += dx * push;
        b[1] += dy * push;
        b[2] += dz * push;
        moved = true;
      }
    }
    if (!moved) break;
  }
  return p;
}

/** Sorting advisories: resolution first, then by risk, then by key for stability. */
function advisoryOrder(x: SceneAdvisory, y: SceneAdvisory): number {
  return levelRank(y.level) - levelRank(x.level) || y.risk - x.risk || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);
}

const EMPTY_COUNTS: ScanCounts = { agents: 0, pairs: 0, clear: 0, traffic: 0, resolution: 0, unknown: 0 };

/**
 * Builds the scene from a scan. Tolerant of partial input (a hand-written or older JSON): missing
 * arrays are empty, agents without a position sit at the centroid of their files (or the origin),
 * files without a coordinate are skipped and reported in `problems`.
 */
export function buildSceneModel(result: ScanResult): SceneModel {
  const agents: readonly Agent[] = Array.isArray(result.agents) ? result.agents : [];
  const links: readonly Link[] = Array.isArray(result.links) ? result.links : [];
  const advisoriesIn: readonly Advisory[] = Array.isArray(result.advisories) ? result.advisories : [];
  const coordinates = result.fileCoordinates ?? {};
  const positions = result.positions ?? {};
  const problems: Problem[] = Array.isArray(result.problems) ? [...result.problems] : [];

  const labels = new Map<string, string>();
  for (const agent of agents) labels.set(agent.id, agent.label || agent.id);

  // Files: every coordinate the scan has, plus nothing else (a touched file without one is reported).
  const paths = Object.keys(coordinates).filter((p) => finiteVec(coordinates[p]));
  paths.sort();
  const fileIndex = new Map<string, number>();
  paths.forEach((p, i) => fileIndex.set(p, i));
  const touchedBy: string[][] = paths.map(() => []);
  const missing: string[] = [];
  for (const agent of agents) {
    for (const f of agent.files ?? []) {
      const i = fileIndex.get(f.path);
      if (i === undefined) missing.push(f.path);
      else if (!touchedBy[i]!.includes(agent.id)) touchedBy[i]!.push(agent.id);
    }
  }
  if (missing.length > 0) {
    problems.push({
      code: 'VIEW_MISSING_COORDINATES',
      message: `${missing.length} touched file(s) have no coordinate and are not drawn (first: ${missing[0]}).`,
    });
  }

  // Files cited by advisories, with the worst level citing them.
  const cited = new Map<string, Exclude<Level, 'clear'>>();
  for (const adv of advisoriesIn) {
    for (const e of adv.evidence ?? []) {
      for (const side of [e.a, e.b]) {
        if (!side) continue;
        const before = cited.get(side.path);
        if (!before || levelRank(adv.level) > levelRank(before)) cited.set(side.path, adv.level);
      }
    }
  }

  // Agent positions: given, or their files' centroid.
  const rawAgentPos = new Map<string, Vec3>();
  for (const agent of agents) {
    const given = positions[agent.id];
    if (finiteVec(given)) {
      rawAgentPos.set(agent.id, given);
      continue;
    }
    let sx = 0,
      sy = 0,
      sz = 0,
      n = 0;
    for (const f of agent.files ?? []) {
      const p = coordinates[f.path];
      if (finiteVec(p)) {
        sx += p[0];
        sy += p[1];
        sz += p[2];
        n++;
      }
    }
    rawAgentPos.set(agent.id, n > 0 ? [sx / n, sy / n, sz / n] : [0, 0, 0]);
  }

  const points: Vec3[] = paths.map((p) => coordinates[p]!);
  for (const p of rawAgentPos.values()) points.push(p);
  const { map: normalise, scale } = normaliser(points);

  const colorOf = new Map<string, string>();
  agents.forEach((a, i) => colorOf.set(a.id, agentColor(i)));

  const files: SceneFile[] = paths.map((path, i) => {
    const by = touchedBy[i]!;
    const citedLevel = cited.get(path);
    const color = citedLevel
      ? levelColor(citedLevel)
      : by.length >= 2
        ? SHARED_FILE_COLOR
        : by.length === 1
          ? colorOf.get(by[0]!)!
          : UNTOUCHED_FILE_COLOR;
    return {
      path,
      position: normalise(coordinates[path]!),
      agents: by,
      ...(citedLevel ? { citedLevel } : {}),
      color,
      size: fileSize(by.length, citedLevel !== undefined, paths.length),
    };
  });

  const worst = new Map<string, Level>();
  const forecastAgents = new Set<string>();
  for (const link of links) {
    worst.set(link.a, worseLevel(worst.get(link.a) ?? 'clear', link.level));
    worst.set(link.b, worseLevel(worst.get(link.b) ?? 'clear', link.level));
    if (usableForecast(link)) forecastAgents.add(link.a).add(link.b);
  }

  const agentFiles = new Map<string, number[]>();
  files.forEach((f, i) => {
    for (const id of f.agents) (agentFiles.get(id) ?? agentFiles.set(id, []).get(id)!).push(i);
  });

  // Markers: scaled positions, then pushed apart where they overlap.
  const radii = agents.map((agent) => agentRadius(agent.files?.length ?? 0, agents.length));
  const markerAt = separateMarkers(
    agents.map((agent) => normalise(rawAgentPos.get(agent.id)!)),
    radii,
  );

  const sceneAgents: SceneAgent[] = agents.map((agent, i) => {
    const own = agentFiles.get(agent.id) ?? [];
    const fileCount = agent.files?.length ?? 0;
    const level = worst.get(agent.id) ?? 'clear';
    const parts = [`${fileCount} file${fileCount === 1 ? '' : 's'}`];
    if (level !== 'clear') parts.push(level);
    else if (forecastAgents.has(agent.id)) parts.push('forecast');
    if (agent.incomplete && agent.incomplete.length > 0) parts.push('incomplete');
    return {
      id: agent.id,
      label: labels.get(agent.id)!,
      position: markerAt[i]!,
      color: colorOf.get(agent.id)!,
      radius: radii[i]!,
      files: own,
      level,
      title: labels.get(agent.id)!,
      subtitle: parts.join(' · '),
      ...(agent.worktree ? { worktree: agent.worktree } : {}),
      ...(agent.incomplete && agent.incomplete.length > 0 ? { incomplete: agent.incomplete } : {}),
    };
  });

  const posOf = new Map(sceneAgents.map((a) => [a.id, a.position] as const));
  const sceneLinks: SceneLink[] = [];
  const forecasts: SceneForecast[] = [];
  for (const link of links) {
    const from = posOf.get(link.a);
    const to = posOf.get(link.b);
    if (!from || !to) continue;
    // The core puts forecasts on clear links only; a link with an advisory keeps its level's look.
    const forecast = link.level === 'clear' ? usableForecast(link) : undefined;
    // A clear link with no risk and no forecast carries no information; drawing it only adds haze.
    if (link.level === 'clear' && !(link.risk > 0) && !forecast) continue;
    if (forecast) forecasts.push(sceneForecast(link, forecast, labels));
    const probability = forecast ? clamp01(forecast.probability) : undefined;
    sceneLinks.push({
      a: link.a,
      b: link.b,
      from,
      to,
      risk: clamp01(link.risk),
      level: link.level,
      color: forecast ? FORECAST_COLOR : levelColor(link.level),
      radius: linkRadius(link.level, link.risk, agents.length),
      opacity: probability !== undefined ? forecastOpacity(probability) : linkOpacity(link.level, link.risk),
      ...(usableProbability(link.probability) !== undefined ? { probability: usableProbability(link.probability)! } : {}),
      ...(probability !== undefined ? { forecast: probability } : {}),
    });
  }
  // Draw order: clear first (forecasts last among them), resolution last (on top).
  const forecastRank = (l: SceneLink): number => (l.forecast !== undefined ? 1 : 0);
  sceneLinks.sort((x, y) => levelRank(x.level) - levelRank(y.level) || forecastRank(x) - forecastRank(y) || x.risk - y.risk);
  forecasts.sort(forecastOrder);

  const advisories = advisoriesIn.map((a) => advisoryModel(a, labels)).sort(advisoryOrder);

  return {
    generatedAt: typeof result.generatedAt === 'string' ? result.generatedAt : '',
    files,
    agents: sceneAgents,
    links: sceneLinks,
    advisories,
    forecasts,
    counts: result.counts ?? { ...EMPTY_COUNTS, agents: agents.length },
    problems,
    scale,
  };
}
