/**
 * A plugin module in its own worker thread (plugin-worker.ts), inside a child process of its own
 * (plugin-process.ts), seen from here as ordinary channel objects whose `prepare` and `score` send
 * messages. The thread is the boundary: the plugin gets
 * copies of the agents, its stdout goes to `output` (stderr by default: stdout is ours), a
 * `process.exit` ends only its thread, and its stray rejections come back as problems. Time is
 * bounded by the scan (core's budgets); when the scan stops a channel with a call outstanding
 * (a promise that never settles, a busy loop), the thread is terminated and the next scan starts
 * a new one. A plugin that exhausts memory loses its thread (the heap limit) or, for one huge
 * allocation that makes V8 abort, its process: never the host's.
 */
import {
  ChannelStopped,
  type Agent,
  type AnyChannel,
  type ChannelContext,
  type ChannelScore,
  type Logger,
  type OptionsSchema,
  type Precision,
  type Problem,
} from '@airspace/core';
import { PluginProcess } from './plugin-process.js';
import { ServiceTable } from './service-bridge.js';

/** What the worker says about each channel it loaded (everything but the functions). */
export interface ChannelDescriptor {
  readonly id: string;
  readonly defaultWeight: number;
  readonly meta?: { readonly description?: string; readonly precision?: Precision; readonly docs?: string };
  readonly defaultOptions?: unknown;
  /** Plain data: the scan checks options against it in this thread and sends the result. */
  readonly optionsSchema?: OptionsSchema<unknown>;
  readonly requires?: readonly string[];
}

export type HostRequest =
  | {
      readonly id: number;
      readonly type: 'prepare';
      readonly channel: string;
      readonly agents: Agent[];
      readonly options: unknown;
      readonly now: number;
      readonly repository?: { readonly id: string; readonly root?: string };
      /** The services the channel requires, as service-bridge.ts sends them. */
      readonly services: Readonly<Record<string, unknown>>;
    }
  /** Scores pairs in order until all are done or `sliceMs` has passed; answers `PairAnswer[]`. */
  | {
      readonly id: number;
      readonly type: 'scores';
      readonly channel: string;
      readonly pairs: readonly (readonly [string, string])[];
      readonly sliceMs: number;
    };

export type PairAnswer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/**
 * One message per pair costs a round trip between threads (~40–100 µs); the scan asks for pairs
 * in a known order (agents by id, a < b), so one `score` asks the thread for the pairs that will
 * follow too, up to this many or SLICE_MS of the plugin's time, and the next calls are answered
 * from what came back.
 */
const BATCH_PAIRS = 256;
const SLICE_MS = 10;

export type HostReply =
  | { readonly type: 'loaded'; readonly channels: ChannelDescriptor[]; readonly problems: Problem[] }
  | { readonly type: 'log'; readonly level: keyof Logger; readonly message: string }
  | {
      readonly type: 'reply';
      readonly id: number;
      readonly ok: boolean;
      readonly value?: unknown;
      readonly error?: string;
      readonly problems?: Problem[];
    };

export interface PluginHostOptions {
  /** As written in the config: it names the plugin in every problem. */
  readonly specifier: string;
  /** The resolved module file. */
  readonly path: string;
  /** Where the plugin's stdout and stderr go; default the process's stderr. */
  readonly output?: NodeJS.WritableStream;
  /** Longest the module may take to import and build its channels; default 10 s. */
  readonly loadTimeoutMs?: number;
  /** The thread's heap limit; a plugin that exceeds it loses its thread, not the process. Default 1024 MiB, or AIRSPACE_PLUGIN_MAX_HEAP_MB. */
  readonly maxHeapMb?: number;
}

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

const DEFAULT_LOAD_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_HEAP_MB = 1024;
/** Sets the default heap limit of plugin threads, in MiB. */
export const PLUGIN_HEAP_ENV = 'AIRSPACE_PLUGIN_MAX_HEAP_MB';

function defaultMaxHeapMb(): number {
  const value = Number(process.env[PLUGIN_HEAP_ENV]);
  return Number.isFinite(value) && value >= 16 ? value : DEFAULT_MAX_HEAP_MB;
}
const CLOSE_MS = 1000;
const SILENT: Logger = { debug() {}, info() {}, warn() {} };

interface Scan {
  /** Agent ids in the order the scan gave them to `prepare` (by id): pairs come as i < j. */
  readonly order: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  /** Answers that came with an earlier call, by pair. */
  readonly answers: Map<string, PairAnswer>;
}

/** One key per ordered pair (a, b): answers are kept as asked, not folded with (b, a) as core's `pairKey` does. */
const orderedPairKey = (a: string, b: string): string => `${a}\u0000${b}`;

interface Pending {
  readonly channel: string;
  readonly doing: string;
  resolve(reply: { value: unknown; problems: Problem[] }): void;
  reject(error: Error): void;
}

export class PluginHost {
  private worker: PluginProcess | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  /** Problems to hand to the scan with the next answer (late errors, reloads). */
  private carried: Problem[] = [];
  /** Why the thread is gone, for the calls after it went, until the next scan starts a new one. */
  private gone: Problem | undefined;
  private logger: Logger = SILENT;
  private disposed = false;
  /** The load of a thread started after the last one ended; the next scan's `prepare` waits for it. */
  private restarting: Promise<{ channels: ChannelDescriptor[]; problems: Problem[] }> | undefined;
  /** Threads that loaded their channels: only those are restarted when they end. */
  private readonly loadedOk = new WeakSet<PluginProcess>();
  /** Per channel: this scan's agents and the answers fetched ahead. */
  private readonly scans = new Map<string, Scan>();
  private readonly requires = new Map<string, readonly string[]>();
  /** This scan's services, as the plugin's thread reaches them (one table per `ctx.services`). */
  private services: { readonly of: unknown; readonly table: ServiceTable } | undefined;

  constructor(private readonly options: PluginHostOptions) {}

  /** Starts the thread and loads the module; the channels are `channels()`. Never throws. */
  async start(): Promise<{ channels: ChannelDescriptor[]; problems: Problem[] }> {
    return this.spawn();
  }

  /** Channel objects whose calls go to the thread, one per descriptor. */
  channels(descriptors: readonly ChannelDescriptor[]): AnyChannel[] {
    for (const d of descriptors) this.requires.set(d.id, d.requires ?? []);
    return descriptors.map((d) => ({
      id: d.id,
      defaultWeight: d.defaultWeight,
      ...(d.meta ? { meta: d.meta } : {}),
      ...(d.defaultOptions !== undefined ? { defaultOptions: d.defaultOptions } : {}),
      ...(d.optionsSchema !== undefined ? { optionsSchema: d.optionsSchema } : {}),
      ...(d.requires ? { requires: d.requires } : {}),
      // Always defined: it is how the thread receives this scan's agents.
      prepare: (agents: readonly Agent[], ctx: ChannelContext<unknown>) => this.prepare(d.id, agents, ctx),
      score: (a: Agent, b: Agent) => this.score(d.id, a, b),
    }));
  }

  /** Resolves once a thread restarted after the last one ended has loaded (or failed to). */
  async ready(): Promise<void> {
    await this.restarting;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.failPending(() => new Error(`plugin ${this.options.specifier} was unloaded`));
    if (!worker) return;
    // Ask the thread to end once its output has reached us (a plugin's last lines are not lost);
    // one that does not (busy, or its stdout flooded) is terminated after CLOSE_MS.
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    let timer: ReturnType<typeof setTimeout> | undefined;
    worker.postMessage({ type: 'close' });
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_MS)))]);
    clearTimeout(timer);
    await worker.terminate();
  }

  private async prepare(channel: string, agents: readonly Agent[], ctx: ChannelContext<unknown>): Promise<null> {
    this.logger = ctx.logger;
    if (this.disposed) throw new Error(`plugin ${this.options.specifier} was unloaded`);
    // A new scan: the thread that replaced one that ended (started then, so that its load is
    // not charged to this call's time), or a new one if none could be started.
    if (!this.restarting && !this.worker) this.restart();
    if (this.restarting) {
      const again = await this.restarting;
      this.restarting = undefined;
      this.carried.push(...again.problems);
    }
    this.gone = undefined;
    ctx.signal?.addEventListener('abort', () => this.stopped(channel, ctx.signal!.reason), { once: true });
    if (this.services?.of !== ctx.services)
      this.services = { of: ctx.services, table: new ServiceTable(new Map(agents.map((a) => [a.id, a]))) };
    const table = this.services.table;
    const supplied: Readonly<Record<string, unknown>> = ctx.services;
    const services = Object.fromEntries(
      (this.requires.get(channel) ?? []).filter((name) => supplied[name] != null).map((name) => [name, table.encode(supplied[name])]),
    );
    const order = agents.map((a) => a.id);
    this.scans.set(channel, { order, index: new Map(order.map((id, i) => [id, i])), answers: new Map() });
    const message = {
      type: 'prepare' as const,
      channel,
      agents: [...agents],
      options: ctx.options,
      now: ctx.now,
      services,
      ...(ctx.repository ? { repository: ctx.repository } : {}),
    };
    const { problems } = await this.call(message, 'preparing');
    this.carried.push(...problems);
    return null;
  }

  private async score(channel: string, a: Agent, b: Agent): Promise<ChannelScore> {
    const scan = this.scans.get(channel);
    const key = orderedPairKey(a.id, b.id);
    let answer = scan?.answers.get(key);
    let problems: Problem[] = [];
    if (answer) scan!.answers.delete(key);
    else {
      const pairs = scan ? this.pairsFrom(scan, a.id, b.id) : [[a.id, b.id] as const];
      const reply = await this.call({ type: 'scores', channel, pairs, sliceMs: SLICE_MS }, `scoring ${a.id} × ${b.id}`);
      problems = reply.problems;
      const answers = reply.value as PairAnswer[];
      answers.forEach((x, i) => scan?.answers.set(orderedPairKey(pairs[i]![0], pairs[i]![1]), x));
      answer = answers[0] ?? { ok: false, error: 'gave no answer' };
      scan?.answers.delete(key);
    }
    if (!answer.ok) {
      this.carried.push(...problems);
      throw new Error(answer.error);
    }
    const value = answer.value;
    const extra = [...this.carried.splice(0), ...problems];
    if (extra.length === 0) return value as ChannelScore;
    const result = (typeof value === 'object' && value !== null ? value : {}) as Partial<ChannelScore>;
    return { ...result, problems: [...(Array.isArray(result.problems) ? result.problems : []), ...extra] } as ChannelScore;
  }

  /** The pair asked for and the ones the scan will ask for next (i < j over the agents by id). */
  private pairsFrom(scan: Scan, a: string, b: string): (readonly [string, string])[] {
    const pairs: (readonly [string, string])[] = [[a, b]];
    let i = scan.index.get(a);
    let j = scan.index.get(b);
    if (i === undefined || j === undefined || i >= j) return pairs;
    const n = scan.order.length;
    while (pairs.length < BATCH_PAIRS) {
      if (++j >= n) {
        i++;
        j = i + 1;
        if (j >= n) break;
      }
      pairs.push([scan.order[i]!, scan.order[j]!]);
    }
    return pairs;
  }

  private call(message: WithoutId<HostRequest>, doing: string): Promise<{ value: unknown; problems: Problem[] }> {
    const worker = this.worker;
    if (!worker || this.gone)
      return Promise.reject(
        new ChannelStopped(this.gone ?? this.problem('PLUGIN_EXITED', message.channel, doing, 'its thread is not running')),
      );
    const id = ++this.nextId;
    // While a call is out, the thread holds the process open as any pending I/O does.
    if (this.pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        channel: message.channel,
        doing,
        resolve,
        reject,
      });
      try {
        worker.postMessage({ ...message, id });
      } catch {
        // Agents with something a message cannot carry: send their JSON form.
        worker.postMessage(JSON.parse(JSON.stringify({ ...message, id })) as HostRequest);
      }
    });
  }

  private spawn(): Promise<{ channels: ChannelDescriptor[]; problems: Problem[] }> {
    const {
      specifier,
      path,
      output = process.stderr,
      loadTimeoutMs = DEFAULT_LOAD_TIMEOUT_MS,
      maxHeapMb = defaultMaxHeapMb(),
    } = this.options;
    const worker = new PluginProcess({ specifier, path, maxHeapMb, services: () => this.services?.table });
    // An idle plugin never keeps the process alive; a call in flight is held by the scan's timer.
    worker.unref();
    worker.stdout.on('data', (chunk: Buffer) => output.write(chunk));
    worker.stderr.on('data', (chunk: Buffer) => output.write(chunk));
    this.worker = worker;
    return new Promise((resolve) => {
      let loaded = false;
      const finish = (result: { channels: ChannelDescriptor[]; problems: Problem[] }): void => {
        if (loaded) return;
        loaded = true;
        clearTimeout(timer);
        resolve(result);
      };
      const timer = setTimeout(() => {
        finish({
          channels: [],
          problems: [
            {
              code: 'PLUGIN_NOT_LOADED',
              message: `Plugin ${specifier}: did not finish loading within ${loadTimeoutMs} ms; it was stopped.`,
            },
          ],
        });
        if (this.worker === worker) this.worker = undefined;
        void worker.terminate();
      }, loadTimeoutMs);
      worker.on('message', (reply: HostReply) => {
        if (reply.type === 'loaded') {
          if (reply.channels.length > 0) this.loadedOk.add(worker);
          finish({ channels: reply.channels, problems: reply.problems });
        } else if (reply.type === 'log') this.logger[reply.level]?.(`${specifier}: ${reply.message}`);
        else this.answered(reply);
      });
      worker.on('error', (error) => this.lost(worker, `its thread failed (${error.message})`));
      worker.on('exit', (code) => {
        finish({
          channels: [],
          problems: [
            { code: 'PLUGIN_NOT_LOADED', message: `Plugin ${specifier}: ended its thread while loading (process.exit(${code})).` },
          ],
        });
        this.lost(worker, `called process.exit(${code})`);
      });
    });
  }

  private answered(reply: Extract<HostReply, { type: 'reply' }>): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker?.unref();
    if (reply.ok) pending.resolve({ value: reply.value, problems: reply.problems ?? [] });
    else {
      this.carried.push(...(reply.problems ?? []));
      pending.reject(new Error(reply.error ?? 'failed'));
    }
  }

  /** The thread ended on its own (process.exit, a crash): the calls waiting on it stop their channels. */
  private lost(worker: PluginProcess, why: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    let first: Problem | undefined;
    this.failPending((p) => {
      const problem = this.problem('PLUGIN_EXITED', p.channel, p.doing, why);
      first ??= problem;
      return new ChannelStopped(problem);
    });
    this.gone = first ?? {
      code: 'PLUGIN_EXITED',
      message: `Plugin ${this.options.specifier} ${why} between calls; its channels scored 0 for the rest of this scan.`,
    };
    if (this.loadedOk.has(worker)) this.restart();
  }

  /** Starts a new thread for the next scan; calls in this scan keep getting `gone`. */
  private restart(): void {
    if (this.disposed) return;
    this.restarting = this.spawn();
    this.restarting.catch(() => undefined);
  }

  /** The scan stopped `channel` (time): a call still running is abandoned, so its thread goes. */
  private stopped(channel: string, reason: unknown): void {
    const worker = this.worker;
    if (!worker || ![...this.pending.values()].some((p) => p.channel === channel)) return;
    this.worker = undefined;
    const why = typeof reason === 'object' && reason !== null && 'message' in reason ? String((reason as Problem).message) : String(reason);
    this.gone = { code: 'PLUGIN_STOPPED', message: `Plugin ${this.options.specifier} was stopped because ${why}` };
    this.failPending(() => new ChannelStopped(this.gone!));
    void worker.terminate();
    this.restart();
  }

  private failPending(error: (pending: Pending) => Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    this.worker?.unref();
    for (const p of all) p.reject(error(p));
  }

  private problem(code: string, channel: string, doing: string, why: string): Problem {
    return {
      code,
      channel,
      message: `Plugin ${this.options.specifier} ${why} while channel "${channel}" was ${doing}; it scored 0 for the rest of this scan.`,
    };
  }
}
