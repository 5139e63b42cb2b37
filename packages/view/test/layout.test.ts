import { describe, expect, it } from 'vitest';
import { LINK_MARGIN, layoutAgents, readAsOneBand, ringOrder, segmentDistance, type LayoutLink } from '../src/layout.js';
import { placeLabels, segmentHitsBox, boxesOverlap } from '../src/label-layout.js';

const pair = (a: number, b: number, pull: number, width = 0.8): LayoutLink => ({ a, b, pull, drawn: pull > 0, width });

describe('layoutAgents', () => {
  // Two resolution pairs sharing agent 7, one pair apart, two traffic pairs, a near miss, and
  // every other pair clear: the 8-agent airspace that read as one red band.
  const links: LayoutLink[] = [pair(0, 7, 1), pair(7, 3, 1), pair(1, 5, 1), pair(2, 6, 0.7), pair(4, 5, 0.7), pair(3, 4, 0.35)];
  for (let i = 0; i < 8; i++)
    for (let j = i + 1; j < 8; j++) if (!links.some((l) => (l.a === i && l.b === j) || (l.a === j && l.b === i))) links.push(pair(i, j, 0));
  const radii = [2, 2, 1.9, 2, 2, 1.9, 2, 2.1];
  const at = layoutAgents(radii, links);

  it('is deterministic and flat (z = 0)', () => {
    expect(layoutAgents(radii, links)).toEqual(at);
    for (const p of at) expect(p[2]).toBe(0);
  });

  it('seats colliding agents closer than the median pair', () => {
    const d = (i: number, j: number): number => Math.hypot(at[i]![0] - at[j]![0], at[i]![1] - at[j]![1]);
    const all: number[] = [];
    for (let i = 0; i < 8; i++) for (let j = i + 1; j < 8; j++) all.push(d(i, j));
    all.sort((x, y) => x - y);
    for (const l of links.filter((k) => k.pull >= 0.7)) expect(d(l.a, l.b)).toBeLessThan(all[14]!);
  });

  it('keeps every agent off the drawn links of other pairs, and disjoint links apart', () => {
    const drawn = links.filter((l) => l.drawn);
    for (const l of drawn)
      for (let k = 0; k < 8; k++) {
        if (k === l.a || k === l.b) continue;
        expect(segmentDistance(at[k]!, at[l.a]!, at[l.b]!).d).toBeGreaterThanOrEqual(radii[k]! + l.width + LINK_MARGIN - 1e-6);
      }
    for (const l of drawn)
      for (const m of drawn) {
        if ([l.a, l.b].some((x) => x === m.a || x === m.b)) continue;
        expect(readAsOneBand(at[l.a]!, at[l.b]!, at[m.a]!, at[m.b]!, l.width + m.width + LINK_MARGIN * 2)).toBe(false);
      }
  });

  it('moves an agent that sits on a collinear chain off the other pair’s link', () => {
    // 0 — 2 is a resolution pair and 1 starts between them on its line; 1 pairs with nobody.
    const three = layoutAgents([2, 2, 2], [pair(0, 2, 1), pair(0, 1, 0), pair(1, 2, 0)]);
    expect(segmentDistance(three[1]!, three[0]!, three[2]!).d).toBeGreaterThanOrEqual(2 + 0.8 + LINK_MARGIN - 1e-6);
  });

  it('orders the ring by pairs: a pulling pair side by side', () => {
    const order = ringOrder(4, [pair(0, 3, 1), pair(1, 2, 0)]);
    expect(Math.abs(order.indexOf(0) - order.indexOf(3))).toBe(1);
  });

  it('tells parallel neighbouring links from crossing ones', () => {
    expect(readAsOneBand([0, 0], [10, 0], [2, 0.5], [14, 0.6], 2)).toBe(true);
    expect(readAsOneBand([0, 0], [10, 0], [5, -5], [5, 5], 2)).toBe(false);
    expect(readAsOneBand([0, 0], [10, 0], [2, 8], [14, 8], 2)).toBe(false);
  });
});

describe('placeLabels', () => {
  const bounds = { left: 0, top: 0, width: 400, height: 300 };

  it('moves a label off a link that runs through the spot above its marker', () => {
    const link = { x1: 100, y1: 40, x2: 100, y2: 140, half: 2 };
    const boxes = placeLabels([{ id: 'a', x: 100, y: 150, r: 8, w: 60, h: 20, rank: 0 }], [link], [{ x: 100, y: 150, r: 8 }], bounds);
    const box = boxes.get('a')!;
    expect(box).not.toBeNull();
    expect(segmentHitsBox(link, box!)).toBe(false);
  });

  it('keeps labels apart, and hides the less important one when no spot is free', () => {
    const markers = [
      { x: 200, y: 150, r: 8 },
      { x: 230, y: 150, r: 8 },
    ];
    const boxes = placeLabels(
      [
        { id: 'a', x: 200, y: 150, r: 8, w: 50, h: 18, rank: 0 },
        { id: 'b', x: 230, y: 150, r: 8, w: 50, h: 18, rank: 3 },
      ],
      [],
      markers,
      bounds,
    );
    const a = boxes.get('a')!,
      b = boxes.get('b');
    expect(a).not.toBeNull();
    if (b) expect(boxesOverlap(a, b)).toBe(false);
    // Boxed in by links on every side: no spot, no label (never one over a link).
    const cage = [
      { x1: 0, y1: 141, x2: 400, y2: 141, half: 1 },
      { x1: 0, y1: 159, x2: 400, y2: 159, half: 1 },
      { x1: 172, y1: 0, x2: 172, y2: 300, half: 1 },
      { x1: 228, y1: 0, x2: 228, y2: 300, half: 1 },
    ];
    expect(placeLabels([{ id: 'a', x: 200, y: 150, r: 8, w: 50, h: 18, rank: 0 }], cage, [markers[0]!], bounds).get('a')).toBeNull();
  });
});
