/**
 * The Airspace language server. Shape as vscode-extension-samples' lsp-sample:
 * connection → documents → capabilities in onInitialize → handlers → listen.
 * Every handler catches its own errors: a failure is logged and answered with a degraded result.
 */
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CodeActionKind,
  CodeLensRefreshRequest,
  DidChangeConfigurationNotification,
  MessageType,
  ProposedFeatures,
  ShowMessageNotification,
  TextDocumentSyncKind,
  TextDocuments,
  createConnection,
  type ClientCapabilities,
  type CodeAction,
  type Connection,
  type Diagnostic,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Advisory, Problem, ScanResult } from '@airspace/core';
import { advisoriesKey, findingsFor, pairKey, type Finding } from './findings.js';
import { SOURCE, codeActions, codeLenses, groupFindings, hoverMarkdown, plainText, summary, toDiagnostic } from './present.js';
import { Commands, parseLocation, parsePairArgs, type PairArgs } from './commands.js';
import { DiagnosticsLedger, clientFeatures, locationText, type ClientFeatures } from './delivery.js';
import { otherChange } from './other-change.js';
import { ScanLoop } from './scan-loop.js';
import { createDefaultScanner, type CreateLspScanner, type Intents, type LspScanner, type Overrides, type ScannerOptions } from './scanner.js';
import { describeFolder, gitDirOf, listedWorktrees, real, relativeTo, type FolderInfo } from './workspace.js';
import { WorktreeWatcher } from './watch.js';
import { acknowledgeInTrail, acknowledgedInTrail } from './trail.js';
import { intentPath } from './intent.js';
import { configFiles, configSignature, mainWorktreeOf } from './config-files.js';
import { runGit } from '@airspace/git';

export const ScanRequestMethod = 'airspace/scan';
export const AdvisoriesNotificationMethod = 'airspace/advisories';
/** How long the server waits for the client to answer a request of its own. */
const CLIENT_ANSWER_MS = 3000;

/** Settings under the `airspace` section of `workspace/configuration` (or initializationOptions). */
export interface AirspaceSettings {
  readonly base?: string;
  readonly sources?: readonly string[];
  readonly weights?: Readonly<Record<string, number>>;
  readonly thresholds?: { readonly traffic?: number; readonly resolution?: number };
  /** Path of an airspace.config.json (default: the one at the repository root). */
  readonly config?: string;
  /** Delay between the last keystroke and a re-scan. */
  readonly debounceMs?: number;
  /** Poll instead of watching the file system, and how often. */
  readonly poll?: boolean;
  readonly pollMs?: number;
  /** Where acknowledgements' shadow trails are kept (default: `airspace/trails` in the git directory). */
  readonly trailDir?: string;
}

export interface ServerOptions {
  /** The scanning engine (default: `@airspace/scanner`). Tests and embedders pass their own. */
  readonly createScanner?: CreateLspScanner;
  readonly settings?: AirspaceSettings;
}

/** `airspace/advisories` notification parameters. */
export interface AdvisoriesParams {
  readonly folder: string;
  readonly self: string | null;
  readonly advisories: readonly Advisory[];
}

interface Repo {
  readonly commonDir: string;
  readonly selves: FolderInfo[];
  scanner?: Promise<LspScanner>;
  loop: ScanLoop<ScanResult>;
  /** Self agent id per self worktree, from the latest scan. */
  readonly selfIds: Map<string, string>;
  lastAdvisories: Map<string, string>;
  /** Signature of the config files the current scanner read (config-files.ts). */
  configSignature?: string;
  /** Worktrees watched for this repository. */
  watched: Set<string>;
  /**
   * Worktrees changed since the last scan started, each with the repository-relative paths that
   * changed (`all` when unknown: a git event, polling); `all` when nothing is known.
   */
  changed: Map<string, Set<string> | 'all'> | 'all';
  /** Whether the scan being published read some worktree in full. */
  fullScan: boolean;
  /** The last `git worktree list`, and the agents' worktrees when it was taken. */
  worktreeList?: { readonly agentsKey: string; readonly dirs: readonly string[] };
  readonly watcher: WorktreeWatcher;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export function startServer(connection: Connection = createConnection(ProposedFeatures.all), options: ServerOptions = {}): Connection {
  const documents = new TextDocuments(TextDocument);
  const createScanner = options.createScanner ?? createDefaultScanner;
  let capabilities: ClientCapabilities = {};
  let settings: AirspaceSettings = options.settings ?? {};
  let clipboardInClient = false;
  let pull = false;
  let features: ClientFeatures = clientFeatures({});
  const delivered = new DiagnosticsLedger();
  const folders = new Map<string, FolderInfo>();
  const repos = new Map<string, Repo>();
  /** Findings per self worktree, from the latest scan of its repository. */
  const findings = new Map<string, Finding[]>();
  const dirty = new Set<string>();
  const acknowledged = new Set<string>();
  const intents = new Map<string, Set<string>>();
  const diffCache = new Map<string, Promise<string>>();
  let pendingFolders: string[] = [];
  /** From `initialized` on: settles once the folders of `initialize` are added. */
  let initialFolders: Promise<void> | undefined;
  /** Whether the client named no workspace folder: then an opened file's worktree becomes self. */
  let singleFile = false;
  /** After shutdown or exit: nothing is added, scanned or published any more. */
  let stopped = false;

  /** Logging never throws: after `exit` (a disposed connection) a line goes to stderr instead. */
  const say = (send: (m: string) => void, m: string) => {
    try {
      send(m);
    } catch {
      process.stderr.write(`airspace-lsp: ${m}\n`);
    }
  };
  const log = {
    info: (m: string) => say((x) => connection.console.info(x), m),
    error: (m: string) => say((x) => connection.console.error(x), m),
  };

  function newWatcher(): WorktreeWatcher {
    return new WorktreeWatcher({
      onChange: (worktree, why) => onWorktreeChanged(worktree, why),
      onError: (m) => log.info(m),
      ...(settings.poll !== undefined ? { poll: settings.poll } : {}),
      ...(settings.pollMs !== undefined ? { pollMs: settings.pollMs } : {}),
    });
  }

  /**
   * A client's answer, or `fallback` after `ms`: a client that never answers a request of ours
   * (configuration, registration) must not keep the server from adding its folders and scanning.
   */
  async function atMost<T>(ms: number, answer: Promise<T>, fallback: T, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<T>((resolve) => {
      timer = setTimeout(() => {
        log.info(`Nothing came from the client (${what}) within ${ms / 1000} s; going on without it.`);
        resolve(fallback);
      }, ms);
    });
    try {
      return await Promise.race([answer, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs a handler; on error logs it and returns the fallback. */
  async function guard<T>(what: string, fallback: T, fn: () => Promise<T> | T): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      log.error(`${what} failed: ${message(error)}`);
      return fallback;
    }
  }

  // --- initialize ---------------------------------------------------------------------------

  connection.onInitialize((params): InitializeResult => {
    capabilities = params.capabilities ?? {};
    const init = (params.initializationOptions ?? {}) as { clipboard?: boolean; settings?: AirspaceSettings };
    clipboardInClient = init.clipboard === true;
    if (init.settings) settings = { ...settings, ...init.settings };
    features = clientFeatures(capabilities);
    pull = features.diagnostics === 'pull';
    const wsFolders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : params.rootPath ? [pathToFileURL(params.rootPath).href] : []);
    pendingFolders = wsFolders;
    singleFile = wsFolders.length === 0;
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        // Served even when the client does not advertise code lens support.
        codeLensProvider: { resolveProvider: false },
        executeCommandProvider: { commands: Object.values(Commands) },
        ...(pull ? { diagnosticProvider: { identifier: SOURCE, interFileDependencies: true, workspaceDiagnostics: true } } : {}),
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'airspace', version: '0.1.0' },
    };
  });

  connection.onInitialized(() => {
    initialFolders = guard('initialized', undefined, async () => {
      if (capabilities.workspace?.didChangeConfiguration?.dynamicRegistration) {
        await atMost(CLIENT_ANSWER_MS, connection.client.register(DidChangeConfigurationNotification.type, { section: 'airspace' }), undefined, 'an answer to client/registerCapability');
      }
      if (capabilities.workspace?.workspaceFolders) {
        connection.workspace.onDidChangeWorkspaceFolders((e) => {
          void guard('workspace folders', undefined, async () => {
            for (const f of e.removed) removeFolder(f.uri);
            for (const f of e.added) await addFolder(f.uri);
          });
        });
      }
      await loadSettings();
      for (const uri of pendingFolders) await addFolder(uri);
      pendingFolders = [];
    });
  });

  async function loadSettings(): Promise<void> {
    if (!capabilities.workspace?.configuration) return;
    const asked = connection.workspace.getConfiguration({ section: 'airspace' }).catch(() => undefined) as Promise<AirspaceSettings | null | undefined>;
    const got = await atMost(CLIENT_ANSWER_MS, asked, undefined, 'an answer to workspace/configuration');
    if (got && typeof got === 'object') settings = { ...settings, ...got };
  }

  connection.onDidChangeConfiguration((change) => {
    void guard('configuration', undefined, async () => {
      const fromPush = (change.settings as { airspace?: AirspaceSettings } | undefined)?.airspace;
      const before = new Map([...repos.values()].map((r) => [r, JSON.stringify(scannerOptions(r))]));
      if (fromPush && typeof fromPush === 'object') settings = { ...settings, ...fromPush };
      await loadSettings();
      // Clients send this on every connect (eglot) or for other sections: a scanner (and the scan
      // it runs, the first one indexes the repository) is replaced only when its options changed.
      for (const repo of repos.values()) if (JSON.stringify(scannerOptions(repo)) !== before.get(repo)) resetScanner(repo);
    });
  });

  // --- folders and repositories ---------------------------------------------------------------

  /** Adds a workspace folder; `asWorktree`: its whole worktree is the folder (single-file mode). */
  async function addFolder(uri: string, asWorktree = false): Promise<FolderInfo | undefined> {
    return guard(`workspace folder ${uri}`, undefined, async () => {
      const described = await describeFolder(fileURLToPath(uri));
      if (stopped) return undefined;
      const info = asWorktree ? { ...described, folder: described.worktree } : described;
      folders.set(info.folder, info);
      let repo = repos.get(info.commonDir);
      if (!repo) {
        const r: Repo = {
          commonDir: info.commonDir,
          selves: [],
          selfIds: new Map(),
          lastAdvisories: new Map(),
          watched: new Set(),
          changed: 'all',
          fullScan: true,
          watcher: newWatcher(),
          loop: new ScanLoop<ScanResult>({
            run: () => runScan(r),
            publish: (result) => publishScan(r, result),
            onError: (error) => log.error(`Scan of ${info.commonDir} failed: ${message(error)}; keeping the previous advisories.`),
          }),
        };
        repo = r;
        repos.set(info.commonDir, repo);
      }
      if (!repo.selves.some((s) => s.worktree === info.worktree)) repo.selves.push(info);
      markChanged(repo, 'all');
      repo.loop.request(0);
      return info;
    });
  }

  function removeFolder(uri: string): void {
    const dir = real(fileURLToPath(uri));
    const info = folders.get(dir);
    folders.delete(dir);
    if (!info) return;
    const repo = repos.get(info.commonDir);
    if (!repo) return;
    // Another folder in the same worktree keeps it self (and its diagnostics).
    const at = repo.selves.findIndex((s) => s.worktree === info.worktree);
    const sibling = [...folders.values()].find((f) => f.worktree === info.worktree);
    if (sibling && at >= 0) repo.selves[at] = sibling;
    else if (!sibling) {
      if (at >= 0) repo.selves.splice(at, 1);
      findings.delete(info.worktree);
      publishDiagnostics();
    }
    if (repo.selves.length === 0) {
      repo.loop.dispose();
      repo.watcher.dispose();
      void repo.scanner?.then((s) => s.dispose()).catch(() => undefined);
      repos.delete(info.commonDir);
    }
  }

  /**
   * Records what changed for the next scan: everything, a whole worktree (`path` omitted), one
   * path of it, or nothing on disk (`path: null`: a buffer or intent of that worktree changed).
   */
  function markChanged(repo: Repo, worktree: string | 'all', path?: string | null): void {
    if (worktree === 'all' || repo.changed === 'all') {
      repo.changed = 'all';
      return;
    }
    const known = repo.changed.get(worktree);
    if (known === 'all') return;
    if (path === undefined) repo.changed.set(worktree, 'all');
    else {
      const paths = known ?? new Set<string>();
      if (path !== null) paths.add(path.replace(/\\/g, '/'));
      repo.changed.set(worktree, paths);
    }
  }

  function resetScanner(repo: Repo): void {
    markChanged(repo, 'all');
    const old = repo.scanner;
    repo.scanner = undefined;
    void old?.then((s) => s.dispose()).catch(() => undefined);
    // The scan in flight used the old engine: start afresh instead of waiting for its answer.
    repo.loop.restart();
  }

  function configFilesOf(repo: Repo): string[] {
    return configFiles(repo.selves.map((s) => s.worktree), repo.commonDir, settings.config);
  }

  function scannerOptions(repo: Repo): ScannerOptions {
    return {
      repo: repo.selves[0]!.worktree,
      ...(settings.base ? { base: settings.base } : {}),
      ...(settings.sources ? { sources: settings.sources } : {}),
      ...(settings.weights ? { weights: settings.weights } : {}),
      ...(settings.thresholds ? { thresholds: settings.thresholds } : {}),
      ...(settings.config ? { config: settings.config } : {}),
    };
  }

  /** The self (workspace folder worktree) that holds a file, longest worktree first. */
  function selfOf(file: string): FolderInfo | undefined {
    let best: FolderInfo | undefined;
    for (const f of folders.values()) if (relativeTo(f.worktree, file) !== undefined && (!best || f.worktree.length > best.worktree.length)) best = f;
    return best;
  }

  // --- scanning ---------------------------------------------------------------------------------

  function overridesFor(repo: Repo): Overrides {
    const worktrees = new Set<string>(repo.selves.map((s) => s.worktree));
    for (const a of repo.loop.latest?.agents ?? []) if (a.worktree) worktrees.add(real(a.worktree));
    const out: Record<string, Record<string, string>> = {};
    for (const uri of dirty) {
      const doc = documents.get(uri);
      if (!doc) continue;
      const file = real(fileURLToPath(uri));
      for (const wt of worktrees) {
        const rel = relativeTo(wt, file);
        if (rel === undefined) continue;
        (out[wt] ??= {})[rel] = doc.getText();
        break;
      }
    }
    return out;
  }

  function intentFor(repo: Repo): Intents | undefined {
    const out: Record<string, string[]> = {};
    for (const s of repo.selves) {
      const paths = intents.get(s.worktree);
      if (!paths?.size) continue;
      // Keyed by agent id; before self has changed anything, by the id git will give it (its branch).
      out[repo.selfIds.get(s.worktree) ?? s.branch ?? basename(s.worktree)] = [...paths].sort();
    }
    return Object.keys(out).length ? out : undefined;
  }

  async function runScan(repo: Repo): Promise<ScanResult> {
    if (repo.selves.length === 0) throw new Error('no workspace folder in this repository');
    if (!repo.scanner) repo.configSignature = configSignature(configFilesOf(repo));
    const starting = (repo.scanner ??= Promise.resolve().then(() => createScanner(scannerOptions(repo))));
    let scanner: LspScanner;
    try {
      scanner = await starting;
    } catch (error) {
      if (repo.scanner === starting) repo.scanner = undefined;
      throw error;
    }
    const intent = intentFor(repo);
    const changed = repo.changed;
    repo.changed = new Map();
    repo.fullScan = changed === 'all' || [...changed.values()].some((paths) => paths === 'all');
    const changedPaths: Record<string, string[]> = {};
    if (changed !== 'all') for (const [worktree, paths] of changed) if (paths !== 'all') changedPaths[worktree] = [...paths].sort();
    try {
      return await scanner.scan({ overrides: overridesFor(repo), ...(intent ? { intent } : {}), ...(changed !== 'all' ? { changed: [...changed.keys()].sort(), changedPaths } : {}) });
    } catch (error) {
      markChanged(repo, 'all');
      throw error;
    }
  }

  function publishScan(repo: Repo, result: ScanResult): void {
    if (stopped) return;
    for (const self of repo.selves) {
      const agent = result.agents.find((a) => a.worktree !== undefined && real(a.worktree) === self.worktree);
      if (agent) repo.selfIds.set(self.worktree, agent.id);
      else repo.selfIds.delete(self.worktree);
      findings.set(self.worktree, agent ? findingsFor(result, agent.id) : []);
      if (agent) restoreAcknowledgements(repo, agent.id, result);
      const key = advisoriesKey(result, agent?.id ?? '\u0000none');
      if (repo.lastAdvisories.get(self.worktree) !== key) {
        repo.lastAdvisories.set(self.worktree, key);
        const params: AdvisoriesParams = {
          folder: pathToFileURL(self.folder).href,
          self: agent?.id ?? null,
          advisories: agent ? result.advisories.filter((a) => a.a === agent.id || a.b === agent.id) : [],
        };
        void connection.sendNotification(AdvisoriesNotificationMethod, params);
      }
    }
    for (const p of result.problems) log.info(`${p.code}: ${p.message}`);
    publishDiagnostics();
    void watchRepository(repo, result);
  }

  function trailDirOf(repo: Repo): string {
    return settings.trailDir ?? join(repo.commonDir, 'airspace', 'trails');
  }

  /** Pairs whose trail was read for an earlier acknowledgement (once per pair and server). */
  const trailsRead = new Set<string>();
  /** Acknowledgements recorded in the pairs' trails before this server started count again. */
  function restoreAcknowledgements(repo: Repo, selfId: string, result: ScanResult): void {
    for (const a of result.advisories) {
      if (a.a !== selfId && a.b !== selfId) continue;
      const other = a.a === selfId ? a.b : a.a;
      const pair = pairKey(selfId, other);
      if (acknowledged.has(pair) || trailsRead.has(pair)) continue;
      trailsRead.add(pair);
      acknowledgedInTrail(trailDirOf(repo), selfId, other).then(
        (yes) => {
          if (!yes || acknowledged.has(pair)) return;
          acknowledged.add(pair);
          publishDiagnostics();
        },
        (e) => log.info(`Reading the trail of ${selfId} and ${other} failed: ${message(e)}`),
      );
    }
  }

  /** Watches every worktree of the repository: one without changes today may collide tomorrow. */
  async function watchRepository(repo: Repo, result: ScanResult): Promise<void> {
    const dirs = new Set<string>(result.agents.filter((a) => a.worktree).map((a) => real(a.worktree!)));
    // Worktrees without changes are not agents but are watched for their first change. Listing
    // them costs a git process on the server's thread: only after a full scan (a git event: a
    // worktree added or removed) or when the agents' worktrees differ from the last listing.
    const agentsKey = [...dirs].sort().join('\0');
    const listedBefore = repo.worktreeList?.dirs;
    if (repo.fullScan || repo.worktreeList?.agentsKey !== agentsKey) {
      const listed = await runGit(['worktree', 'list', '--porcelain'], { cwd: repo.selves[0]?.worktree ?? repo.commonDir }).catch((e) => {
        log.error(`git worktree list failed: ${message(e)}`);
        return '';
      });
      repo.worktreeList = { agentsKey, dirs: listedWorktrees(listed).map(real) };
    }
    // A worktree listed for the first time may have been edited before it was watched: read it
    // now rather than at its next change. (The first listing follows a scan that read everything.)
    const fresh = listedBefore ? repo.worktreeList!.dirs.filter((d) => !listedBefore.includes(d) && !dirs.has(d) && !repo.selves.some((s) => s.worktree === d)) : [];
    for (const dir of fresh) markChanged(repo, dir);
    if (fresh.length) repo.loop.request(0);
    for (const dir of repo.worktreeList!.dirs) dirs.add(dir);
    for (const s of repo.selves) dirs.delete(s.worktree);
    repo.watched = new Set([...dirs, ...repo.selves.map((s) => s.worktree)]);
    repo.watcher.set([...repo.selves.map((s) => ({ worktree: s.worktree, gitDir: s.gitDir, commonDir: s.commonDir })), ...[...dirs].map((worktree) => ({ worktree, ...(gitDirOf(worktree) ? { gitDir: gitDirOf(worktree)! } : {}) }))]);
  }

  function diagnosticsByUri(): Map<string, Diagnostic[]> {
    const byUri = new Map<string, Diagnostic[]>();
    for (const [worktree, list] of findings) {
      for (const group of groupFindings(list)) {
        const f = group[0]!;
        const uri = pathToFileURL(join(worktree, f.path)).href;
        const lines = documents.get(uri)?.lineCount ?? Number.MAX_SAFE_INTEGER;
        const diags = byUri.get(uri) ?? [];
        diags.push(toDiagnostic(group, lines, acknowledged.has(f.pair)));
        byUri.set(uri, diags);
      }
    }
    return byUri;
  }

  /** Pushes what changed (or asks a pull client to pull again); nothing when nothing changed. */
  function publishDiagnostics(): void {
    if (stopped) return;
    const changes = delivered.changes(diagnosticsByUri());
    if (changes.length === 0) return;
    if (pull) connection.languages.diagnostics.refresh().catch((e) => log.info(`diagnostic refresh refused: ${message(e)}`));
    else for (const change of changes) void connection.sendDiagnostics(change);
    if (features.codeLensRefresh) connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
  }

  /** Plain text in the client's message area: a notification, never a request that waits for an answer. */
  function showText(text: string): void {
    void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Info, message: plainText(text) });
  }

  function findingsAt(uri: string): { self: FolderInfo; path: string; list: Finding[] } | undefined {
    let file: string;
    try {
      file = real(fileURLToPath(uri));
    } catch {
      return undefined;
    }
    const self = selfOf(file);
    if (!self) return undefined;
    const path = relativeTo(self.worktree, file)!;
    return { self, path, list: (findings.get(self.worktree) ?? []).filter((f) => f.path === path) };
  }

  function repoOf(self: FolderInfo): Repo | undefined {
    return repos.get(self.commonDir);
  }

  function otherDiff(f: Finding, repo: Repo | undefined): Promise<string> {
    if (!f.other.worktree || !f.other.path) return Promise.resolve('');
    const other = repo?.loop.latest?.agents.find((a) => a.id === f.other.agent);
    const base = other?.base;
    // The other side's state tree is in the key: its diff is fetched again only when it changed.
    const state = typeof other?.meta?.tree === 'string' ? other.meta.tree : '';
    const key = [f.other.worktree, f.other.path, base ?? '', f.other.range?.join(':') ?? '', state].join('|');
    if (diffCache.size > 500) diffCache.clear();
    let p = diffCache.get(key);
    if (!p) {
      p = otherChange({ worktree: f.other.worktree, path: f.other.path, ...(f.other.range ? { range: f.other.range } : {}), ...(base ? { base } : {}) }).catch((e) => `(their diff is unavailable: ${message(e)})`);
      diffCache.set(key, p);
    }
    return p;
  }

  async function diffs(list: readonly Finding[], repo: Repo | undefined): Promise<Map<Finding, string>> {
    const out = new Map<Finding, string>();
    await Promise.all(list.map(async (f) => out.set(f, await otherDiff(f, repo))));
    return out;
  }

  function onLine(f: Finding, line0: number): boolean {
    const [s, e] = f.range;
    if (e < s) return line0 === Math.max(0, e);
    return s - 1 <= line0 && line0 <= e - 1;
  }

  // --- documents --------------------------------------------------------------------------------

  function rescanFor(uri: string, delayMs: number): void {
    let file: string;
    try {
      file = real(fileURLToPath(uri));
    } catch {
      return;
    }
    const self = selfOf(file);
    if (self) {
      const repo = repoOf(self);
      if (repo) {
        markChanged(repo, self.worktree, relativeTo(self.worktree, file) ?? undefined);
        repo.loop.request(delayMs);
      }
      return;
    }
    if (folders.size === 0) {
      // No workspace folder (single-file mode): the opened file's worktree becomes self. A client
      // that named folders may open files before `initialized` has added them: those wait.
      if (singleFile) void addFolder(pathToFileURL(dirname(file)).href, true);
      return;
    }
    // A file in another agent's worktree: its buffer changes what that agent does.
    for (const repo of repos.values()) {
      const agent = repo.loop.latest?.agents.find((a) => a.worktree && relativeTo(real(a.worktree), file) !== undefined);
      if (!agent) continue;
      const worktree = real(agent.worktree!);
      markChanged(repo, worktree, relativeTo(worktree, file) ?? undefined);
      repo.loop.request(delayMs);
    }
  }

  const opening = new Set<string>();
  documents.onDidOpen((e) => {
    opening.add(e.document.uri);
    rescanFor(e.document.uri, 0);
  });
  documents.onDidChangeContent((e) => {
    if (opening.delete(e.document.uri)) return; // fired for the open itself, not an edit
    dirty.add(e.document.uri);
    rescanFor(e.document.uri, settings.debounceMs ?? 150);
  });
  documents.onDidSave((e) => {
    dirty.delete(e.document.uri);
    rescanFor(e.document.uri, 0);
  });
  documents.onDidClose((e) => {
    if (dirty.delete(e.document.uri)) rescanFor(e.document.uri, 0);
  });

  function onWorktreeChanged(worktree: string, why: string): void {
    for (const repo of repos.values()) {
      if (!repo.watched.has(worktree)) continue;
      // Any config the scanner reads (.json, .mjs, .js, .ts; self's or the main worktree's) changed.
      const mayHoldConfig = repo.selves.some((s) => s.worktree === worktree) || worktree === mainWorktreeOf(repo.commonDir);
      const signature = mayHoldConfig ? configSignature(configFilesOf(repo)) : undefined;
      if (signature !== undefined && signature !== repo.configSignature) {
        log.info('An Airspace config file changed: the scanner starts again with it.');
        repo.configSignature = signature;
        resetScanner(repo);
      } else {
        // A file event names the path (relative to the worktree); git events and polling do not.
        markChanged(repo, worktree, why.startsWith('file ') && why.length > 5 ? why.slice(5) : undefined);
        repo.loop.request(settings.debounceMs ?? 150);
      }
    }
  }

  // --- diagnostics (pull) -----------------------------------------------------------------------

  connection.languages.diagnostics.on((params) =>
    guard('textDocument/diagnostic', { kind: 'full' as const, items: [] as Diagnostic[] }, () => ({
      kind: 'full' as const,
      items: diagnosticsByUri().get(params.textDocument.uri) ?? [],
    })),
  );

  // Files that are not open (VS Code's Problems panel): a pull client gets no push to show them.
  connection.languages.diagnostics.onWorkspace(() =>
    guard('workspace/diagnostic', { items: [] }, () => ({
      items: [...diagnosticsByUri()].map(([uri, items]) => ({ kind: 'full' as const, uri, version: null, items })),
    })),
  );

  // --- hover, code lens, code actions -------------------------------------------------------------

  connection.onHover((params) =>
    guard('textDocument/hover', null, async () => {
      const at = findingsAt(params.textDocument.uri);
      const here = at?.list.filter((f) => onLine(f, params.position.line)) ?? [];
      if (!at || here.length === 0) return null;
      const text = hoverMarkdown(here, await diffs(here, repoOf(at.self)));
      return { contents: { kind: 'markdown' as const, value: text } };
    }),
  );

  connection.onCodeLens((params) =>
    guard('textDocument/codeLens', [], () => {
      const at = findingsAt(params.textDocument.uri);
      if (!at) return [];
      return codeLenses(at.list, documents.get(params.textDocument.uri)?.lineCount ?? Number.MAX_SAFE_INTEGER);
    }),
  );

  connection.onCodeAction((params) =>
    guard('textDocument/codeAction', [] as CodeAction[], () => {
      const at = findingsAt(params.textDocument.uri);
      if (!at) return [];
      const relevant = at.list.filter((f) => {
        for (let l = params.range.start.line; l <= params.range.end.line; l++) if (onLine(f, l)) return true;
        return false;
      });
      return codeActions(relevant, pathToFileURL(at.self.folder).href, acknowledged, params.context.diagnostics);
    }),
  );

  // --- commands -----------------------------------------------------------------------------------

  /** Resolves `{ folder?, other }` or `{ a, b }` to the self worktree and the pair key. */
  function pairOf(arg: unknown): { self?: FolderInfo; pair: string; selfId?: string; other?: string } {
    const args: PairArgs | { problem: string } = parsePairArgs(arg);
    if ('problem' in args) throw new Error(args.problem);
    if ('a' in args) {
      // Both ids: the folder whose agent is one of them is self (the lens sends self first).
      for (const [selfId, other] of [[args.a, args.b], [args.b, args.a]] as const) {
        const self = [...folders.values()].find((f) => repoOf(f)?.selfIds.get(f.worktree) === selfId);
        if (self) return { self, pair: pairKey(selfId, other), selfId, other };
      }
      return { pair: pairKey(args.a, args.b) };
    }
    const candidates = args.folder ? [folders.get(real(fileURLToPath(args.folder)))].filter((x): x is FolderInfo => !!x) : [...folders.values()];
    for (const self of candidates) {
      const selfId = repoOf(self)?.selfIds.get(self.worktree);
      if (selfId) return { self, pair: pairKey(selfId, args.other), selfId, other: args.other };
    }
    throw new Error(`no workspace folder is an agent with an advisory involving ${args.other}`);
  }

  connection.onExecuteCommand((params) =>
    guard(`workspace/executeCommand ${params.command}`, null as unknown, async () => {
      const arg = (params.arguments?.[0] ?? {}) as Record<string, unknown>;
      switch (params.command) {
        case Commands.openOther: {
          const loc = parseLocation(arg);
          if ('problem' in loc) throw new Error(loc.problem);
          if (features.showDocument) {
            const shown = await connection.window.showDocument({ uri: loc.uri, selection: loc.range, takeFocus: true });
            if (shown.success) return { shown: true, location: loc };
          }
          // No showDocument (Neovim 0.7, eglot 1.9) or it failed: say where it is instead of doing nothing.
          showText(locationText(loc));
          return { shown: false, location: loc };
        }
        case Commands.copySummary: {
          const { self, pair } = pairOf(arg);
          const list = [...findings.entries()].filter(([wt]) => !self || wt === self.worktree).flatMap(([, l]) => l).filter((f) => f.pair === pair);
          const text = summary(list, await diffs(list, self ? repoOf(self) : undefined));
          // Editors that can reach the clipboard (our VS Code extension) copy the result; others show it.
          if (!clipboardInClient && text) showText(text);
          return { summary: text };
        }
        case Commands.acknowledge: {
          const { self, pair, selfId, other } = pairOf(arg);
          acknowledged.add(pair);
          publishDiagnostics();
          const ids = pair.split('\u0000');
          const repo = self && repoOf(self);
          const agents = repo?.loop.latest?.agents ?? [];
          const selfAgent = agents.find((a) => a.id === selfId);
          const otherAgent = agents.find((a) => a.id === other);
          if (!repo || !selfAgent || !otherAgent) return { acknowledged: ids, recordedIn: 'memory', reason: 'the advisory is not in the latest scan' };
          try {
            const { file, receipt } = await acknowledgeInTrail(trailDirOf(repo), selfAgent, otherAgent, repo.commonDir);
            return { acknowledged: ids, recordedIn: 'trail', trail: file, receipt };
          } catch (error) {
            log.error(`Recording the acknowledgement in the shadow trail failed: ${message(error)}; kept in memory.`);
            return { acknowledged: ids, recordedIn: 'memory', reason: message(error) };
          }
        }
        case Commands.declareIntent: {
          const raw = (Array.isArray(arg) ? arg : Array.isArray(arg.files) ? arg.files : params.arguments ?? []) as unknown[];
          const folderUri = typeof arg.folder === 'string' ? arg.folder : undefined;
          const self = folderUri ? folders.get(real(fileURLToPath(folderUri))) : [...folders.values()][0];
          if (!self) throw new Error('no workspace folder to declare intent for');
          const set = intents.get(self.worktree) ?? new Set<string>();
          const problems: Problem[] = [];
          for (const item of raw) {
            const got = typeof item === 'string' ? intentPath(self.worktree, item) : { problem: { code: 'INTENT_PATH_REFUSED', message: `declareIntent: ${JSON.stringify(item)} is not a path; not declared.` } };
            if ('path' in got) set.add(got.path);
            else problems.push(got.problem);
          }
          for (const p of problems) {
            log.error(p.message);
            // A notification, not showMessageRequest: that one blocks clients without message actions.
            void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message: p.message });
          }
          intents.set(self.worktree, set);
          const repo = repoOf(self);
          if (repo) {
            markChanged(repo, self.worktree, null);
            repo.loop.request(0);
          }
          return { intent: [...set].sort(), ...(problems.length ? { problems } : {}) };
        }
        default:
          throw new Error(`unknown command ${params.command}`);
      }
    }),
  );

  // --- custom request -----------------------------------------------------------------------------

  connection.onRequest(ScanRequestMethod, (params: { folder?: string } | undefined) =>
    guard(ScanRequestMethod, null as ScanResult | null, async () => {
      let repo: Repo | undefined;
      if (params?.folder) {
        const self = folders.get(real(fileURLToPath(params.folder))) ?? (await addFolder(params.folder));
        repo = self && repos.get(self.commonDir);
      } else {
        // Asked right after initialize: the folders it named are being added.
        if (repos.size === 0 && initialFolders) await atMost(2 * CLIENT_ANSWER_MS + 2000, initialFolders, undefined, 'the folders of initialize');
        repo = repos.values().next().value;
      }
      if (!repo) throw new Error('no repository: open a workspace folder inside a git repository');
      return (await repo.loop.next()) ?? null;
    }),
  );

  function disposeAll(): void {
    stopped = true;
    for (const repo of repos.values()) {
      repo.watcher.dispose();
      repo.loop.dispose();
      void repo.scanner?.then((s) => s.dispose()).catch(() => undefined);
    }
    repos.clear();
  }
  connection.onShutdown(disposeAll);
  connection.onExit(disposeAll);

  documents.listen(connection);
  connection.listen();
  return connection;
}
