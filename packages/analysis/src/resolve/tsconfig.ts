/**
 * The nearest tsconfig.json or jsconfig.json of an importer, with `extends` followed (relative
 * paths and workspace packages): its `baseUrl` and its `paths` patterns, longest prefix first.
 */
import { ancestors, dirname, join, normalizeInside } from './paths.js';
import type { ReadJson } from './probe.js';
import { splitPackage, type WorkspacePackage } from './workspaces.js';

export interface TsConfig {
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

/** The configuration that applies to an importer, or null when none does; cached per directory. */
export function createTsConfigs(
  configs: ReadonlyMap<string, string>,
  readJson: ReadJson,
  packageByName: ReadonlyMap<string, WorkspacePackage>,
): (importer: string) => TsConfig | null {
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
  return tsconfigFor;
}
