import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Link, ScanResult } from '@airspace/core';
import { forecastsOf, parseLines, parseUnifiedHunks, splitTargetLines } from '../src/check.js';

describe('check helpers', () => {
  it('parses --lines and rejects nonsense', () => {
    expect(parseLines('12')).toEqual([12, 12]);
    expect(parseLines('12-18')).toEqual([12, 18]);
    expect(() => parseLines('18-12')).toThrow(/end may not come before/);
    expect(() => parseLines('x')).toThrow(/--lines must look like/);
    expect(() => parseLines('0')).toThrow(/1-based/);
    expect(() => parseLines('9-3', 'src/a.ts:9-3')).toThrow(/^src\/a\.ts:9-3: lines are 1-based/);
  });

  it('reads PATH:A-B and PATH:N as the file and its lines, unless a file has that very name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-check-'));
    try {
      writeFileSync(join(dir, 'a.ts'), 'x\n');
      writeFileSync(join(dir, 'odd:7'), 'x\n');
      expect(splitTargetLines('a.ts:12-18', dir)).toEqual({ target: 'a.ts', lines: '12-18' });
      expect(splitTargetLines('src/new.ts:3', dir)).toEqual({ target: 'src/new.ts', lines: '3' });
      expect(splitTargetLines('odd:7', dir)).toBeUndefined();
      expect(splitTargetLines('a.ts', dir)).toBeUndefined();
      expect(splitTargetLines('a.ts:', dir)).toBeUndefined();
      expect(splitTargetLines('a.ts:x-2', dir)).toBeUndefined();
      expect(splitTargetLines(':12', dir)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('splits a unified diff into hunks with base and current ranges and their text', () => {
    const diff = [
      'diff --git a/f.ts b/f.ts',
      'index 1..2 100644',
      '--- a/f.ts',
      '+++ b/f.ts',
      '@@ -3,2 +3,3 @@ function f() {',
      ' keep',
      '-old',
      '+new',
      '+more',
      '@@ -10,0 +12 @@',
      '+inserted',
      '',
    ].join('\n');
    const hunks = parseUnifiedHunks(diff, 'bob', 'f.ts');
    expect(hunks).toHaveLength(2);
    expect(hunks[0]).toMatchObject({ agent: 'bob', path: 'f.ts', base: [3, 4], current: [3, 5] });
    expect(hunks[0]!.text).toBe('@@ -3,2 +3,3 @@ function f() {\n keep\n-old\n+new\n+more');
    expect(hunks[1]).toMatchObject({ base: [11, 10], current: [12, 12], text: '@@ -10,0 +12 @@\n+inserted' });
  });
});

describe('forecastsOf', () => {
  const link = (a: string, b: string, probability?: number): Link => ({
    a,
    b,
    risk: 0.05,
    distance: 0.95,
    level: 'clear',
    channels: [],
    evidence: [],
    ...(probability === undefined ? {} : { forecast: { probability, threshold: 0.1, signals: [], evidence: [] } }),
  });
  const result = {
    links: [link('alice', 'bob', 0.12), link('alice', 'carol', 0.3), link('bob', 'carol', 0.5), link('alice', 'dave')],
  } as Pick<ScanResult, 'links'> as ScanResult;

  it("lists the asking agent's forecast pairs, most likely first, and nobody else's", () => {
    expect(forecastsOf(result, 'alice').map((f) => [f.with, f.probability])).toEqual([
      ['carol', 0.3],
      ['bob', 0.12],
    ]);
    expect(forecastsOf(result, 'dave')).toEqual([]);
  });
});
