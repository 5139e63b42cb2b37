/**
 * The 3D view in a real browser, on the demo repository scanned for real (`airspace demo`'s
 * worktrees, `@airspace/scanner`): the exported file and the live server both draw the scene,
 * list the advisories and forecasts with their evidence, highlight an agent or a pair on click,
 * and the live page follows a change in a worktree. A large generated airspace checks 100 agents × 10,000 files.
 */
import { readFileSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chanceText, percentText, type Forecast, type ScanResult } from '@airspace/core';
import { createDemoRepository, type DemoRepository } from '@airspace/cli';
import { createScanner, type Scanner } from '@airspace/scanner';
import { renderViewHtml, startViewServer } from '@airspace/view';
import { CHROMIUM, describeWith } from '../programs.js';
import { artifactPath, canvasPixels, launchChromium, waitForScene, type Browser } from './browser.js';
import { largeScan } from './scenario.js';

const pairKey = (a: string, b: string): string => (a < b ? `${a}|${b}` : `${b}|${a}`);

/**
 * The demo scan with a forecast on carol ↔ dave (clear): the demo's history is too short for the
 * look-ahead signals, so the forecast is written here as a scan would put it on the link.
 */
function withForecast(scan: ScanResult): ScanResult {
  const forecast: Forecast = {
    probability: 0.31,
    threshold: 0.1016,
    signals: [{ signal: 'co-change', value: 0.9, weight: 0.1204 }],
    evidence: [
      {
        message: 'src/util/format.ts and src/api/server.ts changed together in 9 of 10 commits.',
        kind: 'co-change',
        a: { agent: 'carol', path: 'src/util/format.ts' },
        b: { agent: 'dave', path: 'src/api/server.ts' },
      },
    ],
  };
  const links = scan.links.map((l) => (pairKey(l.a, l.b) === 'carol|dave' ? { ...l, forecast } : l));
  expect(links.find((l) => l.forecast)?.level).toBe('clear');
  return { ...scan, links };
}

describeWith(CHROMIUM, '3D view in Chromium', () => {
  let browser: Browser;
  let scratch: string;
  let demo: DemoRepository;
  let scanner: Scanner;
  let scan: ScanResult;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'airspace-view-'));
    demo = createDemoRepository(scratch);
    scanner = createScanner({ repo: demo.root, base: 'main' });
    [browser, scan] = await Promise.all([launchChromium(), scanner.scan()]);
    // The demo's story must hold for the assertions below to mean anything.
    const ab = scan.advisories.find((a) => pairKey(a.a, a.b) === 'alice|bob');
    expect(ab?.level).toBe('resolution');
    expect(scan.advisories.some((a) => a.a === 'grace' || a.b === 'grace')).toBe(false);
  });
  afterAll(async () => {
    await browser?.close();
    await scanner?.dispose();
    demo?.fixture.dispose();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('exported file: draws the scene, lists advisories and forecasts with evidence, highlights a clicked agent', async () => {
    const file = join(scratch, 'view.html');
    writeFileSync(file, renderViewHtml(withForecast(scan)));
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);
    await waitForScene(page);
    expect(await page.evaluate(() => window.airspaceView.webgl)).toBe(true);

    // A non-empty canvas, with the red of the resolution link (and the amber of a traffic one).
    const before = await canvasPixels(page);
    expect(before.drawn).toBeGreaterThan(before.width * before.height * 0.002);
    expect(before.red).toBeGreaterThan(20);
    if (scan.links.some((l) => l.level === 'traffic')) expect(before.amber).toBeGreaterThan(20);

    // Every advisory, resolution first; alice ↔ bob says who steers and who holds, with evidence of both sides.
    const cards = page.locator('#advisories .advisory');
    expect(await cards.count()).toBe(scan.advisories.length);
    expect(await cards.nth(0).locator('.badge').textContent()).toBe('resolution');
    const ab = scan.advisories.find((a) => pairKey(a.a, a.b) === 'alice|bob')!;
    const card = page.locator(`#advisories [data-pair="${ab.a}|${ab.b}"]`);
    expect(await card.locator('.row:not(.chance)').textContent()).toBe(`${ab.steer} steers away · ${ab.hold} holds course`);
    // The chance where a forecast card has it, the risk beside it as a score (as in the table).
    const ef = scan.advisories.find((a) => pairKey(a.a, a.b) === 'erin|frank')!;
    const efCard = page.locator(`#advisories [data-pair="${ef.a}|${ef.b}"]`);
    expect(await efCard.locator('.risk').textContent()).toBe(percentText(ef.probability!));
    expect(await efCard.locator('.row.chance').textContent()).toBe(`risk ${ef.risk.toFixed(2)} · ${chanceText(ef.probability!)}`);
    const sides = await card.locator('.evidence .side').allTextContents();
    expect(sides.some((s) => s.startsWith('alicesrc/billing/invoice.ts · line'))).toBe(true);
    expect(sides.some((s) => s.startsWith('bobsrc/billing/invoice.ts · line'))).toBe(true);
    expect(await page.locator('#status').textContent()).toContain('snapshot');

    // The forecast: its own card with the chance and the evidence, counted in the heads-up, in the legend.
    const forecastCard = page.locator('#forecasts .advisory');
    expect(await forecastCard.count()).toBe(1);
    expect(await forecastCard.getAttribute('data-pair')).toBe('carol|dave');
    expect(await forecastCard.locator('.risk').textContent()).toBe('31%');
    expect(await forecastCard.locator('.message').textContent()).toContain('31% chance of colliding later');
    expect(await forecastCard.locator('.evidence .side').allTextContents()).toEqual(['carolsrc/util/format.ts', 'davesrc/api/server.ts']);
    expect(await page.locator('#counts .chip.forecast').textContent()).toBe('1 forecast');
    expect(await page.locator('#legend').textContent()).toContain('forecast');

    // Hovering its dashed line says the chance; clicking it selects the pair. A few points along the
    // line, in case a label or a nearer file covers one.
    const [c, d] = await page.evaluate(() => [window.airspaceView.screenPositionOf('carol'), window.airspaceView.screenPositionOf('dave')]);
    let hovered: { x: number; y: number } | undefined;
    for (const t of [0.5, 0.4, 0.6, 0.3, 0.7]) {
      const p = { x: c!.x + (d!.x - c!.x) * t, y: c!.y + (d!.y - c!.y) * t };
      await page.mouse.move(p.x, p.y);
      const shown = await page
        .waitForFunction(() => document.querySelector<HTMLElement>('#tooltip:not([hidden])')?.dataset.pair === 'carol|dave', undefined, {
          timeout: 2_000,
        })
        .then(() => true)
        .catch(() => false);
      if (shown) {
        hovered = p;
        break;
      }
    }
    expect(hovered).toBeDefined();
    expect(await page.locator('#tooltip').textContent()).toContain('forecast · 31% chance of colliding later');
    await page.mouse.click(hovered!.x, hovered!.y);
    await page.waitForFunction(() => document.body.dataset.pair === 'carol|dave');
    expect(await forecastCard.getAttribute('class')).toContain('selected');

    // Click an agent in the list: it is selected, its files listed and drawn larger.
    const framesBefore = await page.evaluate(() => window.airspaceView.frames);
    await page.locator('#agents li[data-agent="carol"]').click();
    await page.waitForFunction(() => document.body.dataset.selected === 'carol');
    expect(await page.locator('#selection .files li').allTextContents()).toEqual(
      scan.agents
        .find((a) => a.id === 'carol')!
        .files.map((f) => f.path)
        .sort(),
    );
    expect(await page.locator('#labels .agent-label.selected').getAttribute('data-agent')).toBe('carol');
    await page.waitForFunction((n) => window.airspaceView.frames > n, framesBefore);
    expect((await canvasPixels(page)).digest).not.toBe(before.digest);

    // Click an agent in the scene: picking by ray through its marker.
    const at = await page.evaluate(() => window.airspaceView.screenPositionOf('grace'));
    expect(at).not.toBeNull();
    await page.mouse.click(at!.x, at!.y);
    await page.waitForFunction(() => document.body.dataset.selected === 'grace');
    expect(await page.locator('#agents li.selected').getAttribute('data-agent')).toBe('grace');

    // Hovering a file names it and who changes it. The file sits a few pixels below bob's label, which
    // takes the pointer where it covers the canvas (how far depends on the fonts installed), so try
    // points within the file's pick radius that the canvas itself receives.
    const shared = await page.evaluate(() => window.airspaceView.screenPositionOfFile('src/billing/invoice.ts'));
    expect(shared).not.toBeNull();
    let fileHovered = false;
    for (const [dx, dy] of [
      [0, 0],
      [0, 3],
      [3, 0],
      [-3, 0],
      [0, -3],
    ] as const) {
      const p = { x: shared!.x + dx, y: shared!.y + dy };
      const onCanvas = await page.evaluate((q) => document.elementFromPoint(q.x, q.y)?.tagName === 'CANVAS', p);
      if (!onCanvas) continue;
      await page.mouse.move(p.x, p.y);
      fileHovered = await page
        .waitForFunction(
          () => document.querySelector('#tooltip:not([hidden]) .path')?.textContent === 'src/billing/invoice.ts',
          undefined,
          {
            timeout: 3_000,
          },
        )
        .then(() => true)
        .catch(() => false);
      if (fileHovered) break;
    }
    expect(fileHovered).toBe(true);
    expect(await page.locator('#tooltip').textContent()).toContain('changed by alice, bob');

    // Clicking empty space clears the selection.
    await page.mouse.click(60, 120);
    await page.waitForFunction(() => document.body.dataset.selected === '');

    await page.screenshot({ path: artifactPath('view-export.png') });
    if (process.env.AIRSPACE_DOCS_SCREENSHOT) {
      // The README's picture: the demo as a scan reports it (without the forecast added above),
      // with the alice ↔ bob advisory selected (no machine paths shown).
      const plain = join(scratch, 'plain.html');
      writeFileSync(plain, renderViewHtml(scan));
      await page.goto(pathToFileURL(plain).href);
      await waitForScene(page);
      await page.setViewportSize({ width: 1200, height: 720 });
      await card.locator('.top').click();
      await page.evaluate(() => {
        document.getElementById('panel')!.scrollTop = 0;
      });
      await page.waitForTimeout(500);
      await page.screenshot({ path: fileURLToPath(new URL('../../docs/view.png', import.meta.url)) });
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it('live server: the page follows a change in a worktree', async () => {
    const server = await startViewServer({ scan: () => scanner.scan() });
    const graceFile = join(`${demo.root}-wt`, 'grace', 'src/billing/invoice.ts');
    const original = readFileSync(graceFile, 'utf8');
    try {
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(server.url);
      await waitForScene(page);
      await page.waitForFunction(() => document.querySelector('#status')?.classList.contains('live'));
      expect(await page.locator('#advisories .advisory').count()).toBe(scan.advisories.length);
      expect((await canvasPixels(page)).drawn).toBeGreaterThan(1000);

      // grace, so far only on the docs, starts rewriting the loop alice and bob are changing.
      writeFileSync(
        graceFile,
        original.replace('sum += line.quantity * line.unitPrice;', 'sum += line.quantity * line.unitPrice * (1 - line.discount);'),
      );
      await server.update();
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('#advisories [data-pair]')].some((n) =>
            (n as HTMLElement).dataset.pair!.split('|').includes('grace'),
          ),
        undefined,
        { timeout: 30_000 },
      );
      expect(await page.evaluate(() => window.airspaceView.updates)).toBeGreaterThanOrEqual(2);
      expect(await page.locator('#labels .agent-label[data-agent="grace"]').getAttribute('class')).toMatch(/level-(traffic|resolution)/);

      // A result with a forecast reaches the page: listed and counted.
      expect(await page.locator('#forecasts .advisory').count()).toBe(0);
      await server.update(withForecast(scan));
      await page.locator('#forecasts [data-pair="carol|dave"]').waitFor({ timeout: 10_000 });
      expect(await page.locator('#counts .chip.forecast').textContent()).toBe('1 forecast');
      await page.screenshot({ path: artifactPath('view-live.png') });
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      writeFileSync(graceFile, original);
      await server.close();
    }
  });

  it('draws 100 agents and 10,000 files', async () => {
    const big = await largeScan(100, 10_000);
    expect(Object.keys(big.fileCoordinates)).toHaveLength(10_000);
    const file = join(scratch, 'large.html');
    writeFileSync(file, renderViewHtml(big));
    const page = await browser.context.newPage();
    await page.goto(pathToFileURL(file).href);
    await waitForScene(page);
    expect(await page.locator('#agents li').count()).toBe(100);
    expect(await page.locator('#advisories .advisory').count()).toBe(big.advisories.length);
    expect((await canvasPixels(page)).drawn).toBeGreaterThan(10_000);
    await page.screenshot({ path: artifactPath('view-large.png') });
    await page.close();
  });
});
