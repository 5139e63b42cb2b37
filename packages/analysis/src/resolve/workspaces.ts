/**
 * Workspace packages (package.json `workspaces`, pnpm-workspace.yaml, lerna.json; without a
 * declaration every named package of the repository) and the file a specifier of one names:
 * `exports` (conditions and `*` patterns), then `types`, `module`, `main`; a target under a build
 * directory (`dist/`, `lib/`, `build/`, `out/`, …) is mapped to `src/` when that source exists.
 */
import { dirname, globToRegExp, join, normalizeInside } from './paths.js';
import type { Probes, ReadJson } from './probe.js';

const BUILD_DIRS = ['dist', 'lib', 'build', 'out', 'esm', 'cjs'];
const EXPORT_CONDITIONS = ['types', 'import', 'module', 'node', 'require', 'default'];

export interface WorkspacePackage {
  readonly name: string;
  readonly dir: string;
  readonly json: Record<string, unknown>;
}

export function splitPackage(spec: string): { name: string; subpath: string } {
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, n).join('/');
  const rest = parts.slice(n).join('/');
  return { name, subpath: rest ? `./${rest}` : '.' };
}

/** The file of `pkg` that `subpath` (`.` or `./x`) names, probing with `probes`. */
export function resolvePackage(pkg: WorkspacePackage, subpath: string, probes: Probes): string | undefined {
  const probe = probes.module;
  const exp = pkg.json.exports;
  if (exp !== undefined && exp !== null) {
    const map =
      typeof exp === 'string' || Array.isArray(exp) || !Object.keys(exp as object).some((k) => k.startsWith('.'))
        ? { '.': exp }
        : (exp as Record<string, unknown>);
    let target: string | undefined;
    if (subpath in map) target = exportTarget(map[subpath]);
    else {
      for (const [key, value] of Object.entries(map)) {
        const star = key.indexOf('*');
        if (star < 0) continue;
        const pre = key.slice(0, star);
        const post = key.slice(star + 1);
        if (subpath.startsWith(pre) && subpath.endsWith(post) && subpath.length >= pre.length + post.length) {
          const t = exportTarget(value);
          if (t) target = t.replace('*', subpath.slice(pre.length, subpath.length - post.length));
          break;
        }
      }
    }
    const hit = target !== undefined ? toSource(normalizeInside(join(pkg.dir, target)), pkg, probe) : undefined;
    if (hit) return hit;
  }
  if (subpath === '.') {
    for (const field of ['types', 'typings', 'module', 'main', 'source']) {
      const v = pkg.json[field];
      if (typeof v !== 'string') continue;
      const hit = toSource(normalizeInside(join(pkg.dir, v)), pkg, probe);
      if (hit) return hit;
    }
    return probe(join(pkg.dir, 'src/index')) ?? probe(pkg.dir);
  }
  const rel = subpath.slice(2);
  return toSource(normalizeInside(join(pkg.dir, rel)), pkg, probe) ?? probe(join(pkg.dir, 'src', rel));
}

/** The source file of a build output of `pkg` (dist/x.js, dist/x.d.ts → src/x.ts) when it exists, else the file itself. */
function toSource(path: string | undefined, pkg: WorkspacePackage, probe: Probes['module']): string | undefined {
  if (path === undefined) return undefined;
  const rel = pkg.dir === '' ? path : path.slice(pkg.dir.length + 1);
  const first = rel.split('/')[0]!;
  // Prefer the source of a build output: dist/x.js, dist/x.d.ts → src/x.ts (documented heuristic).
  if (BUILD_DIRS.includes(first)) {
    const stripped = rel
      .slice(first.length + 1)
      .replace(/\.d\.(m|c)?ts$/, '')
      .replace(/\.(m|c)?js$/, '');
    const src = probe(join(pkg.dir, 'src', stripped));
    if (src) return src;
  }
  return probe(path);
}

/** The first target of an `exports` value: a string, the first of an array, or by condition. */
function exportTarget(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    for (const v of value) {
      const t = exportTarget(v);
      if (t) return t;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    for (const c of EXPORT_CONDITIONS)
      if (c in obj) {
        const t = exportTarget(obj[c]);
        if (t) return t;
      }
    for (const v of Object.values(obj)) {
      const t = exportTarget(v);
      if (t) return t;
    }
  }
  return undefined;
}

export function discoverWorkspaces(configs: ReadonlyMap<string, string>, readJson: ReadJson): WorkspacePackage[] {
  const patterns: string[] = [];
  const root = readJson('package.json');
  const ws = root?.workspaces;
  if (Array.isArray(ws)) patterns.push(...ws.filter((w): w is string => typeof w === 'string'));
  else if (ws && typeof ws === 'object' && Array.isArray((ws as { packages?: unknown }).packages))
    patterns.push(...((ws as { packages: unknown[] }).packages.filter((w) => typeof w === 'string') as string[]));
  const pnpm = configs.get('pnpm-workspace.yaml');
  if (pnpm !== undefined) {
    let inPackages = false;
    for (const raw of pnpm.split('\n')) {
      const line = raw.replace(/#.*$/, '');
      if (/^packages\s*:/.test(line)) inPackages = true;
      else if (/^\S/.test(line)) inPackages = false;
      else if (inPackages) {
        const m = /^\s*-\s*['"]?([^'"]+?)['"]?\s*$/.exec(line);
        if (m) patterns.push(m[1]!);
      }
    }
  }
  const lerna = readJson('lerna.json');
  if (Array.isArray(lerna?.packages)) patterns.push(...(lerna.packages as unknown[]).filter((w): w is string => typeof w === 'string'));
  const include = patterns.filter((p) => !p.startsWith('!')).map(globToRegExp);
  const exclude = patterns.filter((p) => p.startsWith('!')).map((p) => globToRegExp(p.slice(1)));
  const out: WorkspacePackage[] = [];
  for (const path of configs.keys()) {
    if (!path.endsWith('package.json') || (path !== 'package.json' && !path.endsWith('/package.json'))) continue;
    const dir = dirname(path);
    // Without a workspace declaration every named package of the repository counts (documented).
    if (include.length > 0 && (!include.some((r) => r.test(dir)) || exclude.some((r) => r.test(dir)))) continue;
    const j = readJson(path);
    if (!j || typeof j.name !== 'string') continue;
    if (dir === '' && include.length > 0) continue;
    out.push({ name: j.name, dir, json: j });
  }
  // Stable choice when two directories claim one name: the shallowest, then the first by path.
  out.sort((a, b) => a.dir.split('/').length - b.dir.split('/').length || (a.dir < b.dir ? -1 : 1));
  const seen = new Set<string>();
  return out.filter((p) => (seen.has(p.name) ? false : (seen.add(p.name), true)));
}
