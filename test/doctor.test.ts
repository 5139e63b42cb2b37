/**
 * `airspace doctor` on a repository wired the way docs/agents.md used to say (a hook calling
 * node_modules/.bin/airspace), with an installed main worktree and a fresh agent worktree without
 * node_modules: the hook runs in one and is broken in the other, and the doctor says so, says what
 * to fix, and exits 2. Entries through the plugin's launcher run in both.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import { airspace, ENV } from './run-cli.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LAUNCHER = join(ROOT, 'integrations', 'claude-code', 'bin', 'airspace-run');
const CLI = join(ROOT, 'packages', 'cli', 'bin', 'airspace.js');
/** node and git, and no airspace. */
const PATH = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
const DOCTOR_ENV = { ...ENV, PATH, AIRSPACE_LAUNCHER_NPX: 'off' } as Record<string, string>;

const hook = (command: string): string =>
  JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Edit|MultiEdit|Write', hooks: [{ type: 'command', command }] }] } }, null, 2);

let repo: RepoFixture;
let alice: FixtureCheckout;

interface Report {
  ok: boolean;
  worktrees: string[];
  entries: { worktree: string; file: string; kind: string; ok: boolean; result: string; fix?: string }[];
  problems: { file: string; message: string }[];
}

beforeAll(() => {
  repo = createRepoFixture({
    '.gitignore': 'node_modules/\n',
    '.claude/settings.json': hook('node_modules/.bin/airspace check --tool-call'),
    '.mcp.json': JSON.stringify({ mcpServers: { airspace: { command: LAUNCHER, args: ['mcp'] } } }),
    // VS Code's settings are JSON with comments.
    '.vscode/settings.json': `{\n  // the language server\n  "airspace.server.command": ["${LAUNCHER}", "lsp", "--stdio"],\n}\n`,
    'src/a.ts': 'export const a = 1;\n',
    // A channel plugin installed (ignored by git) in the main worktree only.
    'airspace.config.json': JSON.stringify({ plugins: ['./node_modules/always-half.mjs'] }),
  });
  mkdirSync(join(repo.dir, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(
    join(repo.dir, 'node_modules', 'always-half.mjs'),
    "export default { id: 'always-half', defaultWeight: 1, score: () => ({ risk: 0.5, evidence: [{ message: 'half' }] }) };\n",
  );
  symlinkSync(CLI, join(repo.dir, 'node_modules', '.bin', 'airspace'));
  alice = repo.worktree('alice');
});

afterAll(() => repo.dispose());

describe('airspace doctor', () => {
  it('finds the hook path that is broken in a fresh worktree, says what to fix, and exits 2', { timeout: 180_000 }, async () => {
    const run = await airspace(['doctor', '--json'], { cwd: alice.dir, env: DOCTOR_ENV, timeoutMs: 170_000 });
    expect(run.code).toBe(2);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.ok).toBe(false);
    expect(report.worktrees).toHaveLength(2);
    const at = (dir: string, file: string) => report.entries.find((e) => e.worktree === dir && e.file === file);
    // The hook runs where node_modules is installed, and not in the agent's worktree.
    expect(at(repo.dir, '.claude/settings.json')).toMatchObject({ kind: 'hook', ok: true, result: 'exit 0' });
    const broken = at(alice.dir, '.claude/settings.json')!;
    expect(broken).toMatchObject({ kind: 'hook', ok: false });
    expect(broken.result).toMatch(/^exit 127: .*node_modules\/\.bin\/airspace.*not found/);
    expect(broken.fix).toMatch(/fresh agent worktree has no node_modules/);
    // The configuration loads its plugin where it is installed, not in the fresh worktree.
    expect(at(repo.dir, 'airspace.config.json')).toMatchObject({ kind: 'config', ok: true, result: 'loaded' });
    expect(at(alice.dir, 'airspace.config.json')).toMatchObject({
      kind: 'config',
      ok: false,
      result: expect.stringMatching(/^PLUGIN_NOT_LOADED: /),
    });
    // Through the launcher: the MCP server answers and the editor's server command runs, in both.
    for (const dir of [repo.dir, alice.dir]) {
      expect(at(dir, '.mcp.json')).toMatchObject({ kind: 'mcp', ok: true, result: 'answered initialize' });
      expect(at(dir, '.vscode/settings.json')).toMatchObject({ kind: 'editor', ok: true });
    }

    const text = await airspace(['doctor'], { cwd: repo.dir, env: DOCTOR_ENV, timeoutMs: 170_000 });
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(
      /^BROKEN  [^\n]*alice: \.claude\/settings\.json \(hook\) node_modules\/\.bin\/airspace check --tool-call → exit 127/m,
    );
    expect(text.stdout).toMatch(/^ok      \.: \.claude\/settings\.json \(hook\)/m);
  });

  it('says when nothing wires airspace in, and that a repository is needed', { timeout: 60_000 }, async () => {
    const bare = createRepoFixture({ 'a.ts': 'export const a = 1;\n' });
    try {
      const run = await airspace(['doctor'], { cwd: bare.dir, env: DOCTOR_ENV });
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/nothing guards the agents/);
      const outside = await airspace(['doctor'], { cwd: dirname(bare.dir), env: DOCTOR_ENV });
      expect(outside.code).toBe(1);
      expect(outside.stderr).toMatch(/is not inside a git repository/);
    } finally {
      bare.dispose();
    }
  });
});
