/**
 * Blobs read through one long-lived `git cat-file --batch` process: indexing a commit reads
 * thousands of blobs, and starting a process per batch of reads costs more than the reads (most
 * of all from a process holding a large index). The process is started on the first read and
 * closes itself when reads stop; a later read starts it again.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { GitError, gitEnv } from './exec.js';

export interface BlobReader {
  /** The content of a blob (any object id git can name); rejects when it is missing. */
  read(id: string): Promise<Buffer>;
  close(): void;
}

export interface BlobReaderOptions {
  readonly env?: Readonly<Record<string, string>>;
  /** Close the process after this long without reads (default 200 ms). */
  readonly idleMs?: number;
}

interface Waiting {
  readonly id: string;
  readonly resolve: (b: Buffer) => void;
  readonly reject: (e: Error) => void;
}

interface Batch {
  readonly process: ChildProcessWithoutNullStreams;
  /** Reads sent to this process, answered in order. */
  queue: Waiting[];
  buffer: Buffer;
  /** Output received after `buffer`, not yet joined to it: joined once `need` bytes are there. */
  pending: Buffer[];
  pendingBytes: number;
  /** Bytes `buffer` must hold before the next read can be answered (0: unknown, join at once). */
  need: number;
}

export function createBlobReader(cwd: string, options: BlobReaderOptions = {}): BlobReader {
  const args = ['cat-file', '--batch'];
  let current: Batch | undefined;
  let idle: NodeJS.Timeout | undefined;

  /** Answers as many waiting reads as the output received so far holds, in order. */
  const drain = (b: Batch) => {
    b.need = 0;
    let at = 0;
    const buf = b.buffer;
    while (b.queue.length > 0) {
      const nl = buf.indexOf(10, at);
      if (nl < 0) break;
      const header = buf.subarray(at, nl).toString('latin1').split(' ');
      if (header.length < 3) {
        // `<id> missing` or `<id> ambiguous`
        b.queue.shift()!.reject(new Error(`blob ${header[0]} is ${header[1] ?? 'unreadable'}`));
        at = nl + 1;
        continue;
      }
      const size = Number(header[2]);
      if (buf.length < nl + 1 + size + 1) {
        b.need = nl + 1 + size + 1 - at;
        break;
      }
      b.queue.shift()!.resolve(Buffer.from(buf.subarray(nl + 1, nl + 1 + size)));
      at = nl + 1 + size + 1;
    }
    b.buffer = at >= buf.length ? Buffer.alloc(0) : buf.subarray(at);
    if (b.queue.length === 0 && b === current) scheduleClose();
  };

  const scheduleClose = () => {
    if (idle) clearTimeout(idle);
    idle = setTimeout(() => {
      if (current && current.queue.length === 0) close();
    }, options.idleMs ?? 200);
    idle.unref();
  };

  const start = (): Batch => {
    const proc = spawn('git', args, { cwd, env: gitEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    const b: Batch = { process: proc, queue: [], buffer: Buffer.alloc(0), pending: [], pendingBytes: 0, need: 0 };
    const err: Buffer[] = [];
    proc.stdout.on('data', (d: Buffer) => {
      // A large blob comes in many chunks: joining each to what came before would copy it over
      // and over (quadratic). Chunks wait until the blob is whole, then are joined once.
      b.pending.push(d);
      b.pendingBytes += d.length;
      if (b.buffer.length + b.pendingBytes < b.need) return;
      b.buffer = b.buffer.length || b.pending.length > 1 ? Buffer.concat([b.buffer, ...b.pending]) : d;
      b.pending = [];
      b.pendingBytes = 0;
      drain(b);
    });
    proc.stderr.on('data', (d: Buffer) => err.push(d));
    proc.stdin.on('error', () => undefined);
    const gone = (code: number | null, why?: string) => {
      if (current === b) current = undefined;
      const waiting = b.queue;
      b.queue = [];
      const error = new GitError(args, code, why ?? (Buffer.concat(err).toString('utf8') || 'git cat-file stopped'));
      for (const w of waiting) w.reject(error);
    };
    proc.on('error', (e) => gone(null, e.message));
    proc.on('close', (code) => gone(code));
    return b;
  };

  const close = () => {
    if (idle) clearTimeout(idle);
    idle = undefined;
    current?.process.stdin.end();
    current = undefined;
  };

  return {
    read(id) {
      return new Promise((resolve, reject) => {
        if (!/^[0-9a-f]{4,64}$/i.test(id)) {
          reject(new Error(`not an object id: ${id}`));
          return;
        }
        if (idle) clearTimeout(idle);
        current ??= start();
        current.queue.push({ id, resolve, reject });
        current.process.stdin.write(`${id}\n`);
      });
    },
    close,
  };
}
