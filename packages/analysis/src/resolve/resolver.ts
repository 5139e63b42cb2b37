/**
 * Module resolution over an in-memory file set: pure, no I/O. The index hands it the set of
 * repository paths and the text of the configuration files (package.json, tsconfig/jsconfig,
 * pnpm-workspace.yaml); tests hand it literal sets.
 *
 * JavaScript/TypeScript (`javascript.ts`), in order: relative specifiers (extension and `index`
 * probing, `probe.ts`), the nearest tsconfig's `paths` and `baseUrl` (following `extends`,
 * `tsconfig.ts`), workspace packages by name (`workspaces.ts`), then external. Python
 * (`python.ts`): relative imports with dots, absolute imports from the project roots, then the
 * importer's own directory; otherwise external. This module memoizes resolutions per importer
 * directory, with the files each probed, so a resolver over a changed file set keeps those that
 * probed none of the changed paths.
 */
import type { ImportEdgeKind, ImportFact, ImportKind } from '../facts.js';
import { resolveJs } from './javascript.js';
import { parseJsonc } from './jsonc.js';
import { dirname } from './paths.js';
import { createProbes, probeKey } from './probe.js';
import { isPythonRootMarker, pythonRoots, resolvePython } from './python.js';
import type { Resolution, ResolvedVia } from './resolution.js';
import { createTsConfigs } from './tsconfig.js';
import { discoverWorkspaces } from './workspaces.js';

export type { Resolution, ResolvedVia } from './resolution.js';
export { splitPackage } from './workspaces.js';

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
  const probes = createProbes(files, readJson);
  const js = { probes, tsconfigFor: createTsConfigs(configs, readJson, packageByName), packageByName };
  const roots = pythonRoots(files);

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
      probes.noteInto(checked);
      try {
        r = python ? resolvePython(importer, fact, roots, probes.has) : resolveJs(importer, fact.specifier, js);
      } catch (e) {
        return { status: 'unresolved', reason: `resolver error: ${e instanceof Error ? e.message : String(e)}` };
      } finally {
        probes.noteInto(undefined);
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
