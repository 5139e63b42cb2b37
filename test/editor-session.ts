/**
 * What the real-editor tests (Neovim, Emacs) share: a repository where alice and bob change the
 * same base line, and a headless editor run against `airspace lsp --stdio` that writes what it saw
 * to a JSON file.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';

// `airspace lsp --stdio`, as docs/editors.md configures it, run from the built CLI.
const AIRSPACE = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));

const lines = (n: number, edit: Record<number, string> = {}) =>
  Array.from({ length: n }, (_, i) => edit[i + 1] ?? `const line${i + 1} = ${i + 1};`).join('\n') + '\n';

export interface Collision {
  readonly repo: RepoFixture;
  readonly alice: FixtureCheckout;
  readonly bob: FixtureCheckout;
  /** bob's src/app.ts, the file the editor opens. */
  readonly file: string;
}

/** alice commits a change of line 7; bob, with two lines inserted on top, changes the same base line (line 9 in his file). */
export function collidingWorktrees(): Collision {
  const repo = createRepoFixture({ 'src/app.ts': lines(20) });
  const alice = repo.worktree('alice');
  alice.write('src/app.ts', lines(20, { 7: 'const line7 = "alice";' })).commit('alice');
  const bob = repo.worktree('bob');
  bob.write('src/app.ts', '// bob\n// bob\n' + lines(20, { 7: 'const line7 = "bob";' }));
  return { repo, alice, bob, file: join(realpathSync(bob.dir), 'src/app.ts') };
}

/** Runs a headless editor on `file`; its collect script writes what it saw to `<out>/result.json`. */
export function runEditor<T>(
  command: string,
  args: readonly string[],
  file: string,
  out: string,
  env: Readonly<Record<string, string>> = {},
): { run: SpawnSyncReturns<string>; result: () => T } {
  const path = join(out, 'result.json');
  const run = spawnSync(command, args, {
    env: {
      ...process.env,
      AIRSPACE_LSP_CMD: JSON.stringify([process.execPath, AIRSPACE, 'lsp', '--stdio']),
      AIRSPACE_FILE: file,
      AIRSPACE_OUT: path,
      AIRSPACE_TIMEOUT_MS: '30000',
      ...env,
    },
    encoding: 'utf8',
    timeout: 90_000,
  });
  return { run, result: () => JSON.parse(readFileSync(path, 'utf8')) as T };
}
