/**
 * A plugin's worker thread inside a child process of its own (plugin-relay.ts), seen from the
 * host as the worker itself: `postMessage`, `message` / `error` / `exit` events, `stdout` and
 * `stderr`, `ref`, `unref`, `terminate`. The thread's heap limit stops most memory hogs, but one
 * huge allocation makes V8 abort the process the thread is in; here that process is this child,
 * and the host sees an `error` saying so, then an `exit`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { ServiceAnswer, ServiceCall, ServiceTable } from './service-bridge.js';

/** Parent → relay. */
export type RelayRequest =
  { readonly kind: 'host'; readonly message: unknown } | { readonly kind: 'service'; readonly answer: ServiceAnswer };

/** Relay → parent. */
export type RelayReply =
  /** A message of the plugin's thread (plugin-host.ts `HostReply`). */
  | { readonly kind: 'reply'; readonly reply: unknown }
  | { readonly kind: 'service'; readonly call: ServiceCall }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'output'; readonly stream: 'stdout' | 'stderr'; readonly chunk: Uint8Array };

export interface PluginProcessOptions {
  readonly specifier: string;
  readonly path: string;
  readonly maxHeapMb: number;
  /** This scan's services, for the plugin's service calls. */
  readonly services: () => ServiceTable | undefined;
}

/** The compiled relay beside this module, or under `dist/` when running from `src/` (tests). */
function relayPath(): string {
  const own = fileURLToPath(new URL('./plugin-relay.js', import.meta.url));
  return existsSync(own) ? own : own.replace(/([\\/])src([\\/]plugin-relay\.js)$/, '$1dist$2');
}

export class PluginProcess extends EventEmitter {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  private readonly child: ChildProcess;
  private ended = false;
  private killed = false;

  constructor(options: PluginProcessOptions) {
    super();
    const start = JSON.stringify({ specifier: options.specifier, path: options.path, maxHeapMb: options.maxHeapMb });
    this.child = fork(relayPath(), [start], {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      // Not the host's flags (a test runner's loaders, its heap size): the relay needs none.
      execArgv: [],
    });
    // What V8 says when it aborts the process (its last line names the cause); not the plugin's output.
    let fatal = '';
    this.child.stderr!.on('data', (chunk: Buffer) => (fatal = (fatal + chunk.toString()).slice(-4096)));
    this.child.on('message', (message: RelayReply) => {
      if (message.kind === 'reply') this.emit('message', message.reply);
      else if (message.kind === 'output') (message.stream === 'stdout' ? this.stdout : this.stderr).write(message.chunk);
      else if (message.kind === 'error') this.emit('error', new Error(message.message));
      else void this.answer(message.call, options.services);
    });
    this.child.on('error', (error) => this.emit('error', error));
    // The relay ends with its thread's exit code; a signal means the process itself went down.
    // 'close', not 'exit': the plugin's last output has arrived by then.
    this.child.on('exit', () => (this.ended = true));
    this.child.on('close', (code, signal) => {
      if (!this.killed && (signal !== null || code === 134)) {
        const oom = signal === 'SIGABRT' || code === 134 ? ', as V8 does when it runs out of memory' : '';
        const said = /FATAL ERROR: ([^\n]*)/.exec(fatal)?.[1];
        const why = said ? `: ${said.trim()}` : oom;
        this.emit('error', new Error(`its process was aborted (${signal ?? `exit code ${code}`}${why})`));
      }
      this.emit('exit', code ?? 1);
    });
  }

  private async answer(call: Parameters<ServiceTable['answer']>[0], services: () => ServiceTable | undefined): Promise<void> {
    const table = services();
    const answer = table ? await table.answer(call) : { seq: call.seq, error: 'no scan is running' };
    this.send({ kind: 'service', answer });
  }

  private send(request: RelayRequest): void {
    if (!this.ended && this.child.connected) this.child.send(request);
  }

  /** Throws, as a worker's does, when `message` cannot be copied. */
  postMessage(message: unknown): void {
    this.send({ kind: 'host', message });
  }

  ref(): void {
    this.child.ref();
    this.child.channel?.ref();
    (this.child.stderr as { ref?: () => void } | null)?.ref?.();
  }

  unref(): void {
    this.child.unref();
    this.child.channel?.unref();
    (this.child.stderr as { unref?: () => void } | null)?.unref?.();
  }

  /** Ends the process (and the plugin's thread with it); resolves once it is gone. */
  terminate(): Promise<void> {
    if (this.ended) return Promise.resolve();
    this.killed = true;
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGKILL');
    });
  }
}
