/**
 * The three.js scene: files as one `Points` cloud (custom shader: per-point colour, size and
 * alpha), agents as one `InstancedMesh` of spheres, risky links as one `InstancedMesh` of tubes,
 * clear links as hairlines (only when asked: hidden by default), forecast links as dashed lines,
 * near-threshold links as dotted ones. A handful of draw calls whatever the size of the scan.
 * Renders the first frame at once and then on demand (camera moved, model changed): no frame is
 * requested while nothing changes, so a headless capture finds the page settled.
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { SCENE_RADIUS, drawnLinks, type SceneModel } from '../scene-model.js';

const BACKGROUND = 0x0a0f1c;

const POINT_VERTEX = `
attribute vec3 aColor;
attribute float aSize;
attribute float aAlpha;
uniform float uScale;
varying vec3 vColor;
varying float vAlpha;
void main() {
  vColor = aColor;
  vAlpha = aAlpha;
  vec4 mv = modelViewMatrix * vec4(position, 1.0);
  gl_PointSize = max(2.0, aSize * uScale / -mv.z);
  gl_Position = projectionMatrix * mv;
}`;

const POINT_FRAGMENT = `
varying vec3 vColor;
varying float vAlpha;
void main() {
  float d = length(gl_PointCoord - vec2(0.5));
  if (d > 0.5) discard;
  float edge = smoothstep(0.5, 0.32, d);
  float core = smoothstep(0.22, 0.0, d) * 0.35;
  gl_FragColor = vec4(min(vColor + core, vec3(1.0)), vAlpha * edge);
}`;

export interface Viewer {
  setModel(model: SceneModel, keepCamera: boolean): void;
  /** Highlight one agent's files and links (null: show everything). */
  highlight(agentId: string | null, pair?: readonly [string, string]): void;
  /** Agent under a client-space point, if any. */
  pick(clientX: number, clientY: number): string | null;
  /** Index (into the model's files) of the file under a client-space point, if any. */
  pickFile(clientX: number, clientY: number): number | null;
  /** The drawn link nearest a client-space point within a few pixels, and how far. */
  pickLink(clientX: number, clientY: number): { link: SceneModel['links'][number]; distance: number } | null;
  /** Where an agent is drawn, in client (CSS pixel) coordinates; null when off screen. */
  screenPositionOf(agentId: string): { x: number; y: number } | null;
  /** Where a file is drawn, likewise. */
  screenPositionOfFile(path: string): { x: number; y: number } | null;
  /** A scene point in client coordinates (null behind the camera). */
  project(position: readonly [number, number, number]): { x: number; y: number } | null;
  /** An agent's marker radius on screen, in CSS pixels. */
  screenRadiusOf(agentId: string): number;
  /** Show or hide the plain clear links (hidden by default). */
  setShowClear(show: boolean): void;
  /** The links drawn now. */
  drawnLinks(): SceneModel['links'];
  onFrame(listener: () => void): void;
  /** Milliseconds the last frame took to render (GPU included with \`?timing\`). */
  readonly renderMs: number;
  requestRender(): void;
  readonly canvas: HTMLCanvasElement;
}

export function webglAvailable(): boolean {
  try {
    const canvas = document.createElement('canvas');
    return !!(canvas.getContext('webgl2') ?? canvas.getContext('webgl'));
  } catch {
    return false;
  }
}

type Link = SceneModel['links'][number];
type Point3 = readonly [number, number, number];

/** Geometries and materials reused across models (never disposed with a model). */
interface Shared {
  pointMaterial: THREE.ShaderMaterial;
  sphere: THREE.SphereGeometry;
  agentMaterial: THREE.MeshStandardMaterial;
  tube: THREE.CylinderGeometry;
  tubeMaterial: THREE.MeshBasicMaterial;
}

/** The objects drawn for the current model. */
interface Layers {
  points: THREE.Points | null;
  agents: THREE.InstancedMesh | null;
  tubes: THREE.InstancedMesh | null;
  hairlines: THREE.LineSegments | null;
  dashes: THREE.LineSegments | null;
  dots: THREE.LineSegments | null;
  spokes: THREE.LineSegments | null;
}

const emptyLayers = (): Layers => ({ points: null, agents: null, tubes: null, hairlines: null, dashes: null, dots: null, spokes: null });

/** Renderer, scene, camera, orbit controls, lights and the floor grid. */
function createStage(container: HTMLElement, antialias: boolean) {
  // preserveDrawingBuffer lets tests and screenshots read back the pixels after a frame.
  const renderer = new THREE.WebGLRenderer({ antialias, preserveDrawingBuffer: true });
  renderer.setPixelRatio(Math.min(2, window.devicePixelRatio || 1));
  renderer.setClearColor(BACKGROUND, 1);
  container.prepend(renderer.domElement);
  const canvas = renderer.domElement;

  const scene = new THREE.Scene();
  scene.fog = new THREE.Fog(BACKGROUND, SCENE_RADIUS * 3, SCENE_RADIUS * 7);
  const camera = new THREE.PerspectiveCamera(50, 1, 0.5, SCENE_RADIUS * 20);
  const controls = new OrbitControls(camera, canvas);
  controls.enableDamping = true;
  controls.dampingFactor = 0.12;
  controls.minDistance = 5;
  controls.maxDistance = SCENE_RADIUS * 8;

  scene.add(new THREE.AmbientLight(0xffffff, 1.1));
  const key = new THREE.DirectionalLight(0xffffff, 2.2);
  key.position.set(1, 2, 1.5);
  scene.add(key);

  // A faint floor grid for depth.
  const grid = new THREE.PolarGridHelper(SCENE_RADIUS * 1.3, 12, 6, 96, 0x18223a, 0x111a2d);
  grid.position.y = -SCENE_RADIUS * 1.05;
  scene.add(grid);
  return { renderer, canvas, scene, camera, controls };
}

function createShared(): Shared {
  return {
    pointMaterial: new THREE.ShaderMaterial({
      vertexShader: POINT_VERTEX,
      fragmentShader: POINT_FRAGMENT,
      uniforms: { uScale: { value: 1 } },
      transparent: true,
      depthWrite: false,
    }),
    sphere: new THREE.SphereGeometry(1, 20, 14),
    agentMaterial: new THREE.MeshStandardMaterial({ roughness: 0.35, metalness: 0.15, emissive: 0x111827 }),
    tube: new THREE.CylinderGeometry(1, 1, 1, 10, 1, true),
    tubeMaterial: new THREE.MeshBasicMaterial({ transparent: true, opacity: 0.9, depthWrite: false }),
  };
}

/** Remove the model's objects from the group, disposing all but the shared geometries and materials. */
function disposeGroup(dynamic: THREE.Group, shared: Shared): void {
  for (const child of [...dynamic.children]) {
    dynamic.remove(child);
    const g = (child as THREE.Mesh).geometry;
    // Shared geometries (sphere, tube) are reused across models.
    if (g && g !== shared.sphere && g !== shared.tube) g.dispose();
    const mat = (child as THREE.Mesh).material;
    if (mat && mat !== shared.pointMaterial && mat !== shared.agentMaterial && mat !== shared.tubeMaterial)
      (Array.isArray(mat) ? mat : [mat]).forEach((m) => m.dispose());
    if (child instanceof THREE.InstancedMesh) child.dispose();
  }
}

/** Files: one point each; colour, size and alpha are filled in by `recolour`. */
function buildFiles(next: SceneModel, material: THREE.ShaderMaterial): THREE.Points {
  const n = next.files.length;
  const positions = new Float32Array(n * 3);
  next.files.forEach((f, i) => positions.set(f.position, i * 3));
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
  geometry.setAttribute('aColor', new THREE.BufferAttribute(new Float32Array(n * 3), 3));
  geometry.setAttribute('aSize', new THREE.BufferAttribute(new Float32Array(n), 1));
  geometry.setAttribute('aAlpha', new THREE.BufferAttribute(new Float32Array(n), 1));
  const points = new THREE.Points(geometry, material);
  points.frustumCulled = false;
  return points;
}

function buildAgents(next: SceneModel, shared: Shared): THREE.InstancedMesh | null {
  if (next.agents.length === 0) return null;
  const color = new THREE.Color();
  const matrix = new THREE.Matrix4();
  const agents = new THREE.InstancedMesh(shared.sphere, shared.agentMaterial, next.agents.length);
  next.agents.forEach((a, i) => {
    matrix.makeScale(a.radius, a.radius, a.radius).setPosition(a.position[0], a.position[1], a.position[2]);
    agents.setMatrixAt(i, matrix);
    agents.setColorAt(i, color.set(a.color));
  });
  agents.computeBoundingSphere();
  return agents;
}

/** Traffic and resolution links: one instanced open cylinder each. */
function buildTubes(thick: Link[], shared: Shared): THREE.InstancedMesh | null {
  if (thick.length === 0) return null;
  const color = new THREE.Color();
  const matrix = new THREE.Matrix4();
  const up = new THREE.Vector3(0, 1, 0);
  const tubes = new THREE.InstancedMesh(shared.tube, shared.tubeMaterial, thick.length);
  const from = new THREE.Vector3();
  const to = new THREE.Vector3();
  const dir = new THREE.Vector3();
  const q = new THREE.Quaternion();
  const s = new THREE.Vector3();
  thick.forEach((l, i) => {
    from.fromArray(l.from);
    to.fromArray(l.to);
    dir.subVectors(to, from);
    const length = Math.max(1e-3, dir.length());
    q.setFromUnitVectors(up, dir.normalize());
    s.set(l.radius, length, l.radius);
    matrix.compose(from.clone().add(to).multiplyScalar(0.5), q, s);
    tubes.setMatrixAt(i, matrix);
    tubes.setColorAt(i, color.set(l.color));
  });
  tubes.computeBoundingSphere();
  tubes.userData.links = thick;
  return tubes;
}

function buildHairlines(thin: Link[]): THREE.LineSegments | null {
  if (thin.length === 0) return null;
  const color = new THREE.Color();
  const pos = new Float32Array(thin.length * 6);
  const col = new Float32Array(thin.length * 6);
  thin.forEach((l, i) => {
    pos.set(l.from, i * 6);
    pos.set(l.to, i * 6 + 3);
    color.set(l.color).multiplyScalar(l.opacity * 2);
    col.set([color.r, color.g, color.b, color.r, color.g, color.b], i * 6);
  });
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(pos, 3));
  g.setAttribute('color', new THREE.BufferAttribute(col, 3));
  const hairlines = new THREE.LineSegments(
    g,
    new THREE.LineBasicMaterial({ vertexColors: true, transparent: true, opacity: 0.6, depthWrite: false }),
  );
  hairlines.userData.links = thin;
  return hairlines;
}

/** Forecast links (dashed) or near-threshold links (dotted); their colours are filled in by `recolour`. */
function buildDashes(forecast: Link[], dashSize = 1.6, gapSize = 1.1): THREE.LineSegments | null {
  if (forecast.length === 0) return null;
  const pos = new Float32Array(forecast.length * 6);
  forecast.forEach((l, i) => {
    pos.set(l.from, i * 6);
    pos.set(l.to, i * 6 + 3);
  });
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(pos, 3));
  g.setAttribute('color', new THREE.BufferAttribute(new Float32Array(forecast.length * 6), 3));
  // Dash lengths in scene units: a few dashes even on a short link, never a solid line.
  const dashes = new THREE.LineSegments(
    g,
    new THREE.LineDashedMaterial({ vertexColors: true, dashSize, gapSize, transparent: true, depthWrite: false }),
  );
  dashes.computeLineDistances();
  dashes.userData.links = forecast;
  return dashes;
}

/**
 * Point the camera at the agents, nearly face on: they lie in the plane z = 0 (`layout.ts`), so
 * their clearances on screen are those of the layout. Tilted a little from above, for depth.
 */
export function frameCamera(
  camera: THREE.PerspectiveCamera,
  controls: { target: THREE.Vector3; update(): unknown },
  next: SceneModel,
): void {
  let r = 10;
  for (const a of next.agents) r = Math.max(r, Math.hypot(a.position[0], a.position[1]) + a.radius * 2);
  const fit = Math.min(
    camera.fov,
    2 * THREE.MathUtils.radToDeg(Math.atan(Math.tan(THREE.MathUtils.degToRad(camera.fov / 2)) * camera.aspect)),
  );
  const distance = (r / Math.sin(THREE.MathUtils.degToRad(fit / 2))) * 1.12;
  // Aimed at the centre: the agents sit between the heads-up at the top and the legend at the bottom.
  camera.position.set(0, distance * 0.2, distance * 0.98);
  controls.target.set(0, 0, 0);
  camera.near = Math.max(0.1, distance / 200);
  camera.far = distance * 10;
  camera.updateProjectionMatrix();
  controls.update();
}

/** Colours, sizes and alphas for a focus (empty: everything at rest). */
function recolour(layers: Layers, model: SceneModel, focus: ReadonlySet<string>): void {
  const any = focus.size > 0;
  const color = new THREE.Color();
  const { points, agents, tubes, hairlines, dashes, dots } = layers;
  if (points) {
    const c = points.geometry.getAttribute('aColor') as THREE.BufferAttribute;
    const s = points.geometry.getAttribute('aSize') as THREE.BufferAttribute;
    const a = points.geometry.getAttribute('aAlpha') as THREE.BufferAttribute;
    model.files.forEach((f, i) => {
      const mine = any && f.agents.some((id) => focus.has(id));
      color.set(f.color);
      c.setXYZ(i, color.r, color.g, color.b);
      s.setX(i, mine ? Math.max(f.size * 1.9, 2.4) : f.size);
      a.setX(i, !any ? (f.agents.length > 0 ? 0.95 : 0.55) : mine ? 1 : 0.12);
    });
    c.needsUpdate = s.needsUpdate = a.needsUpdate = true;
  }
  if (agents) {
    model.agents.forEach((ag, i) => {
      color.set(ag.color);
      if (any && !focus.has(ag.id)) color.multiplyScalar(0.3);
      agents.setColorAt(i, color);
    });
    agents.instanceColor!.needsUpdate = true;
  }
  if (tubes) {
    const links = tubes.userData.links as SceneModel['links'];
    links.forEach((l, i) => {
      color.set(l.color);
      if (any && !(focus.has(l.a) || focus.has(l.b))) color.multiplyScalar(0.18);
      tubes.setColorAt(i, color);
    });
    tubes.instanceColor!.needsUpdate = true;
  }
  if (hairlines) (hairlines.material as THREE.LineBasicMaterial).opacity = any ? 0.15 : 0.6;
  for (const lines of [dashes, dots]) {
    if (!lines) continue;
    // Per-link colour: a forecast (or near-threshold pair) of the focused agents stays bright, the others fade.
    const c = lines.geometry.getAttribute('color') as THREE.BufferAttribute;
    const links = lines.userData.links as SceneModel['links'];
    links.forEach((l, i) => {
      color.set(l.color).multiplyScalar(any && !(focus.has(l.a) || focus.has(l.b)) ? 0.15 : l.opacity);
      c.setXYZ(i * 2, color.r, color.g, color.b);
      c.setXYZ(i * 2 + 1, color.r, color.g, color.b);
    });
    c.needsUpdate = true;
  }
}

/** Spokes from the focused agents to their files. */
function buildSpokes(model: SceneModel, focus: ReadonlySet<string>): THREE.LineSegments | null {
  // At rest there are none: a spoke to a shared file would read as a link between agents.
  if (focus.size === 0) return null;
  const color = new THREE.Color();
  const pos: number[] = [];
  const col: number[] = [];
  for (const ag of model.agents) {
    if (!focus.has(ag.id)) continue;
    color.set(ag.color);
    for (const fi of ag.files) {
      pos.push(...ag.position, ...model.files[fi]!.position);
      col.push(color.r, color.g, color.b, color.r * 0.4, color.g * 0.4, color.b * 0.4);
    }
  }
  if (pos.length === 0) return null;
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  g.setAttribute('color', new THREE.Float32BufferAttribute(col, 3));
  return new THREE.LineSegments(g, new THREE.LineBasicMaterial({ vertexColors: true, transparent: true, opacity: 0.5, depthWrite: false }));
}

export type Project = (position: Point3) => { x: number; y: number } | null;

/** Forgive near misses on small markers: nearest agent within 14 px. */
export function nearestAgent(model: SceneModel, project: Project, clientX: number, clientY: number): string | null {
  let best: string | null = null;
  let bestD = 14;
  for (const a of model.agents) {
    const p = project(a.position);
    if (!p) continue;
    const d = Math.hypot(p.x - clientX, p.y - clientY);
    if (d < bestD) {
      bestD = d;
      best = a.id;
    }
  }
  return best;
}

/** Screen-space distance to each drawn link's segment (links are few; a ray test on lines is fussier). */
export function nearestLink(
  links: readonly Link[],
  project: Project,
  clientX: number,
  clientY: number,
): { link: Link; distance: number } | null {
  let best: Link | null = null;
  let bestD = 6;
  for (const l of links) {
    const p = project(l.from);
    const q = project(l.to);
    if (!p || !q) continue;
    const dx = q.x - p.x,
      dy = q.y - p.y;
    const len2 = dx * dx + dy * dy;
    const t = len2 > 0 ? Math.min(1, Math.max(0, ((clientX - p.x) * dx + (clientY - p.y) * dy) / len2)) : 0;
    const d = Math.hypot(p.x + t * dx - clientX, p.y + t * dy - clientY);
    // Ties go to the later link: links are sorted with the most important last (drawn on top).
    if (d <= bestD) {
      bestD = d;
      best = l;
    }
  }
  return best === null ? null : { link: best, distance: bestD };
}

const right = new THREE.Vector3();
/** A sphere's radius on screen: its centre and a point on its rim across the view, projected. */
export function screenRadius(camera: THREE.Camera, project: Project, centre: Point3, radius: number): number {
  right.setFromMatrixColumn(camera.matrixWorld, 0).normalize().multiplyScalar(radius);
  const c = project(centre);
  const e = project([centre[0] + right.x, centre[1] + right.y, centre[2] + right.z]);
  return c && e ? Math.hypot(e.x - c.x, e.y - c.y) : 0;
}

/**
 * Renders on demand: after a resize, a camera move or `requestRender`. A frame is requested only
 * while something changed (or the orbit's damping still moves the camera), so a settled page
 * schedules nothing; `renderNow` draws synchronously (the first frame of a model).
 */
function startRenderLoop(stage: ReturnType<typeof createStage>, container: HTMLElement, pointMaterial: THREE.ShaderMaterial) {
  const { renderer, scene, camera, controls } = stage;
  let dirty = true;
  let scheduled = false;
  let moving = false;
  let lastRenderMs = 0;
  const timing = new URLSearchParams(location.search).has('timing');
  const pixel = new Uint8Array(4);
  const frameListeners: Array<() => void> = [];

  function resize(): void {
    const w = Math.max(1, container.clientWidth);
    const h = Math.max(1, container.clientHeight);
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    pointMaterial.uniforms.uScale!.value = (h * renderer.getPixelRatio() * 0.5) / Math.tan(THREE.MathUtils.degToRad(camera.fov / 2));
    // Resizing clears the canvas: draw again now, in this frame. Headless Chromium's --screenshot
    // resizes the page to the window just before it captures, with no animation frame after it.
    renderNow();
  }

  function renderNow(): void {
    dirty = false;
    const started = performance.now();
    renderer.render(scene, camera);
    // Reading one pixel waits for the GPU, so the time covers the frame, not only its submission.
    if (timing) renderer.getContext().readPixels(0, 0, 1, 1, renderer.getContext().RGBA, renderer.getContext().UNSIGNED_BYTE, pixel);
    lastRenderMs = performance.now() - started;
    for (const f of frameListeners) f();
  }

  function loop(): void {
    scheduled = false;
    // While the user orbits (and the damping settles), update() moves the camera and says so.
    if (controls.update()) dirty = true;
    if (dirty) renderNow();
    if (moving || dirty) request();
  }
  function request(): void {
    dirty = true;
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(loop);
  }
  controls.addEventListener('change', request);
  controls.addEventListener('start', () => {
    moving = true;
    request();
  });
  controls.addEventListener('end', () => {
    // Damping goes on for a few frames after the pointer is released.
    setTimeout(() => {
      moving = false;
    }, 600);
    request();
  });
  new ResizeObserver(resize).observe(container);
  resize();
  return {
    requestRender: request,
    renderNow,
    onFrame: (f: () => void): void => {
      frameListeners.push(f);
    },
    renderMs: (): number => lastRenderMs,
  };
}

/** The model's objects, for the links drawn now: tubes (traffic, resolution), dashes (forecasts), dots (near threshold), hairlines (the rest). */
function buildLayers(next: SceneModel, drawn: readonly Link[], shared: Shared): Layers {
  const thin = drawn.filter((l) => l.radius === 0);
  return {
    points: buildFiles(next, shared.pointMaterial),
    agents: buildAgents(next, shared),
    tubes: buildTubes(
      drawn.filter((l) => l.radius > 0),
      shared,
    ),
    hairlines: buildHairlines(thin.filter((l) => l.forecast === undefined && !l.nearThreshold)),
    dashes: buildDashes(thin.filter((l) => l.forecast !== undefined)),
    dots: buildDashes(
      thin.filter((l) => l.forecast === undefined && l.nearThreshold),
      0.55,
      0.55,
    ),
    spokes: null,
  };
}

/** Picking an agent (a ray through its marker, or the nearest within a few pixels) or a file. */
function createPicking(
  canvas: HTMLCanvasElement,
  camera: THREE.PerspectiveCamera,
  target: THREE.Vector3,
  current: () => { model: SceneModel; layers: Layers } | null,
  project: Project,
) {
  const raycaster = new THREE.Raycaster();
  const ndc = new THREE.Vector2();
  function aim(clientX: number, clientY: number): DOMRect {
    const rect = canvas.getBoundingClientRect();
    ndc.set(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    raycaster.setFromCamera(ndc, camera);
    return rect;
  }
  function pick(clientX: number, clientY: number): string | null {
    const now = current();
    if (!now?.layers.agents) return null;
    aim(clientX, clientY);
    const hit = raycaster.intersectObject(now.layers.agents, false)[0];
    if (hit && hit.instanceId !== undefined) return now.model.agents[hit.instanceId]?.id ?? null;
    return nearestAgent(now.model, project, clientX, clientY);
  }
  function pickFile(clientX: number, clientY: number): number | null {
    const now = current();
    if (!now?.layers.points || now.model.files.length === 0) return null;
    const rect = aim(clientX, clientY);
    // About 6 px around the pointer, in world units at the target's distance.
    const distance = camera.position.distanceTo(target);
    raycaster.params.Points = { threshold: (6 / rect.height) * 2 * distance * Math.tan(THREE.MathUtils.degToRad(camera.fov / 2)) };
    const hit = raycaster.intersectObject(now.layers.points, false)[0];
    return hit && hit.index !== undefined ? hit.index : null;
  }
  return { pick, pickFile };
}

export function createViewer(container: HTMLElement, options: { antialias?: boolean } = {}): Viewer {
  const stage = createStage(container, options.antialias ?? true);
  const { canvas, scene, camera, controls } = stage;
  const shared = createShared();
  const render = startRenderLoop(stage, container, shared.pointMaterial);
  let model: SceneModel | null = null;
  let agentById = new Map<string, SceneModel['agents'][number]>();
  let layers = emptyLayers();
  const dynamic = new THREE.Group();
  scene.add(dynamic);

  let showClear = false;
  let drawn: Link[] = [];
  let focusNow: { agentId: string | null; pair?: readonly [string, string] } = { agentId: null };

  function build(next: SceneModel): void {
    disposeGroup(dynamic, shared);
    drawn = drawnLinks(next, showClear);
    layers = buildLayers(next, drawn, shared);
    for (const object of [layers.points, layers.agents, layers.tubes, layers.hairlines, layers.dashes, layers.dots])
      if (object) dynamic.add(object);
  }

  function setModel(next: SceneModel, keepCamera: boolean): void {
    model = next;
    agentById = new Map(next.agents.map((a) => [a.id, a] as const));
    build(next);
    if (!keepCamera) frameCamera(camera, controls, next);
    highlight(null);
    // The first frame now, not on a later animation frame: a capture that stops early still has it.
    if (!keepCamera) render.renderNow();
  }

  function setShowClear(show: boolean): void {
    if (show === showClear) return;
    showClear = show;
    if (!model) return;
    build(model);
    highlight(focusNow.agentId, focusNow.pair);
  }

  function highlight(agentId: string | null, pair?: readonly [string, string]): void {
    if (!model) return;
    focusNow = { agentId, ...(pair ? { pair } : {}) };
    const focus = new Set<string>(pair ? pair : agentId ? [agentId] : []);
    recolour(layers, model, focus);
    if (layers.spokes) {
      dynamic.remove(layers.spokes);
      layers.spokes.geometry.dispose();
      (layers.spokes.material as THREE.Material).dispose();
      layers.spokes = null;
    }
    layers.spokes = buildSpokes(model, focus);
    if (layers.spokes) dynamic.add(layers.spokes);
    render.requestRender();
  }

  const { pick, pickFile } = createPicking(
    canvas,
    camera,
    controls.target,
    () => (model ? { model, layers } : null),
    (p) => project(p),
  );

  const v = new THREE.Vector3();
  function project(position: Point3): { x: number; y: number } | null {
    v.fromArray(position).project(camera);
    if (v.z > 1 || v.z < -1) return null;
    const rect = canvas.getBoundingClientRect();
    return { x: rect.left + ((v.x + 1) / 2) * rect.width, y: rect.top + ((1 - v.y) / 2) * rect.height };
  }

  return {
    setModel,
    highlight,
    pick,
    pickFile,
    pickLink: (clientX, clientY) => nearestLink(drawn, project, clientX, clientY),
    project,
    screenRadiusOf: (agentId) => {
      const a = agentById.get(agentId);
      return a ? screenRadius(camera, project, a.position, a.radius) : 0;
    },
    setShowClear,
    drawnLinks: () => drawn,
    screenPositionOf: (agentId) => {
      const a = agentById.get(agentId);
      return a ? project(a.position) : null;
    },
    screenPositionOfFile: (path) => {
      const f = model?.files.find((x) => x.path === path);
      return f ? project(f.position) : null;
    },
    onFrame: render.onFrame,
    requestRender: render.requestRender,
    canvas,
    get renderMs() {
      return render.renderMs();
    },
  };
}
