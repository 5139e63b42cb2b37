/**
 * Python module resolution: relative imports with dots, absolute imports from the repository
 * root, `src/`, every directory holding a `pyproject.toml`/`setup.py`/`setup.cfg` (and its
 * `src/`), then the importer's own directory; packages by `__init__.py`; otherwise external.
 */
import type { ImportFact } from '../facts.js';
import { dirname, join } from './paths.js';
import type { Probes } from './probe.js';
import type { Resolution } from './resolution.js';

/** Files whose presence moves the Python roots, on which every Python resolution depends. */
export function isPythonRootMarker(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base === 'pyproject.toml' || base === 'setup.py' || base === 'setup.cfg';
}

/** Where absolute imports start: the root, `src/`, and each project directory with its `src/`. */
export function pythonRoots(files: Iterable<string>): string[] {
  const roots = new Set<string>(['', 'src']);
  for (const f of files) {
    if (isPythonRootMarker(f)) {
      const d = dirname(f);
      roots.add(d);
      roots.add(join(d, 'src'));
    }
  }
  return [...roots];
}

function probePython(base: string, has: Probes['has']): string | undefined {
  for (const c of [`${base}.py`, `${base}/__init__.py`, `${base}.pyi`, `${base}/__init__.pyi`]) if (has(c)) return c;
  return undefined;
}

/**
 * Python: relative imports with dots; absolute imports from `roots` (`pythonRoots`), then the
 * importer's own directory; `from pkg import sub` also names the submodule when there is one.
 */
export function resolvePython(
  importer: string,
  fact: Pick<ImportFact, 'specifier' | 'kind' | 'names'>,
  roots: readonly string[],
  has: Probes['has'],
): Resolution {
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
    bases.push(...roots, dirname(importer));
  }
  for (const root of bases) {
    const base = join(root, modPath);
    const targets: string[] = [];
    if (fact.kind === 'python-from') {
      // `from pkg import sub` imports the submodule when there is one.
      for (const n of fact.names) {
        const sub = probePython(join(base, n.name.replace(/\./g, '/')), has);
        if (sub) targets.push(sub);
      }
      if (targets.length < fact.names.length || fact.names.length === 0) {
        const mod = probePython(base, has);
        if (mod) targets.unshift(mod);
      }
    } else {
      const mod = probePython(base, has);
      if (mod) targets.push(mod);
    }
    if (targets.length)
      return { status: 'resolved', targets: [...new Set(targets)], via: dots > 0 ? 'python-relative' : 'python-absolute' };
  }
  if (dots > 0) return { status: 'unresolved', reason: `no module ${spec} relative to ${importer}` };
  return { status: 'external', package: spec.split('.')[0]! };
}
