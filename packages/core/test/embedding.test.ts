import { describe, expect, it } from 'vitest';
import { embedAgents, embedPath } from '../src/embedding.js';
import type { Agent, FileEdit } from '../src/model.js';

const dist = (p: readonly number[], q: readonly number[]): number => Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!, p[2]! - q[2]!);
const edit = (path: string, weight = 1): FileEdit => ({ path, weight, status: 'modified', baseRanges: 'whole', newRanges: 'whole' });
const agent = (id: string, files: FileEdit[]): Agent => ({ id, label: id, startedAt: 0, committedWork: 0, files });

describe('path embedding', () => {
  it('is deterministic and inside the unit cube', () => {
    const p = embedPath('src/core/scan.ts');
    expect(embedPath('src/core/scan.ts')).toEqual(p);
    for (const c of p) expect(Math.abs(c)).toBeLessThanOrEqual(1);
  });

  it('keeps files with a long shared prefix closer than files with a short one', () => {
    const deep = ['src/engine/scan/pairs.ts', 'src/engine/scan/links.ts'];
    const shallow = ['src/engine/scan/pairs.ts', 'test/fixtures/repo.ts'];
    // Siblings share all but the last segment: their offset is at most 2 · √3 · 2^−4.
    expect(dist(embedPath(deep[0]!), embedPath(deep[1]!))).toBeLessThanOrEqual((2 * Math.sqrt(3)) / 16 + 1e-12);
    let closer = 0;
    const dirs = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    for (const d of dirs) {
      const sib = dist(embedPath(`${d}/x/y/one.ts`), embedPath(`${d}/x/y/two.ts`));
      const far = dist(embedPath(`${d}/x/y/one.ts`), embedPath(`z${d}/q/two.ts`));
      if (sib < far) closer++;
    }
    expect(closer).toBe(dirs.length);
    expect(dist(embedPath(shallow[0]!), embedPath(shallow[1]!))).toBeGreaterThan(0);
  });
});

describe('embedAgents', () => {
  it('places agents at the recency-weighted centroid of their files', () => {
    const { positions, fileCoordinates } = embedAgents([agent('a', [edit('x/a.ts', 1), edit('y/b.ts', 0.5)]), agent('empty', [])]);
    const pa = fileCoordinates['x/a.ts']!;
    const pb = fileCoordinates['y/b.ts']!;
    for (let k = 0; k < 3; k++) expect(positions['a']![k]).toBeCloseTo((pa[k]! + 0.5 * pb[k]!) / 1.5, 12);
    expect(positions['empty']).toEqual([0, 0, 0]);
  });

  it('pulls a file toward its dependency neighbours by one averaging step', () => {
    const agents = [agent('a', [edit('x/a.ts'), edit('y/b.ts')])];
    const plain = embedAgents(agents).fileCoordinates;
    const pulled = embedAgents(agents, { edges: [['x/a.ts', 'y/b.ts']], pull: 0.5 }).fileCoordinates;
    const before = dist(plain['x/a.ts']!, plain['y/b.ts']!);
    const after = dist(pulled['x/a.ts']!, pulled['y/b.ts']!);
    expect(after).toBeLessThan(before);
    for (let k = 0; k < 3; k++) expect(pulled['x/a.ts']![k]).toBeCloseTo((plain['x/a.ts']![k]! + plain['y/b.ts']![k]!) / 2, 12);
  });
});
