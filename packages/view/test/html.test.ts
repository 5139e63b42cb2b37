import { describe, expect, it } from 'vitest';
import { jsonForScript, renderViewHtml } from '../src/html.js';
import { FORECAST_COLOR } from '../src/scene-model.js';
import { forecastScan, smallScan } from './fixture.js';

function embeddedScan(html: string): unknown {
  const m = /<script id="airspace-scan" type="application\/json">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error('no embedded scan');
  return JSON.parse(m[1]!);
}

describe('renderViewHtml', () => {
  it('inlines the scan and the bundle: no external script, style or CDN', () => {
    const html = renderViewHtml(smallScan());
    expect(embeddedScan(html)).toEqual(smallScan());
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+href=/);
    expect(html).not.toMatch(/unpkg\.com|jsdelivr|cdnjs|googleapis|esm\.sh/);
    // three.js is in the bundle.
    expect(html).toContain('WebGLRenderer');
    expect(html.length).toBeGreaterThan(100_000);
  });

  it('carries the forecasts to an exported file, with a list and a colour for them', () => {
    const html = renderViewHtml(forecastScan());
    const links = (embeddedScan(html) as ReturnType<typeof forecastScan>).links;
    expect(links.filter((l) => l.forecast).map((l) => [l.a, l.b, l.forecast!.probability])).toEqual([
      ['a', 'd', 0.27],
      ['c', 'd', 0.12],
    ]);
    expect(html).toContain('<ol id="forecasts"');
    expect(html).toContain('id="forecast-count"');
    expect(html).toContain(`--forecast: ${FORECAST_COLOR};`);
  });

  it('keeps hostile paths from closing the script element', () => {
    const scan = smallScan();
    const evil = 'src/</script><script>alert(1)</script>.ts';
    const html = renderViewHtml({ ...scan, fileCoordinates: { ...scan.fileCoordinates, [evil]: [0, 0, 0] } });
    expect(html.match(/<\/script>/g)!.length).toBe(2);
    expect(Object.keys((embeddedScan(html) as { fileCoordinates: object }).fileCoordinates)).toContain(evil);
  });

  it('marks a served page with its event stream, an exported one without', () => {
    expect(renderViewHtml(smallScan())).not.toContain('data-events');
    expect(renderViewHtml(smallScan(), { eventsPath: '/events', seq: 3 })).toContain('data-events="/events" data-seq="3"');
  });

  it('escapes markup characters and line separators in JSON', () => {
    expect(jsonForScript({ a: '<!--&\u2028' })).toBe('{"a":"\\u003c!--\\u0026\\u2028"}');
  });
});
