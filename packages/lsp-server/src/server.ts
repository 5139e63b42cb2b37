/**
 * The Airspace language server. Shape as vscode-extension-samples' lsp-sample: connection →
 * documents → capabilities in onInitialize → handlers → listen. State lives in one `Session`
 * (session.ts); each feature registers its handlers from its own module. Every handler catches
 * its own errors: a failure is logged and answered with a degraded result.
 */
import { pathToFileURL } from 'node:url';
import {
  CodeActionKind,
  ProposedFeatures,
  TextDocumentSyncKind,
  createConnection,
  type Connection,
  type InitializeResult,
} from 'vscode-languageserver/node';
import type { ScanResult } from '@airspace/core';
import { registerLensesAndActions } from './actions.js';
import { Commands } from './commands.js';
import { clientFeatures } from './delivery.js';
import { registerDiagnostics } from './diagnostics.js';
import { registerCommands } from './execute.js';
import { addFolder, registerWorkspace, whenInitialized } from './folders.js';
import { registerHover } from './hover.js';
import { SOURCE } from './present.js';
import { closeRepo } from './repositories.js';
import { createDefaultScanner } from './engine-scanner.js';
import type { CreateLspScanner, ScannerMode } from './lsp-scanner.js';
import { CLIENT_ANSWER_MS, Session, type Repo } from './session.js';
import { mergeSettings, settingsIn, type AirspaceSettings } from './settings.js';

export { AdvisoriesNotificationMethod, type AdvisoriesParams } from './repositories.js';
export type { AirspaceSettings } from './settings.js';

export const ScanRequestMethod = 'airspace/scan';
/** `airspace/engine`: where each repository's scans run (its resident engine, or this process). */
export const EngineRequestMethod = 'airspace/engine';

export interface ServerOptions {
  /** The scanning engine (default: `@airspace/scanner`). Tests and embedders pass their own. */
  readonly createScanner?: CreateLspScanner;
  readonly settings?: AirspaceSettings;
}

export function startServer(connection: Connection = createConnection(ProposedFeatures.all), options: ServerOptions = {}): Connection {
  const s = new Session(connection, options.createScanner ?? createDefaultScanner, options.settings ?? {});

  connection.onInitialize((params): InitializeResult => {
    s.capabilities = params.capabilities ?? {};
    const init = (params.initializationOptions ?? {}) as { clipboard?: boolean };
    s.clipboardInClient = init.clipboard === true;
    // `{ settings: {…} }`, `{ airspace: {…} }` or the settings themselves: Neovim's `init_options`.
    s.settings = mergeSettings(s.settings, settingsIn(params.initializationOptions));
    s.features = clientFeatures(s.capabilities);
    const folders =
      params.workspaceFolders?.map((f) => f.uri) ??
      (params.rootUri ? [params.rootUri] : params.rootPath ? [pathToFileURL(params.rootPath).href] : []);
    s.pendingFolders = folders;
    s.singleFile = folders.length === 0;
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        // Served even when the client does not advertise code lens support.
        codeLensProvider: { resolveProvider: false },
        executeCommandProvider: { commands: Object.values(Commands) },
        ...(s.pull ? { diagnosticProvider: { identifier: SOURCE, interFileDependencies: true, workspaceDiagnostics: true } } : {}),
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'airspace', version: '0.1.0' },
    };
  });

  connection.onInitialized(() => {
    s.initialFolders = whenInitialized(s);
  });

  registerWorkspace(s);
  registerDiagnostics(s);
  registerHover(s);
  registerLensesAndActions(s);
  registerCommands(s);

  // `airspace/scan`: the latest scan of a folder's repository (or the first repository's).
  connection.onRequest(ScanRequestMethod, (params: { folder?: string } | undefined) =>
    s.guard(ScanRequestMethod, null as ScanResult | null, async () => {
      let repo: Repo | undefined;
      if (params?.folder) {
        const self = s.folderOf(params.folder) ?? (await addFolder(s, params.folder));
        repo = self && s.repoOf(self);
      } else {
        // Asked right after initialize: the folders it named are being added.
        if (s.repos.size === 0 && s.initialFolders)
          await s.atMost(2 * CLIENT_ANSWER_MS + 2000, s.initialFolders, undefined, 'the folders of initialize');
        repo = s.repos.values().next().value;
      }
      if (!repo) throw new Error('no repository: open a workspace folder inside a git repository');
      return (await repo.loop.next()) ?? null;
    }),
  );

  connection.onRequest(EngineRequestMethod, () =>
    s.guard(EngineRequestMethod, { repositories: [] as { commonDir: string; mode: ScannerMode | null }[] }, async () => ({
      repositories: await Promise.all(
        [...s.repos.values()].map(async (r) => ({
          commonDir: r.commonDir,
          mode: (await r.scanner?.catch(() => undefined))?.mode?.() ?? null,
        })),
      ),
    })),
  );

  const disposeAll = (): void => {
    s.stopped = true;
    for (const repo of [...s.repos.values()]) closeRepo(s, repo);
  };
  connection.onShutdown(disposeAll);
  connection.onExit(disposeAll);

  s.documents.listen(connection);
  connection.listen();
  return connection;
}
