/** Process setup for a stdio language server: stdout is the protocol's alone. */
import { startServer, type ServerOptions } from './server.js';

export function runLanguageServer(options: ServerOptions = {}): void {
  // Anything printed by a dependency must not corrupt the protocol stream.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  process.on('uncaughtException', (error) => console.error(`airspace-lsp: uncaught: ${error.stack ?? error.message}`));
  process.on('unhandledRejection', (reason) => console.error(`airspace-lsp: unhandled rejection: ${String(reason)}`));
  if (!process.argv.includes('--stdio') && !process.argv.some((a) => a.startsWith('--node-ipc') || a.startsWith('--socket') || a.startsWith('--pipe'))) {
    process.argv.push('--stdio');
  }
  startServer(undefined, options);
}
