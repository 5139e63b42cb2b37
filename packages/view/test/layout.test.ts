import { describe, expect, it } from 'vitest';
import { EXTENT_PIXELS, LINK_MARGIN, layoutAgents, readAsOneBand, ringOrder, segmentDistance, type LayoutLink } from '../src/layout.js';
import { placeLabels, segmentHitsBox, boxesOverlap } from '../src/label-layout.js';
import type { Vec3 } from '@airspace/core';

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

describe('layoutAgents makes room for every label', () => {
  // 20 agents: chains, a hub and pairs across the ring (1-based, as in the browser test), every
  // other pair clear. Agent 19 pairs with 18 and 1, which pair with 10 and 2: a ring of five that
  // the springs folded around 19, leaving its label no spot on the page.
  const resolution = [
    [1, 2],
    [3, 11],
    [5, 17],
    [6, 7],
    [7, 8],
    [12, 20],
    [14, 9],
  ];
  const traffic = [
    [2, 10],
    [4, 15],
    [13, 16],
    [18, 19],
    [19, 1],
    [9, 12],
  ];
  const near = [
    [6, 13],
    [10, 18],
  ];
  const link = (a: number, b: number, pull: number, width: number): LayoutLink => ({ a: a - 1, b: b - 1, pull, drawn: true, width });
  const links: LayoutLink[] = [
    ...resolution.map(([a, b]) => link(a!, b!, 1, 1.12)),
    ...traffic.map(([a, b]) => link(a!, b!, 0.7, 0.62)),
    ...near.map(([a, b]) => link(a!, b!, 0.35, 0.3)),
  ];
  for (let i = 0; i < 20; i++)
    for (let j = i + 1; j < 20; j++)
      if (!links.some((l) => (l.a === i && l.b === j) || (l.a === j && l.b === i)))
        links.push({ a: i, b: j, pull: 0, drawn: false, width: 0.3 });
  const radii = Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? 1.72 : 1.79));
  // Compact labels, as the page draws them from 12 agents on ("agent 1" … "agent 20"), resolution agents placed first.
  const levels = Array.from({ length: 20 }, (_, i) => (resolution.flat().includes(i + 1) ? 0 : 1));
  const labels = levels.map((rank, i) => ({ w: i < 9 ? 85 : 94, h: 26, rank }));
  const at = layoutAgents(radii, links, labels);

  /** The labels of the agents of drawn links, placed as the page places them, with the extent drawn `pixels` wide. */
  function placedOnPage(pos: readonly Vec3[], pixels: number) {
    let extent = 10;
    pos.forEach((q, i) => (extent = Math.max(extent, Math.hypot(q[0], q[1]) + radii[i]! * 2)));
    const s = pixels / extent;
    const drawn = links.filter((l) => l.drawn);
    const paired = [...new Set(drawn.flatMap((l) => [l.a, l.b]))];
    const segments = drawn.map((l) => ({
      x1: pos[l.a]![0] * s,
      y1: -pos[l.a]![1] * s,
      x2: pos[l.b]![0] * s,
      y2: -pos[l.b]![1] * s,
      half: l.width * s,
    }));
    const markers = pos.map((q, i) => ({ x: q[0] * s, y: -q[1] * s, r: radii[i]! * s }));
    const requests = paired.map((i) => ({ id: String(i + 1), x: markers[i]!.x, y: markers[i]!.y, r: markers[i]!.r, ...labels[i]! }));
    const boxes = placeLabels(requests, segments, markers, { left: -2000, top: -2000, width: 4000, height: 4000 });
    return { boxes, paired, segments };
  }

  it('gives every agent of a drawn link a label off every link, at the page’s scale and somewhat larger', () => {
    for (const pixels of [EXTENT_PIXELS, EXTENT_PIXELS * 1.2]) {
      const { boxes, paired, segments } = placedOnPage(at, pixels);
      expect(paired.filter((i) => !boxes.get(String(i + 1))).map((i) => i + 1)).toEqual([]);
      for (const box of boxes.values()) for (const s of segments) expect(segmentHitsBox(s, box!)).toBe(false);
    }
  });

  it('keeps the clearances while making room: agents off foreign links, colliding agents together', () => {
    const drawn = links.filter((l) => l.drawn);
    for (const l of drawn)
      for (let k = 0; k < 20; k++)
        if (k !== l.a && k !== l.b)
          expect(segmentDistance(at[k]!, at[l.a]!, at[l.b]!).d).toBeGreaterThanOrEqual(radii[k]! + l.width + LINK_MARGIN - 1e-6);
    const d = (i: number, j: number): number => Math.hypot(at[i]![0] - at[j]![0], at[i]![1] - at[j]![1]);
    const all: number[] = [];
    for (let i = 0; i < 20; i++) for (let j = i + 1; j < 20; j++) all.push(d(i, j));
    all.sort((x, y) => x - y);
    for (const l of links.filter((k) => k.pull >= 0.7)) expect(d(l.a, l.b)).toBeLessThan(all[all.length / 2]!);
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

  it('finds the spot between the spokes of a hub, in a direction other than the eight main ones', () => {
    // Six links out of the marker every 60°, from 0° (right): the spots above, below, beside and
    // at the diagonals all cross one; the one at −22.5° (up and right) is free.
    const spokes = [0, 60, 120, 180, 240, 300].map((deg) => {
      const a = (deg * Math.PI) / 180;
      return { x1: 200, y1: 150, x2: 200 + 120 * Math.cos(a), y2: 150 + 120 * Math.sin(a), half: 2 };
    });
    const markers = [{ x: 200, y: 150, r: 8 }, ...spokes.map((s) => ({ x: s.x2, y: s.y2, r: 8 }))];
    const box = placeLabels([{ id: 'hub', x: 200, y: 150, r: 8, w: 60, h: 20, rank: 0 }], spokes, markers, bounds).get('hub');
    expect(box).toBeTruthy();
    for (const s of spokes) expect(segmentHitsBox(s, box!, 3)).toBe(false);
    expect(box!.left).toBeGreaterThan(200);
    expect(box!.top + box!.height).toBeLessThan(150);
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
    // Boxed in by links on every side, in a stage no larger than the cage's neighbourhood: no
    // spot, no label (never one over a link).
    const cage = [
      { x1: 0, y1: 141, x2: 400, y2: 141, half: 1 },
      { x1: 0, y1: 159, x2: 400, y2: 159, half: 1 },
      { x1: 172, y1: 0, x2: 172, y2: 300, half: 1 },
      { x1: 228, y1: 0, x2: 228, y2: 300, half: 1 },
    ];
    const small = { left: 150, top: 100, width: 100, height: 100 };
    expect(placeLabels([{ id: 'a', x: 200, y: 150, r: 8, w: 50, h: 18, rank: 0 }], cage, [markers[0]!], small).get('a')).toBeNull();
  });
});
