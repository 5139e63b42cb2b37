/**
 * A scratch object directory: git writes the trees, blobs and commits Airspace needs (agent
 * states, merge results) here, reading the repository's own objects through
 * GIT_ALTERNATE_OBJECT_DIRECTORIES. The user's object store is never written.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const live = new Set<string>();
const PREFIX = 'airspace-scratch-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes scratch directories whose owning process is gone (killed before it could clean up). */
function sweepAbandoned(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^airspace-scratch-(\d+)-/.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
  }
}
let exitHook = false;

/** Quotes a path for GIT_ALTERNATE_OBJECT_DIRECTORIES when it holds the separator or a quote. */
function alternateEntry(path: string): string {
  return /[:"\\\n]/.test(path) ? JSON.stringify(path) : path;
}

export class ScratchStore {
  readonly dir: string;
  readonly objectsDir: string;
  private counter = 0;
  /** Further object directories read (after the repository's), e.g. the team store's. */
  private readonly alternates: string[] = [];

  constructor(
    /** The repository's object directory (`<common dir>/objects`). */
    readonly repoObjectsDir: string,
    parent: string = tmpdir(),
  ) {
    sweepAbandoned(parent);
    // The owner's pid in the name lets a later process remove the directory if this one dies.
    this.dir = mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
    this.objectsDir = join(this.dir, 'objects');
    mkdirSync(join(this.objectsDir, 'info'), { recursive: true });
    mkdirSync(join(this.objectsDir, 'pack'), { recursive: true });
    live.add(this.dir);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const d of live) rmSync(d, { recursive: true, force: true });
      });
    }
  }

  /** Environment for a git command that may write objects: they land here. */
  env(extra?: Readonly<Record<string, string>>): Record<string, string> {
    const alternates = [this.repoObjectsDir, ...this.alternates].map(alternateEntry).join(delimiter);
    return { GIT_OBJECT_DIRECTORY: this.objectsDir, GIT_ALTERNATE_OBJECT_DIRECTORIES: alternates, ...extra };
  }

  /** Reads objects of another directory too (the team store's fetched states); never writes there. */
  addAlternate(objectsDir: string): void {
    if (!this.alternates.includes(objectsDir)) this.alternates.push(objectsDir);
  }

  /** A fresh path inside the scratch directory (for a temporary index). */
  tempPath(prefix: string): string {
    return join(this.dir, `${prefix}-${++this.counter}`);
  }

  dispose(): void {
    live.delete(this.dir);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
