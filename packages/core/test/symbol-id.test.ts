import { describe, expect, it } from 'vitest';
import { displayName, parseSymbolId } from '../src/index.js';

describe('symbol ids (path#name)', () => {
  it('splits at the last #, so a path may hold one', () => {
    expect(parseSymbolId('src/a.ts#Parser.parse')).toEqual({ path: 'src/a.ts', name: 'Parser.parse' });
    expect(parseSymbolId('src/#gen/a.ts#run')).toEqual({ path: 'src/#gen/a.ts', name: 'run' });
    expect(displayName('src/#gen/a.ts#run')).toBe('run');
  });

  it('refuses an id without a path or without a name', () => {
    for (const bad of ['total', '#total', 'src/a.ts#', '', '#']) expect(parseSymbolId(bad)).toBeUndefined();
  });
});
