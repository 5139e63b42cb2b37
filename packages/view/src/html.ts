/**
 * One self-contained HTML page: styles, the browser bundle (three.js included) and the scan are
 * all inlined, so the page works offline and from a `file:` URL. The server uses the same page
 * and adds where to listen for live updates.
 */
import { readFileSync } from 'node:fs';
import type { ScanResult } from '@airspace/core';
import { FORECAST_COLOR, NEAR_THRESHOLD_COLOR } from './scene-model.js';

export interface RenderViewOptions {
  /** Path of the server-sent events stream; set by the live server, absent in an exported file. */
  readonly eventsPath?: string;
  /** Sequence number of the inlined result in the live stream, so the page skips it when the stream repeats it. */
  readonly seq?: number;
  /** Text of the page's `<title>`. */
  readonly title?: string;
}

let bundle: string | undefined;

/** The browser bundle that `npm run build` writes to `dist/client/view.js`. */
export function viewBundle(): string {
  if (bundle !== undefined) return bundle;
  // From dist/html.js the bundle is ./client/view.js; from src/html.ts (tests) it is ../dist/client/view.js.
  const candidates = [new URL('./client/view.js', import.meta.url), new URL('../dist/client/view.js', import.meta.url)];
  for (const url of candidates) {
    try {
      bundle = readFileSync(url, 'utf8');
      return bundle;
    } catch {
      // try the next place
    }
  }
  throw new Error("The 3D view's browser bundle (dist/client/view.js) is missing: build @airspace/view first (npm run build).");
}

/** JSON safe inside a `<script>` element: no `</script>`, no `<!--`, no line separators. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Script text safe inside a `<script>` element (`</script` only appears in strings of a bundle). */
function scriptForHtml(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The page for one scan result: one file, no network needed. */
export function renderViewHtml(result: ScanResult, options: RenderViewOptions = {}): string {
  const title = options.title ?? 'Airspace — 3D view';
  const events = options.eventsPath ? ` data-events="${escapeHtml(options.eventsPath)}" data-seq="${options.seq ?? -1}"` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark">
<title>${escapeHtml(title)}</title>
<style>${STYLES}</style>
</head>
<body${events}>
<div id="app">
  <main id="stage" aria-label="3D view of the agents and the files they touch">
    <div id="hud">
      <div class="brand">Airspace</div>
      <div id="counts" class="chips"></div>
      <label class="toggle"><input type="checkbox" id="show-clear"> clear links</label>
      <button type="button" id="mode" class="toggle">Pair list</button>
      <div id="status" class="status"></div>
    </div>
    <div id="labels"></div>
    <div id="tooltip" hidden></div>
    <div id="legend" aria-label="Legend"></div>
    <div id="hint">drag to orbit · scroll to zoom · right-drag to pan · click an agent or a link · Esc clears</div>
    <div id="no-webgl" hidden>no WebGL: drawn flat</div>
    <section id="pair-list" hidden aria-label="Pairs">
      <h2>Pairs <span id="pair-count" class="muted"></span></h2>
      <table>
        <thead><tr><th>pair</th><th>level</th><th>risk</th><th>chance</th><th>strongest evidence</th></tr></thead>
        <tbody id="pair-rows"></tbody>
      </table>
    </section>
  </main>
  <aside id="panel">
    <section id="selection" hidden></section>
    <section>
      <h2>Advisories <span id="advisory-count" class="muted"></span></h2>
      <ol id="advisories" class="advisories"></ol>
    </section>
    <section>
      <h2>Forecasts <span id="forecast-count" class="muted"></span></h2>
      <ol id="forecasts" class="advisories"></ol>
    </section>
    <section>
      <h2>Agents <span id="agent-count" class="muted"></span></h2>
      <ul id="agents" class="agents"></ul>
    </section>
    <section id="problems" hidden>
      <h2>Problems</h2>
      <ul id="problem-list" class="problems"></ul>
    </section>
  </aside>
</div>
<script id="airspace-scan" type="application/json">${jsonForScript(result)}</script>
<script>${scriptForHtml(viewBundle())}</script>
</body>
</html>
`;
}

const STYLES = `
:root {
  --bg: #0a0f1c; --panel: #0f1627; --panel-2: #141d33; --line: #22304d; --text: #dfe6f5; --muted: #8592ad;
  --clear: #3fc1a5; --traffic: #f5b33c; --resolution: #ff4b5c; --unknown: #9aa3b8; --forecast: ${FORECAST_COLOR}; --near: ${NEAR_THRESHOLD_COLOR};
  font-family: ui-sans-serif, system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
  font-size: 13px; color: var(--text); background: var(--bg);
}
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; overflow: hidden; }
#app { display: grid; grid-template-columns: minmax(0, 1fr) 400px; height: 100vh; }
#stage { position: relative; overflow: hidden; background: radial-gradient(ellipse at 50% 40%, #111a30 0%, var(--bg) 70%); }
#stage canvas { display: block; width: 100%; height: 100%; outline: none; }
#hud { position: absolute; top: 12px; left: 14px; right: 14px; display: flex; gap: 12px; align-items: center; pointer-events: none; z-index: 3; }
.brand { font-weight: 700; letter-spacing: 0.08em; text-transform: uppercase; font-size: 14px; color: #fff; }
.chips { display: flex; gap: 6px; flex-wrap: wrap; }
.chip { padding: 2px 8px; border-radius: 999px; background: rgba(20, 29, 51, 0.85); border: 1px solid var(--line); color: var(--muted); white-space: nowrap; }
.chip b { color: var(--text); font-weight: 600; }
.chip.forecast b { color: var(--forecast); } .chip.traffic b { color: var(--traffic); } .chip.resolution b { color: var(--resolution); } .chip.clear b { color: var(--clear); } .chip.unknown b { color: var(--unknown); }
.status { margin-left: auto; color: var(--muted); white-space: nowrap; }
.status .dot { display: inline-block; width: 8px; height: 8px; border-radius: 50%; margin-right: 6px; background: var(--unknown); vertical-align: middle; }
.status.live .dot { background: var(--clear); box-shadow: 0 0 8px var(--clear); }
.status.lost .dot { background: var(--traffic); }
#labels { position: absolute; inset: 0; pointer-events: none; z-index: 2; }
.agent-label { position: absolute; pointer-events: auto; cursor: pointer;
  padding: 3px 8px; border-radius: 6px; background: rgba(10, 15, 28, 0.78); border: 1px solid var(--line); border-left: 3px solid var(--agent);
  white-space: nowrap; line-height: 1.25; user-select: none; }
.agent-label .name { font-weight: 600; color: #fff; }
.agent-label .meta { font-size: 11px; color: var(--muted); }
.agent-label.level-traffic { border-color: rgba(245, 179, 60, 0.6); border-left-color: var(--agent); }
.agent-label.level-resolution { border-color: rgba(255, 75, 92, 0.7); border-left-color: var(--agent); }
.agent-label.selected { background: rgba(30, 42, 70, 0.95); border-color: #fff; }
.agent-label.dim { opacity: 0.35; }
.agent-label.compact .meta { display: none; }
#legend { position: absolute; left: 14px; right: 14px; bottom: 30px; z-index: 3; padding: 5px 10px; border-radius: 8px; background: rgba(15, 22, 39, 0.88);
  border: 1px solid var(--line); display: flex; flex-wrap: wrap; gap: 3px 12px; font-size: 11.5px; align-items: center; }
#legend h3 { margin: 0; font-size: 10.5px; text-transform: uppercase; letter-spacing: 0.08em; color: var(--muted); font-weight: 600; }
#legend .item { display: flex; align-items: center; gap: 7px; white-space: nowrap; }
.swatch-line { width: 22px; border-radius: 3px; }
.swatch-dash { width: 22px; height: 2px; background: repeating-linear-gradient(90deg, var(--dash) 0 5px, transparent 5px 8px); }
.swatch-dot { width: 9px; height: 9px; border-radius: 50%; }
.swatch-ball { width: 13px; height: 13px; border-radius: 50%; background: radial-gradient(circle at 35% 35%, #cfe3ff, #5aa9ff 60%, #2b5b9a); }
#tooltip { position: absolute; z-index: 4; pointer-events: none; max-width: 420px; padding: 6px 9px; border-radius: 6px; background: rgba(10, 15, 28, 0.92); border: 1px solid var(--line); font-size: 12px; }
#tooltip .path { font-family: ui-monospace, "DejaVu Sans Mono", monospace; color: #fff; overflow-wrap: anywhere; }
#tooltip .cited.level-resolution { color: var(--resolution); } #tooltip .cited.level-traffic { color: var(--traffic); }
#tooltip .pair { font-weight: 600; color: #fff; }
#tooltip .forecast { color: var(--forecast); font-weight: 600; }
#tooltip .evidence-line { margin-top: 3px; border-top: 1px dashed var(--line); padding-top: 3px; }
#hint { position: absolute; right: 14px; bottom: 10px; color: var(--muted); font-size: 11px; z-index: 3; pointer-events: none; }
#no-webgl { position: absolute; left: 14px; bottom: 10px; color: var(--muted); font-size: 11px; z-index: 3; }
.toggle { pointer-events: auto; display: inline-flex; align-items: center; gap: 5px; padding: 2px 9px; border-radius: 999px; background: rgba(20, 29, 51, 0.85);
  border: 1px solid var(--line); color: var(--text); font: inherit; cursor: pointer; white-space: nowrap; }
.toggle input { margin: 0; accent-color: var(--clear); }
.swatch-dots { width: 22px; height: 2px; background: repeating-linear-gradient(90deg, var(--dash) 0 2px, transparent 2px 5px); }
#pair-list { position: absolute; inset: 48px 14px 14px 14px; z-index: 5; overflow: auto; padding: 8px 12px; border-radius: 8px; background: var(--panel); border: 1px solid var(--line); }
#pair-list h2 { font-size: 12px; text-transform: uppercase; letter-spacing: 0.08em; color: var(--muted); margin: 6px 0 8px; font-weight: 600; }
#pair-list table { width: 100%; border-collapse: collapse; }
#pair-list th { text-align: left; color: var(--muted); font-weight: 600; font-size: 11px; padding: 4px 8px; border-bottom: 1px solid var(--line); }
#pair-list td { padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
#pair-list tr[data-pair] { cursor: pointer; }
#pair-list td.pair { color: #fff; font-weight: 600; white-space: nowrap; }
#pair-list td.num { font-variant-numeric: tabular-nums; color: var(--level); white-space: nowrap; }
#pair-list tr.near .badge { background: var(--near); } #pair-list tr.forecast .badge { background: var(--forecast); }
#panel { background: var(--panel); border-left: 1px solid var(--line); overflow-y: auto; padding: 8px 14px 24px; }
#panel h2 { font-size: 12px; text-transform: uppercase; letter-spacing: 0.08em; color: var(--muted); margin: 16px 0 8px; font-weight: 600; }
.muted { color: var(--muted); font-weight: 400; }
ol, ul { list-style: none; margin: 0; padding: 0; }
.advisory { border: 1px solid var(--line); border-left: 4px solid var(--level); border-radius: 8px; background: var(--panel-2); padding: 9px 10px; margin-bottom: 8px; cursor: pointer; }
.advisory:hover, .advisory.selected { border-color: var(--level); }
.advisory .top { display: flex; align-items: center; gap: 8px; }
.badge { font-size: 10px; font-weight: 700; text-transform: uppercase; letter-spacing: 0.06em; padding: 2px 6px; border-radius: 4px; color: #0a0f1c; background: var(--level); }
.advisory .pair { font-weight: 600; color: #fff; }
.advisory .risk { margin-left: auto; font-variant-numeric: tabular-nums; color: var(--level); font-weight: 700; }
.advisory .message { margin: 6px 0 4px; color: var(--text); }
.advisory .row { color: var(--traffic); font-weight: 600; margin: 4px 0; }
.advisory.level-resolution .row { color: var(--resolution); }
.advisory .row.chance { color: var(--muted); font-weight: 400; margin: 2px 0; }
.advisory.forecast { border-left-style: dashed; }
.advisory .signals { color: var(--muted); font-size: 11.5px; margin: 2px 0 4px; }
.evidence { margin-top: 6px; display: grid; gap: 6px; }
.evidence li { border-top: 1px dashed var(--line); padding-top: 6px; }
.evidence .what { color: var(--text); }
.evidence .kind { font-size: 10px; color: var(--muted); text-transform: uppercase; letter-spacing: 0.05em; margin-right: 6px; }
.side { display: flex; gap: 6px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 11.5px; color: var(--muted); margin-top: 2px; overflow-wrap: anywhere; }
.side .who { color: var(--agent); font-weight: 600; flex: none; }
.side .where { color: #c7d2ea; }
.chain { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 11px; color: var(--muted); margin-top: 2px; overflow-wrap: anywhere; }
.empty { color: var(--muted); padding: 6px 0; }
.agents li { display: flex; align-items: center; gap: 8px; padding: 5px 8px; border-radius: 6px; cursor: pointer; border: 1px solid transparent; }
.agents li:hover { background: var(--panel-2); }
.agents li.selected { background: var(--panel-2); border-color: var(--agent); }
.agents .ball { width: 11px; height: 11px; border-radius: 50%; background: var(--agent); flex: none; box-shadow: 0 0 6px var(--agent); }
.agents .name { font-weight: 600; color: #fff; }
.agents .meta { margin-left: auto; color: var(--muted); font-size: 11px; white-space: nowrap; }
.agents .lvl { width: 8px; height: 8px; border-radius: 2px; background: var(--level); flex: none; }
#selection { margin-top: 10px; padding: 10px; border-radius: 8px; border: 1px solid var(--agent); background: var(--panel-2); }
#selection .head { display: flex; align-items: center; gap: 8px; }
#selection .head .name { font-weight: 700; color: #fff; font-size: 14px; }
#selection button { margin-left: auto; background: transparent; color: var(--muted); border: 1px solid var(--line); border-radius: 5px; cursor: pointer; padding: 2px 8px; }
#selection .files { margin-top: 6px; max-height: 180px; overflow-y: auto; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 11.5px; color: #c7d2ea; }
#selection .files li { padding: 1px 0; overflow-wrap: anywhere; }
.problems li { color: var(--traffic); margin-bottom: 4px; }
`;
