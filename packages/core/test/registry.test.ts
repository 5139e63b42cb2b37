import { describe, expect, it } from 'vitest';
import { defineChannel } from '../src/channel.js';
import { AirspaceError } from '../src/errors.js';
import { ChannelRegistry, validateChannel } from '../src/registry.js';

const channel = (id: string) => defineChannel({ id, defaultWeight: 0.5, score: () => ({ risk: 0, evidence: [] }) });

describe('channel registry', () => {
  it('registers objects and factories in order', () => {
    const r = new ChannelRegistry([channel('overlap')]);
    r.register(() => channel('tree'));
    expect(r.list().map((c) => c.id)).toEqual(['overlap', 'tree']);
    expect(r.has('tree')).toBe(true);
    expect(r.get('nope')).toBeUndefined();
    expect(r.size).toBe(2);
  });

  it('rejects a duplicate id with a clear error naming both sources', () => {
    const r = new ChannelRegistry();
    r.register(channel('overlap'), 'plugins/a.mjs');
    let error: unknown;
    try {
      r.register(channel('overlap'), 'plugins/b.mjs');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AirspaceError);
    expect((error as AirspaceError).code).toBe('DUPLICATE_CHANNEL_ID');
    expect((error as AirspaceError).message).toContain('plugins/a.mjs');
    expect((error as AirspaceError).message).toContain('plugins/b.mjs');
  });

  it('validates shape', () => {
    expect(validateChannel(channel('ok'))).toEqual([]);
    expect(validateChannel(null)[0]!.message).toContain('expected an object');
    const messages = validateChannel({ id: 'Not Kebab', defaultWeight: 2, score: 1, meta: { precision: 'char' } }, 'x.mjs').map(
      (p) => p.message,
    );
    expect(messages.join('\n')).toMatch(/"id" must be a kebab-case/);
    expect(messages.join('\n')).toMatch(/defaultWeight/);
    expect(messages.join('\n')).toMatch(/"score" must be a function/);
    expect(messages.join('\n')).toMatch(/meta.precision/);
    expect(messages[0]).toContain('x.mjs');
    expect(() =>
      new ChannelRegistry().register(() => {
        throw new Error('bad options');
      }),
    ).toThrow(/factory threw: bad options/);
  });
});
