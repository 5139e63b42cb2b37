/**
 * The programs some end-to-end tests drive (Chromium, Neovim, Emacs with eglot). On a machine
 * without one, its suite is skipped and says how to install it; with `AIRSPACE_REQUIRE_E2E=1`
 * (set by .ci/run, which installs them all) a missing program fails the suite instead.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, it } from 'vitest';

export interface Program {
  /** What a reader calls it: `Neovim`. */
  readonly name: string;
  /** The Debian command that installs it. */
  readonly install: string;
  /** Whether this machine has it. */
  readonly found: boolean;
}

/** Whether the suites of missing programs fail (CI) rather than skip (a developer's machine). */
export const requireE2E = (): boolean => process.env.AIRSPACE_REQUIRE_E2E === '1';

/** The executable `command` on PATH, or undefined. */
export function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, command);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/** Exits 0 when run: the program is installed and works (`nvim --version`). */
const runs = (command: string, args: readonly string[]): boolean =>
  spawnSync(command, args, { encoding: 'utf8', timeout: 60_000 }).status === 0;

export const chromiumPath = (): string | undefined => onPath('chromium');

export const CHROMIUM: Program = { name: 'Chromium', install: 'apt-get install chromium', found: chromiumPath() !== undefined };
export const NEOVIM: Program = { name: 'Neovim', install: 'apt-get install neovim', found: runs('nvim', ['--version']) };
/** npm, which packs and installs the release (test/release.test.ts); Node's installers bring it. */
export const NPM: Program = { name: 'npm', install: 'apt-get install npm', found: runs('npm', ['--version']) };
export const EMACS_EGLOT: Program = {
  name: 'Emacs with eglot',
  install: 'apt-get install emacs-nox elpa-eglot',
  found: runs('emacs', ['--batch', '--eval', "(require 'eglot)"]),
};

/** The sentence a skipped or failed suite gives. */
export const missingText = (p: Program): string => `${p.name} is not installed (${p.install})`;

/**
 * `describe(title, body)` when `program` is here. Otherwise the suite is skipped with the install
 * command in its title and on stderr, or — under `AIRSPACE_REQUIRE_E2E=1` — one test fails saying so.
 */
export function describeWith(program: Program, title: string, body: () => void): void {
  if (program.found) {
    describe(title, body);
    return;
  }
  if (requireE2E()) {
    describe(title, () => {
      it(`needs ${program.name}`, () => {
        throw new Error(`${missingText(program)}; AIRSPACE_REQUIRE_E2E=1 makes this end-to-end test mandatory.`);
      });
    });
    return;
  }
  console.warn(`skipped: ${title}: ${missingText(program)}`);
  describe.skip(`${title} [skipped: ${missingText(program)}]`, body);
}
