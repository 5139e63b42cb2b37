/**
 * `airspace doctor`: does every hook, MCP server and editor entry that wires Airspace into this
 * repository actually run, from every worktree? A hook whose command is not found exits 127,
 * which a harness treats as a non-blocking error: the guard is off and nobody is told. So each
 * entry found (Claude Code settings and plugins, `.mcp.json`, Cursor, VS Code, Gemini CLI, Codex,
 * `airspace.config.json`) is run the way its harness runs it, in each worktree, with a bounded
 * timeout: a hook gets a tool call that edits nothing (it must exit 0), an MCP server an
 * `initialize` request (it must answer), an editor's server command `--version`. Says what to
 * fix; exit 2 when something is broken. Reads the worktrees, writes nothing.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Command } from 'commander';
import { parseWorktreeList, runGit } from '@airspace/git';
import { CliError, ExitCode } from '../errors.js';
import type { Io } from '../io.js';

export type EntryKind = 'hook' | 'mcp' | 'editor' | 'config';

export interface DoctorEntry {
  readonly worktree: string;
  /** The file, relative to the worktree. */
  readonly file: string;
  readonly kind: EntryKind;
  /** The command line as the harness would run it (variables filled in). */
  readonly command: string;
  readonly ok: boolean;
  /** What happened: "exit 0", "answered initialize", "exit 127: …". */
  readonly result: string;
  /** What to do about it, when broken. */
  readonly fix?: string;
}

export interface DoctorReport {
  readonly repository: string;
  readonly worktrees: readonly string[];
  readonly entries: readonly DoctorEntry[];
  /** Files that could not be read as JSON, and other findings that are not an entry. */
  readonly problems: readonly { readonly worktree: string; readonly file: string; readonly message: string }[];
  readonly ok: boolean;
}

const DEFAULT_TIMEOUT_MS = 20_000;

/** JSON with comments and trailing commas (VS Code's settings), as JSON. */
export function parseJsonc(text: string): unknown {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2);
      if (i < 0) break;
      i++;
    } else out += c;
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
}

/** A command and its arguments, the way an MCP configuration or an editor setting names them. */
interface Spawnable {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

interface Found {
  readonly file: string;
  readonly kind: EntryKind;
  /** A hook's shell command line. */
  readonly shell?: string;
  readonly spawn?: Spawnable;
  /** `${CLAUDE_PLUGIN_ROOT}` for entries of a plugin. */
  readonly pluginRoot?: string;
}

const mentionsAirspace = (text: string): boolean => /airspace/i.test(text);

function readJson(path: string): { value?: unknown; error?: string } {
  try {
    return { value: parseJsonc(readFileSync(path, 'utf8')) };
  } catch (error) {
    return { error: `cannot be read as JSON (${(error as Error).message})` };
  }
}

/** The command hooks of a Claude Code `hooks` object that run airspace. */
function hookCommands(hooks: unknown): string[] {
  if (typeof hooks !== 'object' || hooks === null) return [];
  const out: string[] = [];
  for (const groups of Object.values(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups as { hooks?: unknown }[]) {
      if (!Array.isArray(group?.hooks)) continue;
      for (const hook of group.hooks as { type?: unknown; command?: unknown }[])
        if (typeof hook?.command === 'string' && mentionsAirspace(hook.command)) out.push(hook.command);
    }
  }
  return out;
}

/** The MCP servers of a configuration (`mcpServers`, or VS Code's `servers`) that run airspace. */
function mcpServers(config: unknown): Spawnable[] {
  if (typeof config !== 'object' || config === null) return [];
  const c = config as { mcpServers?: unknown; servers?: unknown; mcp?: { servers?: unknown } };
  const servers = c.mcpServers ?? c.servers ?? c.mcp?.servers;
  if (typeof servers !== 'object' || servers === null) return [];
  const out: Spawnable[] = [];
  for (const s of Object.values(servers as Record<string, { command?: unknown; args?: unknown; env?: unknown }>)) {
    if (typeof s?.command !== 'string') continue;
    const args = Array.isArray(s.args) ? s.args.filter((a): a is string => typeof a === 'string') : [];
    if (!mentionsAirspace([s.command, ...args].join(' '))) continue;
    const env = typeof s.env === 'object' && s.env !== null ? (s.env as Record<string, string>) : undefined;
    out.push({ command: s.command, args, ...(env ? { env } : {}) });
  }
  return out;
}

/**
 * The `[mcp_servers.NAME]` tables of a Codex `config.toml` that run airspace, as far as a check
 * needs them: `command` and `args` (TOML's basic strings and arrays of them read as JSON does).
 */
export function codexServers(text: string): Spawnable[] {
  const out: Spawnable[] = [];
  let current: { command?: string; args?: string[] } | undefined;
  const flush = (): void => {
    if (current?.command && mentionsAirspace([current.command, ...(current.args ?? [])].join(' ')))
      out.push({ command: current.command, args: current.args ?? [] });
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const table = /^\[([^\]]+)\]$/.exec(line);
    if (table) {
      flush();
      current = /^mcp_servers\.[^.]+$/.test(table[1]!.trim()) ? {} : undefined;
      continue;
    }
    const pair = /^(command|args)\s*=\s*(.+)$/.exec(line);
    if (!current || !pair) continue;
    const value = JSON.parse(pair[2]!) as unknown;
    if (pair[1] === 'command' && typeof value === 'string') current.command = value;
    if (pair[1] === 'args' && Array.isArray(value)) current.args = value.filter((a): a is string => typeof a === 'string');
  }
  flush();
  return out;
}

/** Claude Code plugin directories in a worktree: at its root, or one level under `integrations/`. */
function pluginRoots(worktree: string): string[] {
  const roots = existsSync(join(worktree, '.claude-plugin', 'plugin.json')) ? [worktree] : [];
  const dir = join(worktree, 'integrations');
  if (existsSync(dir))
    for (const name of readdirSync(dir).sort())
      if (existsSync(join(dir, name, '.claude-plugin', 'plugin.json'))) roots.push(join(dir, name));
  return roots;
}

/** Every entry of `worktree` that wires airspace in, and the files that could not be read. */
export function findEntries(worktree: string): { found: Found[]; problems: { file: string; message: string }[] } {
  const found: Found[] = [];
  const problems: { file: string; message: string }[] = [];
  const read = (file: string): unknown => {
    const path = join(worktree, file);
    if (!existsSync(path)) return undefined;
    const { value, error } = readJson(path);
    if (error) problems.push({ file, message: `${file} ${error}` });
    return value;
  };
  for (const file of ['.claude/settings.json', '.claude/settings.local.json', '.gemini/settings.json']) {
    const value = read(file) as { hooks?: unknown } | undefined;
    for (const shell of hookCommands(value?.hooks)) found.push({ file, kind: 'hook', shell });
    for (const spawnable of mcpServers(value)) found.push({ file, kind: 'mcp', spawn: spawnable });
  }
  for (const file of ['.mcp.json', '.cursor/mcp.json', '.vscode/mcp.json'])
    for (const spawnable of mcpServers(read(file))) found.push({ file, kind: 'mcp', spawn: spawnable });
  const codex = join(worktree, '.codex', 'config.toml');
  if (existsSync(codex)) {
    try {
      for (const spawnable of codexServers(readFileSync(codex, 'utf8')))
        found.push({ file: '.codex/config.toml', kind: 'mcp', spawn: spawnable });
    } catch (error) {
      problems.push({ file: '.codex/config.toml', message: `.codex/config.toml cannot be read (${(error as Error).message})` });
    }
  }
  const vscode = read('.vscode/settings.json') as Record<string, unknown> | undefined;
  const server = vscode?.['airspace.server.command'];
  if (Array.isArray(server) && typeof server[0] === 'string')
    found.push({ file: '.vscode/settings.json', kind: 'editor', spawn: { command: server[0], args: ['--version'] } });
  // The configuration, with its channel plugins, loaded by this airspace in that worktree: a plugin
  // installed only in the main worktree's node_modules does not load in a fresh one.
  if (existsSync(join(worktree, 'airspace.config.json')) && read('airspace.config.json') !== undefined && process.argv[1])
    found.push({
      file: 'airspace.config.json',
      kind: 'config',
      spawn: { command: process.execPath, args: [process.argv[1], 'channels', '--json'] },
    });
  for (const root of pluginRoots(worktree)) {
    const rel = relative(worktree, root) || '.';
    const hooks = read(join(rel, 'hooks', 'hooks.json')) as { hooks?: unknown } | undefined;
    for (const shell of hookCommands(hooks?.hooks))
      found.push({ file: join(rel, 'hooks', 'hooks.json'), kind: 'hook', shell, pluginRoot: root });
    for (const spawnable of mcpServers(read(join(rel, '.mcp.json'))))
      found.push({ file: join(rel, '.mcp.json'), kind: 'mcp', spawn: spawnable, pluginRoot: root });
  }
  return { found, problems };
}

/** `${VAR}` and `$VAR` of the harnesses' variables, filled in; others left to the shell. */
function expand(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{([A-Za-z_]+)\}|\$([A-Za-z_]+)/g, (all, a: string | undefined, b: string | undefined) => vars[(a ?? b)!] ?? all);
}

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly error?: string;
}

function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input: string; timeoutMs: number; until?: (stdout: string) => boolean },
): Promise<Ran> {
  return new Promise((done) => {
    let stdout = '';
    let stderr = '';
    let finished = false;
    const child = spawn(command, [...args], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const finish = (ran: Omit<Ran, 'stdout' | 'stderr'>): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      done({ ...ran, stdout, stderr });
    };
    const timer = setTimeout(() => finish({ code: null, timedOut: true }), options.timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (options.until?.(stdout)) finish({ code: 0, timedOut: false });
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => finish({ code: null, timedOut: false, error: error.message }));
    child.on('close', (code) => finish({ code, timedOut: false }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);
  });
}

const lastLine = (text: string): string => text.trim().split('\n').filter(Boolean).slice(-1)[0] ?? '';

const FIX_NOT_FOUND =
  'the command is not found in this worktree (a fresh agent worktree has no node_modules): run it through a launcher that looks on PATH and in the main worktree (integrations/claude-code/bin/airspace-run, or the Claude Code plugin), or install airspace on PATH; see docs/agents.md';

/** Problems of `airspace channels --json` that mean the configuration does not apply as written. */
const CONFIG_BROKEN = /^(CONFIG_UNREADABLE|INVALID_CONFIG|INVALID_CHANNEL|UNKNOWN_CHANNEL|PLUGIN_|CALIBRATION_)/;

function judgeConfig(ran: Ran): { ok: boolean; result: string; fix?: string } {
  let problems: { code: string; message: string }[];
  try {
    problems = (JSON.parse(ran.stdout) as { problems: { code: string; message: string }[] }).problems;
  } catch {
    return {
      ok: false,
      result: `exit ${ran.code}: ${lastLine(ran.stderr) || 'no listing'}`,
      fix: 'run `airspace channels` in this worktree',
    };
  }
  const broken = problems.filter((p) => CONFIG_BROKEN.test(p.code));
  if (broken.length === 0) return { ok: true, result: 'loaded' };
  return {
    ok: false,
    result: broken.map((p) => `${p.code}: ${p.message}`).join('; '),
    fix: 'fix the configuration; a channel plugin must resolve from every worktree (a fresh one has no node_modules of its own)',
  };
}

function judge(ran: Ran, kind: EntryKind, mcp: boolean): { ok: boolean; result: string; fix?: string } {
  if (kind === 'config' && !ran.error && !ran.timedOut) return judgeConfig(ran);
  if (ran.error) return { ok: false, result: `cannot start: ${ran.error}`, fix: FIX_NOT_FOUND };
  if (mcp && ran.code === 0 && ran.stdout.includes('"result"')) return { ok: true, result: 'answered initialize' };
  if (ran.timedOut)
    return { ok: false, result: 'no answer in time', fix: 'run the command by hand in this worktree and see where it hangs' };
  if (ran.code === 0 && !mcp) return { ok: true, result: 'exit 0' };
  const said = lastLine(ran.stderr) || lastLine(ran.stdout);
  const result = `exit ${ran.code}${said ? `: ${said}` : ''}`;
  if (ran.code === 127 || /not found|No such file/i.test(said)) return { ok: false, result, fix: FIX_NOT_FOUND };
  if (kind === 'hook' && ran.code === 2 && /install/.test(ran.stderr))
    return { ok: false, result, fix: 'install airspace (the launcher says how), then run airspace doctor again' };
  return { ok: false, result, fix: 'run the command by hand in this worktree and read its message' };
}

/** Runs one entry in one worktree as its harness would. */
async function probe(found: Found, worktree: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<DoctorEntry> {
  const vars: Record<string, string> = {
    CLAUDE_PROJECT_DIR: worktree,
    workspaceFolder: worktree,
    GEMINI_PROJECT_DIR: worktree,
    ...(found.pluginRoot ? { CLAUDE_PLUGIN_ROOT: found.pluginRoot } : {}),
  };
  const childEnv = { ...env, ...vars };
  if (found.shell !== undefined) {
    const command = expand(found.shell, vars);
    // A tool call that edits nothing: a working hook lets it through (exit 0) without a check.
    const input = JSON.stringify({
      session_id: 'airspace-doctor',
      cwd: worktree,
      hook_event_name: 'PreToolUse',
      tool_name: 'Read',
      tool_input: {},
    });
    const ran = await run('sh', ['-c', command], { cwd: worktree, env: childEnv, input, timeoutMs });
    return { worktree, file: found.file, kind: found.kind, command, ...judge(ran, found.kind, false) };
  }
  const s = found.spawn!;
  const command = expand(s.command, vars);
  const args = s.args.map((a) => expand(a, vars));
  const shown = [command, ...args].join(' ');
  const mcp = found.kind === 'mcp';
  const input = mcp
    ? JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'airspace-doctor', version: '1' } },
      }) + '\n'
    : '';
  const ran = await run(command, args, {
    cwd: worktree,
    env: { ...childEnv, ...(s.env ? Object.fromEntries(Object.entries(s.env).map(([k, v]) => [k, expand(v, vars)])) : {}) },
    input,
    timeoutMs,
    ...(mcp ? { until: (out: string) => /"id"\s*:\s*1\b/.test(out) } : {}),
  });
  return { worktree, file: found.file, kind: found.kind, command: shown, ...judge(ran, found.kind, mcp) };
}

export async function runDoctor(cwd: string, env: NodeJS.ProcessEnv, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<DoctorReport> {
  let repository: string;
  let worktrees: string[];
  try {
    repository = (await runGit(['rev-parse', '--show-toplevel'], { cwd })).trim();
    worktrees = parseWorktreeList(await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd }))
      .filter((w) => !w.bare && existsSync(w.dir))
      .map((w) => w.dir);
  } catch {
    throw new CliError(`${cwd} is not inside a git repository.`);
  }
  const entries: DoctorEntry[] = [];
  const problems: DoctorReport['problems'][number][] = [];
  for (const worktree of worktrees) {
    const { found, problems: unreadable } = findEntries(worktree);
    problems.push(...unreadable.map((p) => ({ worktree, ...p })));
    // One at a time: each may start Node, and the machine is someone's.
    for (const f of found) entries.push(await probe(f, worktree, env, timeoutMs));
  }
  return { repository, worktrees, entries, problems, ok: problems.length === 0 && entries.every((e) => e.ok) };
}

export function doctorCommand(io: Io): Command {
  return new Command('doctor')
    .description(
      'run every hook, MCP server and editor entry that wires airspace into this repository, from every worktree, and say what to fix; exit 2 when one is broken',
    )
    .option('--repo <dir>', 'any directory of the repository (default: the current directory)')
    .option('--json', 'print the report as JSON')
    .option('--timeout <ms>', 'how long each entry may take to answer', String(DEFAULT_TIMEOUT_MS))
    .action(async (flags: { repo?: string; json?: boolean; timeout: string }) => {
      const timeoutMs = Number(flags.timeout);
      if (!(timeoutMs > 0)) throw new CliError(`--timeout needs a positive number of milliseconds, got "${flags.timeout}".`);
      const report = await runDoctor(flags.repo ? resolve(io.cwd, flags.repo) : io.cwd, io.env, timeoutMs);
      io.exitCode(report.ok ? ExitCode.OK : ExitCode.ADVISORY);
      if (flags.json) {
        io.stdout.write(JSON.stringify(report, null, 2) + '\n');
        return;
      }
      const where = (w: string): string => relative(report.repository, w) || '.';
      if (report.entries.length === 0)
        io.stdout.write(
          'No hook, MCP server or editor entry here runs airspace: nothing guards the agents. docs/agents.md shows how to wire it in.\n',
        );
      for (const e of report.entries) {
        io.stdout.write(`${e.ok ? 'ok     ' : 'BROKEN '} ${where(e.worktree)}: ${e.file} (${e.kind}) ${e.command} → ${e.result}\n`);
        if (e.fix) io.stdout.write(`        fix: ${e.fix}\n`);
      }
      for (const p of report.problems) io.stdout.write(`BROKEN  ${where(p.worktree)}: ${p.message}\n`);
    });
}
