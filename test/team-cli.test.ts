/**
 * Team mode through the built CLI, on this machine only: a bare repository as the team's remote
 * and clones of it (file paths). Publishing, scanning published agents and ordering merges must
 * leave every clone's worktree, index, refs and objects as they were.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture } from '@airspace/git/fixture';
import { repoFingerprint } from './fingerprint.js';
import { airspace, BIN, ENV } from './run-cli.js';

const lines = Array.from({ length: 30 }, (_, i) => `export const v${i + 1} = ${i + 1};`);
const edit = (from: number, to: number, tag: string): string =>
  lines.map((l, i) => (i + 1 >= from && i + 1 <= to ? `${l} // ${tag}` : l)).join('\n') + '\n';
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

let dir: string;
let remote: string;
let alice: string;
let bob: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'airspace-team-cli-'));
  const seed = createRepoFixture({ 'src/a.ts': lines.join('\n') + '\n', 'src/b.ts': 'export const b = 1;\n' });
  remote = join(dir, 'remote.git');
  git(dir, 'clone', '-q', '--bare', seed.dir, remote);
  seed.dispose();
  alice = join(dir, 'alice');
  bob = join(dir, 'bob');
  for (const [at, name] of [
    [alice, 'alice'],
    [bob, 'bob'],
  ] as const) {
    git(dir, 'clone', '-q', '--no-local', remote, at);
    git(at, 'checkout', '-q', '-b', name);
  }
  // alice: a committed change and uncommitted work on the same lines bob changes.
  writeFileSync(join(alice, 'src/a.ts'), edit(3, 6, 'alice'));
  git(alice, 'commit', '-qam', 'alice');
  writeFileSync(join(alice, 'src/a.ts'), edit(3, 8, 'alice'));
  writeFileSync(join(bob, 'src/a.ts'), edit(8, 8, 'bob'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('airspace publish / --source published:REMOTE / order (built CLI)', () => {
  it('publishes, and a teammate sees the uncommitted work as a collision; nothing of either clone changes', async () => {
    const aliceBefore = repoFingerprint(alice);
    const published = await airspace(['publish', '--json', '--intent', 'src/b.ts'], { cwd: alice });
    expect(published.stderr).toBe('');
    expect(published.code).toBe(0);
    const line = JSON.parse(published.stdout) as { id: string; ref: string; observation: { committedWork: number; dirty: boolean } };
    expect(line).toMatchObject({ id: 'alice', ref: 'refs/airspace/agents/alice', observation: { committedWork: 9, dirty: true } });
    expect(repoFingerprint(alice)).toEqual(aliceBefore);

    const bobBefore = repoFingerprint(bob);
    const scan = await airspace(['scan', '--json', '--source', 'worktrees', '--source', 'published:origin'], { cwd: bob });
    expect(scan.code).toBe(0);
    const result = JSON.parse(scan.stdout) as {
      agents: { id: string; committedWork: number; meta: { source: string } }[];
      links: { a: string; b: string; level: string }[];
      problems: unknown[];
    };
    expect(result.agents.map((a) => [a.id, a.meta.source, a.committedWork])).toEqual([
      ['alice', 'published', 9],
      ['bob', 'worktree', 0],
    ]);
    expect(result.links.find((l) => l.a === 'alice' && l.b === 'bob')?.level).toBe('resolution');
    expect(result.problems).toEqual([]);
    expect(repoFingerprint(bob)).toEqual(bobBefore);

    // The merge order over both sources: bob has no commits, alice has right of way; one conflict either way.
    const order = await airspace(['order', '--json', '--source', 'worktrees', '--source', 'published:origin'], { cwd: bob });
    expect(order.code).toBe(0);
    const plan = JSON.parse(order.stdout) as {
      order: string[];
      steps: { agent: string; conflicts: { with: string; paths: string[] }[]; advice: string }[];
    };
    expect(plan.order).toEqual(['alice', 'bob']);
    expect(plan.steps[1]).toMatchObject({ agent: 'bob', conflicts: [{ with: 'alice', paths: ['src/a.ts'] }] });
    expect(repoFingerprint(bob)).toEqual(bobBefore);
  });

  it('fails with one sentence and exit 1 when the lease fails or the remote refuses', async () => {
    // Someone replaces alice's ref from another clone.
    git(bob, 'push', '-q', '--force', 'origin', 'HEAD:refs/airspace/agents/alice');
    const lease = await airspace(['publish'], { cwd: alice });
    expect(lease.code).toBe(1);
    expect(lease.stderr).toMatch(
      /^airspace: refs\/airspace\/agents\/alice on origin is not what this clone last published .*nothing was pushed/,
    );
    expect(lease.stderr.trim().split('\n')).toHaveLength(1);

    const hook = join(remote, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "read-only remote" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const refused = await airspace(['publish', '--agent', 'alice-2'], { cwd: alice });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^airspace: origin refused refs\/airspace\/agents\/alice-2 \(pre-receive hook declined: read-only remote\)/,
    );
    rmSync(hook);

    const noRemote = await airspace(['publish', '--remote', 'nowhere'], { cwd: alice });
    expect(noRemote.code).toBe(1);
    expect(noRemote.stderr).toMatch(/No remote named "nowhere"/);
  });

  it("records the config's base when --base is not given", async () => {
    const dave = join(dir, 'dave');
    git(dir, 'clone', '-q', '--no-local', remote, dave);
    git(dave, 'checkout', '-q', '-b', 'dave');
    writeFileSync(join(dave, 'airspace.config.json'), JSON.stringify({ base: 'main' }));
    const out = await airspace(['publish', '--json'], { cwd: dave });
    expect(out.code, out.stderr).toBe(0);
    expect((JSON.parse(out.stdout) as { observation: { base: { ref: string } } }).observation.base.ref).toBe('main');
    const given = await airspace(['publish', '--json', '--base', 'origin/main'], { cwd: dave });
    expect((JSON.parse(given.stdout) as { observation: { base: { ref: string } } }).observation.base.ref).toBe('origin/main');
  });

  it('--watch republishes on change, rate-limited, and stops on SIGTERM', async () => {
    const carol = join(dir, 'carol');
    git(dir, 'clone', '-q', '--no-local', remote, carol);
    git(carol, 'checkout', '-q', '-b', 'carol');
    writeFileSync(join(carol, 'src/b.ts'), 'export const b = "carol 1";\n');
    const child = spawn(process.execPath, [BIN, 'publish', '--watch', '--json', '--interval', '300'], {
      cwd: carol,
      env: ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const published: { commit: string; previous: string | null; unchanged: boolean }[] = [];
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let buffered = '';
    const waitFor = (n: number) =>
      new Promise<void>((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`waited for ${n} publishes; got ${published.length}; stderr: ${stderr}`)), 30_000);
        const check = () => {
          if (published.length >= n) {
            clearTimeout(timer);
            child.stdout.off('data', onData);
            ok();
          }
        };
        const onData = (d: Buffer) => {
          buffered += d.toString();
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          for (const line of lines) if (line) published.push(JSON.parse(line) as (typeof published)[number]);
          check();
        };
        child.stdout.on('data', onData);
        check();
      });
    try {
      await waitFor(1);
      writeFileSync(join(carol, 'src/b.ts'), 'export const b = "carol 2";\n');
      await waitFor(2);
      const changed = published.find((p, i) => i > 0 && !p.unchanged)!;
      expect(changed.previous).toBe(published[0]!.commit);
      expect(git(remote, 'rev-parse', 'refs/airspace/agents/carol')).toBe(changed.commit);
    } finally {
      const closed = new Promise<number | null>((ok) => child.on('close', ok));
      child.kill('SIGTERM');
      expect(await closed).toBe(0);
    }
  });
});
