/**
 * The built `airspace` command run as a user runs it: a child process on generated repositories.
 * Needs `turbo run build` (turbo's test task builds the CLI first).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';

import { airspace, BIN, ENV } from './run-cli.js';

const BASE = {
  'src/a.ts': Array.from({ length: 20 }, (_, i) => `export const a${i + 1} = ${i + 1};`).join('\n') + '\n',
  'src/b.ts': 'export const b = 1;\n',
  'docs/notes.md': '# notes\n',
};
const edit = (from: number, to: number, tag: string): string =>
  BASE['src/a.ts']
    .split('\n')
    .map((line, i) => (i + 1 >= from && i + 1 <= to ? `${line} // ${tag}` : line))
    .join('\n');

let repo: RepoFixture;
let scratch: string;
beforeAll(() => {
  // alice and bob change the same lines of src/a.ts; carol works elsewhere.
  repo = createRepoFixture(BASE, { epoch: Math.floor(Date.now() / 1000) - 600 });
  repo
    .worktree('alice')
    .write('src/a.ts', edit(5, 9, 'alice'))
    .commit('alice: a5-a9');
  repo.worktree('bob').write('src/a.ts', edit(7, 8, 'bob'));
  repo.worktree('carol').write('docs/notes.md', '# notes\n\nmore notes\n');
  scratch = mkdtempSync(join(tmpdir(), 'airspace-e2e-'));
});
afterAll(() => {
  repo.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

describe('airspace (built CLI)', () => {
  it('prints its version and help for every command', async () => {
    const version = await airspace(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    // `npx airspace` from the repository root: npm links the committed bin/airspace.js at install time.
    const linked = resolve(dirname(fileURLToPath(import.meta.url)), '../node_modules/.bin/airspace');
    const viaLink = await new Promise<string>((ok, fail) => {
      const child = spawn(linked, ['--version'], { env: ENV, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('error', fail);
      child.on('close', () => ok(out));
    });
    expect(viaLink.trim()).toBe(version.stdout.trim());
    for (const command of ['scan', 'watch', 'check', 'view', 'graph', 'lsp', 'demo', 'publish', 'order']) {
      const help = await airspace([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout).toContain(`Usage: airspace ${command}`);
    }
  });

  it('fails clearly with exit 1: bad flag, not a repository, unknown base, unreadable config', async () => {
    const bad = await airspace(['scan', '--frobnicate'], { cwd: repo.dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("unknown option '--frobnicate'");

    const notRepo = await airspace(['scan', '--repo', scratch]);
    expect(notRepo.code).toBe(1);
    expect(notRepo.stderr).toMatch(/is not inside a git repository/);
    expect(notRepo.stderr).not.toMatch(/\n\s+at /); // no stack trace

    const base = await airspace(['scan', '--repo', repo.dir, '--base', 'no-such-ref']);
    expect(base.code).toBe(1);
    expect(base.stderr).toContain('Unknown base "no-such-ref"');

    writeFileSync(join(scratch, 'broken.json'), '{ "channels": ');
    for (const args of [
      ['--config', join(scratch, 'missing.json')],
      ['--config', join(scratch, 'broken.json')],
      ['--calibration', join(scratch, 'broken.json')],
    ]) {
      const config = await airspace(['scan', '--repo', repo.dir, ...args]);
      expect(config.code, args.join(' ')).toBe(1);
      expect(config.stderr).toMatch(/Could not read|does not exist/);
    }

    const lines = await airspace(['check', 'src/a.ts', '--lines', 'ten'], { cwd: join(`${repo.dir}-wt`, 'carol') });
    expect(lines.code).toBe(1);
    expect(lines.stderr).toContain('--lines must look like');
  });

  it('scan prints the table without colour when piped, and the JSON contract with --json', async () => {
    const human = await airspace(['scan', '--repo', repo.dir]);
    expect(human.code).toBe(0);
    expect(human.stdout).not.toContain('\u001b[');
    expect(human.stdout).toMatch(/^RESOLUTION\s+\d\.\d\d\s+(\d+|<1|>99)%\s+alice ↔ bob\s+.*overlap \d/m);
    expect(human.stdout).toMatch(/alice src\/a\.ts:\d+(-\d+)?.* ↔ bob src\/a\.ts:\d+(-\d+)?/);
    expect(human.stdout).toContain('3 agents, 3 pairs: 1 resolution');
    expect(human.stderr).toBe(''); // no progress bar when stderr is not a terminal

    const json = await airspace(['scan', '--repo', repo.dir, '--json']);
    expect(json.code).toBe(0);
    const result = JSON.parse(json.stdout) as {
      version: number;
      counts: { resolution: number; agents: number };
      advisories: { a: string; b: string; level: string; steer?: string; hold?: string }[];
    };
    expect(result.version).toBe(1);
    expect(result.counts).toMatchObject({ agents: 3, resolution: 1 });
    expect(result.advisories[0]).toMatchObject({ a: 'alice', b: 'bob', level: 'resolution' });
    // alice has committed work, bob has not: bob steers.
    expect(result.advisories[0]).toMatchObject({ steer: 'bob', hold: 'alice' });

    const page = join(scratch, 'view.html');
    const view = await airspace(['view', '--repo', repo.dir, '--out', page]);
    expect(view.code).toBe(0);
    expect(view.stdout).toContain(`Wrote ${page}`);
    const html = readFileSync(page, 'utf8');
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('"alice"');
  });

  it('scan --fail-on sets exit 2 when an advisory reaches the level', async () => {
    expect((await airspace(['scan', '--repo', repo.dir, '--fail-on', 'resolution'])).code).toBe(2);
    expect((await airspace(['scan', '--repo', repo.dir, '--fail-on', 'traffic', '--json'])).code).toBe(2);
    const clear = createRepoFixture(BASE);
    try {
      clear.worktree('dan').write('src/b.ts', 'export const b = 22;\n');
      clear.worktree('eve').write('docs/notes.md', '# other notes\n');
      expect((await airspace(['scan', '--repo', clear.dir, '--fail-on', 'traffic'])).code).toBe(0);
    } finally {
      clear.dispose();
    }
    const wrong = await airspace(['scan', '--repo', repo.dir, '--fail-on', 'sometimes']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('Allowed choices are traffic, resolution');
  });

  it('scan --source json:FILE counts agents that declared intent before their first edit', async () => {
    const fresh = createRepoFixture(BASE);
    try {
      const dirs = ['fay', 'gus'].map((id) => fresh.worktree(id).dir);
      const file = join(scratch, 'observations.json');
      writeFileSync(
        file,
        JSON.stringify({ version: 1, agents: dirs.map((dir, i) => ({ id: ['fay', 'gus'][i], worktree: dir, intent: ['src/b.ts'] })) }),
      );
      const run = await airspace(['scan', '--repo', fresh.dir, '--source', `json:${file}`, '--json']);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as {
        counts: { agents: number; pairs: number; traffic: number };
        links: { level: string; evidence: { message: string }[] }[];
      };
      expect(result.counts).toMatchObject({ agents: 2, traffic: 1 });
      expect(result.links[0]!.evidence[0]!.message).toBe(
        'fay and gus both declared they are about to touch src/b.ts; file-level evidence only.',
      );
    } finally {
      fresh.dispose();
    }
  });

  it("check answers for the lines about to change, with the other side's diff", async () => {
    const carol = join(`${repo.dir}-wt`, 'carol');
    const hit = await airspace(['check', 'src/a.ts', '--lines', '6-7', '--json'], { cwd: carol });
    expect(hit.code).toBe(2);
    const answer = JSON.parse(hit.stdout) as {
      agent: string;
      path: string;
      level: string;
      conflicts: { with: string; level: string; hunks: { agent: string; text: string }[] }[];
    };
    expect(answer).toMatchObject({ agent: 'carol', path: 'src/a.ts', level: 'resolution' });
    expect(answer.conflicts.map((c) => c.with).sort()).toEqual(['alice', 'bob']);
    const fromBob = answer.conflicts.find((c) => c.with === 'bob')!;
    expect(fromBob.hunks[0]!.text).toContain('+export const a7 = 7; // bob');

    const far = await airspace(['check', 'src/a.ts', '--lines', '18-19'], { cwd: carol });
    expect(far.code).toBe(0);
    expect(far.stdout).toMatch(/^CLEAR/);

    const other = await airspace(['check', 'src/b.ts'], { cwd: carol });
    expect(other.code).toBe(0);
  });

  it('watch --jsonl reports an advisory raised when a worktree changes, and exits on SIGINT', async () => {
    const fixture = createRepoFixture(BASE, { epoch: Math.floor(Date.now() / 1000) - 600 });
    const dave = fixture.worktree('dave');
    dave.write('src/a.ts', edit(2, 3, 'dave')).commit('dave');
    const erin = fixture.worktree('erin');
    erin.write('docs/notes.md', '# erin\n');
    const delivered = join(scratch, 'triggers.jsonl');
    const child = spawn(
      process.execPath,
      [BIN, 'watch', '--repo', fixture.dir, '--jsonl', '--debounce', '100', '--exec', `cat >> '${delivered}'`],
      { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const events: { type: string; a?: string; b?: string; level?: string; trigger?: { to: string; type: string } }[] = [];
    let buffer = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const waitFor = (predicate: () => boolean, what: string, ms = 60_000): Promise<void> =>
      new Promise((ok, fail) => {
        const started = Date.now();
        const tick = setInterval(() => {
          if (predicate()) {
            clearInterval(tick);
            ok();
          } else if (Date.now() - started > ms) {
            clearInterval(tick);
            fail(new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events)}; stderr: ${stderr}`));
          }
        }, 50);
      });
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
    });
    const exited = new Promise<number | null>((ok) => child.on('close', (code) => ok(code)));
    try {
      await waitFor(() => events.some((e) => e.type === 'ready'), 'ready');
      expect(events.filter((e) => e.type === 'raised')).toEqual([]);
      erin.write('src/a.ts', edit(2, 4, 'erin'));
      await waitFor(() => events.some((e) => e.type === 'raised'), 'raised');
      expect(events.find((e) => e.type === 'raised')).toMatchObject({ a: 'dave', b: 'erin', level: 'resolution' });
      await waitFor(() => events.filter((e) => e.type === 'trigger').length >= 2, 'two triggers');
      expect(
        events
          .filter((e) => e.type === 'trigger')
          .map((e) => `${e.trigger!.type}:${e.trigger!.to}`)
          .sort(),
      ).toEqual(['hold:dave', 'steer:erin']);
      // --exec got each trigger as JSON on its standard input.
      await waitFor(() => existsSync(delivered) && readFileSync(delivered, 'utf8').trim().split('\n').length === 2, '--exec deliveries');
      const sent = readFileSync(delivered, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; to: string; content: string });
      expect(sent.map((t) => `${t.type}:${t.to}`).sort()).toEqual(['hold:dave', 'steer:erin']);
      expect(sent.find((t) => t.type === 'steer')!.content).toContain('Resolution');
      erin.write('src/a.ts', BASE['src/a.ts']);
      await waitFor(() => events.some((e) => e.type === 'cleared'), 'cleared');
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      fixture.dispose();
    }
  });

  it('lsp answers the language server handshake on stdio', async () => {
    const child = spawn(process.execPath, [BIN, 'lsp', '--stdio'], { env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { processId: null, rootUri: null, capabilities: {} },
    });
    child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    try {
      const started = Date.now();
      while (!out.includes('"capabilities"') && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 50));
      expect(out).toMatch(/^Content-Length: \d+\r\n\r\n/);
      expect(out).toContain('"id":1');
      expect(out).toContain('"capabilities"');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('demo prints resolution advisories with evidence, keeps the import chain as evidence, and cleans up unless --keep', async () => {
    const demo = await airspace(['demo', '--dir', scratch]);
    expect(demo.code).toBe(0);
    expect(demo.stdout).toMatch(/^RESOLUTION\s+\d\.\d\d\s+(\d+|<1|>99)%\s+alice ↔ bob/m);
    expect(demo.stdout).toMatch(/^RESOLUTION\s+\d\.\d\d\s+(\d+|<1|>99)%\s+erin ↔ frank\s+typecheck 1\.00 · symbols/m);
    expect(demo.stdout).toContain('src/auth/login.ts:5 TS2554 Expected 2 arguments, but got 1 — erin changed createSession');
    expect(demo.stdout).toMatch(/src\/billing\/invoice\.ts:\d+/);
    // The import chain through an untouched file weighs almost nothing with the fitted defaults: no advisory.
    expect(demo.stdout).not.toMatch(/carol ↔ dave/);
    expect(demo.stdout).not.toMatch(/↔ grace|grace ↔/);
    expect(readdirSync(scratch).filter((n) => n.startsWith('airspace-repo-'))).toEqual([]);

    const kept = await airspace(['demo', '--keep', '--json', '--dir', scratch]);
    expect(kept.code).toBe(0);
    const result = JSON.parse(kept.stdout) as {
      counts: { traffic: number; resolution: number; agents: number };
      links: { a: string; b: string; level: string; channels: { channel: string; evidence: { chain?: string[] }[] }[] }[];
    };
    expect(result.counts.agents).toBe(7);
    expect(result.counts.resolution).toBe(2);
    // …but the chain is still there as evidence, for the view and for a team that weighs it.
    const carolDave = result.links.find((l) => l.a === 'carol' && l.b === 'dave')!;
    expect(carolDave.level).toBe('clear');
    expect(carolDave.channels.find((c) => c.channel === 'dependency')!.evidence[0]!.chain).toEqual([
      'src/api/server.ts',
      'src/api/routes.ts',
      'src/util/format.ts',
    ]);
    const path = /Kept the demo repository at (\S+) /.exec(kept.stderr)?.[1];
    expect(path && existsSync(path)).toBe(true);

    // The kept repository is there to explore: its import graph, as the dependency channel sees it.
    const graph = await airspace(['graph', '--repo', path!, '--json']);
    expect(graph.code).toBe(0);
    const edges = (JSON.parse(graph.stdout) as { edges: [string, string][] }).edges;
    expect(edges).toContainEqual(['src/api/routes.ts', 'src/util/format.ts']);
    expect(edges).toContainEqual(['src/auth/login.ts', 'src/auth/session.ts']);
    const human = await airspace(['graph', '--repo', path!]);
    expect(human.stdout).toContain('src/api/server.ts\n  → src/api/routes.ts');
    rmSync(path!, { recursive: true, force: true });
    rmSync(`${path!}-wt`, { recursive: true, force: true });
  });
});
