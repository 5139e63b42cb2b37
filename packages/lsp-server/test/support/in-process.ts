/** The server in this process over in-memory streams: fast enough for many sessions per test. */
import { PassThrough } from 'node:stream';
import { createStreamConnection } from '../../src/connection.js';
import { startServer, type ServerOptions } from '../../src/server.js';
import { ProtocolClient } from './client.js';

export class InProcessClient extends ProtocolClient {
  /** The exit code once the server exited (after `exit`, or when its input ended). */
  exitCode: number | undefined;
  readonly exited: Promise<number>;

  constructor(options: ServerOptions = {}) {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    let exit!: (code: number) => void;
    const exited = new Promise<number>((resolve) => (exit = resolve));
    super(toServer, fromServer);
    this.exited = exited;
    startServer(
      createStreamConnection({
        input: toServer,
        output: fromServer,
        log: (line) => {
          this.stderr += `${line}\n`;
          this.poke();
        },
        onExit: (code) => {
          // The real server's process ends here; in a test the server has disposed its scanners
          // and watchers (its exit handler ran) and is left unreferenced.
          this.exitCode = code;
          exit(code);
          this.poke();
        },
      }),
      options,
    );
  }

  override async close(): Promise<void> {
    await super.close();
    await Promise.race([this.exited, new Promise((r) => setTimeout(r, 2000))]);
    this.toServer.end();
  }
}
