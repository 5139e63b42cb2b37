/**
 * `airspace lsp --stdio`: the Airspace language server (`@airspace/lsp-server`) for any LSP editor
 * (docs/editors.md). From here on stdout carries protocol messages only.
 */
import { Command } from 'commander';
import type { Io } from '../io.js';

export function lspCommand(_io: Io): Command {
  return new Command('lsp')
    .description('run the language server: diagnostics, hover, code lens and commands in any LSP editor (docs/editors.md)')
    .option('--stdio', 'speak LSP over standard input and output (the default)')
    .action(async () => {
      const { runLanguageServer } = await import('@airspace/lsp-server');
      runLanguageServer();
      // The connection keeps the process alive; it exits when the client sends `exit`.
      await new Promise<never>(() => undefined);
    });
}
