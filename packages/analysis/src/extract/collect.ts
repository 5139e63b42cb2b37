/**
 * Native parse trees hold about 80 bytes of memory per byte of source, which V8 does not see:
 * a dead tree is freed only when the garbage collector finds its wrapper unreachable and the
 * finalizer then runs, between turns of the event loop. A thread that parses much and allocates
 * little would rarely collect, so whatever parses more than a few files asks for a collection
 * after every `everyBytes` of source (and returns to the event loop between chunks).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Source bytes parsed between two collections. */
export const COLLECT_EVERY_BYTES = 1 << 20;

let gc: (() => void) | null | undefined;

/** The garbage collector as a function (a context made after `--expose-gc` has `gc`), if the runtime allows it. */
function collector(): (() => void) | null {
  if (gc !== undefined) return gc;
  try {
    setFlagsFromString('--expose-gc');
    const fn: unknown = runInNewContext('gc');
    gc = typeof fn === 'function' ? (fn as () => void) : null;
  } catch {
    gc = null;
  }
  return gc;
}

/** Counts parsed bytes and collects garbage after every `everyBytes` of them. */
export function treeCollector(everyBytes = COLLECT_EVERY_BYTES): { parsed(bytes: number): void } {
  let since = 0;
  return {
    parsed(bytes) {
      since += bytes;
      if (since < everyBytes) return;
      since = 0;
      collector()?.();
    },
  };
}
