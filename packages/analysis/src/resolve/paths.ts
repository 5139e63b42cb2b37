/** Repository-relative POSIX paths ('' is the root). */

export function dirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function join(...parts: string[]): string {
  return normalize(parts.filter((p) => p !== '').join('/'));
}

/** Collapses `.` and `..`; returns undefined when the path leaves the repository. */
export function normalizeInside(path: string): string | undefined {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(seg);
  }
  return out.join('/');
}

export function normalize(path: string): string {
  return normalizeInside(path) ?? '\0outside';
}

/** Ancestor directories of a path's directory, nearest first, ending with ''. */
export function ancestors(path: string): string[] {
  const out: string[] = [];
  let d = dirname(path);
  for (;;) {
    out.push(d);
    if (d === '') return out;
    d = dirname(d);
  }
}

/** A workspace glob (`packages/*`, `apps/**`) as a regular expression over directory paths. */
export function globToRegExp(glob: string): RegExp {
  const g = glob.replace(/^\.\//, '').replace(/\/+$/, '');
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!;
    if (c === '*' && g[i + 1] === '*') {
      re += '.*';
      i++;
      if (g[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}
