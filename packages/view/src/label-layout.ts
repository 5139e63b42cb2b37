/**
 * Where the agents' labels go on screen: beside their marker, on a spot where the label's box
 * crosses no drawn link, no other label and no other marker. Pure screen-space geometry (CSS
 * pixels); each label nearer its own marker than any other. A label with no free spot is hidden,
 * least important first.
 */

export interface LabelRequest {
  readonly id: string;
  /** The marker's centre and radius on screen. */
  readonly x: number;
  readonly y: number;
  readonly r: number;
  /** The label's box size. */
  readonly w: number;
  readonly h: number;
  /** Placed in ascending order: the focused agents first, then the worse levels. */
  readonly rank: number;
}

export interface ScreenSegment {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
  /** Half of the drawn width, in pixels. */
  readonly half: number;
}

export interface Box {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** Space kept between a label and a link, a marker or another label, in pixels. */
export const LABEL_GAP = 3;

/** Above this many agents, labels show the name only (the level is in the label's border). */
export const COMPACT_FROM = 12;

/**
 * About the size the page draws a label at, in pixels, a little over (a 13 px bold name, an
 * 11 px second line unless compact, padding and border): what the layout keeps room for.
 */
export function labelSize(title: string, subtitle: string, compact: boolean): { w: number; h: number } {
  const chars = (text: string): number => [...text].length;
  return { w: 22 + Math.max(chars(title) * 9, compact ? 0 : chars(subtitle) * 5.5), h: compact ? 26 : 40 };
}

/** Whether a segment (widened by `half`) comes within the box. */
export function segmentHitsBox(s: ScreenSegment, b: Box, pad = 0): boolean {
  const grow = s.half + pad;
  const left = b.left - grow,
    top = b.top - grow,
    right = b.left + b.width + grow,
    bottom = b.top + b.height + grow;
  // Liang–Barsky clipping of the segment against the grown box.
  let t0 = 0,
    t1 = 1;
  const dx = s.x2 - s.x1,
    dy = s.y2 - s.y1;
  const edges: Array<[number, number]> = [
    [-dx, s.x1 - left],
    [dx, right - s.x1],
    [-dy, s.y1 - top],
    [dy, bottom - s.y1],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

export function boxesOverlap(a: Box, b: Box, pad = 0): boolean {
  return (
    a.left < b.left + b.width + pad && b.left < a.left + a.width + pad && a.top < b.top + b.height + pad && b.top < a.top + a.height + pad
  );
}

/** Whether a circle comes within the box. */
function circleHitsBox(x: number, y: number, r: number, b: Box): boolean {
  const cx = Math.min(Math.max(x, b.left), b.left + b.width);
  const cy = Math.min(Math.max(y, b.top), b.top + b.height);
  return Math.hypot(x - cx, y - cy) < r;
}

/** Whether the box is nearer its own marker than any other (so it reads as that marker's label). */
function ownNearest(q: LabelRequest, b: Box, markers: ReadonlyArray<{ x: number; y: number; r: number }>): boolean {
  const gap = (x: number, y: number): number =>
    Math.hypot(x - Math.min(Math.max(x, b.left), b.left + b.width), y - Math.min(Math.max(y, b.top), b.top + b.height));
  const own = gap(q.x, q.y) - q.r;
  return markers.every((m) => (m.x === q.x && m.y === q.y) || gap(m.x, m.y) - m.r > own);
}

/** How far out from its marker (beyond the radius) a label is tried, nearest first, in pixels. */
const DISTANCES = [LABEL_GAP + 2, 10, 18, 28, 40, 54];
/**
 * The 16 directions a label is tried in at each distance (screen angles in degrees, y down):
 * above, below, the sides, the diagonals, then the eight between them.
 */
const DIRECTIONS = [-90, 90, 0, 180, -45, -135, 45, 135, -67.5, -112.5, 67.5, 112.5, -22.5, -157.5, 22.5, 157.5].map(
  (deg) => (deg * Math.PI) / 180,
);

/**
 * Spots around a marker, nearest first: in each of 16 directions, the box whose side (or corner)
 * facing the marker sits `r + far` from its centre in that direction.
 */
function candidates(q: LabelRequest): Box[] {
  const out: Box[] = [];
  for (const far of DISTANCES) {
    const d = q.r + far;
    for (const angle of DIRECTIONS) {
      const c = Math.cos(angle),
        s = Math.sin(angle);
      // The anchor on the circle; the box hangs off it away from the marker (a corner at the diagonals).
      const u = Math.max(-1, Math.min(1, c * Math.SQRT2)),
        v = Math.max(-1, Math.min(1, s * Math.SQRT2));
      out.push({ left: q.x + d * c - (q.w * (1 - u)) / 2, top: q.y + d * s - (q.h * (1 - v)) / 2, width: q.w, height: q.h });
    }
  }
  return out;
}

/**
 * A box for each label, or null where none is free. `bounds` is the area labels may use (the
 * stage less the heads-up); `markers` are every agent's circle on screen, labelled or not;
 * `avoid` are boxes drawn over the scene (the legend).
 */
export function placeLabels(
  requests: readonly LabelRequest[],
  segments: readonly ScreenSegment[],
  markers: ReadonlyArray<{ x: number; y: number; r: number }>,
  bounds: Box,
  avoid: readonly Box[] = [],
): Map<string, Box | null> {
  const placed: Box[] = [...avoid];
  const out = new Map<string, Box | null>();
  const inside = (b: Box): boolean =>
    b.left >= bounds.left &&
    b.top >= bounds.top &&
    b.left + b.width <= bounds.left + bounds.width &&
    b.top + b.height <= bounds.top + bounds.height;
  const order = [...requests].sort((p, q) => p.rank - q.rank || p.y - q.y || (p.id < q.id ? -1 : 1));
  for (const q of order) {
    const box = candidates(q).find(
      (b) =>
        inside(b) &&
        ownNearest(q, b, markers) &&
        !placed.some((o) => boxesOverlap(o, b, LABEL_GAP)) &&
        !markers.some((m) => circleHitsBox(m.x, m.y, m.r + LABEL_GAP, b)) &&
        !segments.some((s) => segmentHitsBox(s, b, LABEL_GAP)),
    );
    out.set(q.id, box ?? null);
    if (box) placed.push(box);
  }
  return out;
}
