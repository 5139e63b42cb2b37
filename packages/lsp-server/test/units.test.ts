/** The pure parts: findings in today's coordinates, presentation, diff hunks, the scan loop. */
import { describe, expect, it } from 'vitest';
import type { Agent, ScanResult } from '@airspace/core';
import { findingsFor, todayRange } from '../src/findings.js';
import { groupFindings, lspRange, otherVerb, toCodeLens, toDiagnostic } from '../src/present.js';
import { parseUnifiedDiff } from '../src/other-change.js';
import { ScanLoop } from '../src/scan-loop.js';

const agent = (id: string, extra: Partial<Agent> = {}): Agent => ({ id, label: id, startedAt: 0, committedWork: 0, files: [], worktree: `/wt/${id}`, ...extra });

function scan(partial: Partial<ScanResult>): ScanResult {
  return {
    version: 1,
    generatedAt: '',
    thresholds: { traffic: 0.35, resolution: 0.7 },
    weights: {},
    agents: [],
    advisories: [],
    links: [],
    positions: {},
    fileCoordinates: {},
    counts: { agents: 0, pairs: 0, clear: 0, traffic: 0, resolution: 0, unknown: 0 },
    problems: [],
    ...partial,
  };
}

describe('findings', () => {
  // bob inserted 10 lines above base line 40: base 40–42 is 50–52 today.
  const bob = agent('bob', { files: [{ path: 'a.ts', status: 'modified', weight: 1, baseRanges: [[5, 4]], newRanges: [[5, 14]], hunks: [{ base: [5, 4], current: [5, 14] }, { base: [40, 42], current: [50, 52] }] }] });
  const carol = agent('carol');
  const evidence = { message: 'both change a.ts', kind: 'write-read', a: { agent: 'bob', path: 'a.ts', baseRange: [40, 42] as const, symbol: 'parse' }, b: { agent: 'carol', path: 'a.ts', range: [41, 41] as const } };
  const result = scan({
    agents: [bob, carol],
    advisories: [{ a: 'bob', b: 'carol', level: 'traffic', risk: 0.5, evidence: [evidence], message: '' }],
    links: [{ a: 'bob', b: 'carol', risk: 0.5, distance: 0.5, level: 'traffic', channels: [{ channel: 'symbols', weight: 1, risk: 0.5, weighted: 0.5, precision: 'symbol', evidence: [evidence] }], evidence: [evidence] }],
  });

  it('maps base lines to today\'s lines through self\'s hunks when the evidence has no current range', () => {
    const [f] = findingsFor(result, 'bob');
    expect(f!.range).toEqual([50, 52]);
    expect(f!.other).toMatchObject({ agent: 'carol', path: 'a.ts', range: [41, 41], worktree: '/wt/carol' });
    expect(f!.role).toBe('transmit');
    expect(todayRange({ agent: 'x', path: 'unchanged.ts', baseRange: [3, 4] }, bob)).toEqual([3, 4]);
  });

  it('gives each side its own view and nothing to a third agent', () => {
    expect(findingsFor(result, 'carol')[0]!.range).toEqual([41, 41]);
    expect(findingsFor(result, 'dave')).toEqual([]);
  });

  it('presents a traffic warning with related information and a lens naming what the other side does', () => {
    const [f] = findingsFor(result, 'carol');
    const d = toDiagnostic([f!], 100, false);
    expect(d).toMatchObject({ severity: 2, source: 'airspace', code: 'traffic/symbols', range: { start: { line: 40 } } });
    expect(d.relatedInformation![0]!.location.range.start.line).toBe(49);
    expect(otherVerb(f!)).toBe('writes');
    expect(toCodeLens(f!, 100)!.command!.title).toContain('bob writes parse');
    expect(toDiagnostic([f!], 100, true).severity).toBe(3);
  });

  it('clamps ranges to the document and marks insertion points at a line start', () => {
    expect(lspRange([8, 12], 10)).toMatchObject({ start: { line: 7 }, end: { line: 9 } });
    expect(lspRange([5, 4], 10)).toEqual({ start: { line: 4, character: 0 }, end: { line: 4, character: 0 } });
  });
});

describe('parseUnifiedDiff', () => {
  it('reads new-side ranges, insertions and deletions', () => {
    const hunks = parseUnifiedDiff(['diff --git a/x b/x', '@@ -3,2 +3,3 @@ f', ' a', '-b', '+B', '+C', '@@ -10,2 +11,0 @@', '-x', '-y', '@@ -20 +19 @@', '-p', '+q'].join('\n'));
    expect(hunks.map((h) => h.current)).toEqual([[3, 5], [12, 11], [19, 19]]);
    expect(hunks[0]!.lines).toEqual([' a', '-b', '+B', '+C']);
  });
});

describe('ScanLoop', () => {
  it('coalesces requests during a scan into one more scan and answers next() with a fresh result', async () => {
    let runs = 0;
    const published: number[] = [];
    let release!: () => void;
    const loop = new ScanLoop<number>({
      run: async (seq) => {
        runs++;
        if (seq === 1) await new Promise<void>((r) => (release = r));
        return seq;
      },
      publish: (r) => published.push(r),
      onError: () => undefined,
    });
    loop.request(0);
    await new Promise((r) => setTimeout(r, 10));
    for (let i = 0; i < 5; i++) loop.request(0);
    await new Promise((r) => setTimeout(r, 10));
    const fresh = loop.next();
    release();
    expect(await fresh).toBe(2);
    expect(runs).toBe(2);
    expect(published).toEqual([1, 2]);
    loop.dispose();
  });

  it('keeps the previous result when a scan fails', async () => {
    const errors: unknown[] = [];
    let fail = false;
    const loop = new ScanLoop<string>({ run: async () => { if (fail) throw new Error('git failed'); return 'ok'; }, publish: () => undefined, onError: (e) => errors.push(e) });
    expect(await loop.next()).toBe('ok');
    fail = true;
    expect(await loop.next()).toBe('ok');
    expect(errors).toHaveLength(1);
    loop.dispose();
  });
});

describe('one diagnostic per cause', () => {
  const ev = (channel: string, range?: readonly [number, number]) => ({
    message: `${channel} says so`,
    a: { agent: 'a', path: 'x.ts', ...(range ? { range } : {}) },
    b: { agent: 'b', path: 'x.ts', ...(range ? { range } : {}) },
  });
  const result = scan({
    agents: [agent('a'), agent('b')],
    advisories: [{ a: 'a', b: 'b', level: 'resolution', risk: 1, steer: 'b', hold: 'a', evidence: [], message: '' }],
    links: [
      {
        a: 'a', b: 'b', risk: 1, distance: 0, level: 'resolution', evidence: [],
        channels: [
          { channel: 'overlap', weight: 1, risk: 0.9, weighted: 0.9, precision: 'line', evidence: [ev('overlap', [3, 4])] },
          { channel: 'tree', weight: 0.25, risk: 0.3, weighted: 0.1, precision: 'file', evidence: [ev('tree')] },
          { channel: 'merge', weight: 1, risk: 1, weighted: 1, precision: 'line', evidence: [ev('merge', [3, 4])] },
        ],
      },
    ],
  });

  it('drops file-level evidence where the pair has lines in that file, and merges channels on one range', () => {
    const findings = findingsFor(result, 'b');
    expect(findings.map((f) => f.channel)).toEqual(['overlap', 'merge']);
    const groups = groupFindings(findings);
    expect(groups).toHaveLength(1);
    const d = toDiagnostic(groups[0]!, 10, false);
    expect(d.code).toBe('resolution/overlap+merge');
    expect(d.message).toContain('overlap + merge channels');
    expect(d.message).toContain('you steer away');
  });
});
