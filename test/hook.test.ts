/**
 * The pre-edit hook as Claude Code calls it: the plugin's hook command (integrations/claude-code,
 * hooks/hooks.json) run by a shell with CLAUDE_PLUGIN_ROOT set, as the harness runs it, from a
 * fresh agent worktree without node_modules, with the PreToolUse input on stdin (`session_id`,
 * `transcript_path`, `cwd`, `hook_event_name`, `tool_name`, `tool_input`) and no `airspace` on
 * PATH: the plugin's launcher finds the main worktree's node_modules/.bin. Asserts what the model
 * would see: the exit code (2 blocks, and hands stderr to the model), the structured answer on
 * stdout (additionalContext), or nothing at all.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PLUGIN = join(ROOT, 'integrations', 'claude-code');
const CLI = join(ROOT, 'packages', 'cli', 'bin', 'airspace.js');
/** node and git, and no airspace. */
const PATH = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');

const LINES = 2000;
/** Line 5 and line 801 share a name, for `replace_all`. */
const big = (tag: (n: number) => string = () => ''): string =>
  Array.from({ length: LINES }, (_, i) => `export const v${i + 1} = ${i === 4 || i === 800 ? 'legacyName' : i + 1};${tag(i + 1)}`).join(
    '\n',
  ) + '\n';
const BASE = {
  '.gitignore': 'node_modules/\n',
  'src/big.ts': big(),
  'notes/plan.ipynb': '{"cells": []}\n',
  'src/other.ts': 'export const other = 1;\n',
};

let repo: RepoFixture;
let alice: FixtureCheckout;
let bob: FixtureCheckout;
let outside: string;

interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The plugin's hook command for `event`, as Claude Code runs it: a shell, CLAUDE_PLUGIN_ROOT and CLAUDE_PROJECT_DIR set. */
function hookCommand(): string {
  const hooks = JSON.parse(readFileSync(join(PLUGIN, 'hooks', 'hooks.json'), 'utf8')) as {
    hooks: { PreToolUse: { matcher: string; hooks: { type: string; command: string }[] }[] };
  };
  return hooks.hooks.PreToolUse[0]!.hooks[0]!.command;
}

function runHook(command: string, input: object, env: Record<string, string> = {}): Promise<HookRun> {
  return new Promise((done, reject) => {
    const child = spawn('sh', ['-c', command], {
      cwd: alice.dir,
      env: {
        PATH,
        HOME: process.env.HOME ?? tmpdir(),
        CLAUDE_PLUGIN_ROOT: PLUGIN,
        CLAUDE_PROJECT_DIR: alice.dir,
        AIRSPACE_ENGINE: 'off',
        AIRSPACE_LAUNCHER_NPX: 'off',
        NO_COLOR: '1',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hook timed out\n${stderr}`));
    }, 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    child.stdin.end(JSON.stringify(input));
  });
}

/** Claude Code's PreToolUse input for a tool call in alice's worktree. */
function preToolUse(tool_name: string, tool_input: Record<string, unknown>): object {
  return {
    session_id: 'b3f1c0de-0000-4000-8000-000000000001',
    transcript_path: join(tmpdir(), 'transcript.jsonl'),
    cwd: alice.dir,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name,
    tool_input,
  };
}

const line = (n: number): string => big().split('\n')[n - 1]!;
const hook = (tool: string, input: Record<string, unknown>, env?: Record<string, string>) =>
  runHook(hookCommand(), preToolUse(tool, input), env);
const passedSilently = (run: HookRun): void => expect(run).toEqual({ code: 0, stdout: '', stderr: '' });

beforeAll(() => {
  repo = createRepoFixture(BASE, { epoch: Math.floor(Date.now() / 1000) - 600 });
  // The main worktree has the dependencies installed; agent worktrees are fresh.
  mkdirSync(join(repo.dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(CLI, join(repo.dir, 'node_modules', '.bin', 'airspace'));
  bob = repo
    .worktree('bob')
    .write(
      'src/big.ts',
      big((n) => (n >= 800 && n <= 802 ? ' // bob' : '')),
    )
    .write('notes/plan.ipynb', '{"cells": [1]}\n');
  alice = repo.worktree('alice');
  outside = mkdtempSync(join(tmpdir(), 'airspace-outside-'));
  writeFileSync(join(outside, 'scratch.ts'), 'export const x = 1;\n');
});

afterAll(() => {
  repo.dispose();
  rmSync(outside, { recursive: true, force: true });
});

const file = (): string => join(alice.dir, 'src', 'big.ts');

describe('the Claude Code plugin hook, from a fresh worktree without node_modules', () => {
  it('blocks an Edit of the other agent’s lines and tells the model why (exit 2, stderr)', { timeout: 120_000 }, async () => {
    const run = await hook('Edit', { file_path: file(), old_string: line(801), new_string: 'export const v801 = 0;' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^RESOLUTION: editing src\/big\.ts:801 as alice would come close to bob\./);
    expect(run.stderr).toMatch(/\nNext: (steer away|hold course)\./);
  });

  it('lets a clear Edit through with no output', { timeout: 120_000 }, async () => {
    passedSilently(await hook('Edit', { file_path: file(), old_string: line(10), new_string: 'export const v10 = 0;' }));
  });

  it('judges each of MultiEdit’s edits by its own lines (31 and 1601 are not 31–1601)', { timeout: 120_000 }, async () => {
    const edits = [
      { old_string: line(31), new_string: 'export const v31 = 0;' },
      { old_string: line(1601), new_string: 'export const v1601 = 0;' },
    ];
    passedSilently(await hook('MultiEdit', { file_path: file(), edits }));
    // The same two ranges asked on the command line, each probed on its own.
    const asked = spawnSync(process.execPath, [CLI, 'check', 'src/big.ts', '--lines', '31-31,1601-1601'], {
      cwd: alice.dir,
      env: { PATH, AIRSPACE_ENGINE: 'off', NO_COLOR: '1' },
      encoding: 'utf8',
    });
    expect([asked.status, asked.stdout.split('\n')[0]]).toEqual([0, 'CLEAR  src/big.ts:31,1601: no other agent is close.']);
    const touching = await hook('MultiEdit', { file_path: file(), edits: [...edits, { old_string: line(802), new_string: 'x' }] });
    expect(touching.code).toBe(2);
    expect(touching.stderr).toMatch(/^RESOLUTION: editing src\/big\.ts:31, 802, 1601 as alice/);
  });

  it('judges a Write by the lines its content changes', { timeout: 120_000 }, async () => {
    const current = big();
    const rewrite = current.replace(line(800), 'export const v800 = 0;').replace(line(801), 'export const v801 = 0;');
    const blocked = await hook('Write', { file_path: file(), content: rewrite });
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toMatch(/^RESOLUTION: editing src\/big\.ts:800-801 as alice/);
    passedSilently(await hook('Write', { file_path: file(), content: current.replace(line(10), 'export const v10 = 0;') }));
    // Unchanged content is no edit.
    passedSilently(await hook('Write', { file_path: file(), content: current }));
  });

  it('maps every occurrence of a replace_all', { timeout: 120_000 }, async () => {
    const once = await hook('Edit', { file_path: file(), old_string: 'legacyName', new_string: 'newName' });
    expect(once.code).toBe(0); // The first occurrence, line 5, is clear.
    const all = await hook('Edit', { file_path: file(), old_string: 'legacyName', new_string: 'newName', replace_all: true });
    expect(all.code).toBe(2);
    expect(all.stderr).toMatch(/^RESOLUTION: editing src\/big\.ts:5, 801 as alice/);
  });

  it('lets tools that change no file, files outside the repository and inside .git through silently', { timeout: 120_000 }, async () => {
    passedSilently(await hook('Read', { file_path: file() }));
    passedSilently(await hook('Grep', { pattern: 'legacyName', path: join(alice.dir, 'src') }));
    passedSilently(await hook('Edit', { file_path: join(outside, 'scratch.ts'), old_string: 'x = 1', new_string: 'x = 2' }));
    passedSilently(await hook('Write', { file_path: join(outside, 'new.ts'), content: 'export {};\n' }));
    passedSilently(await hook('Edit', { file_path: join(repo.dir, '.git', 'config'), old_string: '[core]', new_string: '[core]' + ' ' }));
  });

  it('hands traffic advice to the model as additionalContext, naming the tools it has', { timeout: 120_000 }, async () => {
    const input = { notebook_path: join(alice.dir, 'notes', 'plan.ipynb'), cell_id: 'a', new_source: 'x', edit_mode: 'replace' };
    const run = await hook('NotebookEdit', input);
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(answer.hookSpecificOutput.hookEventName).toBe('PreToolUse');
    expect(answer.hookSpecificOutput.additionalContext).toMatch(/^TRAFFIC: editing notes\/plan\.ipynb as alice would come close to bob\./);
    // The plugin also configures the MCP server, so the advice may name its tools.
    expect(answer.hookSpecificOutput.additionalContext).toMatch(/call declare_intent/);
    // A hook without the MCP server: no tool the model does not have.
    const hookOnly = await runHook(hookCommand().replace(' --with-mcp', ''), preToolUse('NotebookEdit', input));
    const context = (JSON.parse(hookOnly.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
      .additionalContext;
    expect(context).toMatch(/Next: go on carefully, but first tell bob what you are about to change/);
    expect(context).not.toMatch(/declare_intent|acknowledge/);
    expect(context).toMatch(/run `airspace declare notes\/plan\.ipynb --note "what and why"`/);
  });

  it(
    'meets intent declared with `airspace declare` (the command a hook-only model is told), until it is withdrawn',
    { timeout: 120_000 },
    async () => {
      const declare = (...args: string[]) =>
        spawnSync(process.execPath, [CLI, 'declare', ...args], {
          cwd: bob.dir,
          env: { PATH, AIRSPACE_ENGINE: 'off', NO_COLOR: '1' },
          encoding: 'utf8',
        });
      const declared = declare('src/other.ts', '--note', 'renaming other');
      expect(declared.status).toBe(0);
      expect(declared.stdout).toMatch(/^Declared for bob: src\/other\.ts \(counts now, until /);
      const edit = { file_path: join(alice.dir, 'src', 'other.ts'), old_string: 'other = 1', new_string: 'other = 2' };
      const met = await hook('Edit', edit);
      expect(met.code).toBe(0);
      const context = (JSON.parse(met.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
        .additionalContext;
      expect(context).toMatch(/^TRAFFIC: editing src\/other\.ts:1 as alice would come close to bob\./);
      expect(context).toMatch(/- bob declared src\/other\.ts \("renaming other"\), until /);
      const withdrawn = declare('--withdraw');
      expect([withdrawn.status, withdrawn.stdout]).toEqual([0, expect.stringMatching(/^Withdrew the declared intent of bob/)]);
      passedSilently(await hook('Edit', edit));
    },
  );

  it('fails closed when no airspace can be found: exit 2 and how to install, never 127', { timeout: 60_000 }, async () => {
    const bare = createRepoFixture({ 'a.ts': 'export const a = 1;\n' });
    try {
      const run = await runHook(hookCommand(), { ...preToolUse('Edit', {}), cwd: bare.dir }, { CLAUDE_PROJECT_DIR: bare.dir });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/no airspace command found/);
      expect(run.stderr).toMatch(/npm install --save-dev/);
      const broken = await hook(
        'Edit',
        { file_path: file(), old_string: line(10), new_string: 'x' },
        { AIRSPACE_BIN: '/nonexistent/airspace' },
      );
      expect(broken.code).toBe(2);
      expect(broken.stderr).toMatch(/AIRSPACE_BIN is \/nonexistent\/airspace/);
    } finally {
      bare.dispose();
    }
  });
});
