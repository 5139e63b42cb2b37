/**
 * The scanning engine in a worker thread, so that a full scan (git, parsing, channels) never
 * holds up the server's event loop: hovers and code actions are answered while it runs.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createScanner } from '@airspace/scanner';

interface Request {
  readonly id: number;
  readonly type: 'scan' | 'dispose';
  readonly overrides?: Parameters<ReturnType<typeof createScanner>['scan']>[0];
  readonly extra?: Parameters<ReturnType<typeof createScanner>['scan']>[1];
}

const port = parentPort!;
const scanner = createScanner((workerData as { options: Parameters<typeof createScanner>[0] }).options);

function reply(id: number, body: { result?: unknown; error?: string }): void {
  try {
    port.postMessage({ id, ...body });
  } catch {
    // Something not cloneable in a result (a plugin's free-form data): send its JSON form.
    port.postMessage({ id, ...JSON.parse(JSON.stringify(body)) });
  }
}

port.on('message', (request: Request) => {
  void (async () => {
    try {
      if (request.type === 'dispose') {
        await scanner.dispose();
        reply(request.id, { result: null });
      } else {
        reply(request.id, { result: await scanner.scan(request.overrides, request.extra) });
      }
    } catch (error) {
      reply(request.id, { error: error instanceof Error ? error.message : String(error) });
    }
  })();
});
