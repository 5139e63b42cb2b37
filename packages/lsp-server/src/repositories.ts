/**
 * One scanner per repository: scanning (unsaved buffers, declared intent and what changed go to
 * the engine), publishing a result (findings per self, `airspace/advisories`, diagnostics), and
 * learning of the next change: told by the repository's engine while scans go through it, else
 * by watching every worktree of the repository itself.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageType, ShowMessageNotification } from 'vscode-languageserver';
import type { ScanResult } from '@airspace/core';
import { createChangeTracker, runGit, worktreeAgentId, type TrackedChange } from '@airspace/git';
import type { Advisory } from '@airspace/core';
import { ChangeSet } from './changes.js';
import { configFiles, configSignature } from './config-files.js';
import { publishDiagnostics } from './diagnostics.js';
import { advisoriesKey, findingsFor, pairKey } from './findings.js';
import { ScanLoop } from './scan-loop.js';
import type { Intents, IntentSpec, LspScanner, Overrides } from './lsp-scanner.js';
import { message, type Repo, type Session } from './session.js';
import { debounceOf, scannerOptionsOf, watchOptionsOf } from './settings.js';
import { pairAcknowledged } from '@airspace/trail';
import { plainText } from './text.js';
import { listedWorktrees, real, relativeTo, type FolderInfo } from './workspace.js';

export const AdvisoriesNotificationMethod = 'airspace/advisories';

/** `airspace/advisories` notification parameters. */
export interface AdvisoriesParams {
  readonly folder: string;
  readonly self: string | null;
  readonly advisories: readonly Advisory[];
}

/** The repository of a workspace folder, opened (scan loop, watcher) on its first folder. */
export function openRepo(s: Session, info: FolderInfo): Repo {
  const known = s.repos.get(info.commonDir);
  if (known) return known;
  const repo: Repo = {
    commonDir: info.commonDir,
    selves: [],
    selfIds: new Map(),
    lastAdvisories: new Map(),
    watched: new Set(),
    changes: new ChangeSet(),
    fullScan: true,
    loop: new ScanLoop<ScanResult>({
      run: () => runScan(s, repo),
      publish: (result) => publishScan(s, repo, result),
      onError: (error) => scanFailed(s, repo, error),
    }),
  };
  s.repos.set(info.commonDir, repo);
  return repo;
}

/**
 * A scan failed (a base that does not exist, an engine that cannot read the repository): logged
 * every time, and shown to the user once per distinct error until a scan succeeds again, so that
 * a failing scan is never taken for "all clear" and a keystroke does not repeat the message.
 */
function scanFailed(s: Session, repo: Repo, error: unknown): void {
  const why = message(error);
  s.log.error(`Scan of ${repo.commonDir} failed: ${why}; keeping the previous advisories.`);
  if (s.stopped || repo.shownError === why) return;
  repo.shownError = why;
  const where = repo.selves[0]?.worktree ?? repo.commonDir;
  void s.connection.sendNotification(ShowMessageNotification.type, {
    type: MessageType.Error,
    message: plainText(`Airspace cannot scan ${where}: ${why.replace(/\.?\s*$/, '.')} Its advisories are not up to date.`),
  });
}

/** Stops a repository's scans, watcher and scanner. */
export function closeRepo(s: Session, repo: Repo): void {
  repo.loop.dispose();
  repo.tracker?.close();
  repo.tracker = undefined;
  void repo.scanner?.then((x) => x.dispose()).catch(() => undefined);
  s.repos.delete(repo.commonDir);
}

/** Replaces a repository's scanner (settings or config changed) and scans everything again with the new one. */
export function resetScanner(repo: Repo): void {
  repo.changes.all();
  const old = repo.scanner;
  repo.scanner = undefined;
  void old?.then((x) => x.dispose()).catch(() => undefined);
  // The scan in flight used the old engine: start afresh instead of waiting for its answer.
  repo.loop.restart();
}

export function configFilesOf(s: Session, repo: Repo): string[] {
  return configFiles(
    repo.selves.map((x) => x.worktree),
    repo.commonDir,
    s.settings.config,
  );
}

export function trailDirOf(s: Session, repo: Repo): string {
  return s.settings.trailDir ?? join(repo.commonDir, 'airspace', 'trails');
}

/**
 * The repository changed (a burst of file or git events, already debounced by the tracker): a
 * config file the scanner reads restarts it; anything else asks for a scan of what changed.
 */
function onTrackedChange(s: Session, repo: Repo, change: TrackedChange): void {
  if (s.repos.get(repo.commonDir) !== repo) return;
  // Any config the scanner reads (.json, .mjs, .js, .ts; self's or the main worktree's) changed.
  const signature = configSignature(configFilesOf(s, repo));
  if (signature !== repo.configSignature) {
    s.log.info('An Airspace config file changed: the scanner starts again with it.');
    repo.configSignature = signature;
    resetScanner(repo);
    return;
  }
  // Git's state (refs, HEAD, an index, the worktree list) changed: every agent is read again.
  if (change.all) repo.changes.all();
  else for (const [worktree, paths] of Object.entries(change.paths)) for (const path of paths) repo.changes.path(worktree, path);
  repo.loop.request(0);
}

/** The engine saw the repository move (or went away): scan again; it works out what changed. */
function onEngineChange(s: Session, repo: Repo, reason: string): void {
  if (s.repos.get(repo.commonDir) !== repo) return;
  s.log.info(`The engine says the repository moved (${reason}).`);
  repo.changes.all();
  repo.loop.request(0);
}

/** Whether the engine follows the repository for this server (its scans go through it). */
async function engineFollows(repo: Repo): Promise<boolean> {
  const scanner = await repo.scanner?.catch(() => undefined);
  return scanner?.mode?.()?.kind === 'engine';
}

/** Unsaved buffers of the repository's worktrees (selves' and other agents'). */
function overridesFor(s: Session, repo: Repo): Overrides {
  const worktrees = new Set<string>(repo.selves.map((x) => x.worktree));
  for (const a of repo.loop.latest?.agents ?? []) if (a.worktree) worktrees.add(real(a.worktree));
  const out: Record<string, Record<string, string>> = {};
  for (const uri of s.dirty) {
    const doc = s.documents.get(uri);
    const file = s.fileOf(uri);
    if (!doc || file === undefined) continue;
    for (const wt of worktrees) {
      const rel = relativeTo(wt, file);
      if (rel === undefined) continue;
      (out[wt] ??= {})[rel] = doc.getText();
      break;
    }
  }
  return out;
}

async function intentFor(s: Session, repo: Repo): Promise<Intents | undefined> {
  const out: Record<string, IntentSpec[]> = {};
  for (const self of repo.selves) {
    const declared = s.intents.get(self.worktree);
    if (!declared?.size) continue;
    // Keyed by agent id; before self has changed anything, by the id git's worktree source gives it.
    const id = repo.selfIds.get(self.worktree) ?? (await worktreeAgentId(self.worktree, self.worktree).catch(() => undefined));
    if (id === undefined) {
      s.log.error(`Declared intent of ${self.worktree} is left out: git lists no such worktree.`);
      continue;
    }
    out[id] = [...declared.keys()].sort().map((key) => declared.get(key)!);
  }
  return Object.keys(out).length ? out : undefined;
}

async function runScan(s: Session, repo: Repo): Promise<ScanResult> {
  if (repo.selves.length === 0) throw new Error('no workspace folder in this repository');
  // The worktrees as they were before the first scan reads them: one created while that scan
  // runs is then new to the listing after it, and is read at once (watchRepository).
  if (!repo.worktreeList) await listWorktrees(s, repo, '');
  if (!repo.scanner) repo.configSignature = configSignature(configFilesOf(s, repo));
  const starting = (repo.scanner ??= Promise.resolve().then(() =>
    s.createScanner(scannerOptionsOf(s.settings, repo.selves[0]!.worktree), {
      log: (m) => s.log.info(m),
      onChange: (reason) => onEngineChange(s, repo, reason),
    }),
  ));
  let scanner: LspScanner;
  try {
    scanner = await starting;
  } catch (error) {
    if (repo.scanner === starting) repo.scanner = undefined;
    throw error;
  }
  const intent = await intentFor(s, repo);
  const { full, ...changes } = repo.changes.take();
  repo.fullScan = full;
  let result: ScanResult;
  try {
    result = await scanner.scan({ overrides: overridesFor(s, repo), ...(intent ? { intent } : {}), ...changes });
  } catch (error) {
    repo.changes.all();
    throw error;
  }
  await restoreAcknowledgements(s, repo, result);
  return result;
}

function publishScan(s: Session, repo: Repo, result: ScanResult): void {
  if (s.stopped) return;
  repo.shownError = undefined;
  for (const self of repo.selves) {
    const agent = result.agents.find((a) => a.worktree !== undefined && real(a.worktree) === self.worktree);
    if (agent) repo.selfIds.set(self.worktree, agent.id);
    else repo.selfIds.delete(self.worktree);
    s.findings.set(self.worktree, agent ? findingsFor(result, agent.id) : []);
    const key = advisoriesKey(result, agent?.id ?? '\u0000none');
    if (repo.lastAdvisories.get(self.worktree) !== key) {
      repo.lastAdvisories.set(self.worktree, key);
      const params: AdvisoriesParams = {
        folder: pathToFileURL(self.folder).href,
        self: agent?.id ?? null,
        advisories: agent ? result.advisories.filter((a) => a.a === agent.id || a.b === agent.id) : [],
      };
      void s.connection.sendNotification(AdvisoriesNotificationMethod, params);
    }
  }
  for (const p of result.problems) s.log.info(`${p.code}: ${p.message}`);
  publishDiagnostics(s);
  void followRepository(s, repo, result);
}

/**
 * The server learns of the next change from the engine while its scans go through one (no
 * tracker of its own), else from its own change tracker (a fallback started later gets one then).
 * Polling asked for in the settings (file events not to be trusted here) keeps its own, polling.
 */
async function followRepository(s: Session, repo: Repo, result: ScanResult): Promise<void> {
  if (s.settings.poll !== true && (await engineFollows(repo))) {
    repo.tracker?.close();
    repo.tracker = undefined;
    return;
  }
  await watchRepository(s, repo, result);
}

/** How long the first file event after a quiet period waits for the rest of its save (ms). */
const OTHER_SAVE_MS = 20;

/** How long a scan's result waits for the trails of its new pairs before it is published. */
const TRAIL_READ_MS = 2000;

/**
 * Acknowledgements recorded in the pairs' trails before this server started count again. Read
 * once per pair, before the scan that first shows the pair is published: a diagnostic
 * acknowledged earlier is information from its first delivery, not a warning that turns into
 * information a moment later. A read slower than TRAIL_READ_MS still applies when it ends.
 */
async function restoreAcknowledgements(s: Session, repo: Repo, result: ScanResult): Promise<void> {
  const reads: Promise<void>[] = [];
  for (const self of repo.selves) {
    const selfId = result.agents.find((a) => a.worktree !== undefined && real(a.worktree) === self.worktree)?.id;
    if (selfId === undefined) continue;
    for (const a of result.advisories) {
      if (a.a !== selfId && a.b !== selfId) continue;
      const other = a.a === selfId ? a.b : a.a;
      const pair = pairKey(selfId, other);
      if (s.acknowledged.has(pair) || s.trailsRead.has(pair)) continue;
      s.trailsRead.add(pair);
      reads.push(
        pairAcknowledged(trailDirOf(s, repo), selfId, other).then(
          (yes) => {
            if (!yes || s.acknowledged.has(pair)) return;
            s.acknowledged.add(pair);
            publishDiagnostics(s);
          },
          (e) => s.log.info(`Reading the trail of ${selfId} and ${other} failed: ${message(e)}`),
        ),
      );
    }
  }
  if (reads.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(reads), new Promise((r) => (timer = setTimeout(r, TRAIL_READ_MS)))]);
  clearTimeout(timer);
}

/** `git worktree list` of the repository, remembered with the agents' worktrees it was taken for. */
async function listWorktrees(s: Session, repo: Repo, agentsKey: string): Promise<readonly string[]> {
  const listed = await runGit(['worktree', 'list', '--porcelain'], { cwd: repo.selves[0]?.worktree ?? repo.commonDir }).catch((e) => {
    s.log.error(`git worktree list failed: ${message(e)}`);
    return '';
  });
  repo.worktreeList = { agentsKey, dirs: listedWorktrees(listed).map(real) };
  return repo.worktreeList.dirs;
}

/** Watches every worktree of the repository: one without changes today may collide tomorrow. */
async function watchRepository(s: Session, repo: Repo, result: ScanResult): Promise<void> {
  const dirs = new Set<string>(result.agents.filter((a) => a.worktree).map((a) => real(a.worktree!)));
  // Worktrees without changes are not agents but are watched for their first change. Listing
  // them costs a git process on the server's thread: only after a full scan (a git event: a
  // worktree added or removed) or when the agents' worktrees differ from the last listing.
  const agentsKey = JSON.stringify([...dirs].sort());
  const listedBefore = repo.worktreeList?.dirs;
  const list =
    repo.fullScan || repo.worktreeList?.agentsKey !== agentsKey ? await listWorktrees(s, repo, agentsKey) : repo.worktreeList!.dirs;
  const isSelf = (d: string) => repo.selves.some((x) => x.worktree === d);
  // A worktree listed for the first time may have been edited before it was watched: read it
  // now rather than at its next change. (The first scan is preceded by a listing, see runScan.)
  const fresh = listedBefore ? list.filter((d) => !listedBefore.includes(d) && !dirs.has(d) && !isSelf(d)) : [];
  for (const dir of fresh) repo.changes.worktree(dir);
  if (fresh.length) repo.loop.request(0);
  for (const dir of list) dirs.add(dir);
  for (const x of repo.selves) dirs.delete(x.worktree);
  repo.watched = new Set([...dirs, ...repo.selves.map((x) => x.worktree)]);
  if (s.stopped || s.repos.get(repo.commonDir) !== repo) return;
  // One change tracker for the repository (`@airspace/git`'s, as watch, view and the engine use):
  // every worktree and the git directory; debounced as the editor's settings say.
  repo.tracker ??= createChangeTracker({
    worktrees: [],
    commonDir: repo.commonDir,
    debounceMs: debounceOf(s.settings),
    // Another worktree's save is read at once; a burst of changes once it is over.
    leadingMs: OTHER_SAVE_MS,
    ...watchOptionsOf(s.settings),
    onChange: (change) => onTrackedChange(s, repo, change),
    onWarning: (m) => s.log.info(m),
  });
  repo.tracker.setWorktrees([...repo.watched].sort());
}
