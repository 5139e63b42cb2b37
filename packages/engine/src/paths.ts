/**
 * Where a repository's engine lives: `<git common dir>/airspace/` holds the lock file
 * (`engine.json`: pid, socket, version), the socket (`engine.sock`) and the log (`engine.log`).
 * Finding the common directory reads `.git` files only (no git process), so a client costs no
 * more than a file look-up before it connects; anything unusual asks git.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { tmpdir, userInfo } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';

export interface EnginePaths {
  readonly commonDir: string;
  readonly dir: string;
  readonly lock: string;
  readonly socket: string;
  readonly log: string;
}

/** The git common directory of the repository holding `start`, without running git where it can. */
export function findCommonDir(start: string): string | undefined {
  // Variables that redirect git make the file walk wrong: ask git.
  if (process.env.GIT_DIR || process.env.GIT_COMMON_DIR) return askGit(start);
  let dir = resolve(start);
  for (;;) {
    const dotGit = join(dir, '.git');
    if (existsSync(dotGit)) {
      try {
        const stat = statSync(dotGit);
        if (stat.isDirectory()) return existsSync(join(dotGit, 'HEAD')) ? dotGit : askGit(start);
        const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
        if (!m) return askGit(start);
        const gitDir = isAbsolute(m[1]!) ? m[1]! : resolve(dir, m[1]!);
        const common = join(gitDir, 'commondir');
        if (!existsSync(common)) return gitDir;
        const text = readFileSync(common, 'utf8').trim();
        return isAbsolute(text) ? text : resolve(gitDir, text);
      } catch {
        return askGit(start);
      }
    }
    const up = dirname(dir);
    if (up === dir) return askGit(start);
    dir = up;
  }
}

function askGit(start: string): string | undefined {
  try {
    let dir = resolve(start);
    while (!existsSync(dir)) dir = dirname(dir);
    const env = { ...process.env, GIT_OPTIONAL_LOCKS: '0' };
    return (
      execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        env,
      }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** A Unix socket path must fit in sun_path (108 bytes on Linux, 104 on macOS). */
const SOCKET_PATH_MAX = 100;

export function enginePaths(commonDir: string): EnginePaths {
  const dir = join(commonDir, 'airspace');
  let socket = join(dir, 'engine.sock');
  if (Buffer.byteLength(socket) > SOCKET_PATH_MAX) {
    // Too long for a socket address: a private directory in the temporary directory, named by
    // the repository, still owner-only; the lock file says where it is.
    const id = createHash('sha256').update(commonDir).digest('hex').slice(0, 16);
    socket = join(tmpdir(), `airspace-${userInfo().uid}`, `${id}.sock`);
  }
  return { commonDir, dir, lock: join(dir, 'engine.json'), socket, log: join(dir, 'engine.log') };
}

/** The nearest existing directory of `absolute` (a file about to be created has none of its own). */
export function nearestDirectory(absolute: string): string {
  let dir = absolute;
  while (!(existsSync(dir) && statSync(dir).isDirectory())) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return dir;
}

/**
 * Whether the file at `absolute` (which may not exist yet) lies in a git work tree: a `.git`
 * beside it or above it, and none in its own path. A file outside every work tree, or inside a
 * `.git` directory, is no agent's work: checks let an edit of it through without a word.
 */
export function inWorkTree(absolute: string): boolean {
  if (resolve(absolute).split(sep).includes('.git')) return false;
  let dir = dirname(resolve(absolute));
  for (;;) {
    if (existsSync(join(dir, '.git'))) return true;
    const parent = dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}
