/**
 * The view at a glance with 8 and 20 agents (generated airspaces, `crowdScan`): read from the
 * geometry the page draws (`airspaceView.geometry()`, client pixels) that colliding agents sit
 * together, every agent of a drawn pair is labelled, no label covers a link, marker or label, no
 * marker sits on another pair's link, no two disjoint links read as one band, clear links are
 * hidden until asked for and the near-threshold pair is marked; the pair list shows every pair; the
 * live page (the server `airspace view` runs) holds the same after an update from 8 to 20 agents;
 * and the exported file, captured by plain `chromium --headless --screenshot` (with and without
 * WebGL), shows the scene.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import { NEAR_THRESHOLD_COLOR, renderViewHtml, startViewServer } from '@airspace/view';
import { CHROMIUM, chromiumPath, describeWith } from '../programs.js';
import { artifactPath, launchChromium, waitForScene, type Browser } from './browser.js';
import { PLAN_20, PLAN_8, crowdScan, type CrowdPlan } from './scenario.js';

interface Geometry {
  agents: Array<{ id: string; x: number; y: number; r: number }>;
  links: Array<{
    a: string;
    b: string;
    level: string;
    color: string;
    near: boolean;
    x1: number;
    y1: number;
    x2: number;
    y2: number;
    half: number;
  }>;
  labels: Array<{ id: string; left: number; top: number; width: number; height: number }>;
  stage: { left: number; top: number; width: number; height: number };
}
type Box = Geometry['labels'][number];
type Seg = Geometry['links'][number];

const id = (k: number): string => `agent-${String(k).padStart(2, '0')}`;
const key = (x: string, y: string): string => (x < y ? `${x}|${y}` : `${y}|${x}`);

function pointSegment(px: number, py: number, s: Pick<Seg, 'x1' | 'y1' | 'x2' | 'y2'>): number {
  const dx = s.x2 - s.x1,
    dy = s.y2 - s.y1;
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.min(1, Math.max(0, ((px - s.x1) * dx + (py - s.y1) * dy) / len2)) : 0;
  return Math.hypot(s.x1 + t * dx - px, s.y1 + t * dy - py);
}

/** Distance from a segment to a box (0 when they meet), by the box's corners and edges. */
function segmentBox(s: Seg, b: Box): number {
  const inside = (x: number, y: number): boolean => x >= b.left && x <= b.left + b.width && y >= b.top && y <= b.top + b.height;
  if (inside(s.x1, s.y1) || inside(s.x2, s.y2)) return 0;
  const [l, t, r, d] = [b.left, b.top, b.left + b.width, b.top + b.height];
  const edges = [
    { x1: l, y1: t, x2: r, y2: t },
    { x1: r, y1: t, x2: r, y2: d },
    { x1: r, y1: d, x2: l, y2: d },
    { x1: l, y1: d, x2: l, y2: t },
  ];
  const cross = (p: typeof s | (typeof edges)[number], q: (typeof edges)[number]): boolean => {
    const o = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number) =>
      Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax));
    return (
      o(p.x1, p.y1, p.x2, p.y2, q.x1, q.y1) * o(p.x1, p.y1, p.x2, p.y2, q.x2, q.y2) < 0 &&
      o(q.x1, q.y1, q.x2, q.y2, p.x1, p.y1) * o(q.x1, q.y1, q.x2, q.y2, p.x2, p.y2) < 0
    );
  };
  if (edges.some((e) => cross(s, e))) return 0;
  return Math.min(
    ...edges.map((e) => pointSegment(e.x1, e.y1, s)),
    pointSegment(s.x1, s.y1, edges[0]!),
    pointSegment(s.x1, s.y1, edges[1]!),
    pointSegment(s.x1, s.y1, edges[2]!),
    pointSegment(s.x1, s.y1, edges[3]!),
    pointSegment(s.x2, s.y2, edges[0]!),
    pointSegment(s.x2, s.y2, edges[1]!),
    pointSegment(s.x2, s.y2, edges[2]!),
    pointSegment(s.x2, s.y2, edges[3]!),
  );
}

/** Length (px) along which two segments run within `gap` of each other at under 10°. */
function sharedBand(p: Seg, q: Seg, gap: number): number {
  const u = [p.x2 - p.x1, p.y2 - p.y1],
    v = [q.x2 - q.x1, q.y2 - q.y1];
  const lu = Math.hypot(u[0]!, u[1]!),
    lv = Math.hypot(v[0]!, v[1]!);
  if (lu < 1 || lv < 1) return 0;
  if (Math.abs(u[0]! * v[1]! - u[1]! * v[0]!) / (lu * lv) > Math.sin((10 * Math.PI) / 180)) return 0;
  let run = 0;
  for (let i = 0; i <= 50; i++) {
    const x = p.x1 + (u[0]! * i) / 50,
      y = p.y1 + (u[1]! * i) / 50;
    if (pointSegment(x, y, q) < gap) run += lu / 50;
  }
  return run;
}

const geometry = (page: Page): Promise<Geometry> =>
  page.evaluate(() => (window as unknown as { airspaceView: { geometry(): Geometry } }).airspaceView.geometry());

/** What the eye meets, asserted on the geometry drawn now. */
function expectReadable(g: Geometry, plan: CrowdPlan): void {
  const at = new Map(g.agents.map((a) => [a.id, a] as const));
  // Colliding agents sit together: every advisory pair closer than the median pair of agents.
  const all: number[] = [];
  for (const a of g.agents) for (const b of g.agents) if (a.id < b.id) all.push(Math.hypot(a.x - b.x, a.y - b.y));
  all.sort((x, y) => x - y);
  const median = all[Math.floor(all.length / 2)]!;
  for (const [x, y] of [...plan.resolution, ...plan.traffic]) {
    const a = at.get(id(x))!,
      b = at.get(id(y))!;
    expect(Math.hypot(a.x - b.x, a.y - b.y), `${id(x)} ↔ ${id(y)}`).toBeLessThan(median);
  }
  // No marker on (or within 2 px of) another pair's link.
  for (const l of g.links)
    for (const a of g.agents) {
      if (a.id === l.a || a.id === l.b) continue;
      expect(pointSegment(a.x, a.y, l) - a.r - l.half, `${a.id} on ${l.a}–${l.b}`).toBeGreaterThan(2);
    }
  // No two links of disjoint pairs run along each other.
  for (const p of g.links)
    for (const q of g.links) {
      if (key(p.a, p.b) >= key(q.a, q.b) || [p.a, p.b].some((x) => x === q.a || x === q.b)) continue;
      expect(sharedBand(p, q, p.half + q.half + 3), `${p.a}–${p.b} and ${q.a}–${q.b}`).toBeLessThan(6);
    }
  // Labels: every agent of a drawn pair has one (the layout makes room rather than the page
  // hiding it), and none covers a link, a marker or another label.
  const labelled = new Set(g.labels.map((l) => l.id));
  const paired = new Set(g.links.flatMap((l) => [l.a, l.b]));
  expect(
    [...paired].filter((a) => !labelled.has(a)),
    'paired agents without a label',
  ).toEqual([]);
  for (const box of g.labels) {
    for (const l of g.links) expect(segmentBox(l, box) - l.half, `label ${box.id} over ${l.a}–${l.b}`).toBeGreaterThan(0);
    for (const a of g.agents) {
      const cx = Math.min(Math.max(a.x, box.left), box.left + box.width),
        cy = Math.min(Math.max(a.y, box.top), box.top + box.height);
      expect(Math.hypot(a.x - cx, a.y - cy), `label ${box.id} over ${a.id}`).toBeGreaterThan(a.r);
    }
    // It reads as its own agent's: no other marker is nearer the box.
    const gap = (a: { x: number; y: number; r: number }): number =>
      Math.hypot(
        a.x - Math.min(Math.max(a.x, box.left), box.left + box.width),
        a.y - Math.min(Math.max(a.y, box.top), box.top + box.height),
      ) - a.r;
    const own = gap(at.get(box.id)!);
    for (const a of g.agents) if (a.id !== box.id) expect(gap(a), `label ${box.id} nearer ${a.id}`).toBeGreaterThan(own);
    for (const o of g.labels) {
      if (o.id <= box.id) continue;
      const apart =
        o.left >= box.left + box.width || box.left >= o.left + o.width || o.top >= box.top + box.height || box.top >= o.top + o.height;
      expect(apart, `labels ${box.id} and ${o.id}`).toBe(true);
    }
  }
}

/** Pixels of a PNG (read in the browser), counted in the scene's region. */
async function scenePixels(page: Page, png: Buffer, region: { x: number; y: number; w: number; h: number }) {
  return page.evaluate(
    async ({ data, region }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext('2d')!;
      g.drawImage(img, 0, 0);
      const px = g.getImageData(region.x, region.y, region.w, region.h).data;
      let red = 0,
        amber = 0,
        drawn = 0;
      for (let i = 0; i < px.length; i += 4) {
        const [r, gr, b] = [px[i]!, px[i + 1]!, px[i + 2]!];
        if (Math.abs(r - 0x0a) + Math.abs(gr - 0x0f) + Math.abs(b - 0x1c) > 60) drawn++;
        if (r > 190 && gr < 110 && b < 120) red++;
        if (r > 190 && gr > 130 && gr < 210 && b < 110) amber++;
      }
      return { red, amber, drawn };
    },
    { data: png.toString('base64'), region },
  );
}

/** Plain headless Chromium, as a person would run it: `--screenshot` after a virtual-time budget. */
function plainCapture(file: string, out: string, profile: string, extra: readonly string[]): boolean {
  const run = spawnSync(
    chromiumPath() ?? 'chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
      '--window-size=1360,820',
      `--screenshot=${out}`,
      '--virtual-time-budget=5000',
      ...extra,
      pathToFileURL(file).href,
    ],
    { encoding: 'utf8', timeout: 90_000 },
  );
  return run.status === 0;
}

describeWith(CHROMIUM, 'the view at a glance, 8 and 20 agents', () => {
  let browser: Browser;
  let scratch: string;
  const scans = new Map<number, ScanResult>();

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'airspace-crowd-'));
    const [b, s8, s20] = await Promise.all([launchChromium(), crowdScan(8, PLAN_8), crowdScan(20, PLAN_20)]);
    browser = b;
    scans.set(8, s8).set(20, s20);
    // The scenarios hold what they say: their advisories, and near pairs clear at 0.455 under τ_TA 0.526.
    for (const [n, plan] of [
      [8, PLAN_8],
      [20, PLAN_20],
    ] as const) {
      const links = new Map(scans.get(n)!.links.map((l) => [key(l.a, l.b), l] as const));
      for (const [x, y] of plan.resolution) expect(links.get(key(id(x), id(y)))?.level).toBe('resolution');
      for (const [x, y] of plan.traffic) expect(links.get(key(id(x), id(y)))?.level).toBe('traffic');
      for (const [x, y] of plan.near) {
        expect(links.get(key(id(x), id(y)))?.level).toBe('clear');
        expect(links.get(key(id(x), id(y)))?.risk).toBeCloseTo(0.455, 3);
      }
      expect(scans.get(n)!.counts.clear).toBeGreaterThan(n);
    }
  });
  afterAll(async () => {
    await browser?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  for (const [n, plan] of [
    [8, PLAN_8],
    [20, PLAN_20],
  ] as const) {
    it(`${n} agents: pairs together, labels off the links, clear links hidden, near-threshold marked, a pair list`, async () => {
      const scan = scans.get(n)!;
      const file = join(scratch, `crowd-${n}.html`);
      writeFileSync(file, renderViewHtml(scan));
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(pathToFileURL(file).href);
      await waitForScene(page);
      const g = await geometry(page);
      await page.screenshot({ path: artifactPath(`crowd-${n}.png`) });

      // Clear links hidden: drawn are the advisories and the near pairs, nothing else.
      const shown = new Set(g.links.map((l) => key(l.a, l.b)));
      const expected = new Set([...plan.resolution, ...plan.traffic, ...plan.near].map(([x, y]) => key(id(x), id(y))));
      expect(shown).toEqual(expected);
      // The near-threshold pair is marked: its own colour, and a row in the pair list.
      for (const [x, y] of plan.near) {
        const l = g.links.find((k) => key(k.a, k.b) === key(id(x), id(y)))!;
        expect(l.near).toBe(true);
        expect(l.color).toBe(NEAR_THRESHOLD_COLOR);
      }
      expect(g.links.filter((l) => !l.near).every((l) => l.color !== NEAR_THRESHOLD_COLOR)).toBe(true);
      expectReadable(g, plan);

      // The pair list, in place of the scene: each pair with level, risk, chance and its strongest evidence.
      await page.locator('#mode').click();
      await page.locator('#pair-list').waitFor({ state: 'visible' });
      const rows = page.locator('#pair-rows tr[data-pair]');
      expect(await rows.count()).toBe(expected.size);
      expect(await rows.nth(0).locator('.badge').textContent()).toBe('resolution');
      const near = page.locator('#pair-rows tr.near');
      expect(await near.count()).toBe(plan.near.length);
      expect(await near.first().locator('.badge').textContent()).toBe('near threshold');
      expect(await near.first().locator('td.num').first().textContent()).toMatch(/^0\.4[56]$/);
      for (const text of await rows.locator('td.ev').allTextContents()) expect(text.length).toBeGreaterThan(10);
      await page.screenshot({ path: artifactPath(`crowd-${n}-list.png`) });
      await page.locator('#mode').click();

      // Asked for, the clear links are drawn too (and labels stay off them).
      await page.locator('#show-clear').check();
      await page.waitForFunction(() => document.body.dataset.clear === 'shown');
      const withClear = await geometry(page);
      expect(withClear.links.length).toBe(scan.links.filter((l) => l.level !== 'clear' || l.risk > 0).length);
      for (const box of withClear.labels) for (const l of withClear.links) expect(segmentBox(l, box) - l.half).toBeGreaterThan(0);
      await page.screenshot({ path: artifactPath(`crowd-${n}-clear.png`) });
      expect(errors).toEqual([]);
      await page.close();
    });
  }

  it('live page: served, updated from 8 to 20 agents, every paired agent labelled off the links', async () => {
    const server = await startViewServer({ scan: async () => scans.get(8)! });
    try {
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(server.url);
      await waitForScene(page);
      await page.waitForFunction(() => document.querySelector('#status')?.classList.contains('live'));
      expectReadable(await geometry(page), PLAN_8);
      await server.update(scans.get(20)!);
      await waitForScene(page, 2);
      const g = await geometry(page);
      expect(g.agents).toHaveLength(20);
      expectReadable(g, PLAN_20);
      await page.screenshot({ path: artifactPath('crowd-20-live.png') });
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await server.close();
    }
  });

  it('exported page: plain `chromium --headless --screenshot` shows the scene, with and without WebGL', async () => {
    const file = join(scratch, 'crowd-8-plain.html');
    writeFileSync(file, renderViewHtml(scans.get(8)!));
    const page = await browser.context.newPage();
    // The scene's region: left of the 400 px panel, below the heads-up, above the legend.
    const region = { x: 0, y: 70, w: 940, h: 560 };
    for (const [name, extra] of [
      ['plain', []],
      ['no-webgl', ['--disable-software-rasterizer']],
    ] as const) {
      const out = artifactPath(`crowd-8-${name}.png`);
      rmSync(out, { force: true });
      expect(plainCapture(file, out, mkdtempSync(join(scratch, 'profile-')), extra)).toBe(true);
      const px = await scenePixels(page, readFileSync(out), region);
      // Three resolution links and two traffic ones, wide enough to count, and the markers.
      expect(px.red, name).toBeGreaterThan(300);
      expect(px.amber, name).toBeGreaterThan(100);
      expect(px.drawn, name).toBeGreaterThan(3000);
    }
    await page.close();
  });
});
