/**
 * `airspace view` (live) as a user runs it: the built CLI serves the page, and a server-sent
 * events client reads `/events` as the page does. An edit saved in a worktree, never committed,
 * must reach the page (the same change tracking as `watch`), and so must an edit in a worktree
 * added after the view started. In-process (file events, polling), and through the repository's
 * resident engine, which tells the view what moved (the view follows nothing itself then).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { get, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { airspace, BIN, ENV } from './run-cli.js';
import { CHROMIUM, chromiumPath, describeWith } from './programs.js';

const ENGINE_ENV = { ...ENV, AIRSPACE_ENGINE: 'on', AIRSPACE_ENGINE_IDLE_MS: '60000' };

const BASE = {
  'src/a.ts': Array.from({ length: 20 }, (_, i) => `export const a${i + 1} = ${i + 1};`).join('\n') + '\n',
  'docs/notes.md': '# notes\n',
};
const withLine = (n: number, tag: string): string => BASE['src/a.ts'].replace(`a${n} = ${n};`, `a${n} = ${n}; // ${tag}`);

/** Bounded waits: generous, but an update that never comes fails the test. */
const UPDATE_MS = 20_000;

interface LiveView {
  readonly child: ChildProcess;
  readonly url: string;
  readonly scans: { at: number; result: ScanResult }[];
  stderr(): string;
  close(): Promise<void>;
}

async function startView(repo: string, args: string[] = [], env: NodeJS.ProcessEnv = ENV): Promise<LiveView> {
  const child = spawn(process.execPath, [BIN, 'view', '--repo', repo, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`airspace view did not start: ${err}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Airspace view at (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    child.on('close', () => fail(new Error(`airspace view exited: ${err}`)));
  });
  const scans: LiveView['scans'] = [];
  // A server-sent events reader: blocks separated by a blank line; `event: scan` carries the result.
  const response = await new Promise<IncomingMessage>((ok, fail) => get(`${url}events`, ok).on('error', fail));
  let buffer = '';
  response.on('data', (d: Buffer) => {
    buffer += d.toString();
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      if (!block.includes('event: scan')) continue;
      const data = block
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      scans.push({ at: Date.now(), result: JSON.parse(data) as ScanResult });
    }
  });
  return {
    child,
    url,
    scans,
    stderr: () => err,
    async close() {
      response.destroy();
      const exited = new Promise<number | null>((ok) => child.on('close', ok));
      child.kill('SIGINT');
      await exited;
    },
  };
}

/** The first scan pushed after `since` that satisfies `ok`; the time it took. */
async function nextScan(
  view: LiveView,
  since: number,
  ok: (r: ScanResult) => boolean,
  what: string,
): Promise<{ result: ScanResult; ms: number }> {
  const end = Date.now() + UPDATE_MS;
  for (;;) {
    const hit = view.scans.find((s) => s.at >= since && ok(s.result));
    if (hit) return { result: hit.result, ms: hit.at - since };
    if (Date.now() > end)
      throw new Error(`no update within ${UPDATE_MS} ms: ${what}; scans pushed: ${view.scans.length}; stderr: ${view.stderr()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const level = (r: ScanResult, a: string, b: string): string | undefined =>
  r.links.find((l) => (l.a === a && l.b === b) || (l.a === b && l.b === a))?.level;

let repo: RepoFixture | undefined;
let view: LiveView | undefined;
afterEach(async () => {
  await view?.close();
  view = undefined;
  if (repo) await airspace(['engine', 'stop', '--repo', repo.dir], { env: ENGINE_ENV, timeoutMs: 20_000 }).catch(() => undefined);
  repo?.dispose();
  repo = undefined;
});

describe('airspace view (live)', () => {
  for (const mode of ['file events', 'polling', 'engine'] as const) {
    it(`follows uncommitted edits and new worktrees (${mode})`, async () => {
      repo = createRepoFixture(BASE, { epoch: Math.floor(Date.now() / 1000) - 600 });
      repo.worktree('alice').write('src/a.ts', withLine(5, 'alice')).commit('alice: a5');
      const bob = repo.worktree('bob').write('docs/notes.md', '# bob\n');
      // Polling asked for (file events are not to be trusted): the view follows and scans itself,
      // even where the engine is on.
      view = await startView(
        repo.dir,
        mode === 'polling' ? ['--poll', '--interval', '500'] : [],
        mode === 'file events' ? ENV : ENGINE_ENV,
      );
      const first = await nextScan(view, 0, () => true, 'the first scan');
      expect(level(first.result, 'alice', 'bob')).toBe('clear');
      if (mode === 'polling') {
        const status = await airspace(['engine', 'status', '--json', '--repo', repo.dir], { env: ENGINE_ENV });
        expect(JSON.parse(status.stdout)).toMatchObject({ running: false });
      }
      if (mode === 'engine') {
        // The engine scans for the view and tells it of changes: the view holds and subscribes.
        const status = await airspace(['engine', 'status', '--json', '--repo', repo.dir], { env: ENGINE_ENV });
        expect(JSON.parse(status.stdout)).toMatchObject({ running: true, holders: 1, subscribers: 1 });
        expect(view.stderr()).toMatch(/through the repository's engine/);
      }

      // bob saves an edit of alice's line, and commits nothing.
      let since = Date.now();
      bob.write('src/a.ts', withLine(5, 'bob'));
      await nextScan(view, since, (r) => level(r, 'alice', 'bob') === 'resolution', "bob's uncommitted edit");
      since = Date.now();
      bob.write('src/a.ts', BASE['src/a.ts']);
      await nextScan(view, since, (r) => level(r, 'alice', 'bob') === 'clear', "bob's edit undone");

      // A worktree added while the view runs is watched too.
      const carol = repo.worktree('carol');
      since = Date.now();
      carol.write('src/a.ts', withLine(4, 'carol'));
      const seen = await nextScan(
        view,
        since,
        (r) => level(r, 'alice', 'carol') === 'resolution',
        'an edit in a worktree added after start',
      );
      expect(seen.result.agents.map((a) => a.id).sort()).toEqual(['alice', 'bob', 'carol']);

      if (mode === 'engine') {
        // The engine is killed under the view: the view is told it went away, asks again (which
        // starts a new engine) and goes on following edits through it.
        const { pid } = JSON.parse((await airspace(['engine', 'status', '--json', '--repo', repo.dir], { env: ENGINE_ENV })).stdout) as {
          pid: number;
        };
        process.kill(pid, 'SIGKILL');
        since = Date.now();
        bob.write('src/a.ts', withLine(5, 'bob again'));
        await nextScan(view, since, (r) => level(r, 'alice', 'bob') === 'resolution', "bob's edit after the engine was killed");
        const next = JSON.parse((await airspace(['engine', 'status', '--json', '--repo', repo.dir], { env: ENGINE_ENV })).stdout) as {
          pid: number;
          subscribers: number;
        };
        expect(next.pid).not.toBe(pid);
        expect(next.subscribers).toBe(1);
      }
    });
  }
});

describeWith(CHROMIUM, 'airspace view (live) under plain headless Chromium', () => {
  it('a `--screenshot --virtual-time-budget` capture of the live page finishes and shows the scene', async () => {
    repo = createRepoFixture(BASE, { epoch: Math.floor(Date.now() / 1000) - 600 });
    repo.worktree('alice').write('src/a.ts', withLine(5, 'alice')).commit('alice: a5');
    repo.worktree('bob').write('src/a.ts', withLine(5, 'bob'));
    view = await startView(repo.dir);
    await nextScan(view, 0, (r) => level(r, 'alice', 'bob') === 'resolution', 'the first scan');
    const scratch = mkdtempSync(join(tmpdir(), 'airspace-live-capture-'));
    const out = join(scratch, 'live.png');
    try {
      // As a person runs it. An open event stream held its virtual time, so it never finished.
      const run = spawnSync(
        chromiumPath() ?? 'chromium',
        [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          `--user-data-dir=${join(scratch, 'profile')}`,
          '--window-size=1200,800',
          `--screenshot=${out}`,
          '--virtual-time-budget=5000',
          view.url,
        ],
        { encoding: 'utf8', timeout: 90_000 },
      );
      expect(run.error, run.stderr).toBeUndefined();
      expect(run.status, run.stderr).toBe(0);
      expect(existsSync(out)).toBe(true);
      // A page with its scene drawn, not a blank one (a blank 1200×800 PNG is a few kB).
      expect(statSync(out).size).toBeGreaterThan(20_000);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 150_000);
});
