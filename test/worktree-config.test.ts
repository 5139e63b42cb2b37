/**
 * The configuration from any worktree: `scan`, `check` and `watch` run in a linked worktree that
 * has no `airspace.config.json` use the main worktree's; a config that cannot be read is reported;
 * and when the worktree has its own that differs from the main worktree's, the answer says which
 * one applies. The built CLI as a child process, on a generated repository.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import { airspace, BIN, ENV } from './run-cli.js';

// A threshold so low that the faint same-folder risk of alice ↔ bob is traffic, and a channel off.
const CONFIG = { thresholds: { traffic: 0.001, resolution: 0.9 }, channels: { 'call-graph': { enabled: false } } };

let repo: RepoFixture;
let bob: FixtureCheckout;
let scratch: string;
beforeAll(() => {
  repo = createRepoFixture(
    { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n' },
    { epoch: Math.floor(Date.now() / 1000) - 600 },
  );
  repo.worktree('alice').write('src/a.ts', 'export const a = 2;\n').commit('alice');
  bob = repo.worktree('bob').write('src/b.ts', 'export const b = 2;\n');
  // The config lives in the main worktree only (committed there after the agents branched off).
  repo.write('airspace.config.json', JSON.stringify(CONFIG)).commit('airspace config');
  scratch = mkdtempSync(join(tmpdir(), 'airspace-config-e2e-'));
});
afterAll(() => {
  repo.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

const pair = (r: ScanResult) => r.links.find((l) => [l.a, l.b].sort().join() === 'alice,bob');

describe("the main worktree's config, from a linked worktree", () => {
  it('scan uses it (threshold and disabled channel), where the defaults say clear', async () => {
    const run = await airspace(['scan', '--json'], { cwd: bob.dir });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as ScanResult;
    expect(result.agents.map((a) => a.id).sort()).toEqual(['alice', 'bob']);
    expect(result.thresholds).toEqual(CONFIG.thresholds);
    expect(Object.keys(result.weights)).not.toContain('call-graph');
    expect(pair(result)?.level).toBe('traffic');
    expect(result.problems).toEqual([]);
    // The same scan with the defaults: the config is what makes it traffic.
    writeFileSync(join(scratch, 'empty.json'), '{}');
    const plain = JSON.parse(
      (await airspace(['scan', '--json', '--config', join(scratch, 'empty.json')], { cwd: bob.dir })).stdout,
    ) as ScanResult;
    expect(pair(plain)?.level).toBe('clear');
    expect(Object.keys(plain.weights)).toContain('call-graph');
  });

  it('check uses it', async () => {
    const run = await airspace(['check', 'src/b.ts', '--json'], { cwd: bob.dir });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ agent: 'bob', level: 'traffic', conflicts: [{ with: 'alice', level: 'traffic' }] });
  });

  it('watch uses it', async () => {
    const child = spawn(process.execPath, [BIN, 'watch', '--jsonl'], { cwd: bob.dir, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    const events: { type: string; a?: string; b?: string; level?: string }[] = [];
    let buffer = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        events.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
    });
    const exited = new Promise<number | null>((ok) => child.on('close', ok));
    try {
      const end = Date.now() + 60_000;
      while (!events.some((e) => e.type === 'ready')) {
        if (Date.now() > end) throw new Error(`watch did not start: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(events.find((e) => e.type === 'raised')).toMatchObject({ a: 'alice', b: 'bob', level: 'traffic' });
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('a config edited while watch runs', () => {
  it('applies at once: watch starts a new scanner with it', async () => {
    const fresh = createRepoFixture(
      { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n' },
      { epoch: Math.floor(Date.now() / 1000) - 600 },
    );
    const child = spawn(process.execPath, [BIN, 'watch', '--jsonl', '--debounce', '100'], {
      cwd: fresh.worktree('bob').write('src/b.ts', 'export const b = 2;\n').dir,
      env: ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    fresh.worktree('alice').write('src/a.ts', 'export const a = 2;\n').commit('alice');
    fresh.write('airspace.config.json', JSON.stringify(CONFIG)).commit('airspace config');
    const events: { type: string; a?: string; b?: string; level?: string }[] = [];
    let buffer = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        events.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
    });
    const waitFor = async (what: string, ok: () => boolean): Promise<void> => {
      const end = Date.now() + 30_000;
      while (!ok()) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events)}; stderr: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const exited = new Promise<number | null>((ok) => child.on('close', ok));
    try {
      // The config (committed in the main worktree after watch started) applies on the next change.
      await waitFor('alice ↔ bob raised under the config', () =>
        events.some((e) => e.type === 'raised' && e.a === 'alice' && e.b === 'bob' && e.level === 'traffic'),
      );
      await waitFor('ready', () => events.some((e) => e.type === 'ready'));
      // The main worktree's config goes back to the default thresholds: the advisory clears.
      writeFileSync(join(fresh.dir, 'airspace.config.json'), JSON.stringify({ thresholds: { traffic: 0.526, resolution: 0.797 } }));
      await waitFor('the advisory cleared under the edited config', () =>
        events.some((e) => e.type === 'cleared' && e.a === 'alice' && e.b === 'bob'),
      );
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      fresh.dispose();
    }
  });
});

describe('configs that cannot be read, or that hide one another', () => {
  it('reports an unreadable main-worktree config from a linked worktree, and says which config applies when both differ', async () => {
    const other = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n' });
    try {
      const carol = other.worktree('carol').write('src/a.ts', 'export const a = 3;\n');
      other.write('airspace.config.json', '{ "thresholds": ').commit('a broken config');
      const broken = JSON.parse((await airspace(['scan', '--json'], { cwd: carol.dir })).stdout) as ScanResult;
      expect(broken.problems).toEqual([
        expect.objectContaining({ code: 'CONFIG_UNREADABLE', message: expect.stringContaining('airspace.config.json') }),
      ]);
      const text = await airspace(['check', 'src/a.ts'], { cwd: carol.dir });
      expect(text.stdout).toMatch(/^! Could not read .*airspace\.config\.json: .*; using defaults\.$/m);

      // carol's own config wins, and the answer says the main worktree's differs.
      carol.write('airspace.config.json', JSON.stringify({ thresholds: { traffic: 0.4 } }));
      const shadowed = JSON.parse((await airspace(['scan', '--json'], { cwd: carol.dir })).stdout) as ScanResult;
      expect(shadowed.thresholds.traffic).toBe(0.4);
      expect(shadowed.problems).toEqual([
        expect.objectContaining({
          code: 'CONFIG_SHADOWED',
          message: expect.stringMatching(
            /^Using this worktree's config .*carol\/airspace\.config\.json; the main worktree's .*airspace\.config\.json differs and does not apply here/,
          ),
        }),
      ]);
      // Same settings in both: nothing to say.
      other.write('airspace.config.json', JSON.stringify({ thresholds: { traffic: 0.4 } }, null, 2)).commit('the same config');
      expect((JSON.parse((await airspace(['scan', '--json'], { cwd: carol.dir })).stdout) as ScanResult).problems).toEqual([]);
    } finally {
      other.dispose();
    }
  });
});
