/**
 * A fingerprint of everything Airspace promises never to change in a user's repository: every
 * worktree's status and index bytes, the refs (stash included) and each worktree's HEAD, the
 * stash list, the object count, and the worktree list. Two equal fingerprints mean nothing the
 * user owns was touched (Airspace's own cache under `<git dir>/airspace` is not part of it).
 * Read without taking locks (`GIT_OPTIONAL_LOCKS=0`), so taking it changes nothing either.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

export interface RepoFingerprint {
  readonly worktrees: string;
  readonly refs: string;
  readonly stash: string;
  readonly objects: string;
  /** Per worktree directory: `git status` (or its error) and a hash of its index file. */
  readonly trees: Readonly<Record<string, { readonly status: string; readonly index: string; readonly locks: string }>>;
}

const ENV = { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };

/** git's output, or `error: <first line>` (a corrupt index is a state to compare too). */
function git(cwd: string, ...args: string[]): string {
  try {
    return execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '');
    return `error: ${stderr.split('\n')[0] ?? ''}`;
  }
}

/** Files whose presence marks an operation in progress (or a lock someone holds). */
const LOCKS = ['index.lock', 'HEAD.lock', 'MERGE_HEAD', 'ORIG_HEAD'] as const;

const sha = (path: string): string => (existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'absent');

export function repoFingerprint(dir: string): RepoFingerprint {
  const worktrees = git(dir, 'worktree', 'list', '--porcelain');
  const trees: Record<string, { status: string; index: string; locks: string }> = {};
  for (const line of worktrees.split('\n')) {
    if (!line.startsWith('worktree ')) continue;
    const tree = line.slice('worktree '.length);
    if (!existsSync(tree)) {
      trees[tree] = { status: 'missing', index: 'absent', locks: '' };
      continue;
    }
    // One rev-parse for all the paths: the fingerprint is taken twice per case.
    const [bare, index, ...others] = git(
      tree,
      'rev-parse',
      '--is-bare-repository',
      ...['index', ...LOCKS].flatMap((p) => ['--git-path', p]),
    )
      .trim()
      .split('\n')
      .map((p, i) => (i === 0 || isAbsolute(p) ? p : join(tree, p)));
    trees[tree] = {
      status: bare === 'true' ? 'bare' : git(tree, 'status', '--porcelain=v2', '--branch', '--untracked-files=all', '--ignored', '-z'),
      index: sha(index!),
      locks: LOCKS.map((p, i) => `${p}:${sha(others[i]!)}`).join(' '),
    };
  }
  return {
    worktrees,
    refs: git(dir, 'for-each-ref', '--format=%(refname) %(objectname) %(symref)'),
    stash: git(dir, 'stash', 'list', '--format=%H %gs'),
    objects: git(dir, 'count-objects', '-v')
      .split('\n')
      .filter((l) => /^(count|in-pack|packs|garbage):/.test(l))
      .join(' '),
    trees,
  };
}
