/**
 * Emacs (the Debian package, 28) with eglot (elpa-eglot, 1.9) as the LSP client, in batch mode:
 * the configuration of docs/editors.md attaches to a .ts file, and flymake shows Airspace's
 * diagnostic on the right line; hover and airspace/scan answer.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collidingWorktrees, runEditor } from './editor-session.js';
import { EMACS_EGLOT, describeWith } from './programs.js';

const COLLECT = fileURLToPath(new URL('./emacs/collect.el', import.meta.url));

interface Collected {
  emacs: string;
  mode?: string;
  received?: boolean;
  error?: string;
  diagnostics?: { line: number; type: string; text: string }[];
  hover?: string;
  advisories?: number;
  errorShown?: boolean;
  restarted?: boolean;
  receivedAgain?: boolean;
  messages?: string[];
}

describeWith(EMACS_EGLOT, 'Emacs with eglot as the client', () => {
  it('shows the diagnostic flymake reports on the line both agents change', () => {
    const { repo, file } = collidingWorktrees();
    const out = mkdtempSync(join(tmpdir(), 'airspace-emacs-'));
    try {
      const { run, result } = runEditor<Collected>('emacs', ['--batch', '-l', COLLECT], file, out);
      expect(run.error).toBeUndefined();
      const got = result();
      expect(got.error).toBeUndefined();
      expect(got.mode).toBe('typescript-mode');
      expect(got.received).toBe(true);
      // One diagnostic for the pair on that line, as flymake shows it: "source [code]: message".
      expect(got.diagnostics).toHaveLength(1);
      const d = got.diagnostics![0]!;
      expect(d.line).toBe(9);
      expect(d.type).toBe('eglot-warning');
      expect(d.text).toMatch(
        /^airspace \[resolution\/[a-z-]+\]: alice edits src\/app\.ts line 7 \(.*\): resolution advisory, you steer away; (\d+%|<1%|>99%) chance of colliding$/,
      );
      expect(got.hover).toContain('+const line7 = "alice";');
      expect(got.advisories).toBe(1);
    } finally {
      rmSync(out, { recursive: true, force: true });
      repo.dispose();
    }
  });

  it('shows the error of a base the repository lacks, sent as initializationOptions', () => {
    const { repo, file } = collidingWorktrees();
    const out = mkdtempSync(join(tmpdir(), 'airspace-emacs-'));
    try {
      const { run, result } = runEditor<Collected>('emacs', ['--batch', '-l', COLLECT], file, out, { AIRSPACE_SCENARIO: 'bad-base' });
      expect(run.error).toBeUndefined();
      const got = result();
      expect(got.error).toBeUndefined();
      expect(got.errorShown).toBe(true);
      expect(got.messages?.some((m) => /Airspace cannot scan .*Unknown base "no-such-base"/.test(m))).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
      repo.dispose();
    }
  });

  it('says so when the server is killed, and reconnects', () => {
    const { repo, file } = collidingWorktrees();
    const out = mkdtempSync(join(tmpdir(), 'airspace-emacs-'));
    try {
      const { run, result } = runEditor<Collected>('emacs', ['--batch', '-l', COLLECT], file, out, { AIRSPACE_SCENARIO: 'killed' });
      expect(run.error).toBeUndefined();
      const got = result();
      expect(got.error).toBeUndefined();
      expect(got.received).toBe(true);
      expect(got.messages?.some((m) => m.includes('Reconnecting after unexpected server exit'))).toBe(true);
      expect(got.restarted).toBe(true);
      expect(got.receivedAgain).toBe(true);
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
