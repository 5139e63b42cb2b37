/**
 * Debian's Chromium driven by playwright-core, for the view's tests. WebGL without a GPU comes
 * from SwiftShader, which Chromium only enables in headless mode when asked explicitly.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { chromiumPath } from '../programs.js';

/** test-artifacts/view at the repository root (gitignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/view/', import.meta.url));

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'airspace-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    // Debian's package, found on PATH (view.test.ts skips without it).
    executablePath: chromiumPath() ?? 'chromium',
    headless: true,
    viewport: { width: 1360, height: 820 },
    timeout: 60_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

/** Waits until the page has drawn at least one frame of the scan it shows. */
export async function waitForScene(page: Page, updates = 1): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const v = (window as unknown as { airspaceView?: { updates: number; frames: number; webgl: boolean } }).airspaceView;
      return !!v && v.updates >= n && (!v.webgl || v.frames > 0);
    },
    updates,
    { timeout: 60_000 },
  );
}

export interface CanvasPixels {
  readonly width: number;
  readonly height: number;
  /** Pixels that differ clearly from the background colour. */
  readonly drawn: number;
  /** Pixels in the resolution red (links and cited files). */
  readonly red: number;
  /** Pixels in the traffic amber. */
  readonly amber: number;
  /** A cheap digest of all pixels, to tell two frames apart. */
  readonly digest: number;
}

/** Reads back the WebGL canvas (the renderer keeps its drawing buffer) and classifies its pixels. */
export function canvasPixels(page: Page): Promise<CanvasPixels> {
  return page.evaluate(() => {
    const source = document.querySelector('#stage canvas') as HTMLCanvasElement;
    const copy = document.createElement('canvas');
    copy.width = source.width;
    copy.height = source.height;
    const g = copy.getContext('2d')!;
    g.drawImage(source, 0, 0);
    const data = g.getImageData(0, 0, copy.width, copy.height).data;
    const bg = [0x0a, 0x0f, 0x1c];
    let drawn = 0,
      red = 0,
      amber = 0,
      digest = 0;
    for (let i = 0; i < data.length; i += 4) {
      const r = data[i]!,
        gr = data[i + 1]!,
        b = data[i + 2]!;
      if (Math.abs(r - bg[0]!) + Math.abs(gr - bg[1]!) + Math.abs(b - bg[2]!) > 40) drawn++;
      if (r > 190 && gr < 110 && b < 120) red++;
      if (r > 190 && gr > 130 && gr < 210 && b < 110) amber++;
      digest = (Math.imul(digest, 31) + r * 65536 + gr * 256 + b) | 0;
    }
    return { width: copy.width, height: copy.height, drawn, red, amber, digest };
  });
}
