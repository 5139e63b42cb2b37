/**
 * The server's connection over a pair of byte streams (stdio), with our own reader in front of
 * vscode-jsonrpc (wire.ts) and our own exit: the library's node entry point exits the process from
 * inside the protocol handlers, which also makes a server impossible to run in-process in a test.
 */
import type { Readable, Writable } from 'node:stream';
import { ProposedFeatures, StreamMessageWriter, createProtocolConnection } from 'vscode-languageserver/node';
import { createConnection, type Connection, type WatchDog } from 'vscode-languageserver';
import { GuardedMessageReader } from './wire.js';

export interface StreamConnectionOptions {
  readonly input: Readable;
  readonly output: Writable;
  /** Called once: after `exit` (0 after a `shutdown`, else 1); the input ending counts as `exit`. */
  readonly onExit: (code: number) => void;
  /** Where the reader reports malformed input (default: stderr). */
  readonly log?: (line: string) => void;
  /** Exit when the client's process (`initialize`'s processId) is gone, checked every 3 s. */
  readonly watchClientProcess?: boolean;
}

export function createStreamConnection(options: StreamConnectionOptions): Connection {
  const writer = new StreamMessageWriter(options.output);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const reader = new GuardedMessageReader(options.input, { reply: (m) => void writer.write(m).catch(() => undefined), log });
  let exited = false;
  const exit = (code: number) => {
    if (exited) return;
    exited = true;
    options.onExit(code);
  };
  const watchDog: WatchDog = {
    shutdownReceived: false,
    initialize(params) {
      const pid = params.processId;
      if (!options.watchClientProcess || typeof pid !== 'number') return;
      const timer = setInterval(() => {
        try {
          process.kill(pid, 0);
        } catch {
          exit(watchDog.shutdownReceived ? 0 : 1);
        }
      }, 3000);
      timer.unref();
    },
    exit: (code) => exit(code),
  };
  return createConnection((logger) => createProtocolConnection(reader, writer, logger), watchDog, ProposedFeatures.all);
}
