/**
 * The scene without WebGL: the same camera, orbit and picking as `viewer.ts`, drawn with a 2D
 * canvas (files as dots, links as lines as wide as their tubes, agents as shaded discs, far to
 * near). Headless Chromium without a GPU, or with software WebGL turned off, has no WebGL
 * context; this is what it shows, so a capture of the page always has the scene.
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { SCENE_RADIUS, drawnLinks, type SceneModel } from '../scene-model.js';
import { frameCamera, nearestAgent, nearestLink, screenRadius, type Project, type Viewer } from './viewer.js';

const BACKGROUND = '#0a0f1c';

type Link = SceneModel['links'][number];

/** Draws one frame of the model on a 2D canvas, with focus as in the WebGL scene. */
function paint(
  g: CanvasRenderingContext2D,
  model: SceneModel,
  links: readonly Link[],
  local: (p: readonly [number, number, number]) => { x: number; y: number; z: number } | null,
  pixelsPer: (p: readonly [number, number, number], r: number) => number,
  focus: ReadonlySet<string>,
): void {
  const any = focus.size > 0;
  g.fillStyle = BACKGROUND;
  g.fillRect(0, 0, g.canvas.width, g.canvas.height);
  const files = model.files
    .map((f) => ({ f, at: local(f.position) }))
    .filter((x) => x.at !== null)
    .sort((x, y) => x.at!.z - y.at!.z);
  for (const { f, at } of files) {
    const mine = any && f.agents.some((id) => focus.has(id));
    g.globalAlpha = !any ? (f.agents.length > 0 ? 0.95 : 0.55) : mine ? 1 : 0.12;
    g.fillStyle = f.color;
    g.beginPath();
    g.arc(at!.x, at!.y, Math.max(1, pixelsPer(f.position, f.size * (mine ? 1.9 : 1)) / 2), 0, Math.PI * 2);
    g.fill();
  }
  for (const l of links) {
    const p = local(l.from);
    const q = local(l.to);
    if (!p || !q) continue;
    const faded = any && !(focus.has(l.a) || focus.has(l.b));
    g.globalAlpha = faded ? 0.15 : l.radius > 0 ? l.opacity : Math.max(0.5, l.opacity);
    g.strokeStyle = l.color;
    g.lineWidth = l.radius > 0 ? Math.max(1.5, pixelsPer(l.from, l.radius * 2)) : 1.2;
    g.setLineDash(l.forecast !== undefined ? [7, 5] : l.nearThreshold ? [2, 3] : []);
    g.beginPath();
    g.moveTo(p.x, p.y);
    g.lineTo(q.x, q.y);
    g.stroke();
  }
  g.setLineDash([]);
  const agents = model.agents
    .map((a) => ({ a, at: local(a.position) }))
    .filter((x) => x.at !== null)
    .sort((x, y) => x.at!.z - y.at!.z);
  for (const { a, at } of agents) {
    const r = Math.max(2, pixelsPer(a.position, a.radius));
    const shade = g.createRadialGradient(at!.x - r * 0.35, at!.y - r * 0.35, r * 0.1, at!.x, at!.y, r);
    shade.addColorStop(0, '#ffffff');
    shade.addColorStop(0.35, a.color);
    shade.addColorStop(1, '#1b2540');
    g.globalAlpha = any && !focus.has(a.id) ? 0.35 : 1;
    g.fillStyle = shade;
    g.beginPath();
    g.arc(at!.x, at!.y, r, 0, Math.PI * 2);
    g.fill();
  }
  g.globalAlpha = 1;
}

/** Scene → client pixels (`project`), canvas pixels with depth (`local`), and sizes on the canvas. */
function projections(canvas: HTMLCanvasElement, camera: THREE.PerspectiveCamera) {
  const v = new THREE.Vector3();
  const dpr = Math.min(2, window.devicePixelRatio || 1);
  const project: Project = (position) => {
    v.fromArray(position).project(camera);
    if (v.z > 1 || v.z < -1) return null;
    const rect = canvas.getBoundingClientRect();
    return { x: rect.left + ((v.x + 1) / 2) * rect.width, y: rect.top + ((1 - v.y) / 2) * rect.height };
  };
  /** Larger z is nearer the camera. */
  const local = (position: readonly [number, number, number]) => {
    v.fromArray(position).project(camera);
    if (v.z > 1 || v.z < -1) return null;
    return { x: ((v.x + 1) / 2) * canvas.width, y: ((1 - v.y) / 2) * canvas.height, z: -v.z };
  };
  const pixelsPer = (position: readonly [number, number, number], r: number): number => screenRadius(camera, project, position, r) * dpr;
  return { project, local, pixelsPer, dpr };
}

export function createFlatViewer(container: HTMLElement): Viewer {
  const canvas = document.createElement('canvas');
  container.prepend(canvas);
  const g = canvas.getContext('2d')!;
  const camera = new THREE.PerspectiveCamera(50, 1, 0.5, SCENE_RADIUS * 20);
  const controls = new OrbitControls(camera, canvas);
  controls.minDistance = 5;
  controls.maxDistance = SCENE_RADIUS * 8;
  let model: SceneModel | null = null;
  let showClear = false;
  let drawn: Link[] = [];
  let focus = new Set<string>();
  let scheduled = false;
  let lastRenderMs = 0;
  const listeners: Array<() => void> = [];
  const { project, local, pixelsPer } = projections(canvas, camera);

  function renderNow(): void {
    scheduled = false;
    if (!model) return;
    camera.updateMatrixWorld();
    const started = performance.now();
    paint(g, model, drawn, local, pixelsPer, focus);
    lastRenderMs = performance.now() - started;
    for (const f of listeners) f();
  }
  function requestRender(): void {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(renderNow);
  }
  function resize(): void {
    const w = Math.max(1, container.clientWidth);
    const h = Math.max(1, container.clientHeight);
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    // Setting the size cleared the canvas: draw again in this frame (see viewer.ts).
    renderNow();
  }
  new ResizeObserver(resize).observe(container);
  resize();
  controls.addEventListener('change', () => {
    camera.updateMatrixWorld();
    requestRender();
  });

  const agentById = () => new Map((model?.agents ?? []).map((a) => [a.id, a] as const));
  return {
    setModel(next, keepCamera) {
      model = next;
      drawn = drawnLinks(next, showClear);
      focus = new Set();
      if (!keepCamera) frameCamera(camera, controls, next);
      camera.updateMatrixWorld();
      renderNow();
    },
    highlight(agentId, pair) {
      focus = new Set(pair ? pair : agentId ? [agentId] : []);
      requestRender();
    },
    pick: (x, y) => (model ? nearestAgent(model, project, x, y) : null),
    pickFile: () => null,
    pickLink: (x, y) => nearestLink(drawn, project, x, y),
    screenPositionOf: (id) => {
      const a = agentById().get(id);
      return a ? project(a.position) : null;
    },
    screenPositionOfFile: (path) => {
      const f = model?.files.find((x) => x.path === path);
      return f ? project(f.position) : null;
    },
    project,
    screenRadiusOf: (id) => {
      const a = agentById().get(id);
      return a ? screenRadius(camera, project, a.position, a.radius) : 0;
    },
    setShowClear(show) {
      showClear = show;
      if (model) drawn = drawnLinks(model, showClear);
      requestRender();
    },
    drawnLinks: () => drawn,
    onFrame: (f) => {
      listeners.push(f);
    },
    get renderMs() {
      return lastRenderMs;
    },
    requestRender,
    canvas,
  };
}
