/**
 * Looking for a module's file in the file set: extension and `index` probing (`.js` written for
 * a `.ts` file, `.mjs/.cjs` for `.mts/.cts`, a directory's `package.json` `main`). Every look
 * goes through `has`, which notes the path for the resolution in progress: a later file set that
 * differs only in paths none of its probes named resolves it the same way (`probeKey`).
 */
import { join, normalizeInside } from './paths.js';

/** A configuration file's JSON object (parsed once per path), or undefined. */
export type ReadJson = (path: string) => Record<string, unknown> | undefined;

const TS_EXTS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'];
const JS_TO_TS: Record<string, readonly string[]> = {
  '.js': ['.ts', '.tsx', '.d.ts'],
  '.jsx': ['.tsx'],
  '.mjs': ['.mts', '.d.mts'],
  '.cjs': ['.cts', '.d.cts'],
};

const PROBED_EXTENSION = /\.(?:d\.[mc]?ts|[mc]?tsx?|[mc]?jsx?|json|pyi?)$/;

/**
 * A file path less the extension a resolver adds when probing: the probes `a/b`, `a/b.ts` and
 * `a/b.d.ts` share the key `a/b`, so an entry keeps a few keys instead of every probe.
 */
export function probeKey(path: string): string {
  return path.replace(PROBED_EXTENSION, '');
}

export interface Probes {
  /** Whether the file set holds `path`; noted while a resolution is in progress. */
  has(path: string): boolean;
  /** The file `base` names, with a JavaScript or TypeScript extension added or swapped. */
  file(base: string): string | undefined;
  /** The file or directory module `base` names: `file`, else the directory's `main`, else its `index`. */
  module(base: string): string | undefined;
  /** Notes every path `has` looks at into `into`, until called with undefined. */
  noteInto(into: string[] | undefined): void;
}

export function createProbes(files: ReadonlySet<string>, readJson: ReadJson): Probes {
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
  return {
    has,
    file: probeFile,
    module: probe,
    noteInto(into) {
      probing = into;
    },
  };
}
