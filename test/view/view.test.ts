/**
 * The 3D view in a real browser: the exported file and the live server both draw the scene, list
 * the advisories with their evidence, highlight an agent on click, and the live page follows
 * updates pushed by the server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import { renderViewHtml, startViewServer } from '@airspace/view';
import { artifactPath, canvasPixels, hasChromium, launchChromium, waitForScene, type Browser } from './browser.js';
import { demoAgents, demoScan, largeScan, scanAgents } from './scenario.js';

// CI installs Chromium (.ci/run); elsewhere the suite says why it is skipped.
if (!hasChromium && process.env.CI) throw new Error('Chromium is missing at /usr/bin/chromium: install the Debian package chromium.');
if (!hasChromium) console.warn('view browser tests skipped: no /usr/bin/chromium (apt-get install chromium)');

describe.skipIf(!hasChromium)('3D view in Chromium', () => {
  let browser: Browser;
  let scan: ScanResult;
  let dir: string;

  beforeAll(async () => {
    [browser, scan] = await Promise.all([launchChromium(), demoScan()]);
    dir = mkdtempSync(join(tmpdir(), 'airspace-view-'));
    // The demo story must hold for the assertions below to mean anything.
    expect(scan.advisories.map((a) => a.level).sort()).toEqual(['resolution', 'traffic']);
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('exported file: draws the scene, lists advisories with evidence, highlights a clicked agent', async () => {
    const file = join(dir, 'view.html');
    writeFileSync(file, renderViewHtml(scan));
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);
    await waitForScene(page);
    expect(await page.evaluate(() => window.airspaceView.webgl)).toBe(true);

    // A non-empty canvas, with the red of the resolution link and the amber of the traffic link.
    const before = await canvasPixels(page);
    expect(before.drawn).toBeGreaterThan(before.width * before.height * 0.002);
    expect(before.red).toBeGreaterThan(20);
    expect(before.amber).toBeGreaterThan(20);

    // Advisories: resolution first, who steers and who holds, evidence of both sides.
    const cards = page.locator('#advisories .advisory');
    expect(await cards.count()).toBe(scan.advisories.length);
    const resolution = scan.advisories.find((a) => a.level === 'resolution')!;
    const first = cards.nth(0);
    expect(await first.locator('.badge').textContent()).toBe('resolution');
    expect(await first.locator('.row').textContent()).toBe(`${resolution.steer} steers away · ${resolution.hold} holds course`);
    const sides = await first.locator('.evidence .side').allTextContents();
    expect(sides).toContain('auth-refactorsrc/auth/token.ts · lines 5–22');
    expect(sides).toContain('token-expirysrc/auth/token.ts · lines 18–26');
    expect(await cards.nth(1).locator('.badge').textContent()).toBe('traffic');
    expect(await page.locator('#status').textContent()).toContain('snapshot');

    // Click an agent in the list: it is selected, its files listed and drawn larger.
    const framesBefore = await page.evaluate(() => window.airspaceView.frames);
    await page.locator('#agents li[data-agent="api-pagination"]').click();
    await page.waitForFunction(() => document.body.dataset.selected === 'api-pagination');
    expect(await page.locator('#selection .files li').allTextContents()).toEqual(
      demoAgents().find((a) => a.id === 'api-pagination')!.files.map((f) => f.path).sort(),
    );
    expect(await page.locator('#labels .agent-label.selected').getAttribute('data-agent')).toBe('api-pagination');
    await page.waitForFunction((n) => window.airspaceView.frames > n, framesBefore);
    const highlighted = await canvasPixels(page);
    expect(highlighted.digest).not.toBe(before.digest);

    // Click an agent in the scene: picking by ray through its marker.
    const at = await page.evaluate(() => window.airspaceView.screenPositionOf('docs-update'));
    expect(at).not.toBeNull();
    await page.mouse.click(at!.x, at!.y);
    await page.waitForFunction(() => document.body.dataset.selected === 'docs-update');
    expect(await page.locator('#agents li.selected').getAttribute('data-agent')).toBe('docs-update');

    // Hovering a file names it and who changes it.
    const shared = await page.evaluate(() => window.airspaceView.screenPositionOfFile('src/auth/token.ts'));
    expect(shared).not.toBeNull();
    await page.mouse.move(shared!.x, shared!.y);
    await page.locator('#tooltip:not([hidden])').waitFor({ timeout: 10_000 });
    expect(await page.locator('#tooltip .path').textContent()).toBe('src/auth/token.ts');
    expect(await page.locator('#tooltip').textContent()).toContain('changed by auth-refactor, token-expiry');

    // Clicking empty space clears the selection.
    await page.mouse.click(60, 120);
    await page.waitForFunction(() => document.body.dataset.selected === '');

    await page.screenshot({ path: artifactPath('view-export.png') });
    if (process.env.AIRSPACE_DOCS_SCREENSHOT) {
      await page.locator('#agents li[data-agent="auth-refactor"]').click();
      await page.setViewportSize({ width: 1200, height: 720 });
      await page.waitForTimeout(300);
      await page.screenshot({ path: fileURLToPath(new URL('../../docs/view.png', import.meta.url)) });
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it('live server: the page follows updates pushed by the server', async () => {
    let current = scan;
    const server = await startViewServer({ scan: async () => current });
    try {
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(server.url);
      await waitForScene(page);
      await page.waitForFunction(() => document.querySelector('#status')?.classList.contains('live'));
      expect(await page.locator('#advisories .advisory').count()).toBe(2);
      expect((await canvasPixels(page)).drawn).toBeGreaterThan(1000);

      // A sixth agent starts editing the lines auth-refactor is changing.
      const newcomer = {
        id: 'session-cache', label: 'session-cache', committedWork: 1, startedAt: Date.parse('2026-12-02T11:50:00Z'),
        files: [{ path: 'src/auth/session.ts', status: 'modified' as const, weight: 1, baseRanges: [[30, 36]] as [number, number][], newRanges: [[30, 36]] as [number, number][] }],
      };
      current = await scanAgents([...demoAgents(), newcomer]);
      await server.update(current);
      await page.waitForFunction(() => document.querySelector('#advisories [data-pair="auth-refactor|session-cache"]') !== null, undefined, { timeout: 30_000 });
      expect(await page.evaluate(() => window.airspaceView.updates)).toBeGreaterThanOrEqual(2);
      expect(await page.locator('#agents li').count()).toBe(6);
      expect(await page.locator('#advisories .advisory').count()).toBe(current.advisories.length);
      expect(await page.locator('#labels .agent-label[data-agent="session-cache"]').count()).toBe(1);
      await page.screenshot({ path: artifactPath('view-live.png') });
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await server.close();
    }
  });

  it('draws 100 agents and 10,000 files', async () => {
    const big = await largeScan(100, 10_000);
    expect(Object.keys(big.fileCoordinates)).toHaveLength(10_000);
    const file = join(dir, 'large.html');
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
