/**
 * A state tree held in memory (directory → entries), so that a few changed files make a new tree
 * without a temporary index, `git add` or `git write-tree`: only the trees along the changed paths
 * are hashed again and written as loose objects into the scratch store. Read once with
 * `git ls-tree -r -t`; every later state is derived in-process.
 */
import { writeLooseObject } from './blob.js';
import { runGitRaw } from './exec.js';

export interface TreeEntry {
  /** Git mode as in a tree object: `100644`, `100755`, `120000`, `160000`, `40000`. */
  readonly mode: string;
  readonly id: string;
}

const TREE_MODE = '40000';

interface Directory {
  readonly entries: Map<string, TreeEntry>;
}

const parentOf = (path: string): string => {
  const at = path.lastIndexOf('/');
  return at < 0 ? '' : path.slice(0, at);
};
const nameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

export class TreeModel {
  private readonly dirs = new Map<string, Directory>();
  private readonly dirty = new Set<string>();
  private root: string;

  private constructor(root: string) {
    this.root = root;
    this.dirs.set('', { entries: new Map() });
  }

  /** Reads the tree object `tree` from the repository or the scratch store of `env`. */
  static async read(cwd: string, env: Readonly<Record<string, string>>, tree: string): Promise<TreeModel> {
    const out = (await runGitRaw(['ls-tree', '-r', '-t', '-z', '--full-tree', tree], { cwd, env })).stdout.toString('utf8');
    const model = new TreeModel(tree);
    for (const rec of out.split('\0')) {
      if (!rec) continue;
      const tab = rec.indexOf('\t');
      const [mode, type, id] = rec.slice(0, tab).split(' ');
      const path = rec.slice(tab + 1);
      if (!mode || !id) continue;
      const isTree = type === 'tree';
      model.dirOf(parentOf(path)).entries.set(nameOf(path), { mode: isTree ? TREE_MODE : mode, id });
      if (isTree) model.dirOf(path);
    }
    return model;
  }

  /** The current tree's id (after `write`). */
  get id(): string {
    return this.root;
  }

  /** The entry of a file (blob, symbolic link or submodule) at `path`, if any. */
  file(path: string): TreeEntry | undefined {
    const e = this.dirs.get(parentOf(path))?.entries.get(nameOf(path));
    return e && e.mode !== TREE_MODE ? e : undefined;
  }

  isDirectory(path: string): boolean {
    return this.dirs.has(path) && path !== '';
  }

  /** Puts a file at `path` (parent directories are created). */
  set(path: string, entry: TreeEntry): void {
    const parent = parentOf(path);
    this.dirOf(parent).entries.set(nameOf(path), entry);
    this.touch(parent);
  }

  /** Removes the file at `path`; directories left empty go too, as git has no empty trees. */
  remove(path: string): void {
    let dir = parentOf(path);
    let name = nameOf(path);
    for (;;) {
      const d = this.dirs.get(dir);
      if (!d || !d.entries.delete(name)) return;
      this.touch(dir);
      if (d.entries.size > 0 || dir === '') return;
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
      if (!d) continue;
      const id = writeLooseObject(objectsDir, 'tree', serialize(d.entries));
      if (path === '') this.root = id;
      else this.dirs.get(parentOf(path))!.entries.set(nameOf(path), { mode: TREE_MODE, id });
    }
    this.dirty.clear();
    return this.root;
  }

  private dirOf(path: string): Directory {
    let d = this.dirs.get(path);
    if (!d) {
      d = { entries: new Map() };
      this.dirs.set(path, d);
      if (path !== '') {
        const parent = this.dirOf(parentOf(path));
        if (!parent.entries.has(nameOf(path))) parent.entries.set(nameOf(path), { mode: TREE_MODE, id: '' });
      }
    }
    return d;
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
