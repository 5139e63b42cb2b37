/**
 * The 3D embedding of seed section 4, for drawing only (Euclidean distance here is not risk).
 *
 * Paths are placed by a hierarchical, octree-like subdivision of the unit cube: the root cell is
 * [-1, 1]^3; each path segment picks a point inside its parent's cell from a hash of the path so
 * far, and its own cell is half the parent's size. A file's coordinate is the sum of its
 * segments' offsets, so files sharing a directory prefix of depth L share the first L terms and
 * lie in a cell of side 2^−L around it. Deterministic: the same path always gets the same point,
 * whatever else is in the scan.
 */
import type { Agent } from './model.js';
import type { Vec3 } from './scan-types.js';

/** FNV-1a, 32 bit. */
function hash32(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // Final avalanche (murmur3 fmix32) so that similar names spread.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** A point in [-1, 1)^3 from a string. */
function unitPoint(text: string): Vec3 {
  const x = hash32(text, 0x811c9dc5);
  const y = hash32(text, 0x9e3779b9);
  const z = hash32(text, 0x7f4a7c15);
  return [x / 2 ** 31 - 1, y / 2 ** 31 - 1, z / 2 ** 31 - 1];
}

const cache = new Map<string, Vec3>();

/** Coordinate of one path (no dependency pull). */
export function embedPath(path: string): Vec3 {
  const hit = cache.get(path);
  if (hit) return hit;
  const segments = path.split('/').filter((s) => s.length > 0);
  let x = 0;
  let y = 0;
  let z = 0;
  let half = 0.5; // each level's offset spans half of the parent's half-width
  let prefix = '';
  for (const segment of segments) {
    prefix = prefix ? `${prefix}/${segment}` : segment;
    const [u, v, w] = unitPoint(prefix);
    x += u * half;
    y += v * half;
    z += w * half;
    half /= 2;
  }
  const point: Vec3 = [x, y, z];
  if (cache.size > 100_000) cache.clear();
  cache.set(path, point);
  return point;
}

export interface EmbeddingOptions {
  /** Dependency edges `[from, to]` (either direction pulls): one averaging step toward neighbours. */
  readonly edges?: Iterable<readonly [string, string]>;
  /** How far a file moves toward the mean of its neighbours, in [0, 1]. Default 0.5. */
  readonly pull?: number;
}

export interface Embedding {
  readonly fileCoordinates: Record<string, Vec3>;
  readonly positions: Record<string, Vec3>;
}

/**
 * Coordinates of every file the agents touch (path embedding, then one averaging step toward
 * dependency neighbours among those files), and each agent at the recency-weighted (`FileEdit.weight`)
 * centroid of its files. An agent with no files sits at the origin.
 */
export function embedAgents(agents: readonly Agent[], options: EmbeddingOptions = {}): Embedding {
  const base = new Map<string, Vec3>();
  for (const agent of agents) for (const f of agent.files) if (!base.has(f.path)) base.set(f.path, embedPath(f.path));

  const fileCoordinates: Record<string, Vec3> = {};
  const pull = Math.min(1, Math.max(0, options.pull ?? 0.5));
  const neighbours = new Map<string, string[]>();
  if (options.edges) {
    for (const [from, to] of options.edges) {
      if (from === to) continue;
      // Neighbours outside the touched set still pull (their coordinate is their path's).
      if (base.has(from)) (neighbours.get(from) ?? neighbours.set(from, []).get(from)!).push(to);
      if (base.has(to)) (neighbours.get(to) ?? neighbours.set(to, []).get(to)!).push(from);
    }
  }
  for (const [path, point] of base) {
    const near = neighbours.get(path);
    if (!near || near.length === 0 || pull === 0) {
      fileCoordinates[path] = point;
      continue;
    }
    const mean = [0, 0, 0];
    for (const n of near) {
      const q = base.get(n) ?? embedPath(n);
      mean[0]! += q[0];
      mean[1]! += q[1];
      mean[2]! += q[2];
    }
    const k = near.length;
    fileCoordinates[path] = [
      point[0] + pull * (mean[0]! / k - point[0]),
      point[1] + pull * (mean[1]! / k - point[1]),
      point[2] + pull * (mean[2]! / k - point[2]),
    ];
  }

  const positions: Record<string, Vec3> = {};
  for (const agent of agents) {
    let sx = 0;
    let sy = 0;
    let sz = 0;
    let total = 0;
    for (const f of agent.files) {
      const w = Number.isFinite(f.weight) && f.weight > 0 ? f.weight : 0;
      const p = fileCoordinates[f.path]!;
      sx += w * p[0];
      sy += w * p[1];
      sz += w * p[2];
      total += w;
    }
    positions[agent.id] = total > 0 ? [sx / total, sy / total, sz / total] : [0, 0, 0];
  }
  return { fileCoordinates, positions };
}
