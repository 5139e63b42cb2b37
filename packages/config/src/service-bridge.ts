/**
 * Services (`ctx.services`: the git service, the import graph, symbols) for a plugin in a worker
 * thread. They are live objects of the scan — child processes, graphs — so they stay here: the
 * plugin gets stand-ins whose methods make a synchronous call to this thread (a message, then
 * `Atomics.wait` until the answer is posted, then `receiveMessageOnPort`), as the plugin API's
 * synchronous service methods require. Plain data crosses as a copy; an object with methods
 * crosses as a handle; an agent crosses as its id and is this scan's agent again on arrival.
 */
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { Agent } from '@airspace/core';

const HANDLE = '\u0000airspace:handle';
const AGENT = '\u0000airspace:agent';
/** The pseudo-method that reads a property of a handle. */
const GET = '\u0000get';

interface HandleData {
  readonly [HANDLE]: number;
  readonly methods: readonly string[];
  /** Data properties of a plain object, read when the plugin reads them (an index is large). */
  readonly props: readonly string[];
}

export interface ServiceCall {
  readonly seq: number;
  readonly handle: number;
  readonly method: string;
  readonly args: readonly unknown[];
}

export type ServiceAnswer = { readonly seq: number } & ({ readonly value: unknown } | { readonly error: string });

const isPlain = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** Data that a message copies as it is (Map and Set of plain data included). */
const copiedAsIs = (value: object): boolean =>
  value instanceof Map ||
  value instanceof Set ||
  value instanceof Date ||
  value instanceof RegExp ||
  ArrayBuffer.isView(value) ||
  value instanceof ArrayBuffer;

function methodsOf(value: object): string[] {
  const names = new Set<string>();
  for (const key of Object.keys(value)) if (typeof (value as Record<string, unknown>)[key] === 'function') names.add(key);
  for (let proto = Object.getPrototypeOf(value); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key === 'constructor') continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, key);
      if (typeof descriptor?.value === 'function') names.add(key);
    }
  }
  return [...names];
}

/** This thread's side: the scan's services and the objects handed out, by handle. */
export class ServiceTable {
  private readonly objects: object[] = [];
  private readonly ids = new Map<object, number>();

  constructor(private readonly agents: ReadonlyMap<string, Agent>) {}

  encode(value: unknown): unknown {
    if (typeof value !== 'object' || value === null) return typeof value === 'function' ? undefined : value;
    if (Array.isArray(value)) return value.map((x) => this.encode(x));
    if (copiedAsIs(value)) return value;
    const methods = methodsOf(value);
    const plain = isPlain(value);
    if (plain && methods.length === 0) return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, this.encode(x)]));
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.objects.push(value) - 1;
      this.ids.set(value, id);
    }
    // A class instance (a graph) crosses by its methods only: its fields are its own business.
    const props = plain ? Object.keys(value).filter((k) => typeof (value as Record<string, unknown>)[k] !== 'function') : [];
    return { [HANDLE]: id, methods, props } satisfies HandleData;
  }

  private revive(value: unknown): unknown {
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) return value.map((x) => this.revive(x));
    if (AGENT in value) return this.agents.get((value as Record<string, string>)[AGENT]!);
    if (HANDLE in value) return this.objects[(value as Record<string, number>)[HANDLE]!];
    if (!isPlain(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, this.revive(x)]));
  }

  /** Runs one call from the plugin's thread; never throws. */
  async answer(call: ServiceCall): Promise<ServiceAnswer> {
    try {
      const target = this.objects[call.handle] as Record<string, unknown> | undefined;
      if (call.method === GET && target) return { seq: call.seq, value: this.encode(target[String(call.args[0])]) };
      const method = target?.[call.method];
      if (typeof method !== 'function') throw new Error(`no service method "${call.method}"`);
      const value = await (method as (...args: unknown[]) => unknown).apply(
        target,
        call.args.map((x) => this.revive(x)),
      );
      return { seq: call.seq, value: this.encode(value) };
    } catch (error) {
      return { seq: call.seq, error: error instanceof Error ? error.message : String(error) };
    }
  }
}

/** The plugin's side: stand-ins for the services, calling through `port`. */
export class ServiceClient {
  private readonly handles = new WeakMap<object, number>();
  private seq = 0;

  constructor(
    private readonly port: MessagePort,
    private readonly flag: Int32Array,
    private readonly agentIds: WeakMap<object, string>,
    private readonly timeoutMs: number,
  ) {}

  decode(value: unknown): unknown {
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) return value.map((x) => this.decode(x));
    if (HANDLE in value) {
      const data = value as HandleData;
      const id = data[HANDLE];
      const stand: Record<string, unknown> = {};
      for (const key of data.props) Object.defineProperty(stand, key, { enumerable: true, get: () => this.call(id, GET, [key]) });
      for (const method of data.methods) stand[method] = (...args: unknown[]) => this.call(id, method, args);
      this.handles.set(stand, id);
      return stand;
    }
    if (!isPlain(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, this.decode(x)]));
  }

  private encodeArg(value: unknown): unknown {
    if (typeof value !== 'object' || value === null) return value;
    const agent = this.agentIds.get(value);
    if (agent !== undefined) return { [AGENT]: agent };
    const handle = this.handles.get(value);
    if (handle !== undefined) return { [HANDLE]: handle, methods: [], props: [] };
    if (Array.isArray(value)) return value.map((x) => this.encodeArg(x));
    if (!isPlain(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, this.encodeArg(x)]));
  }

  private call(handle: number, method: string, args: readonly unknown[]): unknown {
    const seq = ++this.seq;
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage({ seq, handle, method, args: args.map((x) => this.encodeArg(x)) } satisfies ServiceCall);
    const deadline = Date.now() + this.timeoutMs;
    let answer: ServiceAnswer | undefined;
    // Answers to earlier calls that timed out may still arrive first: skip them.
    while (!answer) {
      const received = receiveMessageOnPort(this.port);
      if (received) {
        if ((received.message as ServiceAnswer).seq === seq) answer = received.message as ServiceAnswer;
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the service call ${method}() did not answer within ${this.timeoutMs} ms`);
      Atomics.wait(this.flag, 0, 0, left);
      Atomics.store(this.flag, 0, 0);
    }
    if ('error' in answer) throw new Error(answer.error);
    return this.decode(answer.value);
  }
}
