import { request } from 'node:http';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import { isLoopbackHost, startViewServer, type ViewServer } from '../src/server.js';
import { forecastScan, smallScan } from './fixture.js';

let server: ViewServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function at(time: string): ScanResult {
  return { ...smallScan(), generatedAt: time };
}

/** Reads server-sent events until `count` `scan` events arrived. */
async function scanEvents(url: string, count: number, whileOpen?: () => Promise<void>): Promise<Array<{ id: string; data: ScanResult }>> {
  const controller = new AbortController();
  const res = await fetch(new URL('/events', url), { signal: controller.signal });
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: Array<{ id: string; data: ScanResult }> = [];
  let buffer = '';
  let started = false;
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const fields = Object.fromEntries(block.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
      if (fields.event === 'scan') events.push({ id: fields.id!, data: JSON.parse(fields.data!) as ScanResult });
    }
    if (!started && events.length > 0 && whileOpen) {
      started = true;
      await whileOpen();
    }
  }
  controller.abort();
  return events;
}

describe('startViewServer', () => {
  it('serves the page, the JSON and pushes updates given to update()', async () => {
    server = await startViewServer({ scan: async () => at('2026-12-02T12:00:00.000Z') });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await (await fetch(server.url)).text();
    expect(page).toContain('data-events="/events"');
    expect(page).toContain('2026-12-02T12:00:00.000Z');
    const json = (await (await fetch(new URL('/scan.json', server.url))).json()) as ScanResult;
    expect(json.generatedAt).toBe('2026-12-02T12:00:00.000Z');

    const s = server;
    const events = await scanEvents(s.url, 2, async () => {
      await s.update(at('2026-12-02T12:05:00.000Z'));
    });
    expect(events.map((e) => e.data.generatedAt)).toEqual(['2026-12-02T12:00:00.000Z', '2026-12-02T12:05:00.000Z']);
    expect(Number(events[1]!.id)).toBeGreaterThan(Number(events[0]!.id));
  });

  it('re-scans on an interval and pushes only results that changed', async () => {
    let calls = 0;
    server = await startViewServer({
      intervalMs: 30,
      scan: async () => {
        calls += 1;
        // The same picture for the first scans (only the time moves), then one agent less.
        const scan = at(new Date(Date.UTC(2026, 11, 2, 12, 0, calls)).toISOString());
        return calls < 4 ? scan : { ...scan, agents: scan.agents.slice(0, 2) };
      },
    });
    const events = await scanEvents(server.url, 2);
    expect(calls).toBeGreaterThanOrEqual(4);
    expect(events[0]!.data.agents).toHaveLength(3);
    expect(events[1]!.data.agents).toHaveLength(2);
  });

  it('update() without a result re-scans and pushes only a changed picture', async () => {
    let agents = 3;
    server = await startViewServer({
      scan: async () => {
        const s = at(new Date().toISOString());
        return { ...s, agents: s.agents.slice(0, agents) };
      },
    });
    const s = server;
    const events = await scanEvents(s.url, 2, async () => {
      await s.update(); // same picture, new timestamp: not pushed
      agents = 2;
      await s.update();
    });
    expect(events.map((e) => e.data.agents.length)).toEqual([3, 2]);
  });

  it('pushes a re-scan whose only change is a forecast, so the live page shows it', async () => {
    const withForecast = forecastScan();
    // The same picture but for the forecasts: the scan of a moment before, when none had passed the threshold.
    const before = { ...withForecast, links: withForecast.links.map(({ forecast: _f, ...l }) => l) };
    let scan: ScanResult = before;
    server = await startViewServer({ scan: async () => ({ ...scan, generatedAt: new Date().toISOString() }) });
    const s = server;
    const events = await scanEvents(s.url, 2, async () => {
      await s.update(); // nothing new: not pushed
      scan = withForecast;
      await s.update();
    });
    const forecasts = (r: ScanResult) => r.links.filter((l) => l.forecast).map((l) => `${l.a}|${l.b}`);
    expect(events.map((e) => forecasts(e.data))).toEqual([[], ['a|d', 'c|d']]);
  });

  it('runs scan() when update() gets no result, and keeps the last result when a scan fails', async () => {
    let fail = false;
    let n = 0;
    const errors: unknown[] = [];
    server = await startViewServer({
      scan: async () => {
        if (fail) throw new Error('not a repository');
        n += 1;
        return { ...at(`2026-12-02T12:00:0${n}.000Z`), weights: { lines: n / 10 } };
      },
      onError: (e) => errors.push(e),
    });
    await server.update();
    expect(((await (await fetch(new URL('/scan.json', server.url))).json()) as ScanResult).generatedAt).toBe('2026-12-02T12:00:02.000Z');
    fail = true;
    await server.update();
    expect(errors).toHaveLength(1);
    expect(((await (await fetch(new URL('/scan.json', server.url))).json()) as ScanResult).generatedAt).toBe('2026-12-02T12:00:02.000Z');
  });

  it('refuses to start when the first scan fails', async () => {
    await expect(
      startViewServer({
        scan: async () => {
          throw new Error('not a git repository');
        },
      }),
    ).rejects.toThrow('not a git repository');
  });

  it('refuses requests for another host name (DNS rebinding) and unknown paths', async () => {
    server = await startViewServer({ scan: async () => smallScan() });
    const { port } = new URL(server.url);
    const status = (host: string, path = '/') =>
      new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        })
          .on('error', reject)
          .end();
      });
    expect(await status('evil.example:80')).toBe(403);
    expect(await status(`localhost:${port}`)).toBe(200);
    expect(await status(`127.0.0.1:${port}`, '/nope')).toBe(404);
  });

  it('on a non-loopback address keeps refusing other host names, and says it is exposed', async () => {
    server = await startViewServer({ scan: async () => smallScan(), host: '0.0.0.0' });
    expect(server.exposed).toBe(true);
    const { port } = new URL(server.url);
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path: '/scan.json', headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        })
          .on('error', reject)
          .end();
      });
    expect(await status(`evil.example:${port}`)).toBe(403);
    expect(await status(`attacker.test`)).toBe(403);
    expect(await status(`localhost:${port}`)).toBe(200);
    expect(await status(`127.0.0.1:${port}`)).toBe(200);
    expect(await status(`${hostname()}:${port}`)).toBe(200);
    expect(isLoopbackHost('127.0.0.1') && isLoopbackHost('::1') && isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('0.0.0.0') || isLoopbackHost('192.168.1.5') || isLoopbackHost('::')).toBe(false);
  });

  it('closes open event streams on close()', async () => {
    server = await startViewServer({ scan: async () => smallScan() });
    const res = await fetch(new URL('/events', server.url));
    const reader = res.body!.getReader();
    await reader.read();
    expect(server.clients).toBe(1);
    await server.close();
    let done = false;
    while (!done) done = (await reader.read()).done;
    expect(done).toBe(true);
  });
});
