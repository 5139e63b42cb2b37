/**
 * The one check logic (`airspace check`, the MCP server's `check_edit`), used in-process and by
 * the engine: validate the request, find the asking agent's worktree, probe the scanner with the
 * edit about to happen, and answer with the conflicts of that agent — levels, evidence, right of
 * way and the other side's diff hunks. Shape documented in docs/agents.md.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import {
  levelRank,
  pairKey,
  type Agent,
  type Evidence,
  type Forecast,
  type Level,
  type Link,
  type Range,
  type ScanResult,
} from '@airspace/core';
import { decodePath, END_OF_OPTIONS, fsName, GitSourceError, gitOperand, parseWorktreeList, runGit } from '@airspace/git';
import type { Probe, ScanExtra, ScannerOptions } from '@airspace/scanner';
import { InputError } from './errors.js';

/** What a front end asks: the flags of `airspace check`, already free of empty values. */
export interface CheckRequest {
  /** The directory PATH is relative to. */
  readonly cwd: string;
  readonly target: string;
  /** `12` or `12-18`, as typed; several ranges as `12-18,40-41` (each edit of a call judged by its own lines). */
  readonly lines?: string;
  readonly agent?: string;
  readonly repo?: string;
  readonly base?: string;
  readonly source?: readonly string[];
  readonly config?: string;
  readonly calibration?: string;
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
  /** The pair's calibrated probability of colliding (`Link.probability`), when the scan gave one. */
  readonly probability?: number;
  readonly channels: Link['channels'];
  readonly steer?: string;
  readonly hold?: string;
  readonly evidence: readonly Evidence[];
  readonly hunks: readonly DiffHunk[];
  /** The asking agent acknowledged this pair's advisory (its acknowledgement is in the pair's trail): no need to again. */
  readonly acknowledged?: true;
  /** The other agent's declared intent (MCP `declare_intent`), when it has one: what it said it will change, and its note. */
  readonly declared?: {
    readonly paths: readonly string[];
    readonly symbols: readonly string[];
    readonly note?: string;
    readonly expiresAt: string;
  };
}

/** A pair of the asking agent with no advisory that is forecast to collide later (`Link.forecast`). */
export interface CheckForecast extends Pick<Forecast, 'probability' | 'signals' | 'evidence'> {
  readonly with: string;
}

export interface CheckResult {
  readonly path: string;
  /** The file does not exist yet: the check is about creating it. */
  readonly new?: true;
  readonly lines?: Range;
  /** Every range checked, when there were several (`lines` is then the first). */
  readonly ranges?: readonly Range[];
  readonly agent: string;
  /** The worst level over all other agents. */
  readonly level: Level;
  readonly conflicts: readonly CheckConflict[];
  /** Clear pairs forecast to collide later, most likely first; absent when there are none. */
  readonly forecasts?: readonly CheckForecast[];
  readonly problems: ScanResult['problems'];
}

/** A validated check: what to scan, and how. */
export interface PreparedCheck {
  readonly request: CheckRequest;
  readonly worktree: string;
  readonly path: string;
  readonly exists: boolean;
  readonly lines?: Range;
  readonly ranges?: readonly Range[];
  readonly probe: Probe;
  readonly options: ScannerOptions;
  /** Worktree agent ids (branch or folder), for telling a typo from an agent with no work yet. */
  readonly worktreeIds: readonly string[];
}

/** Scans with these options and extra (a cold scan, or the engine's warm scanner). */
export type CheckScan = (options: ScannerOptions, extra: ScanExtra) => Promise<ScanResult>;

/** `12` or `12-18` as a range; `given` names where the text came from in an error. */
export function parseLines(text: string, given = `--lines ${text}`): Range {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  if (!m) throw new InputError(`--lines must look like 12 or 12-18, got "${text}".`);
  const start = Number(m[1]);
  const end = m[2] === undefined ? start : Number(m[2]);
  if (start < 1 || end < start) throw new InputError(`${given}: lines are 1-based and the end may not come before the start.`);
  if (!Number.isSafeInteger(end)) throw new InputError(`${given}: no file has that many lines.`);
  return [start, end];
}

/** `12-18,40-41`: each range of a list (one range is `parseLines`). */
export function parseLineList(text: string, given = `--lines ${text}`): Range[] {
  return text.split(',').map((part) => parseLines(part, given));
}

/** The number of lines of a regular file (a last line without its newline counts); undefined for anything else. */
function lineCount(file: string | Buffer): number | undefined {
  try {
    if (!statSync(file).isFile()) return undefined;
    const text = readFileSync(file);
    let count = 0;
    for (let at = text.indexOf(10); at !== -1; at = text.indexOf(10, at + 1)) count++;
    return text.length > 0 && text[text.length - 1] !== 10 ? count + 1 : count;
  } catch {
    return undefined;
  }
}

/**
 * `src/a.ts:12-18` (or `:12`), the form Airspace's own answers and most tools print, read as the
 * file and its lines — unless a file of that very name exists. Undefined when `target` has no
 * such suffix.
 */
export function splitTargetLines(target: string, cwd: string): { readonly target: string; readonly lines: string } | undefined {
  const m = /^(.+):(\d+(?:-\d+)?)$/.exec(target);
  if (!m || existsSync(resolve(cwd, target))) return undefined;
  return { target: m[1]!, lines: m[2]! };
}

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
      current = {
        base: range(Number(m[1]), m[2] === undefined ? 1 : Number(m[2])),
        cur: range(Number(m[3]), m[4] === undefined ? 1 : Number(m[4])),
        lines: [line],
      };
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
export async function otherSideHunks(other: Agent, evidence: readonly Evidence[], side: 'a' | 'b', cwd: string): Promise<DiffHunk[]> {
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
      if (other.worktree && other.base)
        diff = await runGit(['diff', '--no-color', '--no-ext-diff', '-U3', END_OF_OPTIONS, gitOperand(other.base, 'base'), '--', path], {
          cwd: other.worktree,
        });
      else if (other.base && head && other.worktree === undefined)
        diff = await runGit(
          [
            'diff',
            '--no-color',
            '--no-ext-diff',
            '-U3',
            END_OF_OPTIONS,
            gitOperand(other.base, 'base'),
            gitOperand(head, 'commit'),
            '--',
            path,
          ],
          { cwd },
        );
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

/**
 * `absolute` with each part that came from a name that is not UTF-8 found again on disk. Node
 * decodes such a command-line argument lossily (U+FFFD for each bad byte), so the file would look
 * missing: a part holding U+FFFD that does not exist is matched against its directory's names read
 * as bytes, and given back as git's names are (`decodePath`). A match of several is an error.
 */
function faithfulName(absolute: string, target: string): string {
  if (!absolute.includes('\ufffd') || existsSync(absolute)) return absolute;
  let at: string = sep;
  for (const part of absolute.split(sep).filter(Boolean)) {
    const next = at === sep ? `${sep}${part}` : `${at}${sep}${part}`;
    if (!part.includes('\ufffd') || existsSync(fsName(next))) {
      at = next;
      continue;
    }
    let names: Buffer[];
    try {
      names = readdirSync(fsName(at), { encoding: 'buffer' });
    } catch {
      return absolute;
    }
    const matches = names.filter((n) => n.toString('utf8') === part);
    if (matches.length > 1)
      throw new InputError(
        `${target} matches ${matches.length} files whose names are not UTF-8 (${matches.map((m) => JSON.stringify(decodePath(m))).join(', ')}); name the file with a glob or rename it.`,
      );
    if (matches.length === 0) return absolute;
    at = `${at === sep ? '' : at}${sep}${decodePath(matches[0]!)}`;
  }
  return at;
}

/** The work tree holding `absolute` (which may not exist yet: a file about to be created). */
export async function worktreeOf(absolute: string): Promise<{ worktree: string; path: string }> {
  let dir = absolute;
  while (!(existsSync(fsName(dir)) && statSync(fsName(dir)).isDirectory())) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  let worktree: string;
  try {
    worktree = (await runGit(['rev-parse', '--show-toplevel'], { cwd: dir })).trim();
  } catch (error) {
    if (error instanceof GitSourceError) throw error; // git not found
    throw new InputError(`${absolute} is not inside a git repository.`);
  }
  // git prints the real path; compare like with like.
  const real = join(decodePath(realpathSync(fsName(dir), { encoding: 'buffer' })), relative(dir, absolute));
  return { worktree, path: relative(worktree, real).split(sep).join('/') };
}

/** Ids an agent about to start has before it has any work: its worktree's branch (or folder, when detached). */
export async function worktreeAgentIds(worktree: string): Promise<string[]> {
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

/** Scanner options of a check: the flags, and the repository the checked file is in unless `--repo` says otherwise. */
export function checkScannerOptions(request: CheckRequest, worktree: string): ScannerOptions {
  const repo = request.repo && request.repo !== '.' ? resolve(request.cwd, request.repo) : worktree;
  return {
    repo,
    ...(request.base ? { base: request.base } : {}),
    ...(request.source && request.source.length > 0 ? { sources: [...request.source] } : {}),
    ...(request.config ? { config: resolve(request.cwd, request.config) } : {}),
    ...(request.calibration ? { calibration: resolve(request.cwd, request.calibration) } : {}),
  };
}

/**
 * What `check` accepts (a demanding user's reading): PATH names a file, existing or about to be
 * created (then the answer says it is new; `--lines` needs an existing file); a directory or an
 * empty path is an error; `--agent` must name an agent of the scan or a worktree, never a new one.
 */
export async function prepareCheck(request: CheckRequest): Promise<PreparedCheck> {
  if (request.target.trim() === '') throw new InputError('check needs the path of a file, got an empty one.');
  if (request.agent !== undefined && request.agent.trim() === '') throw new InputError('--agent needs an agent id, got an empty one.');
  const suffixed = splitTargetLines(request.target, request.cwd);
  if (suffixed && request.lines !== undefined)
    throw new InputError(`${request.target} names its lines, and lines ${request.lines} were given too; give them once.`);
  const target = suffixed?.target ?? request.target;
  const linesText = suffixed?.lines ?? request.lines;
  const absolute = faithfulName(resolve(request.cwd, target), target);
  const ranges = linesText ? parseLineList(linesText, suffixed ? request.target : `--lines ${linesText}`) : undefined;
  const lines = ranges?.[0];
  const exists = existsSync(fsName(absolute));
  if (exists && statSync(fsName(absolute)).isDirectory())
    throw new InputError(`${target} is a directory; check takes the file about to be edited.`);
  if (!exists && lines)
    throw new InputError(
      `${target} does not exist, so it has no lines ${linesText} yet; ${suffixed ? `give ${target} alone` : 'leave out --lines'} to check creating it.`,
    );
  if (absolute.split(sep).includes('.git')) throw new InputError(`${target} is inside a git directory, not a work tree.`);
  if (ranges) {
    // Lines past the end of the file are no lines of it: said, never checked as if they were.
    const count = lineCount(fsName(absolute));
    if (count !== undefined && ranges.some((r) => r[1] > count))
      throw new InputError(
        `${suffixed ? request.target : `--lines ${linesText}`}: ${target} has ${count} line${count === 1 ? '' : 's'}; give lines within 1-${Math.max(count, 1)}${count === 0 ? ' (or none: it is empty)' : ''}.`,
      );
  }
  const { worktree, path } = await worktreeOf(absolute);
  if (path === '' || path.startsWith('..')) throw new InputError(`${target} is outside the work tree ${worktree}.`);
  const entries = ranges ? ranges.map((r) => ({ path, lines: r })) : [{ path }];
  const probe: Probe = request.agent ? { agent: request.agent, intent: entries } : { worktree, intent: entries };
  const worktreeIds = request.agent ? await worktreeAgentIds(worktree) : [];
  return {
    request,
    worktree,
    path,
    exists,
    ...(lines ? { lines } : {}),
    ...(ranges && ranges.length > 1 ? { ranges } : {}),
    probe,
    options: checkScannerOptions(request, worktree),
    worktreeIds,
  };
}

/** The answer of a prepared check from the probed scan's result. */
export async function answerCheck(prepared: PreparedCheck, result: ScanResult): Promise<CheckResult> {
  const { request, worktree, path, exists, lines, ranges, worktreeIds } = prepared;
  if (
    request.agent &&
    !worktreeIds.includes(request.agent) &&
    !result.agents.some((a) => a.id === request.agent && a.meta?.source !== undefined)
  ) {
    // The scanner made the probe a new agent (no source read it): a typo, not an agent.
    const known = [...new Set([...result.agents.map((a) => a.id).filter((id) => id !== request.agent), ...worktreeIds])].sort();
    throw new InputError(`No agent "${request.agent}" in this repository; known agents: ${known.length > 0 ? known.join(', ') : 'none'}.`);
  }
  const agentId =
    result.agents.find((a) => (request.agent ? a.id === request.agent : a.worktree === worktree))?.id ??
    request.agent ??
    basename(worktree);
  const conflicts = await conflictsOf(result, agentId, request.cwd);
  const level = conflicts.reduce<Level>((worst, c) => (levelRank(c.level) > levelRank(worst) ? c.level : worst), 'clear');
  const forecasts = forecastsOf(result, agentId);
  return {
    path,
    ...(exists ? {} : { new: true as const }),
    ...(lines ? { lines } : {}),
    ...(ranges ? { ranges } : {}),
    agent: agentId,
    level,
    conflicts,
    ...(forecasts.length > 0 ? { forecasts } : {}),
    problems: result.problems,
  };
}

/** The forecasts of `agentId`'s pairs, most likely first. */
export function forecastsOf(result: ScanResult, agentId: string): CheckForecast[] {
  return result.links
    .filter((l) => l.forecast && (l.a === agentId || l.b === agentId))
    .map((l) => ({
      with: l.a === agentId ? l.b : l.a,
      probability: l.forecast!.probability,
      signals: l.forecast!.signals,
      evidence: l.forecast!.evidence,
    }))
    .sort((x, y) => y.probability - x.probability || (x.with < y.with ? -1 : 1));
}

/** Every pair of `agentId` above clear, worst first, with right of way and the other side's hunks. */
export async function conflictsOf(result: ScanResult, agentId: string, cwd: string): Promise<CheckConflict[]> {
  const advisories = new Map(result.advisories.map((a) => [pairKey(a.a, a.b), a]));
  const agents = new Map(result.agents.map((a) => [a.id, a]));
  const conflicts: CheckConflict[] = [];
  for (const link of result.links) {
    if (link.a !== agentId && link.b !== agentId) continue;
    if (link.level === 'clear') continue;
    const otherId = link.a === agentId ? link.b : link.a;
    const other = agents.get(otherId);
    const advisory = advisories.get(pairKey(link.a, link.b));
    const hunks = other ? await otherSideHunks(other, link.evidence, link.a === agentId ? 'b' : 'a', cwd) : [];
    conflicts.push({
      with: otherId,
      level: link.level,
      risk: link.risk,
      ...(link.probability !== undefined ? { probability: link.probability } : {}),
      channels: link.channels,
      ...(advisory?.steer ? { steer: advisory.steer } : {}),
      ...(advisory?.hold ? { hold: advisory.hold } : {}),
      evidence: link.evidence,
      hunks,
    });
  }
  conflicts.sort((x, y) => levelRank(y.level) - levelRank(x.level) || y.risk - x.risk);
  return conflicts;
}

/** One check, end to end, through `scan` (a cold scanner in-process, or the engine's warm one). */
export async function runCheck(request: CheckRequest, scan: CheckScan, extra: Omit<ScanExtra, 'probe'> = {}): Promise<CheckResult> {
  const prepared = await prepareCheck(request);
  const result = await scan(prepared.options, { ...extra, probe: prepared.probe });
  return answerCheck(prepared, result);
}
