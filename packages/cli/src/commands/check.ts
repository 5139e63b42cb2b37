/**
 * `airspace check PATH [--lines A-B]`: the write-time guard for agent harnesses. The scanner
 * replaces the checking agent's working set by "this file (these lines)" and scores it against
 * every other agent, so the answer is about the edit about to happen, not about work already
 * done elsewhere. Exit 0 clear, 2 traffic or resolution, 1 error.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { Command } from 'commander';
import type { Agent, Evidence, Level, Link, Range, ScanResult } from '@airspace/core';
import { GitSourceError, parseWorktreeList, runGit } from '@airspace/git';
import { scanRepository } from '@airspace/scanner';
import { CliError, ExitCode } from '../errors.js';
import type { Io } from '../io.js';
import { addRepoOptions, refuseEmpty, scannerOptions, type RepoFlags } from '../options.js';
import { colorWanted, createStyle } from '../report/color.js';
import { printable, printableDeep } from '../report/printable.js';
import { createProgressBar } from '../report/progress.js';
import { formatChannels, formatEvidence, formatRange } from '../report/table.js';

interface CheckFlags extends RepoFlags {
  readonly lines?: string;
  readonly agent?: string;
  readonly json?: boolean;
}

/** A hunk of the other agent's diff against its merge base, as unified-diff text. */
export interface DiffHunk {
  readonly agent: string;
  readonly path: string;
  /** Base lines `[start, end]` (zero-width for a pure insertion). */
  readonly base: Range;
  /** The other agent's current lines. */
  readonly current: Range;
  readonly text: string;
}

export interface CheckConflict {
  readonly with: string;
  readonly level: Level;
  readonly risk: number;
  readonly channels: Link['channels'];
  readonly steer?: string;
  readonly hold?: string;
  readonly evidence: readonly Evidence[];
  readonly hunks: readonly DiffHunk[];
}

export interface CheckResult {
  readonly path: string;
  /** The file does not exist yet: the check is about creating it. */
  readonly new?: true;
  readonly lines?: Range;
  readonly agent: string;
  /** The worst level over all other agents. */
  readonly level: Level;
  readonly conflicts: readonly CheckConflict[];
  readonly problems: ScanResult['problems'];
}

export function parseLines(text: string): Range {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  if (!m) throw new CliError(`--lines must look like 12 or 12-18, got "${text}".`);
  const start = Number(m[1]);
  const end = m[2] === undefined ? start : Number(m[2]);
  if (start < 1 || end < start) throw new CliError(`--lines ${text}: lines are 1-based and the end may not come before the start.`);
  return [start, end];
}

const RANK: Record<Level, number> = { clear: 0, unknown: 1, traffic: 2, resolution: 3 };

/** Parses `git diff -U3` output into hunks with their text. */
export function parseUnifiedHunks(diff: string, agent: string, path: string): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  let current: { base: Range; cur: Range; lines: string[] } | undefined;
  const flush = (): void => {
    if (current) hunks.push({ agent, path, base: current.base, current: current.cur, text: current.lines.join('\n') });
    current = undefined;
  };
  for (const line of diff.split('\n')) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (m) {
      flush();
      const range = (start: number, count: number): Range => (count === 0 ? [start + 1, start] : [start, start + count - 1]);
      current = { base: range(Number(m[1]), m[2] === undefined ? 1 : Number(m[2])), cur: range(Number(m[3]), m[4] === undefined ? 1 : Number(m[4])), lines: [line] };
    } else if (current && /^[ +\-\\]/.test(line)) current.lines.push(line);
    else if (current && line === '') continue;
    else flush();
  }
  flush();
  return hunks;
}

function intersects(a: Range, b: Range): boolean {
  // Zero-width ranges (insertion points) count as touching what is next to them.
  const [as, ae] = a[1] < a[0] ? [a[1], a[0]] : a;
  const [bs, be] = b[1] < b[0] ? [b[1], b[0]] : b;
  return as <= be + 1 && bs <= ae + 1;
}

/** The other side's diff hunks that the evidence points at (all of the file's when it names no lines). */
async function otherSideHunks(other: Agent, evidence: readonly Evidence[], side: 'a' | 'b'): Promise<DiffHunk[]> {
  const out: DiffHunk[] = [];
  const seen = new Set<string>();
  const byPath = new Map<string, Evidence[]>();
  for (const e of evidence) {
    const s = e[side];
    if (!s || s.agent !== other.id) continue;
    byPath.set(s.path, [...(byPath.get(s.path) ?? []), e]);
  }
  for (const [path, items] of byPath) {
    let diff = '';
    try {
      const head = typeof other.meta?.head === 'string' ? other.meta.head : undefined;
      if (other.worktree && other.base) diff = await runGit(['diff', '--no-color', '--no-ext-diff', '-U3', other.base, '--', path], { cwd: other.worktree });
      else if (other.base && head && other.worktree === undefined) diff = await runGit(['diff', '--no-color', '--no-ext-diff', '-U3', other.base, head, '--', path], { cwd: process.cwd() });
    } catch {
      continue; // The diff is a courtesy; its absence is not an error of the check.
    }
    for (const hunk of parseUnifiedHunks(diff, other.id, path)) {
      const relevant = items.some((e) => {
        const s = e[side]!;
        if (s.range) return intersects(s.range, hunk.current);
        if (s.baseRange) return intersects(s.baseRange, hunk.base);
        return true;
      });
      const key = `${path}:${hunk.base[0]}`;
      if (relevant && !seen.has(key)) {
        seen.add(key);
        out.push(hunk);
      }
    }
  }
  return out;
}

/** The work tree holding `absolute` (which may not exist yet: a file about to be created). */
async function worktreeOf(absolute: string): Promise<{ worktree: string; path: string }> {
  let dir = absolute;
  while (!(existsSync(dir) && statSync(dir).isDirectory())) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  let worktree: string;
  try {
    worktree = (await runGit(['rev-parse', '--show-toplevel'], { cwd: dir })).trim();
  } catch (error) {
    if (error instanceof GitSourceError) throw error; // git not found
    throw new CliError(`${absolute} is not inside a git repository.`);
  }
  // git prints the real path; compare like with like.
  const real = join(realpathSync(dir), relative(dir, absolute));
  return { worktree, path: relative(worktree, real).split(sep).join('/') };
}

/** Ids an agent about to start has before it has any work: its worktree's branch (or folder, when detached). */
async function worktreeAgentIds(worktree: string): Promise<string[]> {
  const ids: string[] = [];
  try {
    for (const record of parseWorktreeList(await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: worktree }))) {
      ids.push(record.ref ? record.ref.replace(/^refs\/heads\//, '') : basename(record.dir));
    }
  } catch {
    // No list: only agents with work are known.
  }
  return ids;
}

/**
 * What `check` accepts (a demanding user's reading): PATH names a file, existing or about to be
 * created (then the answer says it is new; `--lines` needs an existing file); a directory or an
 * empty path is an error; `--agent` must name an agent of the scan or a worktree, never a new one.
 */
export async function runCheck(io: Io, target: string, flags: CheckFlags): Promise<CheckResult> {
  refuseEmpty(flags);
  if (target.trim() === '') throw new CliError('check needs the path of a file, got an empty one.');
  if (flags.agent !== undefined && flags.agent.trim() === '') throw new CliError('--agent needs an agent id, got an empty one.');
  const absolute = resolve(io.cwd, target);
  const lines = flags.lines ? parseLines(flags.lines) : undefined;
  const exists = existsSync(absolute);
  if (exists && statSync(absolute).isDirectory()) throw new CliError(`${target} is a directory; check takes the file about to be edited.`);
  if (!exists && lines) throw new CliError(`${target} does not exist, so it has no lines ${flags.lines} yet; leave out --lines to check creating it.`);
  if (absolute.split(sep).includes('.git')) throw new CliError(`${target} is inside a git directory, not a work tree.`);
  const { worktree, path } = await worktreeOf(absolute);
  if (path === '' || path.startsWith('..')) throw new CliError(`${target} is outside the work tree ${worktree}.`);
  const options = scannerOptions({ ...flags, repo: flags.repo && flags.repo !== '.' ? flags.repo : worktree });
  const entry = lines ? { path, lines } : { path };
  const probe = flags.agent ? { agent: flags.agent, intent: [entry] } : { worktree, intent: [entry] };
  const worktreeIds = flags.agent ? await worktreeAgentIds(worktree) : [];
  const bar = createProgressBar(io.stderr);
  const result = await scanRepository({ ...options, onProgress: (p) => bar.update(p) }, { probe }).finally(() => bar.done());
  if (flags.agent && !worktreeIds.includes(flags.agent) && !result.agents.some((a) => a.id === flags.agent && a.meta?.source !== undefined)) {
    // The scanner made the probe a new agent (no source read it): a typo, not an agent.
    const known = [...new Set([...result.agents.map((a) => a.id).filter((id) => id !== flags.agent), ...worktreeIds])].sort();
    throw new CliError(`No agent "${flags.agent}" in this repository; known agents: ${known.length > 0 ? known.join(', ') : 'none'}.`);
  }
  const agentId = result.agents.find((a) => (flags.agent ? a.id === flags.agent : a.worktree === worktree))?.id ?? flags.agent ?? basename(worktree);
  const advisories = new Map(result.advisories.map((a) => [`${a.a}\u0000${a.b}`, a]));
  const agents = new Map(result.agents.map((a) => [a.id, a]));
  const conflicts: CheckConflict[] = [];
  for (const link of result.links) {
    if (link.a !== agentId && link.b !== agentId) continue;
    if (link.level === 'clear') continue;
    const otherId = link.a === agentId ? link.b : link.a;
    const other = agents.get(otherId);
    const advisory = advisories.get(`${link.a}\u0000${link.b}`);
    const hunks = other ? await otherSideHunks(other, link.evidence, link.a === agentId ? 'b' : 'a') : [];
    conflicts.push({
      with: otherId, level: link.level, risk: link.risk, channels: link.channels,
      ...(advisory?.steer ? { steer: advisory.steer } : {}), ...(advisory?.hold ? { hold: advisory.hold } : {}),
      evidence: link.evidence, hunks,
    });
  }
  conflicts.sort((x, y) => RANK[y.level] - RANK[x.level] || y.risk - x.risk);
  const level = conflicts.reduce<Level>((worst, c) => (RANK[c.level] > RANK[worst] ? c.level : worst), 'clear');
  return { path, ...(exists ? {} : { new: true as const }), ...(lines ? { lines } : {}), agent: agentId, level, conflicts, problems: result.problems };
}

/** Shown escaped, never obeyed: ids, paths and the other side's lines may hold escape sequences (a hunk keeps its line breaks). */
function printableCheck(answer: CheckResult): CheckResult {
  const conflicts = answer.conflicts.map((c) => ({
    ...printableDeep({ ...c, hunks: [] }),
    hunks: c.hunks.map((h) => ({ ...printableDeep(h), text: h.text.split('\n').map(printable).join('\n') })),
  }));
  return { ...printableDeep({ ...answer, conflicts: [] }), conflicts };
}

export function checkCommand(io: Io): Command {
  const command = new Command('check')
    .description('would editing PATH (these lines) now collide with another agent? exit 0 clear, 2 traffic or resolution, 1 error')
    .argument('<path>', 'file about to be edited (relative to the current directory)')
    .option('--lines <A-B>', 'the lines about to change, in the file as it is now (default: the whole file)')
    .option('--agent <id>', 'the agent about to edit (default: the agent whose worktree holds PATH)')
    .option('--json', 'print the answer as JSON, with the other side\'s diff hunks');
  addRepoOptions(command).action(async (target: string, flags: CheckFlags) => {
    const answer = await runCheck(io, target, flags);
    // The code first: a reader that goes away mid-output (`| head`) must not turn an advisory into 0.
    io.exitCode(answer.level === 'traffic' || answer.level === 'resolution' ? ExitCode.ADVISORY : ExitCode.OK);
    if (flags.json) io.stdout.write(JSON.stringify(answer, null, 2) + '\n');
    else {
      const result = printableCheck(answer);
      const style = createStyle(colorWanted(io.stdout, io.env));
      const what = `${result.path}${result.lines ? `:${formatRange(result.lines)}` : ''}${result.new ? ' (new file)' : ''}`;
      if (result.new) io.stdout.write(style.dim(`${result.path} does not exist yet: checking ${result.agent} creating it.\n`));
      if (result.conflicts.length === 0) io.stdout.write(`${style.level('clear', 'CLEAR')}  ${what}: no other agent is close.\n`);
      for (const c of result.conflicts) {
        io.stdout.write(`${style.level(c.level, c.level.toUpperCase())}  ${what} × ${c.with}  risk ${c.risk.toFixed(2)}  ${formatChannels(c)}\n`);
        for (const e of c.evidence.slice(0, 3)) io.stdout.write(`  ${style.dim('·')} ${formatEvidence(e)}\n`);
        if (c.steer && c.hold) io.stdout.write(`  ${style.dim('→')} ${c.steer} steers away, ${c.hold} holds course\n`);
        for (const h of c.hunks.slice(0, 3)) io.stdout.write(`  ${style.dim(`${c.with}'s change to ${h.path}:`)}\n${h.text.split('\n').map((l) => `    ${l}`).join('\n')}\n`);
      }
      // Say which channels could not judge a hypothetical edit (the merge channel).
      for (const p of result.problems) if (p.code === 'PROBE_WITHOUT_CHANNEL') io.stdout.write(`${style.dim(`note: ${p.message}`)}\n`);
    }
  });
  return command;
}
