/** The pure parts: findings in today's coordinates, presentation, diff hunks, the scan loop. */
import { describe, expect, it } from 'vitest';
import type { Agent, ScanResult } from '@airspace/core';
import { findingsFor, todayRange, type Finding } from '../src/findings.js';
import {
  MAX_MESSAGE,
  codeActions,
  codeLenses,
  groupFindings,
  hoverMarkdown,
  otherVerb,
  summary,
  toCodeLens,
  toDiagnostic,
} from '../src/present.js';
import { parsePairArgs } from '../src/commands.js';
import { toLspRange as lspRange } from '../src/lines.js';
import { DiagnosticsLedger, clientFeatures } from '../src/delivery.js';
import { parseUnifiedDiff } from '../src/other-change.js';
import { ScanLoop } from '../src/scan-loop.js';

const agent = (id: string, extra: Partial<Agent> = {}): Agent => ({
  id,
  label: id,
  startedAt: 0,
  committedWork: 0,
  files: [],
  worktree: `/wt/${id}`,
  ...extra,
});

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
  const bob = agent('bob', {
    files: [
      {
        path: 'a.ts',
        status: 'modified',
        weight: 1,
        baseRanges: [[5, 4]],
        newRanges: [[5, 14]],
        hunks: [
          { base: [5, 4], current: [5, 14] },
          { base: [40, 42], current: [50, 52] },
        ],
      },
    ],
  });
  const carol = agent('carol');
  const evidence = {
    message: 'both change a.ts',
    kind: 'write-read',
    a: { agent: 'bob', path: 'a.ts', baseRange: [40, 42] as const, symbol: 'parse', access: 'write' as const },
    b: { agent: 'carol', path: 'a.ts', range: [41, 41] as const, symbol: 'parse', access: 'read' as const },
  };
  const result = scan({
    agents: [bob, carol],
    advisories: [{ a: 'bob', b: 'carol', level: 'traffic', risk: 0.5, evidence: [evidence], message: '' }],
    links: [
      {
        a: 'bob',
        b: 'carol',
        risk: 0.5,
        distance: 0.5,
        level: 'traffic',
        channels: [{ channel: 'symbols', weight: 1, risk: 0.5, weighted: 0.5, precision: 'symbol', evidence: [evidence] }],
        evidence: [evidence],
      },
    ],
  });

  it("maps base lines to today's lines through self's hunks when the evidence has no current range", () => {
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
    expect(otherVerb(f!)).toBe('edits');
    expect(toCodeLens(f!, 100)!.command!.title).toBe('⚠ bob edits parse (symbols 0.50)');
    expect(toCodeLens(findingsFor(result, 'bob')[0]!, 100)!.command!.title).toBe('⚠ carol uses parse (symbols 0.50)');
    expect(toDiagnostic([f!], 100, true).severity).toBe(3);
  });

  it('clamps ranges to the document and marks insertion points at a line start', () => {
    expect(lspRange([8, 12], 10)).toMatchObject({ start: { line: 7 }, end: { line: 9 } });
    expect(lspRange([5, 4], 10)).toEqual({ start: { line: 4, character: 0 }, end: { line: 4, character: 0 } });
  });
});

describe('parseUnifiedDiff', () => {
  it('reads new-side ranges, insertions and deletions', () => {
    const hunks = parseUnifiedDiff(
      [
        'diff --git a/x b/x',
        '@@ -3,2 +3,3 @@ f',
        ' a',
        '-b',
        '+B',
        '+C',
        '@@ -10,2 +11,0 @@',
        '-x',
        '-y',
        '@@ -20 +19 @@',
        '-p',
        '+q',
      ].join('\n'),
    );
    expect(hunks.map((h) => h.current)).toEqual([
      [3, 5],
      [12, 11],
      [19, 19],
    ]);
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

  it('abandons a scan that never answers on restart and publishes the next one', async () => {
    const published: string[] = [];
    let runs = 0;
    const loop = new ScanLoop<string>({
      run: () => (++runs === 1 ? new Promise<string>(() => undefined) : Promise.resolve(`scan ${runs}`)),
      publish: (r) => published.push(r),
      onError: () => undefined,
    });
    loop.request(0);
    await new Promise((r) => setTimeout(r, 20));
    const next = loop.next();
    loop.restart();
    expect(await next).toBe('scan 2');
    expect(published).toEqual(['scan 2']);
    loop.dispose();
  });

  it('keeps the previous result when a scan fails', async () => {
    const errors: unknown[] = [];
    let fail = false;
    const loop = new ScanLoop<string>({
      run: async () => {
        if (fail) throw new Error('git failed');
        return 'ok';
      },
      publish: () => undefined,
      onError: (e) => errors.push(e),
    });
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
        a: 'a',
        b: 'b',
        risk: 1,
        distance: 0,
        level: 'resolution',
        evidence: [],
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
    expect(d.code).toBe('resolution/merge');
    expect(d.message).toBe('a edits x.ts lines 3–4 (merge 1.00; also overlap): resolution advisory, you steer away');
    expect(d.relatedInformation?.map((r) => r.message)).toEqual([
      "a's side, x.ts lines 3–4 [merge 1.00]: merge says so",
      "a's side, x.ts lines 3–4 [overlap 0.90]: overlap says so",
    ]);
  });
});

describe("the pair's calibrated probability beside its risk", () => {
  const ev = (channel: string) => ({
    message: `${channel} says so`,
    a: { agent: 'a', path: 'x.ts', range: [3, 4] as const },
    b: { agent: 'b', path: 'x.ts', range: [3, 4] as const },
  });
  const withProbability = (probability?: number) =>
    scan({
      agents: [agent('a'), agent('b')],
      advisories: [
        { a: 'a', b: 'b', level: 'traffic', risk: 0.5, ...(probability !== undefined ? { probability } : {}), evidence: [], message: '' },
      ],
      links: [
        {
          a: 'a',
          b: 'b',
          risk: 0.5,
          ...(probability !== undefined ? { probability } : {}),
          distance: 0.5,
          level: 'traffic',
          evidence: [],
          channels: [{ channel: 'overlap', weight: 1, risk: 0.5, weighted: 0.5, precision: 'line', evidence: [ev('overlap')] }],
        },
      ],
      probabilityLabel: 'collided',
    });

  /** The finding as a symbol-precise channel gives it: only those get a lens. */
  const onSymbol = (f: Finding): Finding => ({ ...f, other: { ...f.other, symbol: 'parse' } });

  it('shows it in the diagnostic, its related information, the lens, the hover and the summary, in whole percent', () => {
    const fs = findingsFor(withProbability(0.0812), 'b');
    const d = toDiagnostic(groupFindings(fs)[0]!, 10, false);
    expect(d.message).toBe('a edits x.ts lines 3–4 (overlap 0.50): traffic advisory, transmit intent; 8% chance of colliding');
    expect(d.relatedInformation?.map((r) => r.message)).toEqual([
      "a's side, x.ts lines 3–4 [overlap 0.50; 8% chance of colliding]: overlap says so",
    ]);
    expect(toCodeLens(onSymbol(fs[0]!), 10)!.command!.title).toBe('⚠ a edits parse (overlap 0.50; 8% chance of colliding)');
    expect(toDiagnostic(groupFindings(fs)[0]!, 10, true).message).toBe(
      'a edits x.ts lines 3–4 (overlap 0.50): traffic advisory, transmit intent; 8% chance of colliding (acknowledged)',
    );
    expect(hoverMarkdown(fs, new Map())).toContain('— traffic advisory, transmit intent (overlap 0.50; 8% chance of colliding)');
    expect(summary(fs, new Map()).split('\n')[0]).toBe('Airspace traffic advisory between b and a (risk 0.50; 8% chance of colliding).');
    // The ends never read as none or as certain.
    expect(String(toDiagnostic(groupFindings(findingsFor(withProbability(0.003), 'b'))[0]!, 10, false).message)).toMatch(
      /; <1% chance of colliding$/,
    );
  });

  it('says nothing of it when the scan gave none', () => {
    const fs = findingsFor(withProbability(undefined), 'b');
    const d = toDiagnostic(groupFindings(fs)[0]!, 10, false);
    expect(d.message).toBe('a edits x.ts lines 3–4 (overlap 0.50): traffic advisory, transmit intent');
    expect(d.relatedInformation?.map((r) => r.message)).toEqual(["a's side, x.ts lines 3–4 [overlap 0.50]: overlap says so"]);
    expect(toCodeLens(onSymbol(fs[0]!), 10)!.command!.title).toBe('⚠ a edits parse (overlap 0.50)');
    expect(hoverMarkdown(fs, new Map())).not.toContain('chance');
  });
});

describe('a forecast pair: information, no advisory', () => {
  const forecastScan = scan({
    agents: [agent('a'), agent('b'), agent('c')],
    links: [
      {
        a: 'a',
        b: 'b',
        risk: 0.04,
        distance: 0.96,
        level: 'clear',
        channels: [],
        evidence: [],
        forecast: {
          probability: 0.164,
          threshold: 0.1,
          signals: [{ signal: 'co-change', value: 0.9, weight: 0.3 }],
          evidence: [
            {
              message: 'x.ts and y.ts changed together in 9 of 10 commits',
              kind: 'co-change',
              risk: 0.9,
              a: { agent: 'a', path: 'x.ts' },
              b: { agent: 'b', path: 'y.ts' },
            },
          ],
        },
      },
      { a: 'a', b: 'c', risk: 0.02, distance: 0.98, level: 'clear', channels: [], evidence: [] },
    ],
  });

  it('gives each side an information diagnostic, a hover and a summary with the chance of colliding later', () => {
    const fs = findingsFor(forecastScan, 'b');
    expect(fs).toHaveLength(1);
    expect(fs[0]!.role).toBe('forecast');
    const d = toDiagnostic(groupFindings(fs)[0]!, 10, false);
    expect(d.severity).toBe(3); // Information
    expect(d.code).toBe('forecast');
    expect(d.message).toBe('a edits x.ts (co-change 0.90): forecast: 16% chance of colliding later, no advisory yet');
    expect(hoverMarkdown(fs, new Map())).toContain('x.ts and y.ts changed together in 9 of 10 commits');
    expect(summary(fs, new Map()).split('\n')[0]).toBe(
      'Airspace forecast between b and a: no advisory yet, 16% chance of colliding later.',
    );
    // Nothing to acknowledge: it is no advisory.
    expect(codeActions(fs, 'file:///wt/b', new Set(), []).map((x) => x.title)).not.toContainEqual(expect.stringMatching(/Acknowledge/));
    expect(findingsFor(forecastScan, 'a')[0]!.path).toBe('x.ts');
    expect(findingsFor(forecastScan, 'c')).toEqual([]);
  });
});

/** A resolution pair (ben, cy) as a large repository gives it: several channels on nearby lines. */
describe("one diagnostic per pair and lines, at the strongest finding's own level", () => {
  const side = (agent: string, path: string, range: readonly [number, number], extra: object = {}) => ({ agent, path, range, ...extra });
  // cy writes `assign` (lines 10–14 of cy's src/deeply/nested/module/store.ts); ben only calls it, at line 30 of app.ts.
  const writeRead = {
    kind: 'write-read',
    risk: 1,
    message:
      'cy changes the signature of assign (src/deeply/nested/module/store.ts:10–14), which ben reads at src/app.ts:30 in its changed lines.',
    a: side('ben', 'src/app.ts', [30, 30], { symbol: 'assign', access: 'read' }),
    b: side('cy', 'src/deeply/nested/module/store.ts', [10, 14], { symbol: 'assign', access: 'write' }),
  };
  // A weak read elsewhere in a file ben changed: risk 0.12 on its own.
  const touched = {
    kind: 'write-read-touched',
    risk: 0.12,
    message:
      'cy changes the body of total (src/deeply/nested/module/store.ts:40–44), which ben reads at src/app.ts:90 elsewhere in a file it changed.',
    a: side('ben', 'src/app.ts', [90, 90], { symbol: 'total', access: 'read' }),
    b: side('cy', 'src/deeply/nested/module/store.ts', [40, 44], { symbol: 'total', access: 'write' }),
  };
  // ben edits main (app.ts 25–35), which calls subtotal, which cy edits: both sides edit.
  const chain = {
    kind: 'call-chain',
    risk: 1,
    chain: ['main', 'subtotal'],
    message: 'ben edits main (src/app.ts), which calls subtotal (src/deeply/nested/module/store.ts:50); cy edits subtotal — 1 call apart.',
    a: side('ben', 'src/app.ts', [25, 35], { symbol: 'main' }),
    b: side('cy', 'src/deeply/nested/module/store.ts', [50, 60], { symbol: 'subtotal' }),
  };
  const overlap = {
    kind: 'overlap',
    risk: 0.9,
    message: 'ben and cy both change src/app.ts around line 30.',
    a: side('ben', 'src/app.ts', [29, 31]),
    b: side('cy', 'src/app.ts', [29, 30]),
  };
  const result = scan({
    agents: [agent('ben'), agent('cy', { worktree: '/home/someone/worktrees/cy' })],
    advisories: [{ a: 'ben', b: 'cy', level: 'resolution', risk: 1, steer: 'ben', hold: 'cy', evidence: [], message: '' }],
    links: [
      {
        a: 'ben',
        b: 'cy',
        risk: 1,
        distance: 0,
        level: 'resolution',
        evidence: [],
        channels: [
          { channel: 'overlap', weight: 1, risk: 0.9, weighted: 0.9, precision: 'line', evidence: [overlap] },
          { channel: 'symbols', weight: 1, risk: 1, weighted: 1, precision: 'symbol', evidence: [writeRead, touched] },
          { channel: 'call-graph', weight: 0.6, risk: 1, weighted: 0.6, precision: 'file', evidence: [chain] },
        ],
      },
    ],
  });
  const ben = findingsFor(result, 'ben');
  const diagnostics = groupFindings(ben).map((g) => toDiagnostic(g, 200, false));

  it('gives overlapping lines of one pair one diagnostic, from its strongest finding', () => {
    expect(diagnostics.map((d) => [d.range.start.line, d.code])).toEqual([
      [29, 'resolution/symbols'], // symbols 1.00 on line 30 beats overlap 0.90 on 29–31 and the call chain on 25–35
      [89, 'clear/symbols'],
    ]);
    expect(diagnostics[0]!.message).toBe(
      'cy edits assign in src/deeply/nested/module/store.ts lines 10–14 (symbols 1.00; also overlap, call-graph): resolution advisory, you steer away',
    );
    expect(diagnostics[0]!.relatedInformation).toHaveLength(3);
  });

  it("shows a weak finding at its own level and risk, never the pair's", () => {
    const weak = diagnostics[1]!;
    expect(weak.severity).toBe(3);
    expect(weak.message).toContain('(symbols 0.12)');
    expect(weak.message).not.toContain('1.00');
    expect(weak.message).not.toContain('resolution');
    expect(weak.message).toContain('weak evidence');
  });

  it('keeps messages short, repository-relative and free of control characters', () => {
    const long = scan({
      ...result,
      agents: [agent('ben'), agent('cy\u0000x', { worktree: '/home/someone/worktrees/cy' })],
      advisories: [{ a: 'ben', b: 'cy\u0000x', level: 'resolution', risk: 1, steer: 'ben', hold: 'cy\u0000x', evidence: [], message: '' }],
      links: [
        {
          a: 'ben',
          b: 'cy\u0000x',
          risk: 1,
          distance: 0,
          level: 'resolution',
          evidence: [],
          channels: [
            {
              channel: 'symbols',
              weight: 1,
              risk: 1,
              weighted: 1,
              precision: 'symbol',
              evidence: [
                {
                  ...writeRead,
                  message: 'line one\nline\ttwo\u0000',
                  b: side('cy\u0000x', `${'very/'.repeat(40)}store.ts`, [10, 14], { symbol: `Store.${'x'.repeat(200)}`, access: 'write' }),
                },
              ],
            },
          ],
        },
      ],
    });
    const fs = findingsFor(long, 'ben');
    const d = toDiagnostic(groupFindings(fs)[0]!, 200, false);
    expect(String(d.message).length).toBeLessThanOrEqual(MAX_MESSAGE);
    expect(d.message).not.toContain('/home/someone');
    expect(d.message).toContain('…/store.ts');
    const sent = [
      d,
      toCodeLens(fs[0]!, 200),
      codeActions(fs, 'file:///w', new Set(), [d]),
      summary(fs, new Map()),
      hoverMarkdown(fs, new Map()),
    ];
    const text = JSON.stringify(sent);
    expect(text).not.toMatch(/\\u00[01][0-9a-f]/i);
    expect(text).not.toMatch(/[\u0000-\u001f]/);
    expect(JSON.stringify(d.data)).not.toMatch(/\\u0000/);
    // A tab in their diff keeps its indentation in the hover.
    expect(hoverMarkdown(fs, new Map([[fs[0]!, '+\tindented']]))).toContain('+    indented');
  });

  it('cuts a long message in its body, never in its status', () => {
    const other = `agent-${'x'.repeat(150)}`;
    const e = {
      message: 'both change line 3',
      kind: 'overlap',
      a: { agent: 'bob', path: 'a.ts', range: [3, 3] as const, access: 'write' as const },
      b: { agent: other, path: 'a.ts', range: [3, 3] as const, access: 'write' as const },
    };
    const long = scan({
      agents: [agent('bob'), agent(other)],
      advisories: [{ a: 'bob', b: other, level: 'traffic', risk: 0.5, probability: 0.09, evidence: [e], message: '' }],
    });
    const group = groupFindings(findingsFor(long, 'bob'))[0]!;
    for (const acknowledged of [false, true]) {
      const message = String(toDiagnostic(group, 10, acknowledged).message);
      expect(message.length).toBeLessThanOrEqual(MAX_MESSAGE);
      expect(message).toMatch(/^agent-x+…: traffic advisory, transmit intent; 9% chance of colliding/);
      expect(message.endsWith('(acknowledged)')).toBe(acknowledged);
    }
  });

  it('puts the strongest finding of those lines on the lens, not the one that names the symbol', () => {
    const merge = {
      message: 'both change lines 10–12',
      kind: 'overlap',
      a: { agent: 'bob', path: 'a.ts', range: [10, 12] as const, access: 'write' as const },
      b: { agent: 'carol', path: 'a.ts', range: [10, 12] as const, access: 'write' as const },
    };
    const symbols = {
      message: 'carol edits parse',
      kind: 'symbols',
      a: { agent: 'bob', path: 'a.ts', range: [8, 20] as const, symbol: 'parse', access: 'write' as const },
      b: { agent: 'carol', path: 'a.ts', range: [8, 20] as const, symbol: 'parse', access: 'write' as const },
    };
    const both = scan({
      agents: [agent('bob'), agent('carol')],
      advisories: [{ a: 'bob', b: 'carol', level: 'resolution', risk: 1, steer: 'bob', hold: 'carol', evidence: [merge], message: '' }],
      links: [
        {
          a: 'bob',
          b: 'carol',
          risk: 1,
          distance: 0,
          level: 'resolution',
          evidence: [],
          channels: [
            { channel: 'symbols', weight: 1, risk: 0.15, weighted: 0.15, precision: 'symbol', evidence: [symbols] },
            { channel: 'merge', weight: 1, risk: 1, weighted: 1, precision: 'line', evidence: [merge] },
          ],
        },
      ],
    });
    const lenses = codeLenses(findingsFor(both, 'bob'), 100);
    expect(lenses.map((l) => l.command!.title)).toEqual(['⚠ carol edits parse (merge 1.00)']);
    // Above the function (line 8), where the finding that names it starts.
    expect(lenses[0]!.range.start.line).toBe(7);
  });

  it('names what the other side does: edits where it writes, uses where it only reads', () => {
    const cy = findingsFor(result, 'cy');
    const titles = codeLenses(cy, 200).map((l) => l.command!.title);
    expect(titles).toContain('⚠ ben uses assign (symbols 1.00)');
    expect(codeLenses(ben, 200).map((l) => l.command!.title)).toEqual([
      '⚠ cy edits assign (symbols 1.00)',
      '⚠ cy edits total (symbols 0.12)',
    ]);
    const chainFinding = ben.find((f) => f.channel === 'call-graph')!;
    expect(toCodeLens(chainFinding, 200)!.command!.title).toBe('⚠ cy edits subtotal (call-graph 1.00)');
    expect(titles.some((t) => /reads|writes|calls into/.test(t))).toBe(false);
  });

  it('offers each code action once', () => {
    const actions = codeActions(ben, 'file:///w', new Set(), diagnostics);
    expect(new Set(actions.map((a) => a.title)).size).toBe(actions.length);
    expect(actions.filter((a) => a.title.startsWith('Copy a summary'))).toHaveLength(1);
  });

  it('sends lens and action arguments that the command handler accepts', () => {
    const noWorktree = findingsFor(
      scan({ ...result, agents: [agent('ben'), (({ worktree: _worktree, ...cy }) => cy)(agent('cy'))] }),
      'ben',
    );
    const lens = codeLenses(noWorktree, 200)[0]!;
    expect(lens.command!.command).toBe('airspace.copySummary');
    expect(parsePairArgs(lens.command!.arguments![0])).toEqual({ a: 'ben', b: 'cy' });
    for (const a of codeActions(ben, 'file:///w', new Set(), []))
      if (a.command!.command !== 'airspace.openOther') expect(parsePairArgs(a.command!.arguments![0])).not.toHaveProperty('problem');
    expect(parsePairArgs({ pair: 'ben\u0000cy', self: 'ben' })).toHaveProperty('problem');
  });
});

describe('delivery', () => {
  it('reports only diagnostics that changed, and cleared documents once', () => {
    const ledger = new DiagnosticsLedger();
    const d = { range: lspRange([1, 1], 5), message: 'm' };
    expect(ledger.changes(new Map([['u', [d]]]))).toHaveLength(1);
    expect(ledger.changes(new Map([['u', [d]]]))).toEqual([]);
    expect(ledger.changes(new Map())).toEqual([{ uri: 'u', diagnostics: [] }]);
    expect(ledger.changes(new Map())).toEqual([]);
  });

  it('pulls only from clients that pull and can be asked to refresh; opens documents only where the client can', () => {
    expect(clientFeatures({ textDocument: { diagnostic: {} }, workspace: { diagnostics: { refreshSupport: true } } }).diagnostics).toBe(
      'pull',
    );
    expect(clientFeatures({ textDocument: { diagnostic: {} } }).diagnostics).toBe('push');
    expect(clientFeatures({}).showDocument).toBe(false);
    expect(clientFeatures({ window: { showDocument: { support: true } } }).showDocument).toBe(true);
  });
});
