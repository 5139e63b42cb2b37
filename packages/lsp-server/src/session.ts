/**
 * The server's state in one object: the client (what it supports, its settings), the workspace
 * folders and their repositories, the findings of the latest scans, unsaved buffers, declared
 * intent and acknowledgements. Feature modules (diagnostics, hover, actions, commands, folders,
 * repositories) read and change it; none keeps state of its own beyond caches.
 */
import { fileURLToPath } from 'node:url';
import { TextDocuments, type ClientCapabilities, type Connection } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { ScanResult } from '@airspace/core';
import type { ChangeSet } from './changes.js';
import { DiagnosticsLedger, clientFeatures, type ClientFeatures } from './delivery.js';
import type { Finding } from './findings.js';
import type { ScanLoop } from './scan-loop.js';
import type { CreateLspScanner, IntentSpec, LspScanner } from './lsp-scanner.js';
import type { AirspaceSettings } from './settings.js';
import type { ChangeTracker } from '@airspace/git';
import { real, relativeTo, type FolderInfo } from './workspace.js';

/** One repository (common git directory) and everything the server runs for it. */
export interface Repo {
  readonly commonDir: string;
  /** Its worktrees that are workspace folders: each is a "self". */
  readonly selves: FolderInfo[];
  scanner?: Promise<LspScanner> | undefined;
  readonly loop: ScanLoop<ScanResult>;
  /** Self agent id per self worktree, from the latest scan. */
  readonly selfIds: Map<string, string>;
  /** Per self worktree, the advisories last announced (`advisoriesKey`). */
  readonly lastAdvisories: Map<string, string>;
  /** Signature of the config files the current scanner read (config-files.ts). */
  configSignature?: string;
  /** Worktrees watched for this repository. */
  watched: Set<string>;
  /** What changed since the last scan started. */
  readonly changes: ChangeSet;
  /** Whether the scan being published read some worktree in full. */
  fullScan: boolean;
  /** The last `git worktree list`, and the agents' worktrees when it was taken. */
  worktreeList?: { readonly agentsKey: string; readonly dirs: readonly string[] };
  /** The scan error last shown to the user (`window/showMessage`), until a scan succeeds. */
  shownError?: string | undefined;
  /** Follows every worktree and the git directory (created with the first scan's worktrees). */
  tracker?: ChangeTracker | undefined;
}

/** Findings of one document: its self folder, its repository-relative path and what is on it. */
export interface DocumentFindings {
  readonly self: FolderInfo;
  readonly path: string;
  readonly list: Finding[];
}

/** How long the server waits for the client to answer a request of its own. */
export const CLIENT_ANSWER_MS = 3000;

export const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export class Session {
  readonly documents = new TextDocuments(TextDocument);
  capabilities: ClientCapabilities = {};
  features: ClientFeatures = clientFeatures({});
  /** Whether the client copies summaries itself (our VS Code extension): then they are not shown. */
  clipboardInClient = false;
  readonly delivered = new DiagnosticsLedger();
  /** Workspace folders by real path. */
  readonly folders = new Map<string, FolderInfo>();
  /** Repositories by common git directory. */
  readonly repos = new Map<string, Repo>();
  /** Findings per self worktree, from the latest scan of its repository. */
  readonly findings = new Map<string, Finding[]>();
  /** Documents with unsaved changes (URIs): their text is what the scan reads. */
  readonly dirty = new Set<string>();
  /** Pairs (`pairKey`) acknowledged in this session or found acknowledged in their trail. */
  readonly acknowledged = new Set<string>();
  /** Declared intent per self worktree: by `path` (the whole file) or `path#name` (a symbol). */
  readonly intents = new Map<string, Map<string, IntentSpec>>();
  /** The other side's diff per finding's location and state (hover.ts). */
  readonly diffCache = new Map<string, Promise<string>>();
  /** Pairs whose trail was read for an earlier acknowledgement (once per pair and server). */
  readonly trailsRead = new Set<string>();
  /** Folders of `initialize`, added once the client is initialized. */
  pendingFolders: string[] = [];
  /** From `initialized` on: settles once the folders of `initialize` are added. */
  initialFolders: Promise<void> | undefined;
  /** Whether the client named no workspace folder: then an opened file's worktree becomes self. */
  singleFile = false;
  /** After shutdown or exit: nothing is added, scanned or published any more. */
  stopped = false;

  /** Logging never throws: after `exit` (a disposed connection) a line goes to stderr instead. */
  readonly log = {
    info: (m: string): void => this.say((x) => this.connection.console.info(x), m),
    error: (m: string): void => this.say((x) => this.connection.console.error(x), m),
  };

  constructor(
    readonly connection: Connection,
    readonly createScanner: CreateLspScanner,
    public settings: AirspaceSettings,
  ) {}

  private say(send: (m: string) => void, m: string): void {
    try {
      send(m);
    } catch {
      process.stderr.write(`airspace-lsp: ${m}\n`);
    }
  }

  /** Diagnostics are pulled by this client (never pushed as well). */
  get pull(): boolean {
    return this.features.diagnostics === 'pull';
  }

  /** Runs a handler; on error logs it and returns the fallback. */
  async guard<T>(what: string, fallback: T, fn: () => Promise<T> | T): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      this.log.error(`${what} failed: ${message(error)}`);
      return fallback;
    }
  }

  /**
   * A client's answer, or `fallback` after `ms`: a client that never answers a request of ours
   * (configuration, registration) must not keep the server from adding its folders and scanning.
   */
  async atMost<T>(ms: number, answer: Promise<T>, fallback: T, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<T>((resolve) => {
      timer = setTimeout(() => {
        this.log.info(`Nothing came from the client (${what}) within ${ms / 1000} s; going on without it.`);
        resolve(fallback);
      }, ms);
    });
    try {
      return await Promise.race([answer, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The real path of a `file:` URI, or undefined for any other URI. */
  fileOf(uri: string): string | undefined {
    try {
      return real(fileURLToPath(uri));
    } catch {
      return undefined;
    }
  }

  /** The workspace folder a `file:` URI names, if it is one. */
  folderOf(uri: string): FolderInfo | undefined {
    return this.folders.get(real(fileURLToPath(uri)));
  }

  /** The self (workspace folder worktree) that holds a file, longest worktree first. */
  selfOf(file: string): FolderInfo | undefined {
    let best: FolderInfo | undefined;
    for (const f of this.folders.values())
      if (relativeTo(f.worktree, file) !== undefined && (!best || f.worktree.length > best.worktree.length)) best = f;
    return best;
  }

  repoOf(self: FolderInfo): Repo | undefined {
    return this.repos.get(self.commonDir);
  }

  /** Self's agent id in the latest scan of its repository. */
  selfIdOf(self: FolderInfo): string | undefined {
    return this.repoOf(self)?.selfIds.get(self.worktree);
  }

  /** The findings on a document of a self worktree. */
  findingsAt(uri: string): DocumentFindings | undefined {
    const file = this.fileOf(uri);
    const self = file === undefined ? undefined : this.selfOf(file);
    if (!file || !self) return undefined;
    const path = relativeTo(self.worktree, file)!;
    return { self, path, list: (this.findings.get(self.worktree) ?? []).filter((f) => f.path === path) };
  }

  /** Lines of an open document (unbounded when it is not open). */
  lineCount(uri: string): number {
    return this.documents.get(uri)?.lineCount ?? Number.MAX_SAFE_INTEGER;
  }
}
