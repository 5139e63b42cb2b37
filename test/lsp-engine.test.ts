/**
 * One engine per repository with an editor open: the built language server scans through the
 * repository's resident engine (it starts it and holds it), so agents' `airspace check` are
 * answered by the same engine process, with the answers of a cold check; the editor's unsaved
 * buffer shows in the editor and not in agents' checks; an engine killed under the editor is
 * replaced by one new engine; after the editor exits the engine goes on serving; with no engine
 * to be had the editor scans in-process with the same advisories; nothing is written to any
 * worktree. Every engine started here is stopped (and killed by pid if it does not stop).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import { generateRepo } from '@airspace/bench';
import { TestClient, uriOf } from '../packages/lsp-server/test/support/client.js';
import { airspace, BIN, type Run } from './run-cli.js';
import { alive, ENGINE_ENV, stopEngines } from './engines.js';
import { repoFingerprint } from './fingerprint.js';

const LSP = fileURLToPath(new URL('../packages/lsp-server/dist/bin.js', import.meta.url));

let repo: RepoFixture;
let files: Record<string, string>;
let alice: FixtureCheckout;
let bob: FixtureCheckout;
let carol: FixtureCheckout;
let shared: string;
let other: string;
const started = new Set<number>();

function edited(path: string, from: number, to: number, tag: string): string {
  return files[path]!.split('\n')
    .map((line, i) => (i + 1 >= from && i + 1 <= to ? `${line} // ${tag}` : line))
    .join('\n');
}

/** Engine processes of this repository, found by their command line (one engine role = one process). */
function enginesOf(commonDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const at = argv.indexOf('--common-dir');
      if (argv.some((a) => a.endsWith('daemon.js')) && at >= 0 && argv[at + 1] === commonDir) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids.sort();
}

/**
 * The repository's engine processes settle to exactly `pid`. A rival started meanwhile (a client
 * that found no engine at the same moment as another) finds the lock taken and exits; one that took
 * the lock over would leave `pid` alone or stopped, and fails this.
 */
async function expectOneEngine(commonDir: string, pid: number): Promise<void> {
  const alone = (): boolean => JSON.stringify(enginesOf(commonDir)) === JSON.stringify([pid]);
  // Alone on two looks two seconds apart: a rival's process may appear just after a look, and
  // takes that long at most to find the lock taken and exit.
  const settled = async (): Promise<true | undefined> => {
    if (!alone()) return undefined;
    await new Promise((r) => setTimeout(r, 2_000));
    return alone() ? true : undefined;
  };
  await waitFor(`engine ${pid} alone`, settled, 40_000).catch(() => undefined);
  expect(enginesOf(commonDir)).toEqual([pid]);
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Status {
  running: boolean;
  pid: number;
  holders: number;
  subscribers: number;
  notified: number;
  requests: number;
  scanners: number;
}
const status = async (): Promise<Status> =>
  JSON.parse((await airspace(['engine', 'status', '--json', '--repo', repo.dir], { env: ENGINE_ENV })).stdout) as Status;

const json = (run: Run): unknown => JSON.parse(run.stdout);

/** A check through the engine and cold in-process: equal answers, nothing written. */
async function sameCheck(cwd: string, args: string[]): Promise<{ level: string; conflicts: { with: string; level: string }[] }> {
  const before = repoFingerprint(repo.dir);
  const engine = await airspace(['check', ...args, '--json', '--verbose'], { cwd, env: ENGINE_ENV, timeoutMs: 120_000 });
  const cold = await airspace(['check', ...args, '--json', '--no-engine'], { cwd, timeoutMs: 120_000 });
  expect(engine.stderr).not.toMatch(/in-process/);
  expect([engine.code, json(engine)]).toEqual([cold.code, json(cold)]);
  expect(repoFingerprint(repo.dir)).toEqual(before);
  return json(engine) as { level: string; conflicts: { with: string; level: string }[] };
}

interface Scan {
  agents: { id: string }[];
  links: { a: string; b: string; level: string; risk: number }[];
}
/** What a scan says about every pair. */
const pairs = (scan: Scan) =>
  scan.links
    .map((l) => ({ pair: [l.a, l.b].sort().join('+'), level: l.level, risk: Math.round(l.risk * 1000) / 1000 }))
    .sort((x, y) => x.pair.localeCompare(y.pair));

async function editorMode(client: TestClient) {
  const answer = (await client.connection.sendRequest('airspace/engine')) as {
    repositories: { commonDir: string; mode: { kind: string; pid?: number; reason?: string } | null }[];
  };
  return answer.repositories[0]?.mode ?? undefined;
}

beforeAll(() => {
  files = generateRepo({ files: 120, seed: 5 }).files as Record<string, string>;
  repo = createRepoFixture(files, { epoch: Math.floor(Date.now() / 1000) - 600 });
  const ts = Object.keys(files)
    .filter((p) => p.endsWith('.ts') && !p.endsWith('index.ts'))
    .sort();
  [shared, other] = [ts[0]!, ts[1]!];
  alice = repo
    .worktree('alice')
    .write(shared, edited(shared, 3, 5, 'alice'))
    .commit('alice');
  bob = repo.worktree('bob').write(shared, edited(shared, 20, 22, 'bob'));
  carol = repo.worktree('carol').write(other, edited(other, 1, 2, 'carol'));
});

afterAll(async () => {
  await stopEngines(repo.dir, started);
  repo.dispose();
});

describe('the language server and agents share one engine', () => {
  it('is one engine for the editor and the agents, with the answers of a cold check', { timeout: 600_000 }, async () => {
    const commonDir = join(repo.dir, '.git');
    const before = repoFingerprint(repo.dir);
    const client = new TestClient(process.execPath, [LSP, '--stdio'], ENGINE_ENV as Record<string, string>);
    try {
      await client.initialize([bob.dir]);
      const first = (await client.connection.sendRequest('airspace/scan', {})) as Scan;
      const mode = await editorMode(client);
      expect(mode).toMatchObject({ kind: 'engine' });
      const pid = mode!.pid!;
      started.add(pid);
      await expectOneEngine(commonDir, pid);
      expect(await status()).toMatchObject({ running: true, pid, holders: 1 });

      // The editor's scan is the whole airspace of a cold scan.
      const cold = json(await airspace(['scan', '--json'], { cwd: bob.dir, timeoutMs: 120_000 })) as Scan;
      expect(pairs(first)).toEqual(pairs(cold));
      expect(first.agents.map((a) => a.id).sort()).toEqual(['alice', 'bob', 'carol']);

      // Agents' checks are answered by the editor's engine, as cold checks are.
      const clash = await sameCheck(alice.dir, [shared, '--lines', '20-21']);
      expect(clash.conflicts.find((c) => c.with === 'bob')?.level).toBe('resolution');
      await sameCheck(carol.dir, [shared]);
      await sameCheck(bob.dir, [other, '--lines', '1-1']);
      await expectOneEngine(commonDir, pid);
      // One warm scanner serves the editor and every agent (no worktree has a config of its own).
      expect(await status()).toMatchObject({ pid, scanners: 1 });

      // Bob types over alice's lines without saving: his editor warns him; alice's check does not see it.
      const file = join(bob.dir, shared);
      const typed = edited(shared, 3, 4, 'bob typing');
      await client.open(file, readFileSync(file, 'utf8'));
      await client.change(file, typed, 1);
      await client.until(
        'a resolution from the unsaved buffer',
        () => client.diagnostics.get(uriOf(file))?.find((d) => String(d.code).startsWith('resolution/')),
        60_000,
      );
      await sameCheck(alice.dir, [shared, '--lines', '3-3']);
      expect((await status()).pid).toBe(pid);

      // The server follows no worktree itself: the engine tells it (a subscriber) of a save in
      // carol's worktree over the lines bob types, and bob's editor names carol.
      expect(await status()).toMatchObject({ subscribers: 1 });
      writeFileSync(join(carol.dir, shared), edited(shared, 3, 4, 'carol'));
      await client.until(
        "a warning naming carol's saved edit",
        () =>
          client.diagnostics.get(uriOf(file))?.find((d) => (typeof d.message === 'string' ? d.message : d.message.value).includes('carol')),
        60_000,
      );
      expect((await status()).notified).toBeGreaterThan(0);
      writeFileSync(join(carol.dir, shared), files[shared]!);

      // The engine is killed under the editor: the editor's next scan starts one new engine.
      process.kill(pid, 'SIGKILL');
      await waitFor('the engine to die', () => (alive(pid) ? undefined : true), 10_000);
      writeFileSync(join(carol.dir, other), edited(other, 1, 3, 'carol'));
      const next = await waitFor(
        'a new engine for the editor',
        async () => {
          await client.connection.sendRequest('airspace/scan', {});
          const m = await editorMode(client);
          return m?.kind === 'engine' && m.pid !== pid ? m.pid! : undefined;
        },
        120_000,
      );
      started.add(next);
      await expectOneEngine(commonDir, next);
      await sameCheck(carol.dir, [other, '--lines', '3-3']);
      expect((await status()).pid).toBe(next);
    } finally {
      await client.close();
    }
    // The editor left: the engine goes on serving agents; nobody holds it any more.
    const after = await waitFor('the editor to let go', async () => ((await status()).holders === 0 ? status() : undefined), 20_000);
    expect(after.running).toBe(true);
    await expectOneEngine(commonDir, after.pid);
    await sameCheck(alice.dir, [shared, '--lines', '20-21']);
    // Nothing written to any worktree by the editor, the engines or the checks (the test's own saves aside).
    const now = repoFingerprint(repo.dir);
    expect(now.refs).toEqual(before.refs);
    expect(now.worktrees).toEqual(before.worktrees);
    for (const dir of [repo.dir, alice.dir, bob.dir]) expect(now.trees[dir]).toEqual(before.trees[dir]);
  });

  it('scans in-process with the same advisories when no engine can start', { timeout: 300_000 }, async () => {
    await airspace(['engine', 'stop', '--repo', repo.dir], { env: ENGINE_ENV, timeoutMs: 20_000 });
    // A live process holds the lock without answering (young, so not stale): no engine can start.
    const dir = join(repo.dir, '.git', 'airspace');
    // It stands for an engine of this repository starting (its command line says so).
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300000)', '--', '--common-dir', join(repo.dir, '.git')], {
      stdio: 'ignore',
    });
    writeFileSync(
      join(dir, 'engine.json'),
      JSON.stringify({ pid: holder.pid, socket: join(dir, 'nobody.sock'), version: 2, startedAt: new Date().toISOString(), log: '' }),
    );
    const client = new TestClient(process.execPath, [LSP, '--stdio'], ENGINE_ENV as Record<string, string>);
    try {
      await client.initialize([bob.dir]);
      const scan = (await client.connection.sendRequest('airspace/scan', {})) as Scan;
      expect(await editorMode(client)).toMatchObject({ kind: 'in-process', reason: expect.stringMatching(/exited at start/) });
      const cold = json(await airspace(['scan', '--json'], { cwd: bob.dir, timeoutMs: 120_000 })) as Scan;
      expect(pairs(scan)).toEqual(pairs(cold));
      expect(enginesOf(join(repo.dir, '.git'))).toEqual([]);
    } finally {
      await client.close();
      holder.kill();
    }
  });

  it('is the engine `watch` scans with too, and lets it go when watch stops', { timeout: 300_000 }, async () => {
    const commonDir = join(repo.dir, '.git');
    await airspace(['engine', 'stop', '--repo', repo.dir], { env: ENGINE_ENV, timeoutMs: 20_000 });
    // The lock of the previous test (a live process that does not answer) is left: take it away.
    const { rmSync } = await import('node:fs');
    rmSync(join(commonDir, 'airspace', 'engine.json'), { force: true });
    const watch = spawn(process.execPath, [BIN, 'watch', '--repo', alice.dir, '--jsonl', '--debounce', '100'], {
      env: ENGINE_ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    watch.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const events = () =>
        out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { type: string; a?: string; b?: string; level?: string });
      await waitFor('watch to be ready', () => (events().some((e) => e.type === 'ready') ? true : undefined), 120_000);
      const pid = await waitFor(
        'the engine watch started',
        async () => {
          const s = await status();
          return s.running && s.holders === 1 ? s.pid : undefined;
        },
        30_000,
      );
      started.add(pid);
      await expectOneEngine(commonDir, pid);
      // Its advisories are the cold scan's.
      const cold = json(await airspace(['scan', '--json'], { cwd: alice.dir, timeoutMs: 120_000 })) as Scan;
      const raised = new Set(
        events()
          .filter((e) => e.type === 'raised')
          .map((e) => `${[e.a, e.b].sort().join('+')}:${e.level}`),
      );
      expect(raised).toEqual(
        new Set(cold.links.filter((l) => l.level !== 'clear').map((l) => `${[l.a, l.b].sort().join('+')}:${l.level}`)),
      );
      // An agent's check is answered by the same engine.
      await sameCheck(carol.dir, [shared, '--lines', '3-3']);
      await expectOneEngine(commonDir, pid);
      // Watch follows nothing itself: the engine tells it (a subscriber) that a new worktree saved
      // an edit, and the advisory is raised.
      expect(events().find((e) => e.type === 'ready')).toMatchObject({ via: 'engine' });
      expect(await status()).toMatchObject({ subscribers: 1 });
      repo.worktree('frank').write(shared, edited(shared, 1, 40, 'frank'));
      await waitFor(
        'watch to raise an advisory with the new agent',
        () => (events().some((e) => e.type === 'raised' && (e.a === 'frank' || e.b === 'frank')) ? true : undefined),
        30_000,
      );
    } finally {
      watch.kill('SIGTERM');
      await new Promise((r) => watch.once('close', r));
    }
    expect(await waitFor('watch to let go', async () => ((await status()).holders === 0 ? true : undefined), 20_000)).toBe(true);
  });
});
