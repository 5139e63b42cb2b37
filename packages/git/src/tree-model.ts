/**
 * A state tree held in memory, directory by directory, so that a few changed files make a new
 * tree without a temporary index, `git add` or `git write-tree`: only the directories along the
 * changed paths are read (as raw tree objects, on demand), and only they are hashed again and
 * written as loose objects into the scratch store. Every later state is derived in-process.
 */
import { writeLooseObject } from './blob.js';

export interface TreeEntry {
  /** Git mode as in a tree object: `100644`, `100755`, `120000`, `160000`, `40000`. */
  readonly mode: string;
  readonly id: string;
}

/** Reads a raw tree object (the body `git cat-file tree <id>` prints). */
export type TreeObjectReader = (id: string) => Promise<Buffer>;

const TREE_MODE = '40000';

interface Directory {
  /** Entries by name; undefined until the directory is read. */
  entries?: Map<string, TreeEntry>;
  /** The tree object this directory was read from (for a directory not yet read). */
  id: string;
}

const parentOf = (path: string): string => {
  const at = path.lastIndexOf('/');
  return at < 0 ? '' : path.slice(0, at);
};
const nameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** Entries of a raw tree object: `<mode> <name>\0<20-byte id>` repeated. */
export function parseTreeObject(body: Buffer): Map<string, TreeEntry> {
  const entries = new Map<string, TreeEntry>();
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const nul = body.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > body.length) throw new Error('malformed tree object');
    const mode = body.subarray(at, space).toString('latin1');
    entries.set(body.subarray(space + 1, nul).toString('utf8'), { mode, id: body.subarray(nul + 1, nul + 21).toString('hex') });
    at = nul + 21;
  }
  return entries;
}

export class TreeModel {
  private readonly dirs = new Map<string, Directory>();
  private readonly dirty = new Set<string>();
  private readonly reading = new Map<string, Promise<Map<string, TreeEntry>>>();
  private root: string;

  constructor(
    tree: string,
    private readonly readTree: TreeObjectReader,
  ) {
    this.root = tree;
    this.dirs.set('', { id: tree });
  }

  /** The current tree's id (after `write`). */
  get id(): string {
    return this.root;
  }

  /** Reads the directories along these paths (and a path that is itself a directory), so that `file`, `isDirectory`, `set` and `remove` can answer. */
  async load(paths: Iterable<string>): Promise<void> {
    await Promise.all(
      [...paths].map(async (path) => {
        const parts = path.split('/');
        let dir = '';
        for (let i = 0; i <= parts.length; i++) {
          const d = this.dirs.get(dir);
          if (!d) return;
          if (!d.entries) {
            let reading = this.reading.get(dir);
            if (!reading) this.reading.set(dir, (reading = this.readTree(d.id).then(parseTreeObject)));
            const entries = await reading;
            d.entries ??= entries;
          }
          if (i === parts.length) return;
          const child = dir === '' ? parts[i]! : `${dir}/${parts[i]}`;
          const e = d.entries.get(parts[i]!);
          if (e?.mode !== TREE_MODE) return;
          if (!this.dirs.has(child)) this.dirs.set(child, { id: e.id });
          dir = child;
        }
      }),
    );
  }

  /** The entry of a file (blob, symbolic link or submodule) at `path`, if any. */
  file(path: string): TreeEntry | undefined {
    const e = this.loaded(parentOf(path))?.get(nameOf(path));
    return e && e.mode !== TREE_MODE ? e : undefined;
  }

  isDirectory(path: string): boolean {
    return path !== '' && this.loaded(parentOf(path))?.get(nameOf(path))?.mode === TREE_MODE;
  }

  /** Puts a file at `path` (parent directories are created). */
  set(path: string, entry: TreeEntry): void {
    const parent = parentOf(path);
    this.dirOf(parent).set(nameOf(path), entry);
    this.touch(parent);
  }

  /** Removes the file at `path`; directories left empty go too, as git has no empty trees. */
  remove(path: string): void {
    let dir = parentOf(path);
    let name = nameOf(path);
    for (;;) {
      const entries = this.loaded(dir);
      if (!entries?.delete(name)) return;
      this.touch(dir);
      if (entries.size > 0 || dir === '') return;
      this.dirs.delete(dir);
      this.dirty.delete(dir);
      name = nameOf(dir);
      dir = parentOf(dir);
    }
  }

  /** Writes the trees changed since the last write into `objectsDir`; returns the root tree id. */
  write(objectsDir: string): string {
    // Deepest first, so that a directory's new id is in its parent before the parent is hashed.
    const order = [...this.dirty].sort((a, b) => depth(b) - depth(a));
    for (const path of order) {
      const d = this.dirs.get(path);
      if (!d?.entries) continue;
      d.id = writeLooseObject(objectsDir, 'tree', serialize(d.entries));
      if (path === '') this.root = d.id;
      else this.dirOf(parentOf(path)).set(nameOf(path), { mode: TREE_MODE, id: d.id });
    }
    this.dirty.clear();
    return this.root;
  }

  /** A directory's entries; undefined when there is no such directory; throws when it was not read. */
  private loaded(path: string): Map<string, TreeEntry> | undefined {
    const d = this.dirs.get(path);
    if (d?.entries) return d.entries;
    // Absent, or a directory nobody read yet (`load` was not asked about it): tell them apart.
    if (d || (path !== '' && this.isTreeEntry(path))) throw new Error(`tree model: ${path || 'the root'} was not loaded`);
    return undefined;
  }

  private isTreeEntry(path: string): boolean {
    const parent = parentOf(path);
    const d = this.dirs.get(parent);
    if (!d) return parent !== '' && this.isTreeEntry(parent);
    if (!d.entries) return true;
    return d.entries.get(nameOf(path))?.mode === TREE_MODE;
  }

  /** A loaded directory's entries, creating the directory (and its parents) when it is new. */
  private dirOf(path: string): Map<string, TreeEntry> {
    const d = this.dirs.get(path);
    if (d || (path !== '' && this.isTreeEntry(path))) return this.loaded(path)!;
    const entries = new Map<string, TreeEntry>();
    this.dirs.set(path, { id: '', entries });
    if (path !== '') {
      const parent = this.dirOf(parentOf(path));
      if (!parent.has(nameOf(path))) parent.set(nameOf(path), { mode: TREE_MODE, id: '' });
    }
    return entries;
  }

  /** Marks a directory and its ancestors for re-hashing. */
  private touch(path: string): void {
    for (let p = path; ; p = parentOf(p)) {
      this.dirty.add(p);
      if (p === '') return;
    }
  }
}

const depth = (path: string): number => (path === '' ? 0 : path.split('/').length);

/** A tree object's body: entries in git's order (a directory sorts as if its name ended in `/`). */
function serialize(entries: ReadonlyMap<string, TreeEntry>): Buffer {
  const list = [...entries].map(([name, e]) => ({ name, e, key: Buffer.from(e.mode === TREE_MODE ? `${name}/` : name, 'utf8') }));
  list.sort((a, b) => Buffer.compare(a.key, b.key));
  const parts: Buffer[] = [];
  for (const { name, e } of list) parts.push(Buffer.from(`${e.mode} ${name}\0`, 'utf8'), Buffer.from(e.id, 'hex'));
  return Buffer.concat(parts);
}
