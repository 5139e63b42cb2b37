/**
 * The worker side of loading a config module (`.mjs`, `.js`, `.ts`; config.ts `readConfigModule`):
 * imports it in its own thread and posts back its default export as data. What the module does
 * stays in the thread: `process.exit` ends only the thread, a module that never finishes loading
 * is terminated by the host's timer, and its stdout goes to the host's stderr.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

export type ConfigWorkerReply = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

const { path } = workerData as { readonly path: string };
const port = parentPort!;
const text = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function read(): Promise<unknown> {
  if (/\.[cm]?ts$/.test(path)) {
    // TypeScript configs go through jiti, the loader ESLint uses for the same purpose.
    const { createJiti } = await import('jiti');
    return createJiti(import.meta.url, { interopDefault: true, moduleCache: false }).import(path, { default: true });
  }
  return ((await import(pathToFileURL(path).href)) as { default?: unknown }).default;
}

function send(reply: ConfigWorkerReply): void {
  try {
    port.postMessage(reply);
  } catch {
    // Not cloneable (a function somewhere): its JSON form, which validation then judges.
    try {
      port.postMessage(JSON.parse(JSON.stringify(reply)) as ConfigWorkerReply);
    } catch (error) {
      port.postMessage({ ok: false, error: `its default export cannot be read as data (${text(error)})` });
    }
  }
}

// The thread stays until the host ends it, so that its answer always arrives before its end.
setInterval(() => undefined, 1 << 30);
read().then(
  (value) => send({ ok: true, value }),
  (error: unknown) => send({ ok: false, error: text(error) }),
);
