/**
 * The child process a plugin's thread lives in (plugin-process.ts starts it): it starts the
 * plugin's worker thread (plugin-worker.ts) as the host would and relays its messages, its
 * service calls and its end over the IPC channel. A plugin that exhausts memory in a way the
 * thread's heap limit cannot stop (one huge array: V8 then aborts the whole process) takes this
 * process down, never the one that scans.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import type { HostReply } from './plugin-host.js';
import type { RelayReply, RelayRequest } from './plugin-process.js';
import type { ServiceCall } from './service-bridge.js';

interface Start {
  readonly specifier: string;
  readonly path: string;
  readonly maxHeapMb: number;
}

const { specifier, path, maxHeapMb } = JSON.parse(process.argv[2] ?? '{}') as Start;
const send = (message: RelayReply): void => {
  if (process.connected) process.send!(message);
};

const bridge = new MessageChannel();
const flag = new Int32Array(new SharedArrayBuffer(4));
const worker = new Worker(new URL('./plugin-worker.js', import.meta.url), {
  workerData: { specifier, path, servicePort: bridge.port2, serviceFlag: flag },
  transferList: [bridge.port2],
  resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
  stdout: true,
  stderr: true,
});
// The plugin's output travels with its answers; this process's own stderr is V8's, if it aborts.
worker.stdout.on('data', (chunk: Buffer) => send({ kind: 'output', stream: 'stdout', chunk }));
worker.stderr.on('data', (chunk: Buffer) => send({ kind: 'output', stream: 'stderr', chunk }));
bridge.port1.on('message', (call: ServiceCall) => send({ kind: 'service', call }));
bridge.port1.unref();
worker.on('message', (reply: HostReply) => send({ kind: 'reply', reply }));
worker.on('error', (error) => send({ kind: 'error', message: error.message }));
// This process ends with the thread's exit code, which is what the host reports.
worker.on('exit', (code) => {
  process.exitCode = code;
  process.disconnect?.();
});

process.on('message', (request: RelayRequest) => {
  if (request.kind === 'host') worker.postMessage(request.message);
  else {
    // Post the plugin thread's service answer, then wake it (it waits on `flag`).
    bridge.port1.postMessage(request.answer);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  }
});
// The host is gone (it ended, or dropped this plugin): so is the plugin.
process.on('disconnect', () => void worker.terminate().then(() => process.exit()));
