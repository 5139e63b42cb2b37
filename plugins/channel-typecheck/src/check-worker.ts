/**
 * The compiler's thread (`compiler-thread.ts` starts it): type-checks one pair's merge at a time
 * with the TypeScript compiler API (`checkPair`), so that the resident engine's own thread keeps
 * answering while the compiler works. The compiler, the blob texts and the parsed SourceFiles
 * stay here between checks (the warm programs); each check brings only the texts this thread has
 * not been sent yet.
 *
 * Tests only: `workerData.hold` (an Int32Array's SharedArrayBuffer) holds each check before it
 * starts while its slot 0 is 1, blocking this thread as a long check would, and counts the
 * checks started in slot 1, so that a test can hold the compiler deterministically.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkWithCompiler } from './check.js';
import { BlobTexts } from './tree-fs.js';
import type { ToCompiler } from './compiler-thread.js';

const texts = new BlobTexts(Infinity);
const hold = (workerData as { hold?: SharedArrayBuffer } | undefined)?.hold;
const gate = hold ? new Int32Array(hold) : undefined;

parentPort!.on('message', (message: ToCompiler) => {
  if (gate) {
    Atomics.add(gate, 1, 1);
    Atomics.notify(gate, 1);
    Atomics.wait(gate, 0, 1);
  }
  if (message.reset) texts.clear();
  for (const [id, text] of message.texts) texts.set(id, text);
  void checkWithCompiler({ ...message.input, texts }).then((result) => parentPort!.postMessage({ id: message.id, result }));
});
