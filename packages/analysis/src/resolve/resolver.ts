/**
 * Module resolution over an in-memory file set: pure, no I/O. The index hands it the set of
 * repository paths and the text of the configuration files (package.json, tsconfig/jsconfig,
 * pnpm-workspace.yaml); tests hand it literal sets.
 *
 * JavaScript/TypeScript, in order: relative specifiers (extension and `index` probing, `.js`
 * written for a `.ts` file, `.mjs/.cjs` for `.mts/.cts`), the nearest tsconfig's `paths` and
 * `baseUrl` (following `extends`), workspace packages by name (`exports`, `types`, `module`,
 * `main`; a target under `dist/`, `lib/`, `build/` or `out/` is mapped to `src/` when that source
 * file exists), then external. Python: relative imports with dots, absolute imports from the
 * repository root, `src/`, every directory holding a `pyproject.toml`/`setup.py`/`setup.cfg` (and
 * its `src/`), then the importer's own directory; packages by `__init__.py`; otherwise external.
 */
import type { ImportEdgeKind, ImportFact, ImportKind } from '../facts.js';
import { parseJsonc } from './jsonc.js';
import { ancestors, dirname, globToRegExp, join, normalizeInside } from './paths.js';

export type Resolution =
  | { readonly status: 'resolved'; readonly targets: readonly string[]; readonly via: ResolvedVia }
  | { readonly status: 'external'; readonly package: string }
  | { readonly status: 'unresolved'; readonly reason: string };

export type ResolvedVia = 'relative' | 'tsconfig-paths' | 'base-url' | 'workspace' | 'python-relative' | 'python-absolute';

/** One import of a file as the index keeps it: its facts and what it resolved to. */
export interface ResolvedImport {
  readonly specifier: string;
  readonly kind: ImportKind;
  /** What the import means for coupling (`importEdgeKind` of its facts). */
  readonly edge: ImportEdgeKind;
  readonly line: number;
  /** Repository files this import resolves to (several for `from pkg import a, b` submodules). */
  readonly targets: readonly string[];
  readonly via?: ResolvedVia;
  /** Package name of an external import (`react`, `@scope/pkg`, `node:fs`, Python `numpy`). */
  readonly external?: string;
  /** Why an import that should be in the repository was not found. */
  readonly unresolved?: string;
}

export interface ResolverInput {
  /** Every file of the repository (repository-relative, forward slashes). */
  readonly files: ReadonlySet<string> | readonly string[];
  /** Text of configuration files by path; others are never read. */
  readonly configs: ReadonlyMap<string, string>;
  /** Resolutions a resolver over the same files and configuration made (`memoEntries`), taken as its own. */
  readonly memo?: readonly MemoRecord[];
}

/** A memoized resolution and the files it looked for (by `probeKey`), which alone can change it. */
export interface MemoEntry {
  readonly resolution: Resolution;
  readonly probed: readonly string[];
}

/** A memo entry with its key, as `memoEntries` gives it and `ResolverInput.memo` takes it. */
export type MemoRecord = readonly [key: string, entry: MemoEntry];

/** Files whose text the resolver needs (`isConfigFile(path)` → pass it in `configs`). */
export function isConfigFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (path.includes('node_modules/')) return false;
  return base === 'package.json' || base === 'pnpm-workspace.yaml' || base === 'lerna.json' || /^[tj]sconfig(\..*)?\.json$/.test(base);
}

const TS_EXTS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'];
const JS_TO_TS: Record<string, readonly string[]> = {
  '.js': ['.ts', '.tsx', '.d.ts'],
  '.jsx': ['.tsx'],
  '.mjs': ['.mts', '.d.mts'],
  '.cjs': ['.cts', '.d.cts'],
};
const BUILD_DIRS = ['dist', 'lib', 'build', 'out', 'esm', 'cjs'];
const EXPORT_CONDITIONS = ['types', 'import', 'module', 'node', 'require', 'default'];

const NODE_BUILTINS = new Set(
  'assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns domain events fs http http2 https inspector module net os path perf_hooks process punycode querystring readline repl stream string_decoder sys timers tls trace_events tty url util v8 vm wasi worker_threads zlib test'.split(
    ' ',
  ),
);

interface TsConfig {
  readonly dir: string;
  readonly baseUrl?: string;
  readonly paths?: readonly {
    readonly prefix: string;
    readonly suffix: string;
    readonly wildcard: boolean;
    readonly targets: readonly string[];
  }[];
  readonly pathsBase?: string;
}

interface WorkspacePackage {
  readonly name: string;
  readonly dir: string;
  readonly json: Record<string, unknown>;
}

export interface Resolver {
  resolve(importer: string, fact: Pick<ImportFact, 'specifier' | 'kind' | 'names'>): Resolution;
  /** The same configuration over another file set (an agent's overlay adds or deletes files). */
  withFiles(added: readonly string[], removed: readonly string[]): Resolver;
  /** The memoized resolutions, to seed a resolver of a later process over the same input. */
  memoEntries(): MemoRecord[];
  readonly workspacePackages: ReadonlyMap<string, string>;
}

/** Changes whenever resolution rules change, so that persisted resolutions of older rules are not reused. */
export const RESOLVER_VERSION = 1;

export function createResolver(input: ResolverInput): Resolver {
  const files = input.files instanceof Set ? (input.files as ReadonlySet<string>) : new Set(input.files as readonly string[]);
  return buildResolver(files, input.configs, new Map(input.memo));
}

const PROBED_EXTENSION = /\.(?:d\.[mc]?ts|[mc]?tsx?|[mc]?jsx?|json|pyi?)$/;

/**
 * A file path less the extension a resolver adds when probing: the probes `a/b`, `a/b.ts` and
 * `a/b.d.ts` share the key `a/b`, so an entry keeps a few keys instead of every probe.
 */
function probeKey(path: string): string {
  return path.replace(PROBED_EXTENSION, '');
}

/** Files whose presence moves the Python roots, on which every Python resolution depends. */
function isPythonRootMarker(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base === 'pyproject.toml' || base === 'setup.py' || base === 'setup.cfg';
}

/**
 * `memo` and `json` (parsed configuration files) are taken over from a resolver of the same
 * configuration when there is one.
 */
function buildResolver(
  files: ReadonlySet<string>,
  configs: ReadonlyMap<string, string>,
  memo: Map<string, MemoEntry>,
  json = new Map<string, Record<string, unknown> | undefined>(),
): Resolver {
  const readJson = (path: string): Record<string, unknown> | undefined => {
    if (json.has(path)) return json.get(path);
    const text = configs.get(path);
    const value = text === undefined ? undefined : parseJsonc(text);
    const obj = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    json.set(path, obj);
    return obj;
  };

  const packages = discoverWorkspaces(configs, readJson);
  const packageByName = new Map(packages.map((p) => [p.name, p]));

  // --- probing -------------------------------------------------------------------------------
  // Every look at the file set goes through `has`, which notes the path for the resolution in
  // progress: a later file set that differs only in paths none of its probes named resolves it
  // the same way (see `withFiles`).
  let probing: string[] | undefined;
  const has = (path: string): boolean => {
    probing?.push(path);
    return files.has(path);
  };
  const probeFile = (base: string): string | undefined => {
    if (has(base)) return base;
    const dot = base.lastIndexOf('.');
    if (dot > base.lastIndexOf('/')) {
      const swap = JS_TO_TS[base.slice(dot)];
      if (swap) for (const e of swap) if (has(base.slice(0, dot) + e)) return base.slice(0, dot) + e;
    }
    for (const e of TS_EXTS) if (has(base + e)) return base + e;
    return undefined;
  };
  const probe = (base: string): string | undefined => {
    const f = probeFile(base);
    if (f) return f;
    const prefix = base === '' ? '' : `${base}/`;
    const local = readJson(`${prefix}package.json`);
    if (local) {
      const main = typeof local.main === 'string' ? normalizeInside(join(base, local.main)) : undefined;
      const hit = main !== undefined ? probeFile(main) : undefined;
      if (hit) return hit;
    }
    for (const e of TS_EXTS) if (has(`${prefix}index${e}`)) return `${prefix}index${e}`;
    return undefined;
  };

  // --- tsconfig ------------------------------------------------------------------------------
  const tsconfigs = new Map<string, TsConfig | null>();
  const loadTsConfig = (path: string, seen: Set<string>): { baseUrl?: string; paths?: Record<string, unknown>; pathsBase?: string } => {
    if (seen.has(path)) return {};
    seen.add(path);
    const cfg = readJson(path);
    if (!cfg) return {};
    const dir = dirname(path);
    let inherited: { baseUrl?: string; paths?: Record<string, unknown>; pathsBase?: string } = {};
    const ext = cfg.extends;
    for (const e of Array.isArray(ext) ? ext : ext === undefined ? [] : [ext]) {
      if (typeof e !== 'string') continue;
      const target = e.startsWith('.') ? normalizeInside(join(dir, e)) : resolveConfigPackage(e);
      if (target === undefined) continue;
      const file = configs.has(target)
        ? target
        : configs.has(`${target}.json`)
          ? `${target}.json`
          : configs.has(`${target}/tsconfig.json`)
            ? `${target}/tsconfig.json`
            : undefined;
      if (file) inherited = { ...inherited, ...loadTsConfig(file, seen) };
    }
    const co = (cfg.compilerOptions ?? {}) as Record<string, unknown>;
    const out = { ...inherited };
    if (typeof co.baseUrl === 'string') out.baseUrl = normalizeInside(join(dir, co.baseUrl)) ?? '';
    if (co.paths && typeof co.paths === 'object') {
      out.paths = co.paths as Record<string, unknown>;
      out.pathsBase = typeof co.baseUrl === 'string' ? out.baseUrl! : dir;
    } else if (out.paths && typeof co.baseUrl === 'string') out.pathsBase = out.baseUrl!;
    return out;
  };
  const resolveConfigPackage = (spec: string): string | undefined => {
    const { name, subpath } = splitPackage(spec);
    const pkg = packageByName.get(name);
    if (!pkg) return undefined;
    return subpath === '.' ? join(pkg.dir, 'tsconfig.json') : normalizeInside(join(pkg.dir, subpath));
  };
  const tsconfigFor = (importer: string): TsConfig | null => {
    for (const dir of ancestors(importer)) {
      if (tsconfigs.has(dir)) return tsconfigs.get(dir)!;
      const prefix = dir === '' ? '' : `${dir}/`;
      const path = configs.has(`${prefix}tsconfig.json`)
        ? `${prefix}tsconfig.json`
        : configs.has(`${prefix}jsconfig.json`)
          ? `${prefix}jsconfig.json`
          : undefined;
      if (!path) continue;
      const raw = loadTsConfig(path, new Set());
      const paths = raw.paths
        ? Object.entries(raw.paths)
            .filter((e): e is [string, string[]] => Array.isArray(e[1]))
            .map(([pattern, targets]) => {
              const star = pattern.indexOf('*');
              return {
                prefix: star < 0 ? pattern : pattern.slice(0, star),
                suffix: star < 0 ? '' : pattern.slice(star + 1),
                wildcard: star >= 0,
                targets: targets.filter((t) => typeof t === 'string'),
              };
            })
            .sort((a, b) => b.prefix.length - a.prefix.length)
        : undefined;
      const cfg: TsConfig = {
        dir,
        ...(raw.baseUrl !== undefined ? { baseUrl: raw.baseUrl } : {}),
        ...(paths ? { paths, pathsBase: raw.pathsBase ?? dir } : {}),
      };
      tsconfigs.set(dir, cfg);
      return cfg;
    }
    return null;
  };

  // --- workspace packages ----------------------------------------------------------------------
  const toSource = (path: string | undefined, pkg: WorkspacePackage): string | undefined => {
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
  };
  const exportTarget = (value: unknown): string | undefined => {
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
  };
  const resolvePackage = (pkg: WorkspacePackage, subpath: string): string | undefined => {
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
      const hit = target !== undefined ? toSource(normalizeInside(join(pkg.dir, target)), pkg) : undefined;
      if (hit) return hit;
    }
    if (subpath === '.') {
      for (const field of ['types', 'typings', 'module', 'main', 'source']) {
        const v = pkg.json[field];
        if (typeof v !== 'string') continue;
        const hit = toSource(normalizeInside(join(pkg.dir, v)), pkg);
        if (hit) return hit;
      }
      return probe(join(pkg.dir, 'src/index')) ?? probe(pkg.dir);
    }
    const rel = subpath.slice(2);
    return toSource(normalizeInside(join(pkg.dir, rel)), pkg) ?? probe(join(pkg.dir, 'src', rel));
  };

  // --- Python ------------------------------------------------------------------------------------
  const pythonRoots = (() => {
    const roots = new Set<string>(['', 'src']);
    for (const f of files) {
      const base = f.slice(f.lastIndexOf('/') + 1);
      if (base === 'pyproject.toml' || base === 'setup.py' || base === 'setup.cfg') {
        const d = dirname(f);
        roots.add(d);
        roots.add(join(d, 'src'));
      }
    }
    return [...roots];
  })();
  const probePython = (base: string): string | undefined => {
    for (const c of [`${base}.py`, `${base}/__init__.py`, `${base}.pyi`, `${base}/__init__.pyi`]) if (has(c)) return c;
    return undefined;
  };
  const resolvePython = (importer: string, fact: Pick<ImportFact, 'specifier' | 'kind' | 'names'>): Resolution => {
    const spec = fact.specifier;
    const dots = /^\.*/.exec(spec)![0].length;
    const modPath = spec.slice(dots).split('.').filter(Boolean).join('/');
    const bases: string[] = [];
    if (dots > 0) {
      let dir = dirname(importer);
      for (let i = 1; i < dots; i++) {
        if (dir === '') return { status: 'unresolved', reason: `relative import ${spec} goes above the repository root` };
        dir = dirname(dir);
      }
      bases.push(dir);
    } else {
      bases.push(...pythonRoots, dirname(importer));
    }
    for (const root of bases) {
      const base = join(root, modPath);
      const targets: string[] = [];
      if (fact.kind === 'python-from') {
        // `from pkg import sub` imports the submodule when there is one.
        for (const n of fact.names) {
          const sub = probePython(join(base, n.name.replace(/\./g, '/')));
          if (sub) targets.push(sub);
        }
        if (targets.length < fact.names.length || fact.names.length === 0) {
          const mod = probePython(base);
          if (mod) targets.unshift(mod);
        }
      } else {
        const mod = probePython(base);
        if (mod) targets.push(mod);
      }
      if (targets.length)
        return { status: 'resolved', targets: [...new Set(targets)], via: dots > 0 ? 'python-relative' : 'python-absolute' };
    }
    if (dots > 0) return { status: 'unresolved', reason: `no module ${spec} relative to ${importer}` };
    return { status: 'external', package: spec.split('.')[0]! };
  };

  // --- JavaScript / TypeScript -------------------------------------------------------------------
  const resolveJs = (importer: string, spec: string): Resolution => {
    if (spec === '') return { status: 'unresolved', reason: 'empty specifier' };
    if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') {
      const base = normalizeInside(join(dirname(importer), spec));
      if (base === undefined) return { status: 'unresolved', reason: `${spec} leaves the repository` };
      const hit = probe(base);
      return hit
        ? { status: 'resolved', targets: [hit], via: 'relative' }
        : { status: 'unresolved', reason: `no file for ${spec} (tried extensions and index files)` };
    }
    if (spec.startsWith('/')) return { status: 'unresolved', reason: `absolute path ${spec}` };
    if (spec.startsWith('node:')) return { status: 'external', package: spec };
    const cfg = tsconfigFor(importer);
    if (cfg?.paths) {
      for (const p of cfg.paths) {
        const matches = p.wildcard
          ? spec.startsWith(p.prefix) && spec.endsWith(p.suffix) && spec.length >= p.prefix.length + p.suffix.length
          : spec === p.prefix;
        if (!matches) continue;
        const star = p.wildcard ? spec.slice(p.prefix.length, spec.length - p.suffix.length) : '';
        for (const t of p.targets) {
          const target = normalizeInside(join(cfg.pathsBase ?? cfg.dir, t.replace('*', star)));
          const hit = target !== undefined ? probe(target) : undefined;
          if (hit) return { status: 'resolved', targets: [hit], via: 'tsconfig-paths' };
        }
      }
    }
    if (cfg?.baseUrl !== undefined) {
      const hit = probe(join(cfg.baseUrl, spec));
      if (hit) return { status: 'resolved', targets: [hit], via: 'base-url' };
    }
    const { name, subpath } = splitPackage(spec);
    const pkg = packageByName.get(name);
    if (pkg) {
      const hit = resolvePackage(pkg, subpath);
      return hit
        ? { status: 'resolved', targets: [hit], via: 'workspace' }
        : { status: 'unresolved', reason: `workspace package ${name} (${pkg.dir || '.'}) has no file for ${subpath}` };
    }
    if (NODE_BUILTINS.has(name)) return { status: 'external', package: `node:${name}` };
    return { status: 'external', package: name };
  };

  // Resolution depends on the importer's directory, not its name: many files share specifiers.
  // (Python's unresolved relative imports name the importer, so they are not memoized.)
  return {
    workspacePackages: new Map(packages.map((p) => [p.name, p.dir])),
    resolve(importer, fact) {
      const python = fact.kind === 'python-from' || fact.kind === 'python-import';
      const key = `${python ? (fact.kind === 'python-from' ? `f${fact.names.map((n) => n.name).join(',')}` : 'i') : 'j'}\0${dirname(importer)}\0${fact.specifier}`;
      const hit = memo.get(key);
      if (hit) return hit.resolution;
      let r: Resolution;
      const checked: string[] = [];
      probing = checked;
      try {
        r = python ? resolvePython(importer, fact) : resolveJs(importer, fact.specifier);
      } catch (e) {
        return { status: 'unresolved', reason: `resolver error: ${e instanceof Error ? e.message : String(e)}` };
      } finally {
        probing = undefined;
      }
      if (!(python && r.status === 'unresolved')) memo.set(key, { resolution: r, probed: [...new Set(checked.map(probeKey))] });
      return r;
    },
    memoEntries() {
      return [...memo];
    },
    withFiles(added, removed) {
      if (added.length === 0 && removed.length === 0) return this;
      const next = new Set(files);
      for (const r of removed) next.delete(r);
      for (const a of added) next.add(a);
      // Resolutions that probed none of the added or removed paths stand; the configuration is
      // the same, so its parsed files are too.
      const changed = [...added, ...removed];
      const kept = new Map<string, MemoEntry>();
      if (!changed.some(isPythonRootMarker)) {
        const keys = new Set(changed.map(probeKey));
        for (const [k, e] of memo) if (!e.probed.some((p) => keys.has(p))) kept.set(k, e);
      }
      return buildResolver(next, configs, kept, json);
    },
  };
}

export function splitPackage(spec: string): { name: string; subpath: string } {
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, n).join('/');
  const rest = parts.slice(n).join('/');
  return { name, subpath: rest ? `./${rest}` : '.' };
}

function discoverWorkspaces(
  configs: ReadonlyMap<string, string>,
  readJson: (p: string) => Record<string, unknown> | undefined,
): WorkspacePackage[] {
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
