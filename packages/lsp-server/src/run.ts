/** Process setup for a stdio language server: stdout is the protocol's alone. */
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { createStreamConnection } from './connection.js';
import { startServer, type ServerOptions } from './server.js';

export function runLanguageServer(options: ServerOptions = {}): void {
  // Anything printed by a dependency must not corrupt the protocol stream.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  process.on('uncaughtException', (error) => console.error(`airspace-lsp: uncaught: ${error.stack ?? error.message}`));
  process.on('unhandledRejection', (reason) => console.error(`airspace-lsp: unhandled rejection: ${String(reason)}`));
  const otherTransport = process.argv.some((a) => a.startsWith('--node-ipc') || a.startsWith('--socket') || a.startsWith('--pipe'));
  if (otherTransport) {
    startServer(createConnection(ProposedFeatures.all), options);
    return;
  }
  // stdio (the default): our reader survives malformed frames (wire.ts).
  const connection = createStreamConnection({
    input: process.stdin,
    output: process.stdout,
    watchClientProcess: true,
    onExit: (code) => {
      if (code !== 0) console.error(`airspace-lsp: exiting with ${code} (the input ended, or exit came without shutdown).`);
      process.exit(code);
    },
  });
  startServer(connection, options);
}
