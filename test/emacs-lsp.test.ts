/**
 * Emacs (the Debian package, 28) with eglot (elpa-eglot, 1.9) as the LSP client, in batch mode:
 * the configuration of docs/editors.md attaches to a .ts file, and flymake shows Airspace's
 * diagnostic on the right line; hover and airspace/scan answer.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRepoFixture } from '@airspace/git/fixture';

const EMACS = spawnSync('emacs', ['--batch', '--eval', "(require 'eglot)"], { encoding: 'utf8' }).status === 0;
const INSTALL = 'apt-get install emacs-nox elpa-eglot';
const COLLECT = fileURLToPath(new URL('./emacs/collect.el', import.meta.url));
// `airspace lsp --stdio`, as docs/editors.md configures it, run from the built CLI.
const AIRSPACE = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));

const lines = (n: number, edit: Record<number, string> = {}) => Array.from({ length: n }, (_, i) => edit[i + 1] ?? `const line${i + 1} = ${i + 1};`).join('\n') + '\n';

interface Collected {
  emacs: string;
  mode?: string;
  received?: boolean;
  error?: string;
  diagnostics?: { line: number; type: string; text: string }[];
  hover?: string;
  advisories?: number;
}

if (!EMACS && !process.env.CI) console.warn(`Emacs with eglot is not installed; skipping its end-to-end test (${INSTALL}).`);

describe.skipIf(!EMACS && !process.env.CI)(`Emacs with eglot as the client (${INSTALL})`, () => {
  it('shows the diagnostic flymake reports on the line both agents change', () => {
    const repo = createRepoFixture({ 'src/app.ts': lines(20) });
    const out = mkdtempSync(join(tmpdir(), 'airspace-emacs-'));
    try {
      repo.worktree('alice').write('src/app.ts', lines(20, { 7: 'const line7 = "alice";' })).commit('alice');
      const bob = repo.worktree('bob');
      // Two lines inserted on top: base line 7 is line 9 in bob's file today.
      bob.write('src/app.ts', '// bob\n// bob\n' + lines(20, { 7: 'const line7 = "bob";' }));
      const result = join(out, 'result.json');
      const run = spawnSync('emacs', ['--batch', '-l', COLLECT], {
        env: {
          ...process.env,
          AIRSPACE_LSP_CMD: JSON.stringify([process.execPath, AIRSPACE, 'lsp', '--stdio']),
          AIRSPACE_FILE: join(realpathSync(bob.dir), 'src/app.ts'),
          AIRSPACE_OUT: result,
          AIRSPACE_TIMEOUT_MS: '30000',
        },
        encoding: 'utf8',
        timeout: 90_000,
      });
      expect(run.error).toBeUndefined();
      const got = JSON.parse(readFileSync(result, 'utf8')) as Collected;
      expect(got.error).toBeUndefined();
      expect(got.mode).toBe('typescript-mode');
      expect(got.received).toBe(true);
      // One diagnostic for the pair on that line, as flymake shows it: "source [code]: message".
      expect(got.diagnostics).toHaveLength(1);
      const d = got.diagnostics![0]!;
      expect(d.line).toBe(9);
      expect(d.type).toBe('eglot-warning');
      expect(d.text).toMatch(/^airspace \[resolution\/[a-z-]+\]: alice edits src\/app\.ts line 7 \(.*\): resolution advisory, you steer away$/);
      expect(got.hover).toContain('+const line7 = "alice";');
      expect(got.advisories).toBe(1);
    } finally {
      rmSync(out, { recursive: true, force: true });
      repo.dispose();
    }
  });
});

describe('docs/editors.md', () => {
  it('shows the tested Emacs configuration verbatim', () => {
    const docs = readFileSync(fileURLToPath(new URL('../docs/editors.md', import.meta.url)), 'utf8');
    const config = readFileSync(fileURLToPath(new URL('./emacs/airspace.el', import.meta.url)), 'utf8');
    expect(docs).toContain('```elisp\n' + config + '```');
  });
});
