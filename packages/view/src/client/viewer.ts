/**
 * The three.js scene: files as one `Points` cloud (custom shader: per-point colour, size and
 * alpha), agents as one `InstancedMesh` of spheres, risky links as one `InstancedMesh` of tubes,
 * clear links as hairlines, forecast links as dashed lines. A handful of draw calls whatever the size of the scan. Renders on
 * demand (camera moved, model changed), not every frame.
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { SCENE_RADIUS, type SceneModel } from '../scene-model.js';

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
  /** The link (index into the model's links) nearest a client-space point within a few pixels, and how far. */
  pickLink(clientX: number, clientY: number): { index: number; distance: number } | null;
  /** Where an agent is drawn, in client (CSS pixel) coordinates; null when off screen. */
  screenPositionOf(agentId: string): { x: number; y: number } | null;
  /** Where a file is drawn, likewise. */
  screenPositionOfFile(path: string): { x: number; y: number } | null;
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
  spokes: THREE.LineSegments | null;
}

const emptyLayers = (): Layers => ({ points: null, agents: null, tubes: null, hairlines: null, dashes: null, spokes: null });

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

/** Forecast links; their colours are filled in by `recolour`. */
function buildDashes(forecast: Link[]): THREE.LineSegments | null {
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
    new THREE.LineDashedMaterial({ vertexColors: true, dashSize: 1.6, gapSize: 1.1, transparent: true, depthWrite: false }),
  );
  dashes.computeLineDistances();
  dashes.userData.links = forecast;
  return dashes;
}

/** Point the camera at the whole model. */
function frameCamera(camera: THREE.PerspectiveCamera, controls: OrbitControls, next: SceneModel): void {
  let r = 10;
  for (const f of next.files) r = Math.max(r, Math.hypot(...f.position));
  for (const a of next.agents) r = Math.max(r, Math.hypot(...a.position) + a.radius);
  const distance = (r / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2))) * 0.85;
  camera.position.set(distance * 0.42, distance * 0.38, distance * 0.82);
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
  const { points, agents, tubes, hairlines, dashes } = layers;
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
  if (dashes) {
    // Per-link colour: a forecast of the focused agents (or pair) stays bright, the others fade.
    const c = dashes.geometry.getAttribute('color') as THREE.BufferAttribute;
    const links = dashes.userData.links as SceneModel['links'];
    links.forEach((l, i) => {
      color.set(l.color).multiplyScalar(any && !(focus.has(l.a) || focus.has(l.b)) ? 0.15 : l.opacity);
      c.setXYZ(i * 2, color.r, color.g, color.b);
      c.setXYZ(i * 2 + 1, color.r, color.g, color.b);
    });
    c.needsUpdate = true;
  }
}

/** Spokes from agents to their files: the focused agents' bright, everyone's faint when few enough. */
function buildSpokes(model: SceneModel, focus: ReadonlySet<string>): THREE.LineSegments | null {
  const any = focus.size > 0;
  const totalSpokes = model.agents.reduce((n, ag) => n + ag.files.length, 0);
  if (!any && totalSpokes > 4000) return null;
  const color = new THREE.Color();
  const pos: number[] = [];
  const col: number[] = [];
  for (const ag of model.agents) {
    if (any && !focus.has(ag.id)) continue;
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
  return new THREE.LineSegments(
    g,
    new THREE.LineBasicMaterial({ vertexColors: true, transparent: true, opacity: any ? 0.5 : 0.22, depthWrite: false }),
  );
}

type Project = (position: Point3) => { x: number; y: number } | null;

/** Forgive near misses on small markers: nearest agent within 14 px. */
function nearestAgent(model: SceneModel, project: Project, clientX: number, clientY: number): string | null {
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

/** Screen-space distance to each link's segment (links are few; a ray test on lines is fussier). */
function nearestLink(model: SceneModel, project: Project, clientX: number, clientY: number): { index: number; distance: number } | null {
  let best: number | null = null;
  let bestD = 6;
  model.links.forEach((l, i) => {
    const p = project(l.from);
    const q = project(l.to);
    if (!p || !q) return;
    const dx = q.x - p.x,
      dy = q.y - p.y;
    const len2 = dx * dx + dy * dy;
    const t = len2 > 0 ? Math.min(1, Math.max(0, ((clientX - p.x) * dx + (clientY - p.y) * dy) / len2)) : 0;
    const d = Math.hypot(p.x + t * dx - clientX, p.y + t * dy - clientY);
    // Ties go to the later link: links are sorted with the most important last (drawn on top).
    if (d <= bestD) {
      bestD = d;
      best = i;
    }
  });
  return best === null ? null : { index: best, distance: bestD };
}

/** Renders on demand: after a resize, a camera move or `requestRender`, never every frame for nothing. */
function startRenderLoop(stage: ReturnType<typeof createStage>, container: HTMLElement, pointMaterial: THREE.ShaderMaterial) {
  const { renderer, scene, camera, controls } = stage;
  let dirty = true;
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
    dirty = true;
  }
  new ResizeObserver(resize).observe(container);
  resize();

  controls.addEventListener('change', () => {
    dirty = true;
  });
  function loop(): void {
    controls.update();
    if (dirty) {
      dirty = false;
      const started = performance.now();
      renderer.render(scene, camera);
      // Reading one pixel waits for the GPU, so the time covers the frame, not only its submission.
      if (timing) renderer.getContext().readPixels(0, 0, 1, 1, renderer.getContext().RGBA, renderer.getContext().UNSIGNED_BYTE, pixel);
      lastRenderMs = performance.now() - started;
      for (const f of frameListeners) f();
    }
    requestAnimationFrame(loop);
  }
  requestAnimationFrame(loop);
  return {
    requestRender: (): void => {
      dirty = true;
    },
    onFrame: (f: () => void): void => {
      frameListeners.push(f);
    },
    renderMs: (): number => lastRenderMs,
  };
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

  function setModel(next: SceneModel, keepCamera: boolean): void {
    disposeGroup(dynamic, shared);
    model = next;
    agentById = new Map(next.agents.map((a) => [a.id, a] as const));
    // Links: tubes for traffic/resolution, dashes for forecasts, hairlines for the rest.
    layers = {
      points: buildFiles(next, shared.pointMaterial),
      agents: buildAgents(next, shared),
      tubes: buildTubes(
        next.links.filter((l) => l.radius > 0),
        shared,
      ),
      hairlines: buildHairlines(next.links.filter((l) => l.radius === 0 && l.forecast === undefined)),
      dashes: buildDashes(next.links.filter((l) => l.radius === 0 && l.forecast !== undefined)),
      spokes: null,
    };
    for (const object of [layers.points, layers.agents, layers.tubes, layers.hairlines, layers.dashes]) if (object) dynamic.add(object);
    if (!keepCamera) {
      frameCamera(camera, controls, next);
      render.requestRender();
    }
    highlight(null);
  }

  function highlight(agentId: string | null, pair?: readonly [string, string]): void {
    if (!model) return;
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

  const raycaster = new THREE.Raycaster();
  const ndc = new THREE.Vector2();
  function aim(clientX: number, clientY: number): DOMRect {
    const rect = canvas.getBoundingClientRect();
    ndc.set(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    raycaster.setFromCamera(ndc, camera);
    return rect;
  }

  function pick(clientX: number, clientY: number): string | null {
    if (!layers.agents || !model) return null;
    aim(clientX, clientY);
    const hit = raycaster.intersectObject(layers.agents, false)[0];
    if (hit && hit.instanceId !== undefined) return model.agents[hit.instanceId]?.id ?? null;
    return nearestAgent(model, project, clientX, clientY);
  }

  function pickFile(clientX: number, clientY: number): number | null {
    if (!layers.points || !model || model.files.length === 0) return null;
    const rect = aim(clientX, clientY);
    // About 6 px around the pointer, in world units at the target's distance.
    const distance = camera.position.distanceTo(controls.target);
    raycaster.params.Points = { threshold: (6 / rect.height) * 2 * distance * Math.tan(THREE.MathUtils.degToRad(camera.fov / 2)) };
    const hit = raycaster.intersectObject(layers.points, false)[0];
    return hit && hit.index !== undefined ? hit.index : null;
  }

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
    pickLink: (clientX, clientY) => (model ? nearestLink(model, project, clientX, clientY) : null),
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
