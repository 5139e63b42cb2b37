// An engine worker that takes scans and never answers them (a hung plugin, a stuck git): only
// `dispose` is answered. What the server must survive.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', (m) => {
  if (m.type === 'dispose') parentPort.postMessage({ id: m.id, result: null });
});
