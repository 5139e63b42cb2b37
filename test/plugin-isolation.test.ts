/**
 * Hostile and unlucky plugins end to end, through the built CLI on a generated repository: a
 * plugin that never answers, sleeps 30 s, calls process.exit, leaves a rejection, writes to
 * stdout or renames the agents costs only its own score, with a problem naming it. Output stays
 * valid, exit codes keep their meaning (`--fail-on` still fails), `watch --jsonl` keeps running.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import { airspace, BIN, ENV } from './run-cli.js';

const A = Array.from({ length: 12 }, (_, i) => `export const a${i + 1} = ${i + 1};`).join('\n') + '\n';
const tag = (from: number, to: number, who: string): string =>
  A.split('\n')
    .map((l, i) => (i + 1 >= from && i + 1 <= to ? `${l} // ${who}` : l))
    .join('\n');

/** Scores 0.1 for every pair unless its hazard strikes first. */
const PLUGINS: Record<string, string> = {
  hangs: 'await new Promise(() => {})',
  sleeps: 'await new Promise((r) => setTimeout(r, 30000))',
  exits: 'process.exit(0)',
  rejects: "Promise.reject(new Error('nobody awaited me'))",
  chatty: "console.log('plugin says hello'); process.stdout.write('{ not json\\n')",
  hacks: "a.id = 'hacked'",
};

let repo: RepoFixture;
let carol: FixtureCheckout;
beforeAll(() => {
  // alice and bob change the same lines of src/a.ts: a resolution advisory from the built-ins.
  repo = createRepoFixture({ 'src/a.ts': A, 'docs/notes.md': '# notes\n' }, { epoch: Math.floor(Date.now() / 1000) - 600 });
  repo
    .worktree('alice')
    .write('src/a.ts', tag(3, 6, 'alice'))
    .commit('alice');
  repo.worktree('bob').write('src/a.ts', tag(4, 5, 'bob'));
  carol = repo.worktree('carol');
  carol.write('docs/notes.md', '# carol\n');
  mkdirSync(join(repo.dir, 'channels'), { recursive: true });
  for (const [id, body] of Object.entries(PLUGINS)) {
    writeFileSync(
      join(repo.dir, 'channels', `${id}.mjs`),
      `export default { id: '${id}', defaultWeight: 0.1, async score(a, b) { ${body}; return { risk: 0.1, evidence: [{ message: a.id + ' × ' + b.id }] }; } };\n`,
    );
  }
});
afterAll(() => repo.dispose());

function useConfig(plugins: string[], budget?: { channelMs?: number; callMs?: number }): void {
  writeFileSync(
    join(repo.dir, 'airspace.config.json'),
    JSON.stringify({ plugins: plugins.map((p) => `./channels/${p}.mjs`), ...(budget ? { budget } : {}) }),
  );
}

async function scanJson(args: string[] = []): Promise<{ result: ScanResult; stderr: string; code: number | null }> {
  const run = await airspace(['scan', '--repo', repo.dir, '--json', ...args], { timeoutMs: 60_000 });
  expect(run.stdout, run.stderr).not.toBe('');
  return { result: JSON.parse(run.stdout) as ScanResult, stderr: run.stderr, code: run.code };
}

const pair = (result: ScanResult, x: string, y: string) => result.links.find((l) => [l.a, l.b].sort().join() === [x, y].sort().join())!;
const problemsOf = (result: ScanResult, channel: string) => result.problems.filter((p) => p.channel === channel);

describe('a plugin cannot stop, stall or corrupt airspace scan', () => {
  it('never answers: the call is cut, scan --json completes with a problem naming it', async () => {
    useConfig(['hangs'], { callMs: 500 });
    const { result, code } = await scanJson();
    expect(code).toBe(0);
    expect(pair(result, 'alice', 'bob').level).toBe('resolution');
    expect(problemsOf(result, 'hangs')).toMatchObject([{ code: 'CHANNEL_TIMED_OUT' }]);
  });

  it('30 seconds per score: the default budget holds the whole scan to a few seconds', async () => {
    useConfig(['sleeps']);
    const started = Date.now();
    const { result, code } = await scanJson();
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(problemsOf(result, 'sleeps')[0]!.message).toMatch(/"sleeps" did not answer within 2000 ms/);
    expect(result.links.every((l) => l.channels.find((c) => c.channel === 'sleeps')!.risk === 0)).toBe(true);
  });

  it('process.exit(0): scan --fail-on resolution still fails the gate (exit 2) and prints the result', async () => {
    useConfig(['exits']);
    const run = await airspace(['scan', '--repo', repo.dir, '--fail-on', 'resolution'], { timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toMatch(/RESOLUTION/);
    expect(run.stdout).toMatch(/alice/);
    const { result } = await scanJson();
    expect(problemsOf(result, 'exits')[0]!.message).toMatch(/Plugin \.\/channels\/exits\.mjs called process\.exit\(0\)/);
  });

  it('an unhandled rejection is a problem, not a stack trace', async () => {
    useConfig(['rejects']);
    const { result, stderr, code } = await scanJson();
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(problemsOf(result, 'rejects')[0]).toMatchObject({ code: 'PLUGIN_UNHANDLED_REJECTION' });
    expect(pair(result, 'alice', 'bob').channels.find((c) => c.channel === 'rejects')!.risk).toBe(0.1);
  });

  it('console.log and stdout writes go to stderr: scan --json stays JSON', async () => {
    useConfig(['chatty']);
    const { result, stderr } = await scanJson();
    expect(stderr).toContain('plugin says hello');
    expect(stderr).toContain('{ not json');
    expect(pair(result, 'alice', 'bob').channels.find((c) => c.channel === 'chatty')!.risk).toBe(0.1);
  });

  it('renaming the agents it is given changes nothing outside the plugin', async () => {
    useConfig(['hacks']);
    const { result } = await scanJson();
    expect(result.agents.map((a) => a.id)).not.toContain('hacked');
    expect(result.agents.map((a) => a.id)).toEqual(expect.arrayContaining(['alice', 'bob', 'carol']));
    expect(problemsOf(result, 'hacks')[0]).toMatchObject({ code: 'CHANNEL_THREW' });
  });
});

describe('check and watch with a hostile plugin', () => {
  it('check answers (exit 2 on a collision) although a plugin never answers and another exits', async () => {
    useConfig(['hangs', 'exits'], { callMs: 500 });
    const run = await airspace(['check', 'src/a.ts', '--lines', '4-5', '--json', '--config', join(repo.dir, 'airspace.config.json')], {
      cwd: carol.dir,
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(2);
    const answer = JSON.parse(run.stdout) as { level: string; problems: { code: string; channel?: string }[] };
    expect(answer.level).toBe('resolution');
    expect(answer.problems.map((p) => `${p.code}:${p.channel}`)).toEqual(
      expect.arrayContaining(['CHANNEL_TIMED_OUT:hangs', 'PLUGIN_EXITED:exits']),
    );
  });

  it('watch --jsonl reports a plugin problem as an event and keeps running', async () => {
    useConfig(['rejects', 'exits']);
    const child = spawn(process.execPath, [BIN, 'watch', '--repo', repo.dir, '--jsonl', '--debounce', '100'], {
      env: ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const events: { type: string; a?: string; b?: string; problem?: { code: string; channel?: string } }[] = [];
    let buffer = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
    });
    const exited = new Promise<number | null>((ok) => child.on('close', (code) => ok(code)));
    const waitFor = (predicate: () => boolean, what: string): Promise<void> =>
      new Promise((ok, fail) => {
        const started = Date.now();
        const tick = setInterval(() => {
          if (predicate()) (clearInterval(tick), ok());
          else if (Date.now() - started > 60_000)
            (clearInterval(tick), fail(new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events)}; stderr: ${stderr}`)));
        }, 50);
      });
    try {
      await waitFor(() => events.some((e) => e.type === 'ready'), 'ready');
      const codes = events.filter((e) => e.type === 'problem').map((e) => `${e.problem!.code}:${e.problem!.channel}`);
      expect(codes).toEqual(expect.arrayContaining(['PLUGIN_UNHANDLED_REJECTION:rejects', 'PLUGIN_EXITED:exits']));
      // Still running: a new collision (carol joins alice and bob on src/a.ts) is raised.
      carol.write('src/a.ts', tag(5, 5, 'carol'));
      await waitFor(() => events.some((e) => e.type === 'raised' && [e.a, e.b].includes('carol')), 'carol raised');
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      carol.write('src/a.ts', A);
    }
  });
});
