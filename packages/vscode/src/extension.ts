/**
 * The VS Code client of the Airspace language server: starts it (the bundled @airspace/lsp-server,
 * or `airspace.server.command`), copies message summaries to the clipboard, and shows the
 * advisories that concern this workspace in the status bar. Everything else is the server's.
 */
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

interface AdvisoriesParams {
  readonly folder: string;
  readonly self: string | null;
  readonly advisories: readonly { readonly a: string; readonly b: string; readonly level: string; readonly steer?: string }[];
}

/** The server inside the packaged extension (`server/`, bundled by scripts/release.mjs), else the workspace's. */
function serverModule(context: vscode.ExtensionContext): string {
  const bundled = context.asAbsolutePath('server/dist/bin.js');
  return existsSync(bundled) ? bundled : require.resolve('@airspace/lsp-server/bin');
}

function serverOptions(context: vscode.ExtensionContext): ServerOptions {
  const command = vscode.workspace.getConfiguration('airspace').get<string[]>('server.command') ?? [];
  if (command.length > 0) return { command: command[0]!, args: command.slice(1), transport: TransportKind.stdio };
  return { module: serverModule(context), transport: TransportKind.stdio, args: ['--stdio'] };
}

/** @public VS Code calls it (the manifest's `main`). */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  status.command = 'airspace.showScan';
  context.subscriptions.push(status);
  const byFolder = new Map<string, AdvisoriesParams>();

  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }],
    synchronize: { configurationSection: 'airspace' },
    // The server returns summaries; this client can reach the clipboard, so the server need not show them.
    initializationOptions: { clipboard: true },
    middleware: {
      executeCommand: async (command, args, next) => {
        const result = (await next(command, args)) as { summary?: string } | null | undefined;
        if (command === 'airspace.copySummary' && result?.summary) {
          await vscode.env.clipboard.writeText(result.summary);
          void vscode.window.showInformationMessage('Airspace: a summary of both changes is on the clipboard.');
        }
        return result;
      },
    },
  };

  client = new LanguageClient('airspace', 'Airspace', serverOptions(context), clientOptions);
  context.subscriptions.push(
    client.onNotification('airspace/advisories', (params: AdvisoriesParams) => {
      byFolder.set(params.folder, params);
      const all = [...byFolder.values()].flatMap((p) => p.advisories.map((a) => ({ ...a, self: p.self })));
      const steer = all.filter((a) => a.level === 'resolution' && a.steer === a.self).length;
      status.text =
        all.length === 0
          ? '$(pass) Airspace: clear'
          : `$(warning) Airspace: ${all.length} advisor${all.length === 1 ? 'y' : 'ies'}${steer ? `, steer ${steer}` : ''}`;
      status.show();
    }),
    vscode.commands.registerCommand('airspace.showScan', async () => {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.toString();
      const result = await client?.sendRequest('airspace/scan', folder ? { folder } : {});
      const doc = await vscode.workspace.openTextDocument({ language: 'json', content: JSON.stringify(result, null, 2) });
      await vscode.window.showTextDocument(doc, { preview: true });
    }),
  );
  await client.start();
}

/** @public VS Code calls it on shutdown. */
export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
