/**
 * The channel registry: channels register by being loaded (a plain object or a factory). Two
 * channels with one id are an error, never a silent override.
 */
import type { AnyChannel, Problem } from './channel.js';
import { AirspaceError, duplicateChannelId, invalidChannel } from './errors.js';
import { schemaDefect } from './options.js';

const ID = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const PRECISIONS = ['line', 'symbol', 'file'];

/** Checks a value's shape as a channel; returns the problems (empty when valid). */
export function validateChannel(value: unknown, source = 'channel'): Problem[] {
  const problems: Problem[] = [];
  const fail = (why: string): Problem[] => {
    problems.push(invalidChannel(source, why));
    return problems;
  };
  if (typeof value !== 'object' || value === null) return fail(`expected an object, got ${value === null ? 'null' : typeof value}`);
  const c = value as Record<string, unknown>;
  if (typeof c.id !== 'string' || !ID.test(c.id)) fail(`"id" must be a kebab-case string, got ${JSON.stringify(c.id)}`);
  if (typeof c.defaultWeight !== 'number' || !(c.defaultWeight >= 0 && c.defaultWeight <= 1))
    fail(`"defaultWeight" must be a number in [0, 1], got ${String(c.defaultWeight)}`);
  if (typeof c.score !== 'function') fail('"score" must be a function (a, b, ctx) => { risk, evidence }');
  if (c.prepare !== undefined && typeof c.prepare !== 'function') fail('"prepare" must be a function when present');
  if (c.requires !== undefined && !(Array.isArray(c.requires) && c.requires.every((r) => typeof r === 'string')))
    fail('"requires" must be an array of service names');
  if (c.optionsSchema !== undefined) {
    const defect = schemaDefect(c.optionsSchema, c.defaultOptions);
    if (defect !== undefined) fail(defect);
  }
  if (c.meta !== undefined) {
    if (typeof c.meta !== 'object' || c.meta === null) fail('"meta" must be an object');
    else {
      const precision = (c.meta as Record<string, unknown>).precision;
      if (precision !== undefined && !PRECISIONS.includes(precision as string))
        fail(`"meta.precision" must be one of ${PRECISIONS.join(', ')}, got ${JSON.stringify(precision)}`);
    }
  }
  return problems;
}

/** A channel object, or a factory `(options?) => channel` (called with no options). */
export type ChannelEntry = AnyChannel | ((options?: any) => AnyChannel);

/** Resolves an entry to a channel and validates it; throws `AirspaceError(INVALID_CHANNEL)` if invalid. */
export function resolveChannel(entry: unknown, source = 'channel'): AnyChannel {
  let value = entry;
  if (typeof entry === 'function') {
    try {
      value = (entry as (options?: unknown) => unknown)();
    } catch (error) {
      throw new AirspaceError(invalidChannel(source, `its factory threw: ${error instanceof Error ? error.message : String(error)}`));
    }
  }
  const problems = validateChannel(value, source);
  if (problems.length > 0) throw new AirspaceError(problems[0]!);
  return value as AnyChannel;
}

export class ChannelRegistry {
  private readonly channels = new Map<string, { channel: AnyChannel; source: string }>();

  constructor(entries: Iterable<ChannelEntry> = []) {
    for (const entry of entries) this.register(entry);
  }

  /**
   * Registers a channel (or calls a factory with no options). Throws `AirspaceError` with code
   * `DUPLICATE_CHANNEL_ID` when the id is taken, `INVALID_CHANNEL` when the shape is wrong.
   * `source` (a module specifier or file) shows up in those errors.
   */
  register(entry: ChannelEntry, source?: string): AnyChannel {
    const channel = resolveChannel(entry, source ?? describe(entry));
    const where = source ?? `channel "${channel.id}"`;
    const existing = this.channels.get(channel.id);
    if (existing) throw new AirspaceError(duplicateChannelId(channel.id, existing.source, where));
    this.channels.set(channel.id, { channel, source: where });
    return channel;
  }

  has(id: string): boolean {
    return this.channels.has(id);
  }

  get(id: string): AnyChannel | undefined {
    return this.channels.get(id)?.channel;
  }

  /** Channels in registration order. */
  list(): AnyChannel[] {
    return [...this.channels.values()].map((e) => e.channel);
  }

  get size(): number {
    return this.channels.size;
  }
}

function describe(entry: unknown): string {
  if (typeof entry === 'function') return `factory ${entry.name || '(anonymous)'}`;
  if (typeof entry === 'object' && entry !== null && typeof (entry as { id?: unknown }).id === 'string')
    return `channel "${(entry as { id: string }).id}"`;
  return 'channel';
}
