/**
 * What the engine answers, as one object used both by the resident process and in-process (the
 * fallback of every front end): checks, advisories of one agent, declared intent,
 * acknowledgements, the whole scan. Resident, it keeps one warm scanner per configuration and
 * brings it up to date before each answer (freshness.ts); in-process, each answer is a cold scan.
 * Same function, same answer.
 */
import { basename, dirname, join, relative, resolve, sep, posix, isAbsolute } from 'node:path';
import { realpathSync } from 'node:fs';
import { findCommonDir, nearestDirectory } from './paths.js';
import { parseSymbolId, triggersFor, type Agent, type ScanResult, type Trigger } from '@airspace/core';
import { configRootFor, findConfig } from '@airspace/config';
import { unsafeRepoPath, worktreeAgentId, worktreeCandidates, type EventCounts } from '@airspace/git';
import {
  createScanner,
  mergeIntent,
  scanRepository,
  watchConfigFiles,
  type Overrides,
  type ScanExtra,
  type Scanner,
  type ScannerOptions,
  FIRST_ANSWER_WAIT_MS,
  WARMING_UP,
  checkInBackground,
  type BackgroundChecks,
} from '@airspace/scanner';
import { acknowledgePair, pairAcknowledged } from '@airspace/trail';
import { conflictsOf, forecastsOf, runCheck, worktreeOf, type CheckRequest, type CheckResult } from './check.js';
import { InputError } from './errors.js';
import { configLoadsWithin, configWaitMs } from './bounded.js';
import { nextAction } from './advice.js';
import type {
  AcknowledgeRequest,
  AcknowledgeResult,
  AdvisoriesResult,
  Advisory,
  AgentRef,
  DeclareIntentRequest,
  DeclareIntentResult,
  EditorScanRequest,
  ScanRequest,
} from './answers.js';

export type {
  AcknowledgeRequest,
  AcknowledgeResult,
  AdvisoriesResult,
  Advisory,
  AgentRef,
  DeclareIntentRequest,
  DeclareIntentResult,
  EditorScanRequest,
  ScanRequest,
} from './answers.js';
import { bufferDigests, buffersDelta, freshStamp, stampDelta, withBuffers, type RepositoryStamp, type StampDelta } from './freshness.js';
import { DEFAULT_INTENT_TTL_MS, intentMap, intentsProblems, readIntents, writeIntent, type DeclaredIntent } from './intents.js';

export interface EngineCoreOptions {
  /** The repository's git common directory. */
  readonly commonDir: string;
  /** Keep scanners warm between answers (the resident engine); otherwise every answer is a cold scan. */
  readonly resident: boolean;
  /** Where acknowledgements go (default `<common dir>/airspace/trails`, as the language server's). */
  readonly trailDir?: string;
  readonly now?: () => number;
  /**
   * File events, when the process follows them: a stamp taken while none arrived since the
   * last one, and every worktree is watched, is the same stamp; git is not asked again. With
   * `counts` (by worktree), only the worktrees that had events are asked again; with `events`
   * alone, any event asks every worktree.
   */
  readonly changes?: {
    readonly events: () => number;
    readonly counts?: () => EventCounts;
    /** With `counts`: a worktree's event paths since a count (only they are read again, when known). */
    readonly pathsSince?: (worktree: string, count: number) => readonly string[] | undefined;
    readonly watching: () => readonly string[];
  };
  /** Progress of cold scans (the CLI's progress bar). */
  readonly onProgress?: ScannerOptions['onProgress'];
  /**
   * Warm scanners kept at most (default 4): every other set of flags (`scan --base X`, an
   * editor's settings) gets one, and the least recently used is let go beyond this.
   */
  readonly maxWarm?: number;
  /** How long a config module may take to load before a question fails (ms; default `configWaitMs()`). */
  readonly configTimeoutMs?: number;
  /**
   * Resident: how long a check waits for the index before answering in part (ms; default
   * `firstAnswerWaitMs()`); `false` waits for the full answer.
   */
  readonly firstAnswerMs?: number | false;
  /**
   * Resident: called when a type-check of a pair's merge ended in the background (its result is
   * read by the next scan: the resident process scans again and tells its subscribers).
   */
  readonly onTypecheck?: () => void;
  /** Resident: type-checks run in the background (default true); false checks inside each scan, as in-process. */
  readonly backgroundTypecheck?: boolean;
  /** Resident: the compiler's thread of the background type-checks (default: its own script); tests hold it. */
  readonly typecheckThread?: BackgroundChecks['thread'];
}

/**
 * How long a resident check waits for the index before answering in part: `AIRSPACE_FIRST_ANSWER_MS`
 * (milliseconds, or `off` to always wait for the full answer), else `FIRST_ANSWER_WAIT_MS`.
 */
export function firstAnswerWaitMs(env: NodeJS.ProcessEnv = process.env): number | false {
  const given = env.AIRSPACE_FIRST_ANSWER_MS?.trim();
  if (given === 'off') return false;
  const ms = Number(given);
  return given && Number.isFinite(ms) && ms >= 0 ? ms : FIRST_ANSWER_WAIT_MS;
}

interface WarmScanner {
  scanner: Scanner;
  readonly options: ScannerOptions;
  /** The config files this scanner read: one created, edited or removed starts a new scanner. */
  readonly config: Promise<{ changed(): boolean } | undefined>;
  /** The editor buffers the scanner's agents were last read with: worktree → path → digest. */
  buffers: Map<string, Map<string, string>>;
  /** File events counted when `stamp` was taken. */
  stampEvents?: EventCounts | undefined;
  /** Answers for the current stamp, by request (a repeated question with nothing changed). */
  answers: Map<string, Promise<ScanResult>>;
  stamp?: RepositoryStamp | undefined;
  /** Scans of one scanner run one at a time. */
  queue: Promise<unknown>;
  lastScan?: { at: number; ms: number; kind: 'full' | 'patch' | 'fresh' };
  agents: readonly string[];
  /** The ids that declared intent in the scanner's last scan. */
  declaring?: ReadonlySet<string>;
  /** Its config loaded within the limit (checked before its first scan, and after the config changed). */
  configLoaded?: boolean;
}

/**
 * What an answer is kept under: the question and the buffers. How long it may wait for the index
 * is not part of it: a full answer (the only kind kept) is the same either way, so the editor's
 * scan after a refresh finds the refresh's answer.
 */
function answerKey(extra: ScanExtra, buffers: ReadonlyMap<string, ReadonlyMap<string, string>>): string {
  const { firstAnswerMs: _wait, ...asked } = extra;
  return JSON.stringify([asked, [...buffers].map(([w, m]) => [w, [...m]])]);
}

export class EngineCore {
  private readonly scanners = new Map<string, WarmScanner>();
  private readonly now: () => number;
  requests = 0;
  /**
   * Counts scans that read something again (not answered as fresh): whoever asks, an agent's
   * check included, so the resident process tells its subscribers whenever the count moved since
   * it last told them, not only when its own refresh found something.
   */
  generation = 0;
  /**
   * Stamps read from git in full, stamps taken from file events (nothing changed), stamps that
   * read only the worktrees with file events, the `git status` runs of all of them, and worktrees
   * whose changed files' stat moved with no file event (late, or missed): those asked git.
   */
  readonly stamps = { git: 0, events: 0, worktrees: 0, statuses: 0, missed: 0 };

  /** Ends the background type-checks of a resident core. */
  private readonly stopTypechecks?: () => void;

  constructor(readonly options: EngineCoreOptions) {
    this.now = options.now ?? Date.now;
    // Resident, no answer waits for the compiler: a pair's merge is checked in the background (in
    // the compiler's thread), "still being checked" meanwhile (the typecheck channel's
    // `TYPECHECK_PENDING`). A check starts once the scanners' index work has settled: on a
    // repository never scanned, the index is built first, not on cores the compiler takes.
    if (options.resident && options.backgroundTypecheck !== false)
      this.stopTypechecks = checkInBackground({
        onChecked: () => this.typecheckEnded(),
        ready: () => this.indexesSettled(),
        ...(options.typecheckThread ? { thread: options.typecheckThread } : {}),
      });
  }

  /** Resolves once every warm scanner's index work has settled. */
  private async indexesSettled(): Promise<void> {
    await Promise.all([...this.scanners.values()].map((w) => w.scanner.settled?.()));
  }

  /** A background type-check ended: answers given before it are stale, and whoever follows is told. */
  private typecheckEnded(): void {
    for (const warm of this.scanners.values()) warm.answers.clear();
    this.generation++;
    this.options.onTypecheck?.();
  }

  /** The main worktree, when the common directory is a `.git` inside one. */
  private mainWorktree(): string | undefined {
    return basename(this.options.commonDir) === '.git' ? dirname(this.options.commonDir) : undefined;
  }

  private intent(): ScanExtra['intent'] {
    if (!this.options.commonDir) return undefined;
    return intentMap(readIntents(this.options.commonDir, this.now()));
  }

  /**
   * One scan with these options: cold, or through the warm scanner for them, brought up to date
   * first. `overrides` are an editor's unsaved buffers (worktree → repository-relative path →
   * text): the paths whose buffer came, changed or went since the scanner's last read are read
   * again, so a scan without them (a check) reads those files from disk as a cold scan does.
   */
  async scan(options: ScannerOptions, extra: ScanExtra = {}, overrides?: Overrides): Promise<ScanResult> {
    const result = await this.scanWarmOrCold(options, extra, overrides);
    // A damaged intents file lost declarations: every answer says so until it is dealt with.
    const damaged = intentsProblems(this.options.commonDir);
    return damaged.length > 0 ? { ...result, problems: [...result.problems, ...damaged] } : result;
  }

  private async scanWarmOrCold(options: ScannerOptions, extra: ScanExtra, overrides?: Overrides): Promise<ScanResult> {
    if (!this.options.resident)
      return scanRepository(
        {
          ...options,
          ...(overrides ? { overrides } : {}),
          ...(this.options.onProgress ? { onProgress: this.options.onProgress } : {}),
        },
        extra,
      );
    const repo = resolve(options.repo ?? '.');
    const entry = this.warmScannerFor(repo, options);
    const run = entry.queue.then(() => this.scanWarm(entry, repo, options, extra, overrides));
    entry.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The warm scanner for these options, made when there is none. One per configuration: the
   * config that applies to the asking worktree, and flags. Worktrees without a config of their
   * own share the main worktree's scanner (whether it has a config or none): an editor's scans
   * and every agent's checks keep one scanner warm.
   */
  private warmScannerFor(repo: string, options: ScannerOptions): WarmScanner {
    const main = this.mainWorktree();
    let root = configRootFor(repo, main);
    if (main !== undefined && findConfig(root) === undefined) root = main;
    const scannerOptions = options.config === undefined ? { ...options, repo: root } : options;
    const key = JSON.stringify({
      root,
      base: options.base,
      sources: options.sources,
      config: options.config,
      calibration: options.calibration,
      weights: options.weights,
      thresholds: options.thresholds,
    });
    let warm = this.scanners.get(key);
    if (warm) {
      // Most recently used last: the first is the one let go when too many are warm.
      this.scanners.delete(key);
    } else {
      warm = {
        scanner: createScanner(scannerOptions),
        options: scannerOptions,
        config: watchConfigFiles(scannerOptions).catch(() => undefined),
        buffers: new Map(),
        answers: new Map(),
        queue: Promise.resolve(),
        agents: [],
      };
    }
    this.scanners.set(key, warm);
    this.letGoBeyond(this.options.maxWarm ?? 4);
    return warm;
  }

  /** One scan through a warm scanner (its turn in the queue): brought up to date, then asked. */
  private async scanWarm(
    entry: WarmScanner,
    repo: string,
    options: ScannerOptions,
    extra: ScanExtra,
    overrides?: Overrides,
  ): Promise<ScanResult> {
    const started = this.now();
    await this.configReady(entry);
    const events = this.eventCounts();
    // File events vouch for the stamp of each worktree that had none; the stat of each changed path checks them.
    const watched = this.options.changes?.watching() ?? [];
    const pathsSince = this.options.changes?.pathsSince;
    const fresh = await freshStamp(repo, entry.stamp, {
      then: entry.stampEvents,
      now: events,
      watched,
      ...(pathsSince ? { pathsSince } : {}),
    });
    const stamp = fresh.stamp;
    this.stamps[fresh.full ? 'git' : fresh.read === 0 ? 'events' : 'worktrees']++;
    this.stamps.statuses += fresh.read;
    this.stamps.missed += fresh.missed;
    const buffers = bufferDigests(overrides, [...stamp.worktrees.keys()]);
    const delta = withBuffers(stampDelta(entry.stamp, stamp), buffersDelta(entry.buffers, buffers));
    // Sources other than worktrees (branches, observations) are read in full every time.
    const custom = options.sources !== undefined && options.sources.some((s) => s !== 'worktrees');
    const declaring = new Set(Object.keys(extra.intent ?? {}));
    const { update, kind } = custom ? { update: {}, kind: 'full' as const } : await this.updateOf(entry, repo, delta, declaring);
    if (kind !== 'fresh' || custom) entry.answers.clear();
    // Nothing changed since the stamp: the event count of now vouches for it from here on.
    else entry.stampEvents = events;
    const key = answerKey(extra, buffers);
    const known = entry.answers.get(key);
    if (known) return known;
    try {
      const answer = entry.scanner.scan(overrides ?? {}, { ...extra, ...update });
      const result = await answer;
      entry.stamp = stamp;
      entry.buffers = buffers;
      entry.stampEvents = events;
      // A partial answer (the index still warming up, a pair still being checked) is never
      // repeated: the next one may be full.
      if (!custom && !partialAnswer(result)) entry.answers.set(key, answer);
      entry.lastScan = { at: this.now(), ms: this.now() - started, kind };
      if (kind !== 'fresh' || custom) this.generation++;
      entry.agents = result.agents.map((a) => a.id);
      entry.declaring = declaring;
      return result;
    } catch (error) {
      entry.stamp = undefined; // Unsure what the scanner holds now: read everything next time.
      entry.answers.clear();
      throw error;
    }
  }

  /**
   * A config file the scanner read changed: a new scanner, which reads everything. A config
   * module that never finishes loading fails this question, not every later one.
   */
  private async configReady(entry: WarmScanner): Promise<void> {
    if ((await entry.config)?.changed()) {
      const old = entry.scanner;
      entry.scanner = createScanner(entry.options);
      entry.stamp = undefined;
      entry.answers.clear();
      entry.configLoaded = false;
      void old.dispose().catch(() => undefined);
    }
    if (!entry.configLoaded) {
      await configLoadsWithin(entry.options, this.options.configTimeoutMs ?? configWaitMs());
      entry.configLoaded = true;
    }
  }

  /**
   * What the warm scanner reads again for this change of the repository (worktree sources only):
   * nothing (`fresh`), the changed worktrees and paths (`patch`), or everything (`full`).
   */
  private async updateOf(
    entry: WarmScanner,
    repo: string,
    delta: StampDelta,
    declaring: ReadonlySet<string>,
  ): Promise<{ update: ScanExtra; kind: 'full' | 'patch' | 'fresh' }> {
    let update: ScanExtra = {};
    let kind: 'full' | 'patch' | 'fresh' = 'full';
    if (delta.kind === 'same') {
      update = { only: [] };
      kind = 'fresh';
    } else if (delta.kind === 'worktrees') {
      const changedPaths: Record<string, readonly string[]> = {};
      for (const [dir, paths] of delta.changed) if (paths !== 'all') changedPaths[dir] = paths;
      update = { only: [...delta.changed.keys()], changedPaths };
      kind = 'patch';
    }
    // An agent that starts or stops declaring intent joins or leaves the scan before (after) any
    // change of its own: its worktree is read again (a worktree without changes is an agent only
    // while it declares).
    const flipped = entry.declaring
      ? [...declaring, ...entry.declaring].filter((id) => declaring.has(id) !== entry.declaring!.has(id))
      : [];
    if (kind !== 'full' && flipped.length > 0) {
      const { candidates } = await worktreeCandidates(repo);
      const dirs = candidates.filter((c) => flipped.includes(c.id) && c.worktree !== undefined).map((c) => c.worktree!);
      if (dirs.length > 0) {
        update = { ...update, only: [...new Set([...(update.only ?? []), ...dirs])] };
        kind = 'patch';
      }
    }
    return { update, kind };
  }

  /** Disposes the least recently used warm scanners beyond `max`, each after the scans queued on it. */
  private letGoBeyond(max: number): void {
    for (const [key, old] of this.scanners) {
      if (this.scanners.size <= Math.max(1, max)) break;
      this.scanners.delete(key);
      void old.queue.then(() => old.scanner.dispose()).catch(() => undefined);
    }
  }

  /** File events seen so far, by worktree where the process counts them so (else any event counts for all). */
  private eventCounts(): EventCounts | undefined {
    const changes = this.options.changes;
    if (!changes) return undefined;
    return changes.counts?.() ?? { all: changes.events(), worktrees: new Map() };
  }

  /**
   * Brings every warm scanner up to date (after file events), so that the next question finds it
   * fresh. It waits for an index still warming up no longer than a check does: a check queued
   * behind it must still answer within a moment.
   */
  async refresh(): Promise<void> {
    const intent = this.intent();
    const extra = { ...(intent ? { intent } : {}), ...this.firstAnswer() };
    for (const warm of [...this.scanners.values()]) await this.scan(warm.options, extra).catch(() => undefined);
  }

  /** A check's (and a refresh's) wait for the index, resident: `{ firstAnswerMs }`, or nothing (wait for all). */
  private firstAnswer(): { firstAnswerMs?: number } {
    const wait = this.options.resident ? (this.options.firstAnswerMs ?? firstAnswerWaitMs()) : false;
    return wait !== false ? { firstAnswerMs: wait } : {};
  }

  /**
   * Resident, a check answers within a moment: on a repository whose index is not ready yet, with
   * what needs no index (overlap) and a `WARMING_UP` problem naming what was not checked, while the
   * index is built for the next check. In-process (cold) it does the full work.
   */
  async check(request: CheckRequest): Promise<CheckResult> {
    const intent = this.intent();
    const extra = { ...(intent ? { intent } : {}), ...this.firstAnswer() };
    const result = await runCheck(request, (options, scanExtra) => this.scan(options, scanExtra), extra);
    return { ...result, conflicts: await this.withAcknowledgements(result.agent, this.withDeclarations(result.conflicts)) };
  }

  /** Each conflict whose advisory `agent` acknowledged (in the pair's trail) says so. */
  private async withAcknowledgements<C extends CheckResult['conflicts'][number]>(agent: string, conflicts: readonly C[]): Promise<C[]> {
    const trails = this.options.trailDir ?? join(this.options.commonDir, 'airspace', 'trails');
    return Promise.all(
      conflicts.map(async (c) =>
        (await pairAcknowledged(trails, agent, c.with).catch(() => false)) ? { ...c, acknowledged: true as const } : c,
      ),
    );
  }

  /**
   * Each conflict with an agent that declared intent carries its declaration (paths, symbols, its
   * note); where the evidence is about a declared file, only that file's hunks are quoted (the
   * declaring agent's other changes are not what the asker meets there).
   */
  private withDeclarations<C extends CheckResult['conflicts'][number]>(conflicts: readonly C[]): C[] {
    const declarations = new Map(readIntents(this.options.commonDir, this.now()).map((d) => [d.agent, d]));
    return conflicts.map((c) => {
      const d = declarations.get(c.with);
      if (!d) return c;
      const files = new Set([...d.paths, ...d.symbols.flatMap((s) => parseSymbolId(s)?.path ?? [])]);
      const onDeclared = c.evidence.some((e) => [e.a, e.b].some((side) => side?.agent === c.with && files.has(side.path)));
      const hunks = onDeclared ? c.hunks.filter((h) => files.has(h.path)) : c.hunks;
      const declared = { paths: d.paths, symbols: d.symbols, ...(d.note ? { note: d.note } : {}), expiresAt: d.expiresAt };
      return { ...c, hunks, declared };
    });
  }

  /** The worktree and agent id of the asker: the agent of its worktree, else the id git would give it. */
  async whoIs(ref: AgentRef, result?: ScanResult): Promise<{ worktree: string; agent: string }> {
    const { worktree } = await worktreeOf(resolve(ref.cwd));
    if (ref.agent) return { worktree, agent: ref.agent };
    const found = result?.agents.find((a) => a.worktree !== undefined && resolve(a.worktree) === resolve(worktree));
    if (found) return { worktree, agent: found.id };
    const id = await worktreeAgentId(worktree, worktree).catch(() => undefined);
    return { worktree, agent: id ?? basename(worktree) };
  }

  /** The whole airspace now (declared intent counted). */
  async fullScan(cwd: string): Promise<ScanResult> {
    const { worktree } = await worktreeOf(resolve(cwd));
    return this.scanFor({ cwd: worktree });
  }

  /** `airspace scan` with its flags (declared intent counted): the engine's answer and the in-process one. */
  async scanFor(request: ScanRequest): Promise<ScanResult> {
    const intent = this.intent();
    return this.scan(scanRequestOptions(request), intent ? { intent } : {});
  }

  /**
   * The whole airspace as an editor sees it (the language server's scan): its unsaved buffers,
   * its declared intent on top of the declared intents of `intents.json`, its settings.
   */
  async editorScan(request: EditorScanRequest): Promise<ScanResult> {
    const { worktree } = await worktreeOf(resolve(request.cwd));
    const intent = mergeIntent(this.intent(), request.intent);
    return this.scan({ repo: worktree, ...editorSettings(request.settings) }, intent ? { intent } : {}, request.overrides);
  }

  async advisories(ref: AgentRef): Promise<AdvisoriesResult> {
    const result = await this.fullScan(ref.cwd);
    const { agent } = await this.whoIs(ref, result);
    // An agent named but not in the airspace has no advisories: not "nobody is close", unknown.
    if (ref.agent !== undefined && !result.agents.some((a) => a.id === agent))
      throw new InputError(
        `No agent "${agent}" in this repository, so its advisories are unknown; known agents: ${
          result.agents
            .map((a) => a.id)
            .sort()
            .join(', ') || 'none'
        }.`,
      );
    const advisories = await this.advisoriesOf(result, agent, ref.cwd);
    const intents = readIntents(this.options.commonDir, this.now()).filter((d) => d.agent !== agent);
    const forecasts = forecastsOf(result, agent);
    return { agent, advisories, ...(forecasts.length > 0 ? { forecasts } : {}), intents, problems: result.problems };
  }

  private async advisoriesOf(result: ScanResult, agent: string, cwd: string): Promise<Advisory[]> {
    const agents = new Map<string, Agent>(result.agents.map((a) => [a.id, a]));
    const conflicts = await this.withAcknowledgements(agent, this.withDeclarations(await conflictsOf(result, agent, cwd)));
    return conflicts.map((c) => {
      const trigger: Trigger | undefined = triggersFor(
        { a: agent, b: c.with, level: c.level, risk: c.risk, evidence: c.evidence },
        agents,
      ).find((t) => t.to === agent);
      // Acknowledged traffic is done with: go on. A resolution still says who gives way.
      const action = c.acknowledged && c.level === 'traffic' ? 'go-on' : nextAction(c, agent);
      return { ...c, action, ...(trigger ? { message: trigger.content } : {}) };
    });
  }

  async declareIntent(request: DeclareIntentRequest): Promise<DeclareIntentResult> {
    const { worktree, agent } = await this.whoIs(request, await this.fullScan(request.cwd).catch(() => undefined));
    const paths = (request.paths ?? []).map((p) => repositoryPath(worktree, request.cwd, p));
    const symbols = (request.symbols ?? []).map((s) => {
      const id = parseSymbolId(s);
      if (!id) throw new InputError(`Symbol "${s}" needs its file: write it as path#name (e.g. src/billing.ts#total).`);
      return `${repositoryPath(worktree, request.cwd, id.path)}#${id.name}`;
    });
    const now = this.now();
    const ttl = request.ttlMs ?? DEFAULT_INTENT_TTL_MS;
    if (!(ttl > 0)) throw new InputError('ttl must be a positive number of milliseconds.');
    const declared: DeclaredIntent = {
      agent,
      paths: [...new Set(paths)].sort(),
      symbols: [...new Set(symbols)].sort(),
      ...(request.note ? { note: request.note.slice(0, 500) } : {}),
      declaredAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ttl).toISOString(),
    };
    // Nothing declared withdraws the declaration: it no longer counts for anyone.
    const withdrawn = paths.length + symbols.length === 0;
    writeIntent(this.options.commonDir, declared, now);
    const result = await this.fullScan(request.cwd);
    return {
      declared,
      ...(withdrawn ? { withdrawn: true as const } : {}),
      advisories: await this.advisoriesOf(result, agent, request.cwd),
      problems: result.problems,
    };
  }

  async acknowledge(request: AcknowledgeRequest): Promise<AcknowledgeResult> {
    const result = await this.fullScan(request.cwd);
    const { agent } = await this.whoIs(request, result);
    const self = result.agents.find((a) => a.id === agent);
    const other = result.agents.find((a) => a.id === request.with);
    if (!other)
      throw new InputError(
        `No agent "${request.with}" in this repository; known agents: ${
          result.agents
            .map((a) => a.id)
            .filter((id) => id !== agent)
            .sort()
            .join(', ') || 'none'
        }.`,
      );
    const link = result.links.find((l) => (l.a === agent && l.b === request.with) || (l.b === agent && l.a === request.with));
    if (!link || link.level === 'clear')
      throw new InputError(
        `There is no advisory between ${agent} and ${request.with} to acknowledge (their pair is ${link?.level ?? 'clear'}).`,
      );
    const me: Agent = self ?? { id: agent, label: agent, startedAt: this.now(), committedWork: 0, files: [] };
    const dir = this.options.trailDir ?? join(this.options.commonDir, 'airspace', 'trails');
    const ack = await acknowledgePair(dir, me, other, this.options.commonDir, {
      now: this.now(),
      ...(request.note ? { note: request.note } : {}),
    });
    return { agent, with: request.with, trail: ack.file, receipt: ack.receipt, ...(ack.already ? { already: true as const } : {}) };
  }

  /** For `airspace engine status`. */
  state(): { agents: string[]; scanners: number; lastScan?: WarmScanner['lastScan'] } {
    const agents = new Set<string>();
    let lastScan: WarmScanner['lastScan'];
    for (const warm of this.scanners.values()) {
      for (const a of warm.agents) agents.add(a);
      if (warm.lastScan && (!lastScan || warm.lastScan.at > lastScan.at)) lastScan = warm.lastScan;
    }
    return { agents: [...agents].sort(), scanners: this.scanners.size, ...(lastScan ? { lastScan } : {}) };
  }

  async dispose(): Promise<void> {
    this.stopTypechecks?.();
    const all = [...this.scanners.values()];
    this.scanners.clear();
    await Promise.all(
      all.map((w) =>
        w.queue.then(
          () => w.scanner.dispose(),
          () => w.scanner.dispose(),
        ),
      ),
    );
  }
}

/** A path given by an agent (relative to its cwd, or absolute inside its worktree) → repository-relative; refused when outside. */
export function repositoryPath(worktree: string, cwd: string, given: string): string {
  if (given.trim() === '') throw new InputError('An empty path cannot be declared.');
  const absolute = isAbsolute(given) ? given : resolve(cwd, given);
  let real = absolute;
  try {
    real = realpathSync(absolute);
  } catch {
    try {
      real = join(realpathSync(dirname(absolute)), basename(absolute));
    } catch {
      // A path in a directory that does not exist yet: compare as given.
    }
  }
  const rel = relative(realpathSync(worktree), real).split(sep).join(posix.sep);
  // The one rule for paths from outside (`unsafeRepoPath`), as every reader of intent applies it.
  const why = isAbsolute(rel) ? 'is an absolute path' : unsafeRepoPath(rel);
  if (why?.includes('.git')) throw new InputError(`${given} is inside a git directory, not a work tree.`);
  if (why) throw new InputError(`${given} is outside the worktree ${worktree}.`);
  return rel;
}

/**
 * The scanner options of a scan request: paths relative to the asker's directory made absolute
 * (the engine runs elsewhere), each value checked (it may come over the socket).
 */
export function scanRequestOptions(request: ScanRequest): ScannerOptions {
  const bad = (what: string): never => {
    throw new InputError(`The scan's ${what} is not valid.`);
  };
  const { cwd, repo, base, sources, config, calibration } = request;
  if (typeof cwd !== 'string' || !isAbsolute(cwd)) bad('cwd (an absolute directory)');
  for (const [name, value] of [
    ['repo', repo],
    ['base', base],
    ['config', config],
    ['calibration', calibration],
  ] as const)
    if (value !== undefined && typeof value !== 'string') bad(name);
  if (sources !== undefined && !(Array.isArray(sources) && sources.every((x) => typeof x === 'string'))) bad('sources');
  return {
    repo: resolve(cwd, repo ?? '.'),
    ...(base !== undefined ? { base } : {}),
    // An observations file is read where the asker is, not where the engine runs.
    ...(sources !== undefined && sources.length > 0
      ? { sources: sources.map((s) => (s.startsWith('json:') && s.length > 'json:'.length ? `json:${resolve(cwd, s.slice(5))}` : s)) }
      : {}),
    ...(config !== undefined ? { config: resolve(cwd, config) } : {}),
    ...(calibration !== undefined ? { calibration: resolve(cwd, calibration) } : {}),
  };
}

/** The settings an editor may give its scans, checked (they come over the socket). */
function editorSettings(settings: EditorScanRequest['settings']): Partial<ScannerOptions> {
  if (settings === undefined) return {};
  const bad = (what: string): never => {
    throw new InputError(`The editor's ${what} setting is not valid.`);
  };
  const { base, sources, weights, thresholds, config } = settings;
  const numbers = (x: unknown): x is Record<string, number> =>
    typeof x === 'object' && x !== null && !Array.isArray(x) && Object.values(x).every((v) => typeof v === 'number');
  if (base !== undefined && typeof base !== 'string') bad('base');
  if (sources !== undefined && !(Array.isArray(sources) && sources.every((x) => typeof x === 'string'))) bad('sources');
  if (weights !== undefined && !numbers(weights)) bad('weights');
  if (thresholds !== undefined && !numbers(thresholds)) bad('thresholds');
  if (config !== undefined && !(typeof config === 'string' && isAbsolute(config))) bad('config (an absolute path)');
  return {
    ...(base !== undefined ? { base } : {}),
    ...(sources !== undefined ? { sources } : {}),
    ...(weights !== undefined ? { weights } : {}),
    ...(thresholds !== undefined ? { thresholds } : {}),
    ...(config !== undefined ? { config } : {}),
  };
}

/** An answer not to repeat: the index still warming up, or a channel's result still pending. */
function partialAnswer(result: ScanResult): boolean {
  return result.problems.some((p) => p.code === WARMING_UP) || result.links.some((l) => l.channels.some((c) => c.pending));
}

/** One check in this process, cold: the fallback of every front end, and `--no-engine`. */
export async function checkInProcess(request: CheckRequest, onProgress?: ScannerOptions['onProgress']): Promise<CheckResult> {
  const commonDir = findCommonDir(nearestDirectory(resolve(request.cwd, request.target))) ?? '';
  const core = new EngineCore({ commonDir, resident: false, ...(onProgress ? { onProgress } : {}) });
  try {
    return await core.check(request);
  } finally {
    await core.dispose();
  }
}

/** One `airspace scan` in this process, cold: `--no-engine`, and the fallback when the engine cannot answer. */
export async function scanInProcess(request: ScanRequest, onProgress?: ScannerOptions['onProgress']): Promise<ScanResult> {
  const commonDir = findCommonDir(nearestDirectory(resolve(request.cwd, request.repo ?? '.'))) ?? '';
  const core = new EngineCore({ commonDir, resident: false, ...(onProgress ? { onProgress } : {}) });
  try {
    return await core.scanFor(request);
  } finally {
    await core.dispose();
  }
}
