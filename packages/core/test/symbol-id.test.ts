import { describe, expect, it } from 'vitest';
import { displayName, parseSymbolId } from '../src/index.js';

describe('symbol ids (path#name)', () => {
  it('splits at the last #, so a path may hold one', () => {
    expect(parseSymbolId('src/a.ts#Parser.parse')).toEqual({ path: 'src/a.ts', name: 'Parser.parse' });
    expect(parseSymbolId('src/#gen/a.ts#run')).toEqual({ path: 'src/#gen/a.ts', name: 'run' });
    expect(displayName('src/#gen/a.ts#run')).toBe('run');
  });

  it('keeps a private member in the name: a # after a . starts its segment', () => {
    expect(parseSymbolId('src/a.ts#Store.#cache')).toEqual({ path: 'src/a.ts', name: 'Store.#cache' });
    expect(parseSymbolId('src/#gen/a.ts#Store.#cache.#x')).toEqual({ path: 'src/#gen/a.ts', name: 'Store.#cache.#x' });
    expect(displayName('src/a.ts#Store.#cache')).toBe('Store.#cache');
  });

  it('refuses an id without a path or without a name', () => {
    for (const bad of ['total', '#total', 'src/a.ts#', '', '#', 'a.#b', '.#b'])
      expect(parseSymbolId(bad), JSON.stringify(bad)).toBeUndefined();
  });

  it('shows a malformed id whole', () => {
    for (const bad of ['total', 'src/a.ts#', '#total']) expect(displayName(bad)).toBe(bad);
  });
});
