/**
 * The page: reads the scan inlined in `#airspace-scan`, draws it, lists advisories, forecasts and agents,
 * and (when served) follows `body[data-events]` for live updates. Data reaches the DOM only as
 * text (`textContent`), never as markup.
 */
import { chanceText, type ScanResult } from '@airspace/core';
import {
  FORECAST_COLOR,
  LEVEL_COLORS,
  SHARED_FILE_COLOR,
  UNTOUCHED_FILE_COLOR,
  buildSceneModel,
  formatRisk,
  labelRank,
  type EvidenceText,
  type SceneAdvisory,
  type SceneAgent,
  type SceneForecast,
  type SceneLink,
  type SceneModel,
  type ScenePair,
  NEAR_THRESHOLD_COLOR,
} from '../scene-model.js';
import { COMPACT_FROM, placeLabels as placeLabelBoxes, type LabelRequest, type ScreenSegment } from '../label-layout.js';
import { createFlatViewer } from './flat-viewer.js';
import { createViewer, webglAvailable, type Viewer } from './viewer.js';

/** What the page exposes for scripting and tests. */
interface AirspaceViewApi {
  /** Number of scans drawn so far (1 after the first). */
  updates: number;
  generatedAt: string;
  selected: string | null;
  webgl: boolean;
  select(agentId: string | null): void;
  screenPositionOf(agentId: string): { x: number; y: number } | null;
  screenPositionOfFile(path: string): { x: number; y: number } | null;
  /** Number of frames rendered since load. */
  frames: number;
  /** Milliseconds the last frame took (add \`?timing\` to the URL to include the GPU's time). */
  renderMs: number;
  /** Whether plain clear links are drawn (hidden by default). */
  showClear(show: boolean): void;
  /** `scene` (the 3D view) or `list` (the pair list in its place). */
  mode(mode: 'scene' | 'list'): void;
  /** What is on screen now, in client pixels: markers, drawn links and the labels shown. */
  geometry(): SceneGeometry;
}

interface SceneGeometry {
  agents: Array<{ id: string; x: number; y: number; r: number }>;
  links: Array<{
    a: string;
    b: string;
    level: string;
    color: string;
    near: boolean;
    forecast: boolean;
    x1: number;
    y1: number;
    x2: number;
    y2: number;
    half: number;
  }>;
  labels: Array<{ id: string; left: number; top: number; width: number; height: number }>;
  /** The stage's box: where the scene is. */
  stage: { left: number; top: number; width: number; height: number };
}

declare global {
  interface Window {
    airspaceView: AirspaceViewApi;
  }
}

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const stage = $('stage');
const labelsLayer = $('labels');
const hasWebgl = webglAvailable();
let model: SceneModel = buildSceneModel(readInitialScan());
// Multisampling costs most where there is no GPU (software WebGL) and matters least in a dense cloud.
// Without WebGL the same scene is drawn flat on a 2D canvas.
const viewer: Viewer = hasWebgl ? createViewer(stage, { antialias: model.files.length <= 3000 }) : createFlatViewer(stage);
if (!hasWebgl) $('no-webgl').hidden = false;
let showClear = false;

let selected: string | null = null;
/** Key (`a|b`) of the selected advisory or forecast. */
let selectedPair: string | null = null;
let labelNodes = new Map<string, HTMLElement>();
let frames = 0;

const api: AirspaceViewApi = {
  updates: 0,
  generatedAt: '',
  selected: null,
  webgl: hasWebgl,
  select: (id) => select(id),
  screenPositionOf: (id) => viewer.screenPositionOf(id) ?? null,
  screenPositionOfFile: (path) => viewer.screenPositionOfFile(path) ?? null,
  get frames() {
    return frames;
  },
  get renderMs() {
    return viewer.renderMs;
  },
  showClear: (show) => setShowClear(show),
  mode: (mode) => setMode(mode),
  geometry: () => sceneGeometry(),
};
window.airspaceView = api;

function readInitialScan(): ScanResult {
  const node = document.getElementById('airspace-scan');
  try {
    return JSON.parse(node?.textContent ?? '{}') as ScanResult;
  } catch (error) {
    return {
      problems: [{ code: 'VIEW_BAD_JSON', message: `The scan embedded in this page is not valid JSON: ${String(error)}` }],
    } as unknown as ScanResult;
  }
}

/** The advisory or forecast of a pair, by key. */
function pairByKey(key: string | null): SceneAdvisory | SceneForecast | undefined {
  if (!key) return undefined;
  return model.advisories.find((a) => a.key === key) ?? model.forecasts.find((f) => f.key === key);
}

function apply(next: SceneModel, keepCamera: boolean): void {
  model = next;
  if (selected && !model.agents.some((a) => a.id === selected)) selected = null;
  if (!pairByKey(selectedPair)) selectedPair = null;
  viewer.setModel(model, keepCamera);
  renderCounts();
  renderLegend();
  renderLabels();
  renderAdvisories();
  renderForecasts();
  renderPairs();
  renderAgents();
  renderProblems();
  select(selected, true);
  api.updates += 1;
  api.generatedAt = model.generatedAt;
  document.body.dataset.updates = String(api.updates);
  document.body.dataset.generatedAt = model.generatedAt;
}

function renderCounts(): void {
  const box = $('counts');
  box.replaceChildren();
  const c = model.counts;
  const chip = (cls: string, value: number, label: string): void => {
    const node = el('span', `chip ${cls}`);
    node.append(el('b', undefined, String(value)), ` ${label}`);
    box.append(node);
  };
  chip('', c.agents, c.agents === 1 ? 'agent' : 'agents');
  chip('', model.files.length, model.files.length === 1 ? 'file' : 'files');
  chip('resolution', c.resolution, 'resolution');
  chip('traffic', c.traffic, 'traffic');
  // Forecast pairs are clear pairs too (the scan's counts have them under clear).
  chip('forecast', model.forecasts.length, 'forecast');
  chip('clear', c.clear, 'clear');
  if (c.unknown > 0) chip('unknown', c.unknown, 'unknown');
}

function renderLegend(): void {
  const box = $('legend');
  box.replaceChildren(el('h3', undefined, 'Links'));
  const line = (level: keyof typeof LEVEL_COLORS, label: string, height: number): void => {
    const item = el('div', 'item');
    const sw = el('span', 'swatch-line');
    sw.style.background = LEVEL_COLORS[level];
    sw.style.height = `${height}px`;
    item.append(sw, label);
    box.append(item);
  };
  line('resolution', 'resolution', 6);
  line('traffic', 'traffic', 4);
  const dashed = el('div', 'item');
  const dash = el('span', 'swatch-dash');
  dash.style.setProperty('--dash', FORECAST_COLOR);
  dashed.append(dash, 'forecast');
  box.append(dashed);
  const dotted = el('div', 'item');
  const dots = el('span', 'swatch-dots');
  dots.style.setProperty('--dash', NEAR_THRESHOLD_COLOR);
  dotted.append(dots, `near threshold (clear, within ${model.nearThresholdMargin} of traffic)`);
  dotted.title = 'A clear pair whose risk is just under the traffic threshold: no advisory, one small change from one.';
  box.append(dotted);
  line('clear', showClear ? 'clear' : 'clear (hidden)', 1);
  line('unknown', 'unknown', 1);
  box.append(el('h3', undefined, 'Spheres'));
  const dot = (bg: string, label: string, ball = false): void => {
    const item = el('div', 'item');
    const sw = el('span', ball ? 'swatch-ball' : 'swatch-dot');
    if (!ball) sw.style.background = bg;
    item.append(sw, label);
    box.append(item);
  };
  dot('', 'agent', true);
  dot('#5aa9ff', 'its file');
  dot(SHARED_FILE_COLOR, 'shared file');
  dot(LEVEL_COLORS.resolution, 'cited file');
  dot(UNTOUCHED_FILE_COLOR, 'other file');
}

function renderLabels(): void {
  labelsLayer.replaceChildren();
  labelSizes = new WeakMap();
  labelNodes = new Map();
  // With many agents labels show the name only (the focused ones show both lines), so they fit between the links.
  const compact = model.agents.length > COMPACT_FROM;
  for (const a of model.agents) {
    const node = el('div', `agent-label level-${a.level}`);
    node.style.setProperty('--agent', a.color);
    node.dataset.agent = a.id;
    node.append(el('div', 'name', a.title), el('div', 'meta', a.subtitle));
    if (compact) node.classList.add('compact');
    node.addEventListener('click', (e) => {
      e.stopPropagation();
      select(selected === a.id ? null : a.id);
    });
    labelsLayer.append(node);
    labelNodes.set(a.id, node);
  }
  placeLabels();
}

/** Label sizes, cleared when labels are rebuilt or change state. */
let labelSizes = new WeakMap<HTMLElement, { w: number; h: number }>();

/** The drawn links on screen, as segments as wide as they are drawn (at least a hairline). */
function screenSegments(): Array<ScreenSegment & { link: SceneLink }> {
  const out: Array<ScreenSegment & { link: SceneLink }> = [];
  for (const link of viewer.drawnLinks()) {
    const p = viewer.project(link.from);
    const q = viewer.project(link.to);
    if (!p || !q) continue;
    // Tube radius on screen: the agent's radius per scene unit at its end, times the tube's radius.
    const a = model.agents.find((x) => x.id === link.a);
    const perUnit = a && a.radius > 0 ? viewer.screenRadiusOf(a.id) / a.radius : 0;
    out.push({ x1: p.x, y1: p.y, x2: q.x, y2: q.y, half: Math.max(1, link.radius * perUnit), link });
  }
  return out;
}

/**
 * Puts each label beside its marker on a spot that crosses no drawn link, no other label and no
 * marker (`label-layout.ts`); focused labels first, then by level. A label with no free spot is
 * hidden, so the scene never shows a label over a link.
 */
function placeLabels(): void {
  const rect = stage.getBoundingClientRect();
  const focus = new Set<string>(selected ? [selected] : []);
  const pair = pairByKey(selectedPair);
  if (pair) {
    focus.add(pair.a);
    focus.add(pair.b);
  }
  const requests: LabelRequest[] = [];
  const markers: Array<{ x: number; y: number; r: number }> = [];
  for (const a of model.agents) {
    const p = viewer.screenPositionOf(a.id);
    const node = labelNodes.get(a.id);
    if (!p) {
      if (node) node.style.display = 'none';
      continue;
    }
    const r = viewer.screenRadiusOf(a.id);
    markers.push({ x: p.x - rect.left, y: p.y - rect.top, r });
    if (!node) continue;
    // Lower ranks are placed first: focused labels, then resolution … clear.
    const rank = labelRank(a.level, focus.has(a.id));
    let size = labelSizes.get(node);
    if (!size) {
      // Measured once per label and state (reading layout every frame would force a reflow per label).
      node.style.display = '';
      size = { w: node.offsetWidth, h: node.offsetHeight };
      labelSizes.set(node, size);
    }
    requests.push({ id: a.id, x: p.x - rect.left, y: p.y - rect.top, r, w: size.w, h: size.h, rank });
  }
  const segments = screenSegments().map((s) => ({
    ...s,
    x1: s.x1 - rect.left,
    y1: s.y1 - rect.top,
    x2: s.x2 - rect.left,
    y2: s.y2 - rect.top,
  }));
  const hud = $('hud').getBoundingClientRect();
  const top = hud.bottom - rect.top + 4;
  const legend = $('legend').getBoundingClientRect();
  const avoid = [{ left: legend.left - rect.left, top: legend.top - rect.top, width: legend.width, height: legend.height }];
  const boxes = placeLabelBoxes(requests, segments, markers, { left: 4, top, width: rect.width - 8, height: rect.height - top - 4 }, avoid);
  for (const [id, box] of boxes) {
    const node = labelNodes.get(id)!;
    node.style.display = box ? '' : 'none';
    if (!box) continue;
    node.style.left = `${box.left}px`;
    node.style.top = `${box.top}px`;
  }
}

function setShowClear(show: boolean): void {
  showClear = show;
  ($('show-clear') as HTMLInputElement).checked = show;
  document.body.dataset.clear = show ? 'shown' : 'hidden';
  viewer.setShowClear(show);
  placeLabels();
}

function setMode(mode: 'scene' | 'list'): void {
  document.body.dataset.mode = mode;
  $('pair-list').hidden = mode !== 'list';
  $('mode').textContent = mode === 'list' ? '3D view' : 'Pair list';
}

/** The pair list: every pair with an advisory, near the threshold or forecast, as a table (no WebGL needed). */
function renderPairs(): void {
  const body = $('pair-rows');
  body.replaceChildren();
  $('pair-count').textContent = `(${model.pairs.length})`;
  if (model.pairs.length === 0) {
    const row = el('tr', 'empty');
    const cell = el('td', undefined, 'No pair is above or near the threshold.');
    cell.colSpan = 5;
    row.append(cell);
    body.append(row);
  }
  for (const p of model.pairs) body.append(pairRow(p));
}

function pairRow(p: ScenePair): HTMLElement {
  const row = el('tr', `level-${p.level}${p.mark === 'near threshold' ? ' near' : p.mark === 'forecast' ? ' forecast' : ''}`);
  row.dataset.pair = p.key;
  row.style.setProperty('--level', p.color);
  const level = el('td', 'lvl');
  level.append(el('span', 'badge', p.mark ?? p.level));
  row.append(
    el('td', 'pair', p.title),
    level,
    el('td', 'num', p.riskText),
    el('td', 'num', p.percentText ?? '—'),
    el('td', 'ev', p.evidence),
  );
  row.addEventListener('click', () => {
    if (pairByKey(p.key)) selectPair(selectedPair === p.key ? null : p.key);
  });
  return row;
}

function sceneGeometry(): SceneGeometry {
  const box = stage.getBoundingClientRect();
  const agents = model.agents.flatMap((a) => {
    const p = viewer.screenPositionOf(a.id);
    return p ? [{ id: a.id, x: p.x, y: p.y, r: viewer.screenRadiusOf(a.id) }] : [];
  });
  const links = screenSegments().map(({ link, ...s }) => ({
    a: link.a,
    b: link.b,
    level: link.level,
    color: link.color,
    near: link.nearThreshold === true,
    forecast: link.forecast !== undefined,
    ...s,
  }));
  const labels = [...labelNodes].flatMap(([id, node]) => {
    if (node.style.display === 'none' || getComputedStyle(node).display === 'none') return [];
    const r = node.getBoundingClientRect();
    return [{ id, left: r.left, top: r.top, width: r.width, height: r.height }];
  });
  return { agents, links, labels, stage: { left: box.left, top: box.top, width: box.width, height: box.height } };
}

function sideRow(who: string, agentId: string, where: string): HTMLElement {
  const row = el('div', 'side');
  const agent = model.agents.find((a) => a.id === agentId);
  if (agent) row.style.setProperty('--agent', agent.color);
  row.append(el('span', 'who', who), el('span', 'where', where));
  return row;
}

function advisoryItem(adv: SceneAdvisory): HTMLElement {
  const li = el('li', `advisory level-${adv.level}`);
  li.dataset.pair = adv.key;
  li.style.setProperty('--level', adv.color);
  const top = el('div', 'top');
  // The chance where the forecast cards have theirs; R beside it, as a score.
  top.append(el('span', 'badge', adv.level), el('span', 'pair', adv.title), el('span', 'risk', adv.percentText ?? adv.riskText));
  li.append(top);
  li.append(el('div', 'row chance', [`risk ${adv.riskText}`, adv.chanceText].filter(Boolean).join(' · ')));
  if (adv.rightOfWay) li.append(el('div', 'row', adv.rightOfWay));
  li.append(el('div', 'message', adv.message));
  appendEvidence(li, adv.evidence, adv.moreEvidence);
  li.addEventListener('click', () => selectPair(selectedPair === adv.key ? null : adv.key));
  return li;
}

function appendEvidence(parent: HTMLElement, evidence: readonly EvidenceText[], more: number): void {
  if (evidence.length === 0) return;
  const list = el('ul', 'evidence');
  for (const e of evidence) {
    const item = el('li');
    const what = el('div', 'what');
    if (e.kind) what.append(el('span', 'kind', e.kind));
    what.append(e.message);
    item.append(what);
    for (const s of e.sides) item.append(sideRow(s.agentLabel, s.agent, [s.path, s.lines, s.symbol].filter(Boolean).join(' · ')));
    if (e.chain) item.append(el('div', 'chain', e.chain.join(' → ')));
    list.append(item);
  }
  if (more > 0) list.append(el('li', 'muted', `+ ${more} more`));
  parent.append(list);
}

/** A forecast card: like an advisory's, with the chance where the risk is and the signals that raised it. */
function forecastItem(f: SceneForecast): HTMLElement {
  const li = el('li', 'advisory forecast');
  li.dataset.pair = f.key;
  li.style.setProperty('--level', FORECAST_COLOR);
  const top = el('div', 'top');
  top.append(el('span', 'badge', 'forecast'), el('span', 'pair', f.title), el('span', 'risk', f.percentText));
  li.append(top);
  li.append(el('div', 'message', `No advisory yet: git merges them cleanly today. ${f.chanceText}.`));
  if (f.signals.length > 0) li.append(el('div', 'signals', f.signals.join(' · ')));
  appendEvidence(li, f.evidence, f.moreEvidence);
  li.addEventListener('click', () => selectPair(selectedPair === f.key ? null : f.key));
  return li;
}

function renderAdvisories(): void {
  const list = $('advisories');
  list.replaceChildren();
  $('advisory-count').textContent = `(${model.advisories.length})`;
  if (model.advisories.length === 0)
    list.append(
      el('li', 'empty', model.forecasts.length > 0 ? 'No advisories yet; see the forecasts below.' : 'No advisories: every pair is clear.'),
    );
  for (const adv of model.advisories) list.append(advisoryItem(adv));
}

function renderForecasts(): void {
  const list = $('forecasts');
  list.replaceChildren();
  $('forecast-count').textContent = `(${model.forecasts.length})`;
  if (model.forecasts.length === 0) list.append(el('li', 'empty', 'No forecasts: no clear pair is likely to collide later.'));
  for (const f of model.forecasts) list.append(forecastItem(f));
}

function renderAgents(): void {
  const list = $('agents');
  list.replaceChildren();
  $('agent-count').textContent = `(${model.agents.length})`;
  if (model.agents.length === 0) list.append(el('li', 'empty', 'No agents in this scan.'));
  for (const a of model.agents) {
    const li = el('li');
    li.dataset.agent = a.id;
    li.style.setProperty('--agent', a.color);
    li.style.setProperty('--level', LEVEL_COLORS[a.level]);
    li.title = a.worktree ?? a.id;
    li.append(el('span', 'ball'), el('span', 'name', a.title), el('span', 'meta', a.subtitle), el('span', 'lvl'));
    li.addEventListener('click', () => select(selected === a.id ? null : a.id));
    list.append(li);
  }
}

function renderProblems(): void {
  const box = $('problems');
  const list = $('problem-list');
  list.replaceChildren();
  box.hidden = model.problems.length === 0;
  for (const p of model.problems.slice(0, 50)) list.append(el('li', undefined, p.message));
}

function renderSelection(agent: SceneAgent | null): void {
  const box = $('selection');
  box.replaceChildren();
  box.hidden = !agent;
  if (!agent) return;
  box.style.setProperty('--agent', agent.color);
  const head = el('div', 'head');
  const close = el('button', undefined, 'clear');
  close.addEventListener('click', () => select(null));
  head.append(el('span', 'name', agent.title), el('span', 'muted', agent.subtitle), close);
  box.append(head);
  if (agent.worktree) box.append(el('div', 'muted', agent.worktree));
  for (const reason of agent.incomplete ?? []) box.append(el('div', 'muted', `incomplete: ${reason}`));
  const files = el('ul', 'files');
  files.dataset.count = String(agent.files.length);
  for (const fi of agent.files.slice(0, 200)) files.append(el('li', undefined, model.files[fi]!.path));
  if (agent.files.length > 200) files.append(el('li', 'muted', `+ ${agent.files.length - 200} more`));
  box.append(el('div', 'muted', `${agent.files.length} file${agent.files.length === 1 ? '' : 's'} highlighted`), files);
}

function select(agentId: string | null, quiet = false): void {
  selected = agentId && model.agents.some((a) => a.id === agentId) ? agentId : null;
  if (selected) selectedPair = null;
  api.selected = selected;
  document.body.dataset.selected = selected ?? '';
  document.body.dataset.pair = selectedPair ?? '';
  const pair = pairByKey(selectedPair);
  viewer.highlight(selected, pair ? [pair.a, pair.b] : undefined);
  const focus = new Set(selected ? [selected] : pair ? [pair.a, pair.b] : []);
  labelSizes = new WeakMap();
  for (const [id, node] of labelNodes) {
    node.classList.toggle('selected', focus.has(id));
    if (model.agents.length > COMPACT_FROM) node.classList.toggle('compact', !focus.has(id));
    node.classList.toggle('dim', focus.size > 0 && !focus.has(id));
  }
  for (const li of $('agents').querySelectorAll<HTMLElement>('li[data-agent]'))
    li.classList.toggle('selected', li.dataset.agent === selected);
  for (const li of document.querySelectorAll<HTMLElement>('#advisories li[data-pair], #forecasts li[data-pair]'))
    li.classList.toggle('selected', li.dataset.pair === selectedPair);
  renderSelection(selected ? (model.agents.find((a) => a.id === selected) ?? null) : null);
  if (!quiet && selected)
    $('agents')
      .querySelector<HTMLElement>(`li[data-agent="${CSS.escape(selected)}"]`)
      ?.scrollIntoView({ block: 'nearest' });
}

function selectPair(key: string | null): void {
  selectedPair = pairByKey(key) ? key : null;
  select(null);
}

/** What hovering a link says: the pair, its advisory or forecast in one line, and the first evidence. */
function linkTooltip(link: SceneLink): HTMLElement[] {
  const key = `${link.a}|${link.b}`;
  const name = (id: string): string => model.agents.find((a) => a.id === id)?.title ?? id;
  const rows: HTMLElement[] = [el('div', 'pair', `${name(link.a)} ↔ ${name(link.b)}`)];
  const forecast = model.forecasts.find((f) => f.key === key);
  const advisory = model.advisories.find((a) => a.key === key);
  const evidence = forecast?.evidence ?? advisory?.evidence ?? [];
  if (forecast) {
    rows.push(el('div', 'forecast', `forecast · ${forecast.chanceText}`));
    rows.push(el('div', 'muted', 'no advisory yet: git merges them cleanly today'));
    if (forecast.signals.length > 0) rows.push(el('div', 'muted', forecast.signals.join(' · ')));
  } else if (advisory) {
    rows.push(
      el(
        'div',
        `cited level-${advisory.level}`,
        [advisory.level, `risk ${advisory.riskText}`, advisory.chanceText].filter(Boolean).join(' · '),
      ),
    );
    if (advisory.rightOfWay) rows.push(el('div', 'muted', advisory.rightOfWay));
  } else {
    rows.push(
      el(
        'div',
        'muted',
        [link.level, `risk ${formatRisk(link.risk)}`, link.probability !== undefined ? chanceText(link.probability) : '']
          .filter(Boolean)
          .join(' · '),
      ),
    );
  }
  const listed = evidence.slice(0, 3);
  for (const e of listed) rows.push(el('div', 'evidence-line', e.message));
  const more = evidence.length - listed.length + (forecast?.moreEvidence ?? advisory?.moreEvidence ?? 0);
  if (forecast || advisory) rows.push(el('div', 'muted', more > 0 ? `+ ${more} more · click for the details` : 'click for the details'));
  return rows;
}

// Click (not drag) on the canvas picks an agent.
{
  let down: { x: number; y: number } | null = null;
  viewer.canvas.addEventListener('pointerdown', (e) => {
    down = { x: e.clientX, y: e.clientY };
  });
  viewer.canvas.addEventListener('pointerup', (e) => {
    if (!down || Math.hypot(e.clientX - down.x, e.clientY - down.y) > 5) return;
    down = null;
    const id = viewer.pick(e.clientX, e.clientY);
    if (id) {
      select(selected === id ? null : id);
      return;
    }
    // A link with an advisory or a forecast selects its pair and brings its card into view.
    const hit = viewer.pickLink(e.clientX, e.clientY);
    const link = hit?.link;
    const key = link ? `${link.a}|${link.b}` : null;
    if (key && pairByKey(key)) {
      selectPair(selectedPair === key ? null : key);
      if (selectedPair)
        document
          .querySelector<HTMLElement>(`#advisories li[data-pair="${CSS.escape(key)}"], #forecasts li[data-pair="${CSS.escape(key)}"]`)
          ?.scrollIntoView({ block: 'nearest' });
    } else if (selected || selectedPair) {
      selectedPair = null;
      select(null);
    }
  });
  const tooltip = $('tooltip');
  let hoverQueued = false;
  viewer.canvas.addEventListener('pointermove', (e) => {
    if (e.buttons !== 0) {
      tooltip.hidden = true;
      return;
    }
    if (hoverQueued) return;
    hoverQueued = true;
    requestAnimationFrame(() => {
      hoverQueued = false;
      const agentId = viewer.pick(e.clientX, e.clientY);
      // Agents first; then a file or a link, whichever is drawn nearer the pointer. A file the pointer
      // is on wins (a link between two agents on one file runs right through it).
      const fi = agentId ? null : viewer.pickFile(e.clientX, e.clientY);
      let f = fi === null ? undefined : model.files[fi];
      const hit = agentId ? null : viewer.pickLink(e.clientX, e.clientY);
      let link = hit?.link;
      if (f && hit) {
        const at = viewer.screenPositionOfFile(f.path);
        if (at && Math.hypot(at.x - e.clientX, at.y - e.clientY) <= Math.max(4, hit.distance)) link = undefined;
        else f = undefined;
      }
      viewer.canvas.style.cursor = agentId || (link && pairByKey(`${link.a}|${link.b}`)) ? 'pointer' : '';
      if (link) {
        tooltip.replaceChildren(...linkTooltip(link));
        tooltip.dataset.pair = `${link.a}|${link.b}`;
      } else if (f) {
        const names = f.agents.map((id) => model.agents.find((a) => a.id === id)?.title ?? id);
        tooltip.replaceChildren(
          el('div', 'path', f.path),
          el('div', 'muted', names.length > 0 ? `changed by ${names.join(', ')}` : 'not changed by any agent'),
        );
        if (f.citedLevel) tooltip.append(el('div', `cited level-${f.citedLevel}`, `cited by a ${f.citedLevel} advisory`));
        delete tooltip.dataset.pair;
      } else {
        tooltip.hidden = true;
        return;
      }
      const rect = stage.getBoundingClientRect();
      tooltip.style.left = `${e.clientX - rect.left + 14}px`;
      tooltip.style.top = `${e.clientY - rect.top + 14}px`;
      tooltip.hidden = false;
    });
  });
  viewer.canvas.addEventListener('pointerleave', () => {
    tooltip.hidden = true;
  });
  viewer.onFrame(() => {
    frames += 1;
    placeLabels();
  });
}

$('show-clear').addEventListener('change', (e) => setShowClear((e.target as HTMLInputElement).checked));
$('mode').addEventListener('click', () => setMode(document.body.dataset.mode === 'list' ? 'scene' : 'list'));
document.body.dataset.clear = 'hidden';
setMode('scene');

document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && (selected || selectedPair)) {
    selectedPair = null;
    select(null);
  }
});

function setStatus(state: 'static' | 'live' | 'lost', text: string): void {
  const box = $('status');
  box.className = `status ${state}`;
  box.replaceChildren(el('span', 'dot'), text);
}

function timeText(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString();
}

apply(model, false);

const eventsPath = document.body.dataset.events;
let shownSeq = Number(document.body.dataset.seq ?? '-1');
// A plain headless capture (`chromium --headless --screenshot --virtual-time-budget`, not a
// driven browser) waits for every request to end before its virtual time runs: an open event
// stream would hold it forever. The page came with the current scan; it shows that, as a snapshot.
const headlessCapture = /HeadlessChrome/.test(navigator.userAgent) && !navigator.webdriver;
if (eventsPath && headlessCapture) {
  setStatus('static', model.generatedAt ? `snapshot (headless capture) · ${timeText(model.generatedAt)}` : 'snapshot');
} else if (eventsPath && typeof EventSource !== 'undefined') {
  setStatus('lost', 'connecting…');
  const source = new EventSource(eventsPath);
  source.addEventListener('open', () => setStatus('live', `live · ${timeText(model.generatedAt)}`));
  source.addEventListener('scan', (event) => {
    try {
      const result = JSON.parse((event as MessageEvent<string>).data) as ScanResult;
      // The stream opens with the server's current result; skip it when the page already shows it.
      const seq = Number((event as MessageEvent).lastEventId);
      if (Number.isFinite(seq) && seq <= shownSeq) return;
      if (Number.isFinite(seq)) shownSeq = seq;
      apply(buildSceneModel(result), true);
      setStatus('live', `live · ${timeText(model.generatedAt)}`);
    } catch (error) {
      setStatus('lost', `bad update: ${String(error)}`);
    }
  });
  source.addEventListener('problem', (event) => {
    const data = (event as MessageEvent<string>).data;
    let text = data;
    try {
      text = String(JSON.parse(data));
    } catch {
      /* plain text */
    }
    setStatus('lost', text);
  });
  source.addEventListener('error', () => setStatus('lost', 'reconnecting…'));
} else {
  setStatus('static', model.generatedAt ? `snapshot · ${new Date(model.generatedAt).toLocaleString()}` : 'snapshot');
}
