/**
 * The precision scenario: one generated repository whose worktrees reproduce the traps that made
 * Airspace cry wolf, and the real collisions it must still find, each with its designed level.
 * Scanned once with the built-in channels and default weights, thresholds and recency, so that a
 * change anywhere in the pipeline that moves one of these levels fails here.
 *
 * Each case lives in its own top-level directory, so pairs across cases share nothing and must
 * stay below resolution (they are checked too). To add a case: a directory, its base files, one
 * `edits` function per agent, and the designed level of its pair.
 *
 * | case        | what the two agents do                                             | designed     |
 * |-------------|--------------------------------------------------------------------|--------------|
 * | far         | edit one 400-line component 170 lines apart                        | not resolution |
 * | same        | make the identical edit to one file                                | not resolution |
 * | large       | edit a file over the size limit (no line information) at line 10 and line 59,000 | not resolution |
 * | shallow     | one worktree has no merge base with the scan base (file-level only) | unknown      |
 * | probe       | `check --lines` on a line neither changed, next to a real conflict  | not resolution |
 * | lines       | change overlapping lines of one function                           | resolution   |
 * | signature   | one changes a signature, the other's new lines call it             | resolution   |
 * | (types hub) | reserved: a types file imported by everything (dependency edge kinds) | not resolution |
 * | (callee)    | reserved: two functions that share only a helper callee (call-graph) | clear        |
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS, type Level, type Link, type ScanResult } from '@airspace/core';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import { createScanner, type Scanner } from '../src/index.js';

const text = (lines: readonly string[]): string => lines.join('\n') + '\n';

/** A React component of `n` body lines: line 1 is its header. */
const component = (n: number): string[] => [
  'export function Board(props: { n: number }) {',
  ...Array.from({ length: n }, (_, i) => `  const v${i + 1} = props.n + ${i + 1};`),
  '  return <div>{v1}</div>;',
  '}',
];

/** Over the 2 MiB limit: about 40 bytes a line. */
const HUGE = Array.from({ length: 60_000 }, (_, i) => `export const row${String(i + 1).padStart(5, '0')} = 'abcdefghijklmnop';`);

const UTIL = Array.from({ length: 30 }, (_, i) => `export const u${i + 1} = ${i + 1};`);
const PRICE = [
  'export function price(n: number): number {',
  '  let total = 0;',
  '  for (let i = 0; i < n; i++) {',
  '    total += i;',
  '  }',
  '  return total;',
  '}',
];
const SESSION = ['export function openSession(user: string) {', '  return { user };', '}'];
const LOGIN = ["import { openSession } from './session.js';", '', 'export function login(user: string) {', '  return user.length;', '}'];
const SHALLOW = ['export const mode = "strict";', 'export const level = 1;'];

const BASE: Record<string, string> = {
  'far/Board.tsx': text(component(400)),
  'same/util.ts': text(UTIL),
  'large/table.ts': text(HUGE),
  'shallow/config.ts': text(SHALLOW),
  'probe/util.ts': text(UTIL),
  'lines/price.ts': text(PRICE),
  'signature/session.ts': text(SESSION),
  'signature/login.ts': text(LOGIN),
};

const replace = (lines: readonly string[], at: number, by: string): string[] => lines.map((l, i) => (i === at - 1 ? by : l));

type Edit = (wt: FixtureCheckout) => void;

interface Case {
  readonly name: string;
  readonly agents: readonly [string, string];
  readonly edits: readonly [Edit, Edit];
  /** The designed level of the pair; `not resolution` accepts clear, unknown and traffic. */
  readonly designed: Level | 'not resolution';
}

const CASES: readonly Case[] = [
  {
    name: 'far',
    agents: ['far-a', 'far-b'],
    edits: [
      (wt) => wt.write('far/Board.tsx', text(replace(component(400), 21, '  const v20 = props.n * 20;'))),
      (wt) => wt.write('far/Board.tsx', text(replace(component(400), 191, '  const v190 = props.n * 190;'))),
    ],
    designed: 'not resolution',
  },
  {
    name: 'same',
    agents: ['same-a', 'same-b'],
    edits: [
      (wt) => wt.write('same/util.ts', text(replace(UTIL, 12, 'export const u12 = 1200;'))),
      (wt) => wt.write('same/util.ts', text(replace(UTIL, 12, 'export const u12 = 1200;'))),
    ],
    designed: 'not resolution',
  },
  {
    name: 'large',
    agents: ['large-a', 'large-b'],
    edits: [
      (wt) => wt.write('large/table.ts', text(replace(HUGE, 10, "export const row00010 = 'changed at the top';"))),
      (wt) => wt.write('large/table.ts', text(replace(HUGE, 59_000, "export const row59000 = 'changed at the bottom';"))),
    ],
    designed: 'not resolution',
  },
  {
    name: 'shallow',
    agents: ['shallow-a', 'shallow-b'],
    edits: [
      // An unrelated history (as a shallow clone's cut history): no merge base with main.
      (wt) => {
        wt.git('checkout', '--orphan', 'shallow-root');
        wt.write('shallow/config.ts', text(replace(SHALLOW, 1, 'export const mode = "loose";'))).commit('shallow: root');
        wt.git('branch', '-M', 'shallow-root', 'shallow-a'); // agents are named by branch
      },
      (wt) => wt.write('shallow/config.ts', text(replace(SHALLOW, 2, 'export const level = 2;'))),
    ],
    designed: 'unknown',
  },
  {
    name: 'probe',
    agents: ['probe-a', 'probe-b'],
    edits: [
      (wt) => wt.write('probe/util.ts', text(replace(UTIL, 10, 'export const u10 = 100;'))).commit('probe-a: line 10'),
      (wt) => wt.write('probe/util.ts', text(replace(UTIL, 11, 'export const u11 = 110;'))),
    ],
    // Without a probe this pair conflicts (lines 10 and 11 touch); see the probe test below.
    designed: 'resolution',
  },
  {
    name: 'lines',
    agents: ['lines-a', 'lines-b'],
    edits: [
      (wt) => wt.write('lines/price.ts', text(replace(PRICE, 4, '    total += i * 2;'))).commit('lines-a: double'),
      (wt) => wt.write('lines/price.ts', text(replace(replace(PRICE, 3, '  for (let i = 1; i <= n; i++) {'), 4, '    total += i + 1;'))),
    ],
    designed: 'resolution',
  },
  {
    name: 'signature',
    agents: ['signature-a', 'signature-b'],
    edits: [
      (wt) =>
        wt
          .write('signature/session.ts', text(replace(SESSION, 1, 'export function openSession(user: string, ttlMs: number) {')))
          .commit('signature-a: ttl'),
      (wt) => wt.write('signature/login.ts', text(replace(LOGIN, 4, '  return openSession(user);'))),
    ],
    designed: 'resolution',
  },
];

let repo: RepoFixture;
let scanner: Scanner;
let result: ScanResult;

const linkOf = (r: ScanResult, x: string, y: string): Link => r.links.find((l) => (l.a === x && l.b === y) || (l.a === y && l.b === x))!;

beforeAll(async () => {
  // Commits ten minutes old: recent committed work, as in a live session.
  repo = createRepoFixture(BASE, { epoch: Math.floor(Date.now() / 1000) - 600 });
  for (const c of CASES) c.agents.forEach((id, i) => c.edits[i]!(repo.worktree(id)));
  scanner = createScanner({ repo: repo.dir, base: 'main' });
  result = await scanner.scan();
}, 120_000);

afterAll(async () => {
  await scanner?.dispose();
  repo?.dispose();
});

describe('precision scenario: designed levels with the default configuration', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const link = linkOf(result, c.agents[0], c.agents[1]);
    expect(link, `${c.agents.join(' ↔ ')} was not scored: ${JSON.stringify(result.problems.map((p) => p.message))}`).toBeDefined();
    const why = `${c.name}: ${link.level} at ${link.risk.toFixed(3)} (${link.levelReason ?? 'band'}); ${link.channels.map((x) => `${x.channel} ${x.risk.toFixed(2)}`).join(', ')}`;
    if (c.designed === 'not resolution') expect(link.level, why).not.toBe('resolution');
    else expect(link.level, why).toBe(c.designed);
    // No designed case sits within 0.05 of a threshold it could cross: levels must not flip on noise.
    if (link.level === 'clear' || link.level === 'traffic' || link.level === 'resolution') {
      const precise = link.channels.reduce((keep, x) => keep * (x.precision === 'file' ? 1 : 1 - x.weight * (x.preciseRisk ?? x.risk)), 1);
      const margins = [Math.abs(link.risk - DEFAULT_THRESHOLDS.traffic), Math.abs(1 - precise - DEFAULT_THRESHOLDS.resolution)];
      expect(Math.min(...margins), `${why}: within 0.05 of a threshold`).toBeGreaterThanOrEqual(0.05);
    }
  });

  it('says why: far-apart edits, identical changes, file-level evidence and missing bases are named', () => {
    const symbols = (x: string, y: string) => linkOf(result, x, y).channels.find((c) => c.channel === 'symbols')!;
    expect(symbols('far-a', 'far-b').evidence[0]).toMatchObject({ kind: 'write-write-apart' });
    expect(linkOf(result, 'same-a', 'same-b').channels.find((c) => c.channel === 'overlap')!.evidence[0]).toMatchObject({
      kind: 'identical-change',
    });
    const large = linkOf(result, 'large-a', 'large-b').channels.find((c) => c.channel === 'overlap')!;
    expect(large).toMatchObject({ preciseRisk: 0 });
    expect(large.evidence[0]!.message).toContain('file-level evidence only');
    expect(linkOf(result, 'shallow-a', 'shallow-b').levelReason).toMatch(/no merge base/);
    expect(result.counts.unknown).toBeGreaterThanOrEqual(1);
  });

  it('keeps every pair across cases below resolution', () => {
    const designed = new Set(CASES.map((c) => [...c.agents].sort().join(' ')));
    const stray = result.links.filter((l) => !designed.has([l.a, l.b].sort().join(' ')) && l.level === 'resolution');
    expect(stray.map((l) => `${l.a} ↔ ${l.b} ${l.risk.toFixed(2)}`)).toEqual([]);
  });

  it('a probe on an unchanged line scores that line, not the real conflict beside it', async () => {
    // probe-b really changes line 11 (touching probe-a's line 10); it asks about line 25.
    const probed = await scanner.scan(undefined, { probe: { agent: 'probe-b', intent: [{ path: 'probe/util.ts', lines: [25, 25] }] } });
    const link = linkOf(probed, 'probe-a', 'probe-b');
    expect(link.level).not.toBe('resolution');
    expect(link.channels.map((c) => c.channel)).not.toContain('merge');
    expect(probed.problems.map((p) => p.code)).toContain('PROBE_WITHOUT_CHANNEL');
    // The same probe on probe-a's line still finds the collision.
    const onIt = await scanner.scan(undefined, { probe: { agent: 'probe-b', intent: [{ path: 'probe/util.ts', lines: [10, 10] }] } });
    expect(linkOf(onIt, 'probe-a', 'probe-b').level).toBe('resolution');
  });
});
