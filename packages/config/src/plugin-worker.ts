/**
 * The worker side of a plugin host (plugin-host.ts): imports one plugin module, instantiates its
 * channels, and answers `prepare` / `score` calls by message. What the plugin does to its thread
 * stays there: its stdout is the host's to route, `process.exit` ends only this thread, and its
 * unhandled rejections and uncaught exceptions become problems sent with the next answer.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { deepFreeze, type Agent, type AnyChannel, type ChannelContext, type Logger, type Problem } from '@airspace/core';
import { instantiate } from './plugins.js';
import { ServiceClient } from './service-bridge.js';
import type { ChannelDescriptor, HostReply, HostRequest, PairAnswer } from './plugin-host.js';

interface Start {
  readonly specifier: string;
  readonly path: string;
  readonly servicePort: MessagePort;
  readonly serviceFlag: Int32Array;
}

const port = parentPort!;
const { specifier, path, servicePort, serviceFlag } = workerData as Start;
/** The agents of this thread (copies), so that a service call can name them by id. */
const agentIds = new WeakMap<object, string>();
// A service call that does not answer in this time throws in the plugin (the scan's own time
// budget usually stops the channel first).
const services = new ServiceClient(servicePort, serviceFlag, agentIds, 30_000);
const text = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Problems that happened between calls (a rejection nobody awaited, a throw in a timer). */
const late: Problem[] = [];
process.on('unhandledRejection', (reason) => {
  late.push({
    code: 'PLUGIN_UNHANDLED_REJECTION',
    message: `Plugin ${specifier}: a promise rejected and nothing handled it (${text(reason)}); ignored.`,
  });
});
process.on('uncaughtException', (error) => {
  late.push({
    code: 'PLUGIN_UNCAUGHT_EXCEPTION',
    message: `Plugin ${specifier}: an exception escaped outside any call (${text(error)}); ignored.`,
  });
});

function send(message: HostReply): void {
  try {
    port.postMessage(message);
  } catch {
    // Not cloneable (functions, class instances in evidence): send its JSON form, or say why not.
    try {
      port.postMessage(JSON.parse(JSON.stringify(message)) as HostReply);
    } catch (error) {
      port.postMessage({
        id: 'id' in message ? message.id : 0,
        type: 'reply',
        ok: false,
        error: `returned a value that cannot be sent (${text(error)})`,
      } as HostReply);
    }
  }
}

const logger: Logger = {
  debug: (message) => send({ type: 'log', level: 'debug', message: String(message) }),
  info: (message) => send({ type: 'log', level: 'info', message: String(message) }),
  warn: (message) => send({ type: 'log', level: 'warn', message: String(message) }),
};

interface State {
  readonly channel: AnyChannel;
  agents: Map<string, Agent>;
  ctx?: ChannelContext<unknown> & { prepared: unknown };
}
const channels = new Map<string, State>();

async function load(): Promise<void> {
  let exported: unknown;
  try {
    exported = ((await import(pathToFileURL(path).href)) as { default?: unknown }).default;
  } catch (error) {
    send({
      type: 'loaded',
      channels: [],
      problems: [{ code: 'PLUGIN_NOT_LOADED', message: `Plugin ${specifier}: could not be loaded: ${text(error)}` }],
    });
    return;
  }
  if (exported === undefined) {
    send({
      type: 'loaded',
      channels: [],
      problems: [
        {
          code: 'INVALID_CHANNEL',
          message: `Plugin ${specifier}: has no default export (export a channel, a factory, or an array of them)`,
        },
      ],
    });
    return;
  }
  const result = instantiate(exported, specifier);
  const descriptors: ChannelDescriptor[] = [];
  for (const { channel } of result.channels) {
    channels.set(channel.id, { channel, agents: new Map() });
    descriptors.push({
      id: channel.id,
      defaultWeight: channel.defaultWeight,
      ...(channel.meta ? { meta: channel.meta } : {}),
      ...(channel.defaultOptions !== undefined ? { defaultOptions: channel.defaultOptions } : {}),
      ...(channel.optionsSchema !== undefined ? { optionsSchema: channel.optionsSchema } : {}),
      ...(channel.requires ? { requires: channel.requires } : {}),
    });
  }
  send({ type: 'loaded', channels: descriptors, problems: [...result.problems, ...late.splice(0)] });
}

async function answer(request: HostRequest): Promise<unknown> {
  const state = channels.get(request.channel);
  if (!state) throw new Error(`has no channel "${request.channel}"`);
  if (request.type === 'prepare') {
    // Copies made by the message, frozen so the plugin sees what a channel in-process sees.
    const agents = deepFreeze(request.agents);
    for (const a of agents) agentIds.set(a, a.id);
    const base: ChannelContext<unknown> = {
      options: deepFreeze(request.options),
      now: request.now,
      logger,
      // Stand-ins of the services the channel requires (checked against their contracts by the scan).
      services: services.decode(request.services) as ChannelContext['services'],
      ...(request.repository ? { repository: request.repository } : {}),
    };
    state.agents = new Map(agents.map((a) => [a.id, a]));
    const prepared = state.channel.prepare ? await state.channel.prepare(agents, base) : undefined;
    state.ctx = { ...base, prepared };
    return null;
  }
  // Pairs in the scan's order until done or the slice is used: the host answers the next calls
  // from these. At least one pair is scored, however long it takes.
  const answers: PairAnswer[] = [];
  const started = performance.now();
  for (const [x, y] of request.pairs) {
    if (answers.length > 0 && performance.now() - started > request.sliceMs) break;
    const a = state.agents.get(x);
    const b = state.agents.get(y);
    try {
      if (!a || !b || !state.ctx) throw new Error(`was asked to score ${x} × ${y} before preparing them`);
      answers.push({ ok: true, value: await state.channel.score(a, b, state.ctx) });
    } catch (error) {
      answers.push({ ok: false, error: text(error) });
    }
  }
  return answers;
}

/** Resolves when everything written to `stream` so far has reached the host. */
const flushed = (stream: NodeJS.WriteStream): Promise<void> => new Promise((resolve) => stream.write('', () => resolve()));

port.on('message', (request: HostRequest | { readonly type: 'close' }) => {
  if (request.type === 'close') {
    // A worker's writes reach the host one acknowledged chunk at a time: end only once they have.
    void Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(() => process.exit(0));
    return;
  }
  void (async () => {
    let reply: HostReply;
    try {
      reply = { type: 'reply', id: request.id, ok: true, value: await answer(request) };
    } catch (error) {
      reply = { type: 'reply', id: request.id, ok: false, error: text(error) };
    }
    // A rejection the call left behind is reported after the microtasks it ran have settled.
    await new Promise((resolve) => setImmediate(resolve));
    send({ ...reply, problems: late.splice(0) });
  })();
});

await load();
