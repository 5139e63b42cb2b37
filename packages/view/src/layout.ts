/**
 * Where the view puts its agents: driven by the pairs, not by the files. Agents that collide are
 * pulled together, every agent is kept clear of the drawn links of other pairs, and two drawn
 * links of disjoint pairs never run along each other. Pure, deterministic and in scene units; the
 * agents lie in the plane z = 0, which the page's camera faces, so what holds here holds on screen.
 */
import type { Vec3 } from '@airspace/core';
import { placeLabels } from './label-layout.js';

/** One pair as the layout sees it (indexes into the agents). */
export interface LayoutLink {
  readonly a: number;
  readonly b: number;
  /** How hard the pair pulls its agents together: 0 for none (clear), up to 1 (resolution). */
  readonly pull: number;
  /** Drawn by default: the layout keeps other agents and disjoint links clear of it. */
  readonly drawn: boolean;
  /** Half-width of the drawn link (its tube radius), in scene units. */
  readonly width: number;
}

/** Room kept between an agent's sphere and a foreign link, and between two disjoint links, in scene units. */
export const LINK_MARGIN = 3;
/** Two disjoint links closer than this angle (and close together) would read as one band. */
export const PARALLEL_DEGREES = 12;
/** Size of the area agents are spread over before the clearances are enforced. */
const SPREAD_RADIUS = 42;
/** Above this many agents the force pass is skipped (pairs are still seated side by side on the ring). */
const FORCE_LIMIT = 250;

type P = [number, number];

/**
 * Agents in ring order: each connected group of pulling pairs together, strongest pulls first.
 * `variant` changes where each group starts and which way it is walked (other starts, same rule).
 */
export function ringOrder(count: number, links: readonly LayoutLink[], variant = 0): number[] {
  const next = Array.from({ length: count }, () => [] as Array<{ to: number; pull: number }>);
  for (const l of links) {
    if (l.pull <= 0 || l.a === l.b) continue;
    next[l.a]!.push({ to: l.b, pull: l.pull });
    next[l.b]!.push({ to: l.a, pull: l.pull });
  }
  for (const n of next) n.sort((x, y) => y.pull - x.pull || (variant % 2 === 0 ? x.to - y.to : y.to - x.to));
  const weight = next.map((n) => n.reduce((s, e) => s + e.pull, 0));
  const starts = [...Array(count).keys()].sort((x, y) => weight[y]! - weight[x]! || x - y);
  // Another start for each group: its `variant`-th agent by weight.
  for (let k = 0; k < Math.floor(variant / 2); k++) starts.push(starts.shift()!);
  const seen = new Array<boolean>(count).fill(false);
  const order: number[] = [];
  const visit = (i: number): void => {
    seen[i] = true;
    order.push(i);
    for (const e of next[i]!) if (!seen[e.to]) visit(e.to);
  };
  for (const s of starts) if (!seen[s]) visit(s);
  return order;
}

/**
 * Start with each group of pulling pairs on its own small ring, walked in `ringOrder` (a cycle of
 * pairs starts as a convex polygon, so the springs do not fold an agent inside it), and the groups
 * on a large ring.
 */
function ringStart(count: number, links: readonly LayoutLink[], variant: number): P[] {
  const p: P[] = Array.from({ length: count }, () => [0, 0] as P);
  const group = [...Array(count).keys()];
  const find = (i: number): number => (group[i] === i ? i : (group[i] = find(group[i]!)));
  for (const l of links) if (l.pull > 0) group[find(l.a)] = find(l.b);
  const groups = new Map<number, number[]>();
  for (const agent of ringOrder(count, links, variant)) {
    const g = find(agent);
    (groups.get(g) ?? groups.set(g, []).get(g)!).push(agent);
  }
  const list = [...groups.values()];
  list.forEach((members, k) => {
    const angle = (2 * Math.PI * k) / list.length + Math.PI / 2;
    const c: P = list.length > 1 ? [SPREAD_RADIUS * Math.cos(angle), SPREAD_RADIUS * Math.sin(angle)] : [0, 0];
    const r = members.length > 1 ? Math.max(6, members.length * 4) : 0;
    members.forEach((agent, j) => {
      const t = (2 * Math.PI * j) / members.length;
      p[agent] = [c[0] + r * Math.cos(t), c[1] + r * Math.sin(t)];
    });
  });
  return p;
}

/** A few hundred steps of springs (pulling pairs) against repulsion (everyone), cooling as it goes. */
function relax(p: P[], links: readonly LayoutLink[], radii: readonly number[]): void {
  const n = p.length;
  if (n < 3 || n > FORCE_LIMIT) return;
  const ideal = (SPREAD_RADIUS * 1.6) / Math.sqrt(n);
  const force = p.map(() => [0, 0] as P);
  for (let it = 0, temperature = ideal; it < 300; it++, temperature *= 0.985) {
    for (const f of force) f[0] = f[1] = 0;
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        const dx = p[i]![0] - p[j]![0],
          dy = p[i]![1] - p[j]![1];
        const d2 = Math.max(1e-6, dx * dx + dy * dy);
        const push = (ideal * ideal) / d2;
        force[i]![0] += dx * push;
        force[i]![1] += dy * push;
        force[j]![0] -= dx * push;
        force[j]![1] -= dy * push;
      }
    for (const l of links) {
      if (l.pull <= 0) continue;
      const a = p[l.a]!,
        b = p[l.b]!;
      const dx = b[0] - a[0],
        dy = b[1] - a[1];
      const d = Math.max(1e-6, Math.hypot(dx, dy));
      const rest = (radii[l.a]! + radii[l.b]!) * 2 + 16;
      const pull = (l.pull * Math.max(0, d - rest)) / ideal;
      force[l.a]![0] += dx * pull;
      force[l.a]![1] += dy * pull;
      force[l.b]![0] -= dx * pull;
      force[l.b]![1] -= dy * pull;
    }
    for (let i = 0; i < n; i++) {
      // A weak pull to the centre keeps groups that share no pair from drifting apart.
      const f = force[i]!;
      f[0] -= p[i]![0] * 0.02;
      f[1] -= p[i]![1] * 0.02;
      const len = Math.hypot(f[0], f[1]);
      if (len < 1e-9) continue;
      const step = Math.min(len, temperature) / len;
      p[i]![0] += f[0] * step;
      p[i]![1] += f[1] * step;
    }
  }
}

/** Scale the agents into a disc of `SPREAD_RADIUS` around the origin. */
function fit(p: P[]): void {
  let cx = 0,
    cy = 0;
  for (const q of p) {
    cx += q[0] / p.length;
    cy += q[1] / p.length;
  }
  let far = 0;
  for (const q of p) far = Math.max(far, Math.hypot(q[0] - cx, q[1] - cy));
  const s = far > 1e-9 ? SPREAD_RADIUS / far : 1;
  for (const q of p) {
    q[0] = (q[0] - cx) * s;
    q[1] = (q[1] - cy) * s;
  }
}

/** Distance from `q` to the segment `a`–`b`, and the point of the segment nearest it. */
export function segmentDistance(q: readonly number[], a: readonly number[], b: readonly number[]): { d: number; at: P; t: number } {
  const dx = b[0]! - a[0]!,
    dy = b[1]! - a[1]!;
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.min(1, Math.max(0, ((q[0]! - a[0]!) * dx + (q[1]! - a[1]!) * dy) / len2)) : 0;
  const at: P = [a[0]! + t * dx, a[1]! + t * dy];
  return { d: Math.hypot(q[0]! - at[0], q[1]! - at[1]), at, t };
}

/** Move `q` straight away from the point `from` by `by`; a deterministic side when they coincide. */
function pushAway(q: P, from: readonly number[], by: number, seed: number, along?: readonly number[]): void {
  let dx = q[0] - from[0]!,
    dy = q[1] - from[1]!;
  let d = Math.hypot(dx, dy);
  if (d < 1e-6) {
    // On the line itself: step to the side perpendicular to it (or at an angle from the index).
    const angle = along ? Math.atan2(along[1]!, along[0]!) + Math.PI / 2 : seed * 2.399963;
    dx = Math.cos(angle);
    dy = Math.sin(angle);
    d = 1;
  }
  q[0] += (dx / d) * by;
  q[1] += (dy / d) * by;
}

/** Agents apart from each other, and off the links of other pairs; true when something moved. */
function clearAgents(p: P[], radii: readonly number[], drawn: readonly LayoutLink[]): boolean {
  let moved = false;
  for (let i = 0; i < p.length; i++)
    for (let j = i + 1; j < p.length; j++) {
      const min = radii[i]! + radii[j]! + LINK_MARGIN * 2;
      const d = Math.hypot(p[i]![0] - p[j]![0], p[i]![1] - p[j]![1]);
      if (d >= min) continue;
      const mid: P = [(p[i]![0] + p[j]![0]) / 2, (p[i]![1] + p[j]![1]) / 2];
      pushAway(p[i]!, mid, (min - d) / 2 + 0.1, i + j);
      pushAway(p[j]!, mid, (min - d) / 2 + 0.1, i + j + 1);
      moved = true;
    }
  for (const l of drawn) {
    for (let k = 0; k < p.length; k++) {
      if (k === l.a || k === l.b) continue;
      const a = p[l.a]!,
        b = p[l.b]!;
      const need = radii[k]! + l.width + LINK_MARGIN;
      const { d, at } = segmentDistance(p[k]!, a, b);
      if (d >= need) continue;
      pushAway(p[k]!, at, need - d + 0.25, k, [b[0] - a[0], b[1] - a[1]]);
      moved = true;
    }
  }
  return moved;
}

/** Whether two links (no agent in common) run along each other: nearly parallel and close. */
export function readAsOneBand(
  a1: readonly number[],
  b1: readonly number[],
  a2: readonly number[],
  b2: readonly number[],
  gap: number,
): boolean {
  const u = [b1[0]! - a1[0]!, b1[1]! - a1[1]!],
    v = [b2[0]! - a2[0]!, b2[1]! - a2[1]!];
  const lu = Math.hypot(u[0]!, u[1]!),
    lv = Math.hypot(v[0]!, v[1]!);
  if (lu < 1e-9 || lv < 1e-9) return false;
  const sin = Math.abs(u[0]! * v[1]! - u[1]! * v[0]!) / (lu * lv);
  if (sin > Math.sin((PARALLEL_DEGREES * Math.PI) / 180)) return false;
  // Parallel enough: one band if, over a stretch, they are within `gap` of each other.
  const near = [segmentDistance(a2, a1, b1), segmentDistance(b2, a1, b1), segmentDistance(a1, a2, b2), segmentDistance(b1, a2, b2)];
  return near.filter((x) => x.d < gap && x.t > 0 && x.t < 1).length > 0;
}

/** Disjoint links that would read as one band: move the second pair's agents off the first's line. */
function clearBands(p: P[], drawn: readonly LayoutLink[]): boolean {
  let moved = false;
  for (let x = 0; x < drawn.length; x++)
    for (let y = x + 1; y < drawn.length; y++) {
      const l = drawn[x]!,
        m = drawn[y]!;
      if (l.a === m.a || l.a === m.b || l.b === m.a || l.b === m.b) continue;
      const gap = l.width + m.width + LINK_MARGIN * 2;
      if (!readAsOneBand(p[l.a]!, p[l.b]!, p[m.a]!, p[m.b]!, gap)) continue;
      const along = [p[l.b]![0] - p[l.a]![0], p[l.b]![1] - p[l.a]![1]];
      for (const k of [m.a, m.b]) pushAway(p[k]!, segmentDistance(p[k]!, p[l.a]!, p[l.b]!).at, gap, k, along);
      moved = true;
    }
  return moved;
}

/** A label's box on the page, in pixels, and its place in the page's order (lower first; `labelRank`). */
export interface LayoutLabel {
  readonly w: number;
  readonly h: number;
  readonly rank: number;
}

/** The label assumed when none is given: a compact name of about ten characters. */
const DEFAULT_LABEL: LayoutLabel = { w: 112, h: 26, rank: 0 };
/**
 * Pixels the page gives the agents' extent (the farthest marker's edge from the centre, as
 * `frameCamera` frames it) at its usual size, a stage about 820 px tall, a little under: the
 * layout keeps room for labels as large as the page draws them, or larger.
 */
export const EXTENT_PIXELS = 300;
/** Rounds of making room around agents whose label finds no spot. */
const ROOM_ROUNDS = 12;

/** The layout as the page shows it: screen pixels (y down), at `EXTENT_PIXELS` for the extent. */
function onScreen(p: readonly P[], radii: readonly number[]): { scale: number; at: P[] } {
  let extent = 10;
  p.forEach((q, i) => (extent = Math.max(extent, Math.hypot(q[0], q[1]) + radii[i]! * 2)));
  const scale = EXTENT_PIXELS / extent;
  return { scale, at: p.map((q) => [q[0] * scale, -q[1] * scale] as P) };
}

/**
 * The agents of drawn links whose label finds no spot (`placeLabels`, as the page places them,
 * the page's order), and the number of clearances still broken.
 */
function crowding(
  p: readonly P[],
  radii: readonly number[],
  drawn: readonly LayoutLink[],
  labels: readonly LayoutLabel[],
): { unplaced: number[]; broken: number } {
  const { scale, at } = onScreen(p, radii);
  const labelled = [...new Set(drawn.flatMap((l) => [l.a, l.b]))];
  const requests = labelled.map((i) => ({ id: String(i), x: at[i]![0], y: at[i]![1], r: radii[i]! * scale, ...labels[i]! }));
  const segments = drawn.map((l) => ({
    x1: at[l.a]![0],
    y1: at[l.a]![1],
    x2: at[l.b]![0],
    y2: at[l.b]![1],
    half: Math.max(1, l.width * scale),
  }));
  const markers = at.map((q, i) => ({ x: q[0], y: q[1], r: radii[i]! * scale }));
  const far = EXTENT_PIXELS * 4;
  const boxes = placeLabels(requests, segments, markers, { left: -far, top: -far, width: far * 2, height: far * 2 });
  let broken = 0;
  for (const l of drawn)
    for (let k = 0; k < p.length; k++)
      if (k !== l.a && k !== l.b && segmentDistance(p[k]!, p[l.a]!, p[l.b]!).d < radii[k]! + l.width + LINK_MARGIN - 0.01) broken++;
  return { unplaced: labelled.filter((i) => boxes.get(String(i)) === null), broken };
}

const score = (c: { unplaced: readonly number[]; broken: number }): number => c.unplaced.length + c.broken * 10;

/**
 * Room for a label around agent `i`: everyone else within `reach` moves away from it, the nearest
 * by `by` and less further out (a local magnifier, so the order of things around it is kept and
 * its links get longer, opening the angles between them).
 */
function makeRoom(p: P[], i: number, by: number, reach: number): void {
  const c = p[i]!;
  p.forEach((q, k) => {
    if (k === i) return;
    const d = Math.hypot(q[0] - c[0], q[1] - c[1]);
    if (d < reach) pushAway(q, c, by * (1 - d / reach), k);
  });
}

/**
 * Clear the links (bounded rounds), then centre the agents' bounding box on the origin, where the
 * camera looks (clearing and making room push outwards, unevenly).
 */
function clearAll(p: P[], radii: readonly number[], drawn: readonly LayoutLink[]): void {
  for (let round = 0; round < 400; round++) {
    const a = clearAgents(p, radii, drawn);
    const b = clearBands(p, drawn);
    if (!a && !b) break;
  }
  const xs = p.map((q) => q[0]),
    ys = p.map((q) => q[1]);
  const cx = (Math.min(...xs) + Math.max(...xs)) / 2,
    cy = (Math.min(...ys) + Math.max(...ys)) / 2;
  for (const q of p) {
    q[0] -= cx;
    q[1] -= cy;
  }
}

/**
 * The agents' positions (z = 0) from their pairs: a ring in pair order, relaxed by springs, then
 * nudged until no agent sits within its radius plus `LINK_MARGIN` of a drawn link of another pair
 * and no two disjoint drawn links run along each other (bounded; a tangle that cannot be undone in
 * the rounds allowed keeps its last state). Where the label (`labels`, in pixels) of an agent of a
 * drawn link would find no spot on the page, the agents around it move apart until it does (a few
 * rounds), so labels are placed rather than hidden.
 */
export function layoutAgents(radii: readonly number[], links: readonly LayoutLink[], labels: readonly LayoutLabel[] = []): Vec3[] {
  const n = radii.length;
  if (n === 0) return [];
  if (n === 1) return [[0, 0, 0]];
  const drawn = links.filter((l) => l.drawn && l.a !== l.b);
  const sizes = radii.map((_, i) => labels[i] ?? DEFAULT_LABEL);
  // A few starts, the least crowded kept (one start for a large airspace, where each costs more).
  const variants = n > 60 ? 1 : 8;
  let best: P[] = [];
  let bestScore = Infinity;
  for (let v = 0; v < variants && bestScore > 0; v++) {
    const p = ringStart(n, links, v);
    relax(p, links, radii);
    fit(p);
    clearAll(p, radii, drawn);
    if (variants === 1) return p.map((q) => [q[0], q[1], 0] as Vec3);
    for (let round = 0; ; round++) {
      const c = crowding(p, radii, drawn, sizes);
      if (score(c) < bestScore) [best, bestScore] = [p.map((q) => [q[0], q[1]] as P), score(c)];
      if (c.unplaced.length === 0 || round === ROOM_ROUNDS) break;
      const { scale } = onScreen(p, radii);
      for (const i of c.unplaced) {
        const size = Math.max(sizes[i]!.w, sizes[i]!.h * 2) / scale;
        makeRoom(p, i, size * 0.25, size * 3);
      }
      clearAll(p, radii, drawn);
    }
  }
  return best.map((q) => [q[0], q[1], 0] as Vec3);
}
