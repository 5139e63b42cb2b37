import { describe, expect, it } from 'vitest';
import { TrailError, normalizeObservation } from '../src/index.js';
import { at, observation } from './helpers.js';

function problem(input: unknown): string {
  try {
    normalizeObservation(input, 'a');
  } catch (error) {
    expect(error).toBeInstanceOf(TrailError);
    expect((error as TrailError).code).toBe('invalid-observation');
    return (error as Error).message;
  }
  throw new Error('expected a rejection');
}

describe('observations', () => {
  it('normalises times and sorts and deduplicates path sets', () => {
    const o = normalizeObservation(
      observation('alice', {
        writePaths: ['src/b.ts', 'src/a.ts', 'src/b.ts'],
        readPaths: ['z.ts', 'a.ts'],
        observedAt: Date.parse(at(0)),
        expiresAt: new Date(at(5)),
      }),
    );
    expect(o.writePaths).toEqual(['src/a.ts', 'src/b.ts']);
    expect(o.readPaths).toEqual(['a.ts', 'z.ts']);
    expect(o.observedAt).toBe(at(0));
    expect(o.expiresAt).toBe(at(5));
  });

  it.each([
    ['not an object', 42, /must be a JSON object/],
    ['a wrong version', { ...observation('alice'), version: 2 }, /"version" must be 1/],
    ['an unknown field', { ...observation('alice'), extra: 1 }, /unknown field "extra"/],
    ['no agent id', { ...observation('alice'), agentId: '' }, /"agentId" must be a non-empty, well-formed string/],
    ['no base', { ...observation('alice'), base: undefined }, /"base" must be a non-empty, well-formed string/],
    ['an absolute path', observation('alice', { writePaths: ['/etc/passwd'] }), /is absolute/],
    ['a backslash path', observation('alice', { readPaths: ['src\\a.ts'] }), /backslash/],
    ['a dot-dot path', observation('alice', { writePaths: ['src/../a.ts'] }), /"\.\." segment/],
    ['a lone surrogate in a path', observation('alice', { writePaths: ['src/\ud800.ts'] }), /not well-formed Unicode/],
    ['a lone surrogate in an id', { ...observation('alice'), taskId: 'x\udc00' }, /well-formed string/],
    ['a non-list path set', { ...observation('alice'), writePaths: 'a.ts' }, /"writePaths" must be an array/],
    ['a non-boolean completeness', { ...observation('alice'), complete: 'yes' }, /"complete" must be true or false/],
    ['incomplete without a reason', observation('alice', { complete: false }), /"incompleteReason"/],
    ['a reason while complete', observation('alice', { incompleteReason: 'x' }), /only allowed when "complete" is false/],
    ['an unparsable time', observation('alice', { observedAt: 'yesterday' }), /"observedAt" must be an ISO 8601/],
    ['expiry not after observation', observation('alice', { expiresAt: at(0) }), /must be later than "observedAt"/],
  ])('rejects %s with a clear error', (_name, input, message) => {
    expect(problem(input)).toMatch(message);
  });
});
