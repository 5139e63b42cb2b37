/**
 * The workspace as the client describes it: folders added and removed (each folder's worktree is
 * a self), documents opened, edited, saved and closed (what changed for the next scan), and
 * settings pushed or pulled (a changed scanner option restarts the scanner).
 */
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DidChangeConfigurationNotification } from 'vscode-languageserver';
import { publishDiagnostics } from './diagnostics.js';
import { closeRepo, openRepo, resetScanner } from './repositories.js';
import { CLIENT_ANSWER_MS, message, type Session } from './session.js';
import { debounceOf, mergeSettings, scannerOptionsOf, settingsIn } from './settings.js';
import { describeFolder, real, relativeTo, type FolderInfo } from './workspace.js';

/** Adds a workspace folder; `asWorktree`: its whole worktree is the folder (single-file mode). */
export function addFolder(s: Session, uri: string, asWorktree = false): Promise<FolderInfo | undefined> {
  return s.guard(`workspace folder ${uri}`, undefined, async () => {
    const described = await describeFolder(fileURLToPath(uri));
    if (s.stopped) return undefined;
    const info = asWorktree ? { ...described, folder: described.worktree } : described;
    s.folders.set(info.folder, info);
    const repo = openRepo(s, info);
    if (!repo.selves.some((x) => x.worktree === info.worktree)) repo.selves.push(info);
    repo.changes.all();
    repo.loop.request(0);
    return info;
  });
}

export function removeFolder(s: Session, uri: string): void {
  const dir = real(fileURLToPath(uri));
  const info = s.folders.get(dir);
  s.folders.delete(dir);
  if (!info) return;
  const repo = s.repos.get(info.commonDir);
  if (!repo) return;
  // Another folder in the same worktree keeps it self (and its diagnostics).
  const at = repo.selves.findIndex((x) => x.worktree === info.worktree);
  const sibling = [...s.folders.values()].find((f) => f.worktree === info.worktree);
  if (sibling && at >= 0) repo.selves[at] = sibling;
  else if (!sibling) {
    if (at >= 0) repo.selves.splice(at, 1);
    s.findings.delete(info.worktree);
    publishDiagnostics(s);
  }
  if (repo.selves.length === 0) closeRepo(s, repo);
}

/** How long a client that did not advertise `workspace/configuration` is waited for before the first scan. */
const UNADVERTISED_ANSWER_MS = 1000;

/**
 * Asks the client for the `airspace` settings and lays them over the held ones. Asked even when
 * the client does not advertise `workspace/configuration`: Neovim 0.7 answers it from its
 * `settings` without advertising it. An unadvertised request is waited for briefly (a client
 * without it answers with an error at once); an answer that comes later still applies.
 */
export async function loadSettings(s: Session): Promise<void> {
  const advertised = s.capabilities.workspace?.configuration === true;
  let settled = false;
  const asked = (s.connection.workspace.getConfiguration({ section: 'airspace' }) as Promise<unknown>).then(
    (got) => {
      if (settled && got !== undefined && got !== null) void changeSettings(s, () => (s.settings = mergeSettings(s.settings, got)));
      return got;
    },
    (e) => {
      if (advertised) s.log.info(`workspace/configuration refused: ${message(e)}`);
      return undefined;
    },
  );
  const got = await s.atMost(
    advertised ? CLIENT_ANSWER_MS : UNADVERTISED_ANSWER_MS,
    asked,
    undefined,
    'an answer to workspace/configuration',
  );
  settled = true;
  s.settings = mergeSettings(s.settings, got);
}

/** Changes the settings; a scanner whose options changed is replaced (and scans everything again). */
async function changeSettings(s: Session, change: () => unknown): Promise<void> {
  return s.guard('configuration', undefined, async () => {
    const options = () =>
      new Map([...s.repos.values()].map((r) => [r, JSON.stringify(scannerOptionsOf(s.settings, r.selves[0]!.worktree))]));
    const before = options();
    await change();
    // Clients send this on every connect (eglot) or for other sections: a scanner (and the scan
    // it runs, the first one indexes the repository) is replaced only when its options changed.
    for (const [repo, now] of options()) if (now !== before.get(repo)) resetScanner(repo);
  });
}

/** A document of some worktree changed: the next scan re-reads it, after `delayMs`. */
function rescanFor(s: Session, uri: string, delayMs: number): void {
  const file = s.fileOf(uri);
  if (file === undefined) return;
  const self = s.selfOf(file);
  if (self) {
    const repo = s.repoOf(self);
    if (repo) {
      repo.changes.path(self.worktree, relativeTo(self.worktree, file));
      repo.loop.request(delayMs);
    }
    return;
  }
  if (s.folders.size === 0) {
    // No workspace folder (single-file mode): the opened file's worktree becomes self. A client
    // that named folders may open files before `initialized` has added them: those wait.
    if (s.singleFile) void addFolder(s, pathToFileURL(dirname(file)).href, true);
    return;
  }
  // A file in another agent's worktree: its buffer changes what that agent does.
  for (const repo of s.repos.values()) {
    const agent = repo.loop.latest?.agents.find((a) => a.worktree && relativeTo(real(a.worktree), file) !== undefined);
    if (!agent) continue;
    const worktree = real(agent.worktree!);
    repo.changes.path(worktree, relativeTo(worktree, file));
    repo.loop.request(delayMs);
  }
}

export function registerWorkspace(s: Session): void {
  const { documents, connection } = s;
  const opening = new Set<string>();
  documents.onDidOpen((e) => {
    opening.add(e.document.uri);
    rescanFor(s, e.document.uri, 0);
  });
  documents.onDidChangeContent((e) => {
    if (opening.delete(e.document.uri)) return; // fired for the open itself, not an edit
    s.dirty.add(e.document.uri);
    rescanFor(s, e.document.uri, debounceOf(s.settings));
  });
  documents.onDidSave((e) => {
    s.dirty.delete(e.document.uri);
    rescanFor(s, e.document.uri, 0);
  });
  documents.onDidClose((e) => {
    if (s.dirty.delete(e.document.uri)) rescanFor(s, e.document.uri, 0);
  });

  connection.onDidChangeConfiguration((change) => {
    void changeSettings(s, async () => {
      s.settings = mergeSettings(s.settings, settingsIn(change.settings));
      await loadSettings(s);
    });
  });
}

/** Once initialized: follow folder changes (if the client sends them), read settings, add the folders of `initialize`. */
export function whenInitialized(s: Session): Promise<void> {
  return s.guard('initialized', undefined, async () => {
    if (s.capabilities.workspace?.didChangeConfiguration?.dynamicRegistration) {
      const registered = s.connection.client.register(DidChangeConfigurationNotification.type, { section: 'airspace' });
      await s.atMost(CLIENT_ANSWER_MS, registered, undefined, 'an answer to client/registerCapability');
    }
    if (s.capabilities.workspace?.workspaceFolders) {
      s.connection.workspace.onDidChangeWorkspaceFolders((e) => {
        void s.guard('workspace folders', undefined, async () => {
          for (const f of e.removed) removeFolder(s, f.uri);
          for (const f of e.added) await addFolder(s, f.uri);
        });
      });
    }
    await loadSettings(s);
    for (const uri of s.pendingFolders) await addFolder(s, uri);
    s.pendingFolders = [];
  });
}
