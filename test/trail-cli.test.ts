/**
 * `airspace trail …` run as a user runs it: the built CLI as a child process over a trail file.
 * Needs `turbo run build` (turbo's test task builds the CLI first).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airspace as runCli, type Run } from './run-cli.js';

/** Each test runs the CLI a dozen times or more; a loaded machine needs room. */
const STORY_TIMEOUT_MS = 300_000;

let dir: string;

function airspace(...args: string[]): Promise<Run> {
  return runCli(args, { cwd: dir });
}

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

function observation(agentId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 1,
    agentId,
    taskId: 'task-7',
    repositoryId: 'example/shop',
    base: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
    scopeId: 'worktree-diff',
    readPaths: [],
    writePaths: [],
    complete: true,
    observedAt: at(0),
    expiresAt: at(60),
    ...overrides,
  };
}

function write(name: string, value: unknown): string {
  writeFileSync(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value));
  return name;
}

function reorderFootprint(t: any): any {
  const footprint = t.receipts[2].payload.footprint;
  t.receipts[2].payload.footprint = { writePaths: footprint.writePaths, readPaths: footprint.readPaths };
  return t;
}

function reversePaths(t: any): any {
  t.receipts[0].payload.observations[1].writePaths.reverse();
  return t;
}

const trailText = (): string => readFileSync(join(dir, 'trail.json'), 'utf8');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'airspace-trail-e2e-'));
  write('alice.json', observation('alice', { writePaths: ['src/cart.ts'], readPaths: ['src/api.ts'] }));
  write('bob.json', observation('bob', { writePaths: ['src/cart.ts', 'src/api.ts'] }));
  write('graph.json', { edges: [['src/cart.ts', 'src/api.ts']] });
  write('alice-2.json', observation('alice', { writePaths: ['src/cart.ts'], observedAt: at(20), expiresAt: at(80) }));
  write('bob-2.json', observation('bob', { writePaths: ['src/api.ts'], observedAt: at(20), expiresAt: at(80) }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('airspace trail', () => {
  it(
    'records a whole trail, refusing each broken rule with its code and leaving the file intact',
    async () => {
      const created = await airspace(
        'trail',
        'create',
        'trail.json',
        '--a',
        'alice.json',
        '--b',
        'bob.json',
        '--graph',
        'graph.json',
        '--now',
        at(1),
        '--trail-id',
        'demo',
      );
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout).toMatch(/trail created/);
      expect(created.stdout).toMatch(/Latest advisory \(created .*\): TRAFFIC/);

      const original = trailText();
      const again = await airspace('trail', 'create', 'trail.json', '--a', 'alice.json', '--b', 'bob.json');
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/trail\.json already exists/);
      expect(trailText()).toBe(original);

      const stranger = await airspace('trail', 'ack', 'trail.json', '--agent', 'mallory', '--now', at(2));
      expect(stranger.code).toBe(1);
      expect(stranger.stderr).toMatch(/mallory is not one of the two observed agents.*\[not-a-party\]/);
      expect(trailText()).toBe(original);

      expect((await airspace('trail', 'ack', 'trail.json', '--agent', 'alice', '--note', 'backing off', '--now', at(2))).code).toBe(0);
      const repeat = await airspace('trail', 'ack', 'trail.json', '--agent', 'alice', '--now', at(3));
      expect(repeat.code).toBe(1);
      expect(repeat.stderr).toMatch(/\[duplicate-acknowledgement\]/);
      const backwards = await airspace('trail', 'ack', 'trail.json', '--agent', 'bob', '--now', at(0));
      expect(backwards.stderr).toMatch(/\[time-regression\]/);

      const revised = await airspace(
        'trail',
        'revise',
        'trail.json',
        '--agent',
        'bob',
        '--authorization-ref',
        'PR-12 review',
        '--write',
        'src/api.ts',
        '--read',
        'src/cart.ts',
        '--now',
        at(3),
        '--json',
      );
      expect(revised.code, revised.stderr).toBe(0);
      const afterRevision = JSON.parse(revised.stdout);
      expect(afterRevision.latestAdvisory).toMatchObject({ kind: 'scope-revision', basis: 'declared' });
      expect(afterRevision.scopeRevisions[0].authorizationRef).toEqual({ label: 'declared-only', ref: 'PR-12 review' });
      const second = await airspace(
        'trail',
        'revise',
        'trail.json',
        '--agent',
        'bob',
        '--authorization-ref',
        'PR-13',
        '--write',
        'x.ts',
        '--now',
        at(4),
      );
      expect(second.stderr).toMatch(/\[revision-already-declared\]/);

      const stale = await airspace('trail', 'reobserve', 'trail.json', '--a', 'alice.json', '--b', 'bob-2.json', '--now', at(21));
      expect(stale.code).toBe(1);
      expect(stale.stderr).toMatch(/\[stale-reobservation\]/);
      const reobserved = await airspace('trail', 'reobserve', 'trail.json', '--a', 'bob-2.json', '--b', 'alice-2.json', '--now', at(21));
      expect(reobserved.code, reobserved.stderr).toBe(0);
      expect(reobserved.stdout).toMatch(/re-observation recorded/);

      const summary = await airspace('trail', 'summarize', 'trail.json', '--json');
      expect(summary.code).toBe(0);
      const s = JSON.parse(summary.stdout);
      expect(s).toMatchObject({ trailId: 'demo', agents: ['alice', 'bob'], receipts: 4, outcome: 'unadjudicated' });
      expect(s.latestAdvisory.kind).toBe('reobservation');
      expect(s.historicalAcknowledgers.map((a: { agentId: string }) => a.agentId)).toEqual(['alice']);
      expect(s.acknowledgements).toEqual([]);
      const human = await airspace('trail', 'summarize', 'trail.json');
      expect(human.stdout).toMatch(/Historical acknowledgers \(earlier advisories\): alice of /);
      expect(human.stdout).toMatch(/Outcome: unadjudicated/);

      const verified = await airspace('trail', 'verify', 'trail.json');
      expect(verified.code).toBe(0);
      expect(verified.stdout).toMatch(/verified — 4 receipts, head [0-9a-f]{64}/);
      expect(readdirSync(dir).filter((n) => n.includes('trail.json'))).toEqual(['trail.json']);
    },
    STORY_TIMEOUT_MS,
  );

  it(
    'exits 1 with the reason code for each kind of failed verification',
    async () => {
      const text = trailText();
      const parsed = JSON.parse(text);
      const head = parsed.receipts.at(-1).hash;
      const cases: [string, string, string][] = [
        ['tampered.json', text.replace('"PR-12 review"', '"PR-99 review"'), 'hash-mismatch'],
        ['not-json.json', text.slice(0, 100), 'malformed-json'],
        [
          'swapped.json',
          JSON.stringify(
            { ...parsed, receipts: [parsed.receipts[0], parsed.receipts[2], parsed.receipts[1], parsed.receipts[3]] },
            null,
            2,
          ),
          'broken-chain',
        ],
        ['field-order.json', JSON.stringify(reorderFootprint(structuredClone(parsed)), null, 2), 'noncanonical-field-order'],
        ['path-order.json', JSON.stringify(reversePaths(structuredClone(parsed)), null, 2), 'noncanonical-path-order'],
      ];
      for (const [name, content, reason] of cases) {
        write(name, content);
        const run = await airspace('trail', 'verify', name);
        expect(run.code, name).toBe(1);
        expect(run.stderr, name).toMatch(new RegExp(`does not verify \\(${reason}\\)`));
      }
      const truncated = { ...parsed, receipts: parsed.receipts.slice(0, 3) };
      write('truncated.json', JSON.stringify(truncated, null, 2));
      expect((await airspace('trail', 'verify', 'truncated.json')).code).toBe(0);
      const cut = await airspace('trail', 'verify', 'truncated.json', '--head', head);
      expect(cut.code).toBe(1);
      expect(cut.stderr).toMatch(/\(head-mismatch\)/);
      const json = await airspace('trail', 'verify', 'tampered.json', '--json');
      expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, reason: 'hash-mismatch', index: 2 });

      const before = readFileSync(join(dir, 'tampered.json'), 'utf8');
      const ack = await airspace('trail', 'ack', 'tampered.json', '--agent', 'alice', '--now', at(30));
      expect(ack.code).toBe(1);
      expect(ack.stderr).toMatch(/does not verify \(hash-mismatch\).*\[invalid-trail\]/);
      expect(readFileSync(join(dir, 'tampered.json'), 'utf8')).toBe(before);
    },
    STORY_TIMEOUT_MS,
  );

  it(
    'refuses a scope revision once an original observation has expired, and bad input clearly',
    async () => {
      write('short.json', observation('bob', { writePaths: ['src/cart.ts'], expiresAt: at(5) }));
      expect((await airspace('trail', 'create', 'short-trail.json', '--a', 'alice.json', '--b', 'short.json', '--now', at(1))).code).toBe(
        0,
      );
      const late = await airspace(
        'trail',
        'revise',
        'short-trail.json',
        '--agent',
        'alice',
        '--authorization-ref',
        'x',
        '--write',
        'a.ts',
        '--now',
        at(5),
      );
      expect(late.code).toBe(1);
      expect(late.stderr).toMatch(/bob expired .*\[observation-not-current\]/);

      write('bad-observation.json', { ...observation('carol'), version: 3 });
      const bad = await airspace('trail', 'create', 'bad-trail.json', '--a', 'alice.json', '--b', 'bad-observation.json');
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/"version" must be 1.*\[invalid-observation\]/);
      expect(readdirSync(dir)).not.toContain('bad-trail.json');
      const missing = await airspace('trail', 'verify', 'nowhere.json');
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/Cannot read trail file nowhere\.json/);
    },
    STORY_TIMEOUT_MS,
  );
});
