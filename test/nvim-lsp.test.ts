/**
 * Neovim (the Debian package, 0.7) as the LSP client, headless: the configuration of
 * docs/editors.md receives Airspace's diagnostic on the right line, hovers it, and asks airspace/scan.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collidingWorktrees, runEditor } from './editor-session.js';
import { NEOVIM, describeWith } from './programs.js';

const COLLECT = fileURLToPath(new URL('./nvim/collect.lua', import.meta.url));
const NVIM = 'nvim';
const NVIM_ARGS = ['--headless', '--clean', '-n', '-i', 'NONE', '-c', `luafile ${COLLECT}`];

describeWith(NEOVIM, 'Neovim as the client', () => {
  it('shows the diagnostic on the line both agents change', () => {
    const { repo, alice, file } = collidingWorktrees();
    const out = mkdtempSync(join(tmpdir(), 'airspace-nvim-'));
    try {
      const { run, result } = runEditor<{
        received: boolean;
        error?: string;
        diagnostics: { lnum: number; message: string; severity: number; source: string }[];
        hover?: string;
        advisories?: number;
        actions?: string[];
        shown?: string[];
      }>(NVIM, NVIM_ARGS, file, out);
      expect(run.error).toBeUndefined();
      const got = result();
      expect(got.error).toBeUndefined();
      expect(got.received).toBe(true);
      expect(got.diagnostics).toHaveLength(1);
      const d = got.diagnostics[0]!;
      expect(d.lnum).toBe(8);
      expect(d.source).toBe('airspace');
      expect(d.severity).toBe(2);
      expect(d.message).toContain('alice');
      expect(d.message).toContain('src/app.ts line 7');
      expect(got.hover).toContain('+const line7 = "alice";');
      expect(got.advisories).toBe(1);
      // Neovim 0.7 has no window/showDocument and answers showMessageRequest with a prompt that
      // blocks a headless editor: "open" and "copy a summary" arrive as plain messages instead.
      expect(got.actions).toEqual([
        "Open alice's src/app.ts:7",
        'Copy a summary of both changes for alice',
        'Acknowledge the advisory with alice',
      ]);
      expect(got.shown).toHaveLength(2);
      expect(got.shown![0]).toContain(`${join(realpathSync(alice.dir), 'src/app.ts')}:7`);
      expect(got.shown!.some((m) => m.includes('+const line7 = "alice";'))).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
      repo.dispose();
    }
  });

  it('shows a base the repository lacks as an error message (settings arrive without workspace.configuration)', () => {
    const { repo, file } = collidingWorktrees();
    const out = mkdtempSync(join(tmpdir(), 'airspace-nvim-'));
    try {
      const { run, result } = runEditor<{ error?: string; errorShown?: boolean; shown?: string[] }>(NVIM, NVIM_ARGS, file, out, {
        AIRSPACE_SCENARIO: 'bad-base',
      });
      expect(run.error).toBeUndefined();
      const got = result();
      expect(got.error).toBeUndefined();
      expect(got.errorShown).toBe(true);
      expect(got.shown![0]).toMatch(/^Airspace cannot scan .*: Unknown base "no-such-base"/);
    } finally {
      rmSync(out, { recursive: true, force: true });
      repo.dispose();
    }
  });

  it('serves two worktrees of one repository from one server, each with its own diagnostics', () => {
    const { repo, alice, file } = collidingWorktrees();
    const out = mkdtempSync(join(tmpdir(), 'airspace-nvim-'));
    try {
      const aliceFile = join(realpathSync(alice.dir), 'src/app.ts');
      const { run, result } = runEditor<{
        error?: string;
        received?: boolean;
        receivedSecond?: boolean;
        perFile?: { file: string; diagnostics: { lnum: number; message: string }[] }[];
        servers?: { pid: number; folders: string[] }[];
      }>(NVIM, NVIM_ARGS, file, out, { AIRSPACE_SCENARIO: 'two-worktrees', AIRSPACE_FILE2: aliceFile });
      expect(run.error).toBeUndefined();
      const got = result();
      expect(got.error).toBeUndefined();
      // One Node server, with both worktrees as its workspace folders.
      expect(got.servers).toHaveLength(1);
      expect(got.servers![0]!.folders.sort()).toEqual([realpathSync(alice.dir), realpathSync(dirname(dirname(file)))].sort());
      expect(got.received).toBe(true);
      expect(got.receivedSecond).toBe(true);
      const [bobs, alices] = got.perFile!;
      // bob's file: alice's line 7 (bob's line 9); alice's file: bob's change of that line, at her line 7.
      expect(bobs!.diagnostics.map((d) => d.lnum)).toEqual([8]);
      expect(bobs!.diagnostics[0]!.message).toMatch(/^alice /);
      expect(alices!.file).toBe(aliceFile);
      expect(alices!.diagnostics.map((d) => d.lnum)).toEqual([6]);
      expect(alices!.diagnostics[0]!.message).toMatch(/^bob /);
    } finally {
      rmSync(out, { recursive: true, force: true });
      repo.dispose();
    }
  });

  it('tells the user when the server is killed, and restarts it', () => {
    const { repo, file } = collidingWorktrees();
    const out = mkdtempSync(join(tmpdir(), 'airspace-nvim-'));
    try {
      const { run, result } = runEditor<{
        error?: string;
        received?: boolean;
        cleared?: boolean;
        restarted?: boolean;
        notified?: { message: string; level: number }[];
      }>(NVIM, NVIM_ARGS, file, out, { AIRSPACE_SCENARIO: 'killed' });
      expect(run.error).toBeUndefined();
      const got = result();
      expect(got.error).toBeUndefined();
      expect(got.received).toBe(true);
      // Neovim 0.7 clears a stopped client's diagnostics and says nothing of a SIGTERM itself.
      expect(got.cleared).toBe(true);
      expect(got.notified?.some((n) => /^Airspace stopped \(exit \d+, signal 15\).*restarting it\.$/.test(n.message))).toBe(true);
      expect(got.restarted).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
      repo.dispose();
    }
  });
});

describe('docs/editors.md', () => {
  it('shows the tested Neovim configuration verbatim', () => {
    const docs = readFileSync(fileURLToPath(new URL('../docs/editors.md', import.meta.url)), 'utf8');
    const config = readFileSync(fileURLToPath(new URL('./nvim/airspace.lua', import.meta.url)), 'utf8');
    expect(docs).toContain('```lua\n' + config + '```');
  });
});
