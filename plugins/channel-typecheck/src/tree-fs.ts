/**
 * A read-only file system over one git tree, for the TypeScript compiler: the tree's files appear
 * under the repository's root, their text read beforehand (the compiler host is synchronous) from
 * blobs, once per blob id for every tree and every scan. What a tree cannot hold — installed
 * dependencies (`node_modules`), the compiler's own `lib.*.d.ts`, anything outside the root — is
 * read from disk, never written. Nothing of a work tree is read inside the root except
 * `node_modules`: an agent's state is its tree.
 */

/** What is read from disk, through the compiler's own system (`ts.sys`): never written. */
export interface DiskReader {
  fileExists(path: string): boolean;
  directoryExists(path: string): boolean;
  readFile(path: string): string | undefined;
  getDirectories(path: string): string[];
  realpath?(path: string): string;
  getModifiedTime?(path: string): Date | undefined;
  getAccessibleFileSystemEntries?(path: string): { readonly files: readonly string[]; readonly directories: readonly string[] };
}

/** `a/./b/../c` → `a/c` (forward slashes; a leading slash kept). */
export function normalizePath(path: string): string {
  const out: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '.' || (part === '' && out.length > 0)) continue;
    if (part === '..' && out.length > 0 && out[out.length - 1] !== '..' && out[out.length - 1] !== '') out.pop();
    else out.push(part);
  }
  return out.join('/') || '.';
}

/** What the compiler may read of a tree: its TypeScript/JavaScript sources and the JSON that configures them. */
export function isCompilerInput(path: string, withJson: boolean): boolean {
  if (/\.(?:[mc]?tsx?|[mc]?jsx?)$/.test(path)) return true;
  if (!path.endsWith('.json')) return false;
  const name = path.slice(path.lastIndexOf('/') + 1);
  return withJson || name === 'package.json' || /^(?:ts|js)config.*\.json$/.test(name);
}

/** Blob texts shared by every tree (keyed by blob id), bounded. */
export class BlobTexts {
  private readonly texts = new Map<string, string>();
  constructor(private readonly max = 200_000) {}
  get(id: string): string | undefined {
    return this.texts.get(id);
  }
  has(id: string): boolean {
    return this.texts.has(id);
  }
  set(id: string, text: string): void {
    if (this.texts.size >= this.max) this.texts.clear();
    this.texts.set(id, text);
  }
  clear(): void {
    this.texts.clear();
  }
}

/** Reads the texts of `ids` not yet known, a few at a time. */
export async function fetchTexts(ids: Iterable<string>, texts: BlobTexts, read: (id: string) => Promise<string>): Promise<void> {
  const todo = [...new Set(ids)].filter((id) => !texts.has(id));
  for (let i = 0; i < todo.length; i += 64) {
    const batch = todo.slice(i, i + 64);
    const got = await Promise.all(batch.map((id) => read(id)));
    batch.forEach((id, k) => texts.set(id, got[k]!));
  }
}

export class TreeFs {
  /** Directory → its entries (names), built from the listing. */
  private readonly dirs = new Map<string, { files: string[]; directories: string[] }>();

  constructor(
    /** The absolute root under which the tree's files appear (the repository's root). */
    readonly root: string,
    /** path → blob id */
    readonly files: ReadonlyMap<string, string>,
    private readonly texts: BlobTexts,
    private readonly disk: DiskReader,
  ) {
    this.dirs.set('', { files: [], directories: [] });
    for (const path of files.keys()) {
      let dir = '';
      let rest = path;
      for (let i = rest.indexOf('/'); i >= 0; i = rest.indexOf('/')) {
        const name = rest.slice(0, i);
        const sub = dir ? `${dir}/${name}` : name;
        if (!this.dirs.has(sub)) {
          this.dirs.set(sub, { files: [], directories: [] });
          this.dirs.get(dir)!.directories.push(name);
        }
        dir = sub;
        rest = rest.slice(i + 1);
      }
      this.dirs.get(dir)!.files.push(rest);
    }
  }

  /** The tree-relative path of an absolute one inside the root, or undefined (outside, or dependencies). */
  relative(abs: string): string | undefined {
    const norm = normalizePath(abs);
    if (norm === this.root) return '';
    if (!norm.startsWith(this.root + '/')) return undefined;
    const rel = norm.slice(this.root.length + 1);
    return /(?:^|\/)node_modules(?:\/|$)/.test(rel) && !this.files.has(rel) && !this.dirs.has(rel) ? undefined : rel;
  }

  absolute(rel: string): string {
    return rel ? `${this.root}/${rel}` : this.root;
  }

  /** A blob's text, when read. */
  text(id: string): string | undefined {
    return this.texts.get(id);
  }

  blobOf(abs: string): string | undefined {
    const rel = this.relative(abs);
    return rel === undefined ? undefined : this.files.get(rel);
  }

  fileExists(abs: string): boolean {
    const rel = this.relative(abs);
    if (rel !== undefined) return this.files.has(rel);
    return this.onDisk(abs, (p) => this.disk.fileExists(p), false);
  }

  directoryExists(abs: string): boolean {
    const rel = this.relative(abs);
    if (rel !== undefined) return this.dirs.has(rel);
    return this.onDisk(abs, (p) => this.disk.directoryExists(p), false);
  }

  readFile(abs: string): string | undefined {
    const rel = this.relative(abs);
    if (rel !== undefined) {
      const id = this.files.get(rel);
      return id === undefined ? undefined : this.texts.get(id);
    }
    return this.onDisk<string | undefined>(abs, (p) => this.disk.readFile(p), undefined);
  }

  getDirectories(abs: string): string[] {
    const rel = this.relative(abs);
    if (rel !== undefined) return [...(this.dirs.get(rel)?.directories ?? [])];
    return this.onDisk(abs, (p) => this.disk.getDirectories(p), []);
  }

  /** Entries of a directory, for `include`/`exclude` matching of a tsconfig. */
  entries(abs: string): { files: readonly string[]; directories: readonly string[] } {
    const rel = this.relative(abs);
    if (rel !== undefined) return this.dirs.get(rel) ?? { files: [], directories: [] };
    return this.onDisk(
      abs,
      (p) => this.disk.getAccessibleFileSystemEntries?.(p) ?? { files: [], directories: this.disk.getDirectories(p) },
      { files: [], directories: [] },
    );
  }

  /** Symbolic links of installed dependencies (workspaces) resolve to their target, which may be in the tree. */
  realpath(abs: string): string {
    if (this.relative(abs) !== undefined) return abs;
    return this.onDisk(abs, (p) => (this.disk.realpath ? this.disk.realpath(p) : p), abs);
  }

  /** A disk version stamp of a file read from disk (for caches), or undefined. */
  diskStamp(abs: string): string | undefined {
    return this.onDisk(abs, (p) => String(this.disk.getModifiedTime?.(p)?.getTime() ?? ''), undefined);
  }

  private onDisk<T>(abs: string, f: (p: string) => T, fallback?: T): T {
    try {
      return f(abs);
    } catch {
      return fallback as T;
    }
  }
}
