import { describe, expect, it } from 'vitest';
import type { Link, ScanResult } from '@airspace/core';
import { colorWanted, createStyle } from '../src/report/color.js';
import { formatRange, renderTable } from '../src/report/table.js';

const link = (a: string, b: string, level: Link['level'], risk: number, extra: Partial<Link> = {}): Link => ({
  a,
  b,
  level,
  risk,
  distance: 1 - risk,
  channels: [
    { channel: 'overlap', weight: 1, risk, weighted: risk, precision: 'line', evidence: [] },
    { channel: 'tree', weight: 0.25, risk: 0.4, weighted: 0.1, precision: 'file', evidence: [] },
  ],
  evidence: [],
  ...extra,
});

const result: ScanResult = {
  version: 1,
  generatedAt: '2026-01-01T00:00:00.000Z',
  thresholds: { traffic: 0.35, resolution: 0.7 },
  weights: { overlap: 1, tree: 0.25 },
  agents: [],
  positions: {},
  fileCoordinates: {},
  problems: [{ code: 'X', message: 'one worktree was skipped' }],
  links: [
    link('carol', 'dave', 'traffic', 0.45),
    link('alice', 'grace', 'clear', 0.05),
    link('alice', 'bob', 'resolution', 0.92, {
      probability: 0.674,
      evidence: [
        {
          message: 'both change the loop in subtotal()',
          a: { agent: 'alice', path: 'src/invoice.ts', range: [10, 11] },
          b: { agent: 'bob', path: 'src/invoice.ts', baseRange: [12, 11] },
        },
      ],
    }),
  ],
  advisories: [
    { a: 'alice', b: 'bob', level: 'resolution', risk: 0.92, steer: 'bob', hold: 'alice', evidence: [], message: '' },
    { a: 'carol', b: 'dave', level: 'traffic', risk: 0.45, evidence: [], message: '' },
  ],
  counts: { agents: 5, pairs: 3, clear: 1, traffic: 1, resolution: 1, unknown: 0 },
};

describe('renderTable', () => {
  it('lists advisories by level and risk with channels, evidence of both sides and right of way', () => {
    const text = renderTable(result);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^LEVEL\s+RISK\s+P\s+PAIR\s+CHANNELS$/);
    // The calibrated probability beside the risk; a link without one (an older engine's) shows "–".
    expect(lines[1]).toMatch(/^RESOLUTION\s+0\.92\s+67%\s+alice ↔ bob\s+overlap 0\.92 · tree 0\.40$/);
    expect(lines[2]).toBe('  · alice src/invoice.ts:10-11 ↔ bob src/invoice.ts:after 11 (base): both change the loop in subtotal()');
    expect(lines[3]).toBe('  → bob steers away, alice holds course');
    expect(lines[4]).toMatch(/^TRAFFIC\s+0\.45\s+–\s+carol ↔ dave/);
    expect(text).not.toContain('grace');
    expect(text).toContain('5 agents, 3 pairs: 1 resolution 1 traffic 1 clear');
    expect(text).toContain('! one worktree was skipped');
    expect(text).not.toContain('\u001b[');
  });

  it('shows unknown pairs with their reason, counts them, and marks whole-file parts of a line channel', () => {
    const unknown = link('erin', 'henry', 'unknown', 1, {
      levelReason: 'henry is incomplete: no merge base with main; file-level evidence alone (risk 1.00) raises no advisory for it',
      channels: [{ channel: 'overlap', weight: 1, risk: 1, preciseRisk: 0, weighted: 1, precision: 'line', evidence: [] }],
    });
    const text = renderTable({ ...result, links: [...result.links, unknown], counts: { ...result.counts, pairs: 4, unknown: 1 } });
    expect(text).toMatch(/^UNKNOWN\s+1\.00\s+–\s+erin ↔ henry\s+overlap 1\.00 \(0\.00 line-precise\)$/m);
    expect(text).toContain('  (henry is incomplete: no merge base with main; file-level evidence alone');
    expect(text).toContain('5 agents, 4 pairs: 1 resolution 1 traffic 1 unknown 1 clear');
  });

  it('lists clear pairs with --all, and colours only when asked', () => {
    expect(renderTable(result, { all: true })).toContain('alice ↔ grace');
    expect(renderTable(result, { style: createStyle(true) })).toContain('\u001b[31m');
  });

  it('follows NO_COLOR, FORCE_COLOR and whether the stream is a terminal', () => {
    expect(colorWanted({ isTTY: true }, {})).toBe(true);
    expect(colorWanted({ isTTY: false }, {})).toBe(false);
    expect(colorWanted({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorWanted({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
  });

  it('shows escape sequences, newlines and bidi overrides in ids, paths and messages escaped, never raw', () => {
    const evil = 'ev\u001b[31mil\nRESOLUTION 1.00 fake';
    const hostile: ScanResult = {
      ...result,
      links: [
        link(evil, 'b\u202eob', 'resolution', 0.9, {
          evidence: [{ message: 'x\r\u009b2J', a: { agent: evil, path: 'src/\u0007bell.ts', range: [1, 1] } }],
        }),
      ],
      advisories: [{ a: evil, b: 'b\u202eob', level: 'resolution', risk: 0.9, steer: evil, hold: 'b\u202eob', evidence: [], message: '' }],
      problems: [{ code: 'X', message: 'line one\nline two \u001b]0;title\u0007' }],
    };
    const text = renderTable(hostile);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(text).toContain('ev\\x1b[31mil\\nRESOLUTION 1.00 fake ↔ b\\u202eob');
    expect(text).toContain('src/\\x07bell.ts:1');
    expect(text).toContain('! line one\\nline two \\x1b]0;title\\x07');
    // Only our own line breaks: the header, one pair with its evidence and advice, the summary and the problem.
    expect(text.split('\n').filter((l) => /^RESOLUTION/.test(l))).toHaveLength(1);
  });

  it('formats ranges, zero-width insertion points included', () => {
    expect(formatRange([3, 3])).toBe('3');
    expect(formatRange([3, 9])).toBe('3-9');
    expect(formatRange([1, 0])).toBe('after 0');
  });
});

describe('renderTable with forecasts', () => {
  const forecast = {
    probability: 0.123,
    threshold: 0.05,
    signals: [
      { signal: 'co-change', value: 0.9, weight: 0.2 },
      { signal: 'shared-files', value: 1, weight: 0.05 },
    ],
    evidence: [{ message: 'src/a.ts and src/b.ts changed together in 9 of 10 commits', kind: 'co-change' }],
  };
  const scan: ScanResult = {
    ...result,
    problems: [],
    links: [link('alice', 'bob', 'traffic', 0.6), link('carol', 'dave', 'clear', 0.05, { forecast }), link('erin', 'frank', 'clear', 0.02)],
    advisories: [],
    counts: { agents: 6, pairs: 15, clear: 14, traffic: 1, resolution: 0, unknown: 0 },
  };

  it('lists forecast pairs after the advisories with their probability, signals and evidence, and counts them', () => {
    const text = renderTable(scan);
    const lines = text.split('\n');
    const row = lines.findIndex((l) => l.startsWith('FORECAST'));
    expect(row).toBeGreaterThan(lines.findIndex((l) => l.startsWith('TRAFFIC')));
    expect(lines[row]).toMatch(/^FORECAST\s+0\.05\s+12%\s+carol ↔ dave\s+co-change 0\.90 · files changed on both sides$/);
    expect(lines[row + 1]).toContain('src/a.ts and src/b.ts changed together in 9 of 10 commits');
    expect(text).not.toContain('erin ↔ frank');
    expect(text).toContain('6 agents, 15 pairs: 0 resolution 1 traffic 14 clear (1 forecast to collide later)');
  });

  it('shows a forecast pair once, as a forecast, with --all', () => {
    const text = renderTable(scan, { all: true });
    expect(text.match(/carol ↔ dave/g)).toHaveLength(1);
    expect(text).toMatch(/CLEAR\s+0\.02\s+–\s+erin ↔ frank/);
  });
});
