/**
 * A one-line progress bar on stderr while the scanner indexes. Drawn only on a terminal, so
 * piped and captured output never contains it.
 */
import type { ScanProgress } from '@airspace/scanner';

export interface ProgressBar {
  update(progress: ScanProgress): void;
  done(): void;
}

const NONE: ProgressBar = { update: () => undefined, done: () => undefined };

export function createProgressBar(stream: NodeJS.WriteStream = process.stderr, enabled = stream.isTTY === true): ProgressBar {
  if (!enabled) return NONE;
  let drawn = false;
  let lastDraw = 0;
  return {
    update(p) {
      const now = Date.now();
      // Redraw at most every 50 ms, but always draw the end of a phase.
      if (now - lastDraw < 50 && p.done < p.total) return;
      lastDraw = now;
      const width = 24;
      const ratio = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
      const filled = Math.round(ratio * width);
      const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
      const text = `${p.phase.padEnd(8)} ${bar} ${p.done}/${p.total}${p.message ? ` ${p.message}` : ''}`;
      const columns = stream.columns ?? 80;
      stream.write(`\r${text.slice(0, columns - 1)}\u001b[K`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\u001b[K');
      drawn = false;
    },
  };
}
