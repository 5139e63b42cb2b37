/**
 * The configurations in integrations/ for harnesses other than the Claude Code plugin: each file
 * parses, and, put where its harness reads it in a repository that commits the launcher as
 * `.airspace/airspace-run`, each hook and MCP entry runs from the main worktree and from a fresh
 * agent worktree without node_modules (checked by `airspace doctor`, which runs each as its
 * harness would). Gemini CLI's BeforeTool hook, fed its `replace` tool call, blocks an edit of
 * another agent's lines.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import { codexServers } from '@airspace/cli';
import { airspace, ENV } from './run-cli.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const INTEGRATIONS = join(ROOT, 'integrations');
const CLI = join(ROOT, 'packages', 'cli', 'bin', 'airspace.js');
const PATH = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
const RUN_ENV = { ...ENV, PATH, AIRSPACE_LAUNCHER_NPX: 'off', AIRSPACE_ENGINE: 'off' } as Record<string, string>;

/** Each shipped file → where its harness reads it in a repository. */
const PLACES: Record<string, string> = {
  'claude-code-settings/settings.json': '.claude/settings.json',
  'claude-code-settings/mcp.json': '.mcp.json',
  'cursor/mcp.json': '.cursor/mcp.json',
  'vscode/mcp.json': '.vscode/mcp.json',
  'gemini-cli/settings.json': '.gemini/settings.json',
  'codex/config.toml': '.codex/config.toml',
};
const shipped = (file: string): string => readFileSync(join(INTEGRATIONS, file), 'utf8');
const lines = Array.from({ length: 40 }, (_, i) => `export const v${i + 1} = ${i + 1};`);

let repo: RepoFixture;
let alice: FixtureCheckout;

beforeAll(() => {
  const files: Record<string, string | Buffer> = {
    '.gitignore': 'node_modules/\n',
    '.airspace/airspace-run': readFileSync(join(INTEGRATIONS, 'claude-code', 'bin', 'airspace-run')),
    'src/a.ts': lines.join('\n') + '\n',
  };
  for (const [from, to] of Object.entries(PLACES)) files[to] = shipped(from);
  repo = createRepoFixture(files);
  // The launcher is committed executable, as a user commits it.
  repo.git('update-index', '--chmod=+x', '.airspace/airspace-run');
  repo.git('commit', '-q', '-m', 'launcher executable');
  spawnSync('chmod', ['+x', join(repo.dir, '.airspace', 'airspace-run')]);
  mkdirSync(join(repo.dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(CLI, join(repo.dir, 'node_modules', '.bin', 'airspace'));
  repo.worktree('bob').write('src/a.ts', lines.map((l, i) => (i >= 19 && i <= 21 ? `${l} // bob` : l)).join('\n') + '\n');
  alice = repo.worktree('alice');
});

afterAll(() => repo.dispose());

describe('harness configurations in integrations/', () => {
  it('parse, each naming the launcher', () => {
    for (const file of Object.keys(PLACES)) {
      const text = shipped(file);
      if (file.endsWith('.toml'))
        expect(codexServers(text)).toEqual([{ command: 'sh', args: ['-c', expect.stringMatching(/airspace-run" mcp$/)] }]);
      else expect(JSON.stringify(JSON.parse(text))).toMatch(/airspace-run/);
    }
  });

  it('run from every worktree, a fresh one without node_modules included', { timeout: 300_000 }, async () => {
    const run = await airspace(['doctor', '--json'], { cwd: alice.dir, env: RUN_ENV, timeoutMs: 290_000 });
    const report = JSON.parse(run.stdout) as {
      ok: boolean;
      entries: { worktree: string; file: string; kind: string; ok: boolean; result: string }[];
    };
    const seen = (dir: string) =>
      report.entries
        .filter((e) => e.worktree === dir)
        .map((e) => `${e.file} ${e.kind} ${e.ok ? 'ok' : e.result}`)
        .sort();
    const expected = [
      '.claude/settings.json hook ok',
      '.codex/config.toml mcp ok',
      '.cursor/mcp.json mcp ok',
      '.gemini/settings.json hook ok',
      '.gemini/settings.json mcp ok',
      '.mcp.json mcp ok',
      '.vscode/mcp.json mcp ok',
    ];
    expect(seen(alice.dir)).toEqual(expected);
    expect(seen(repo.dir)).toEqual(expected);
    expect(run.code).toBe(0);
  });

  it("Gemini CLI's BeforeTool hook blocks a `replace` of another agent's lines", { timeout: 120_000 }, () => {
    const settings = JSON.parse(shipped('gemini-cli/settings.json')) as { hooks: { BeforeTool: { hooks: { command: string }[] }[] } };
    const command = settings.hooks.BeforeTool[0]!.hooks[0]!.command;
    const call = (old: string) =>
      spawnSync('sh', ['-c', command], {
        cwd: alice.dir,
        env: { ...RUN_ENV, GEMINI_PROJECT_DIR: alice.dir },
        input: JSON.stringify({
          session_id: 's',
          cwd: alice.dir,
          hook_event_name: 'BeforeTool',
          tool_name: 'replace',
          tool_input: { file_path: join(alice.dir, 'src', 'a.ts'), old_string: old, new_string: 'export const changed = 0;' },
        }),
        encoding: 'utf8',
      });
    const blocked = call(lines[20]!);
    expect(blocked.status).toBe(2);
    expect(blocked.stderr).toMatch(/^RESOLUTION: editing src\/a\.ts:21 as alice would come close to bob\./);
    const clear = call(lines[2]!);
    expect([clear.status, clear.stdout, clear.stderr]).toEqual([0, '', '']);
  });
});
