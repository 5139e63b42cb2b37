/**
 * One probability per pair on every surface: `scan --json`, `check --json` (a probe, which leaves
 * the merge channel out), MCP `list_advisories` and `check_edit`, and the language server's
 * diagnostic text give the same number for the same pair. The repository has past merges (one of
 * two conflicted), so a pair git merges cleanly reads the probability map's clean part; the pair
 * is a symbols-only resolution (erin changes createSession's signature, frank's new line calls
 * it, in another file), the case where a probe used to read the risk's map instead (84% against
 * the scan's 11%).
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { chanceText } from '@airspace/core';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import { TestClient, uriOf } from '../packages/lsp-server/test/support/client.js';
import { airspace, BIN, ENV } from './run-cli.js';

const LSP_BIN = fileURLToPath(new URL('../packages/lsp-server/dist/bin.js', import.meta.url));
const lines = (...l: string[]): string => l.join('\n') + '\n';

const SESSION = lines(
  'export interface Session {',
  '  readonly user: string;',
  '}',
  '',
  'export function createSession(user: string): Session {',
  '  return { user };',
  '}',
);
const LOGIN = lines(
  "import { createSession } from './session.js';",
  '',
  'export function login(user: string, password: string) {',
  '  if (!password) throw new Error("password required");',
  '  return { user };',
  '}',
);

let repo: RepoFixture;
let frank: FixtureCheckout;
const PAIR = 'erin,frank';
const key = (p: { a: string; b: string }): string => [p.a, p.b].sort().join();

beforeAll(() => {
  repo = createRepoFixture(
    { 'CHANGELOG.md': 'v1\n', 'src/auth/session.ts': SESSION, 'src/auth/login.ts': LOGIN },
    { epoch: Math.floor(Date.now() / 1000) - 3600 },
  );
  const r = repo;
  // Two past merges on main: the older conflicted in CHANGELOG.md, the newer merged cleanly (c = 0.5).
  r.git('switch', '-q', '-c', 'one');
  r.write('CHANGELOG.md', 'v1 feature one\n').commit('one');
  r.git('switch', '-q', 'main');
  r.write('CHANGELOG.md', 'v1 fix\n').commit('fix');
  try {
    r.git('merge', '--no-ff', '--no-commit', 'one');
  } catch {
    // the conflict, resolved below
  }
  r.write('CHANGELOG.md', 'v1 fix\nfeature one\n').commit('merge one');
  r.git('switch', '-q', '-c', 'two');
  r.write('docs.md', 'two\n').commit('two');
  r.git('switch', '-q', 'main');
  r.git('merge', '--no-ff', '-q', '-m', 'merge two', 'two');
  r.git('branch', '-q', '-D', 'one', 'two');
  // No tsconfig: the compiler has nothing to say, the symbols channel alone reads the pair.
  r.worktree('erin')
    .write('src/auth/session.ts', SESSION.replace('createSession(user: string)', 'createSession(user: string, ttlMs: number)'))
    .commit('auth: sessions expire');
  frank = r.worktree('frank').write('src/auth/login.ts', LOGIN.replace('  return { user };', '  return createSession(user);'));
});

afterAll(() => repo?.dispose());

describe('the probability of a pair', () => {
  it('is the same in scan, check, MCP and the language server', { timeout: 300_000 }, async () => {
    const scan = await airspace(['scan', '--json', '--repo', repo.dir], { timeoutMs: 120_000 });
    expect(scan.code, scan.stderr).toBe(0);
    const link = (
      JSON.parse(scan.stdout) as {
        links: { a: string; b: string; level: string; risk: number; probability?: number; channels: { channel: string; risk: number }[] }[];
      }
    ).links.find((l) => key(l) === PAIR)!;
    expect(link.level).toBe('resolution');
    // Symbols only: git merges the pair cleanly, the compiler has no tsconfig to check.
    expect(link.channels.find((c) => c.channel === 'merge')?.risk ?? 0).toBe(0);
    expect(link.channels.find((c) => c.channel === 'overlap')?.risk ?? 0).toBe(0);
    const p = link.probability!;
    expect(p).toBeGreaterThan(0);

    // check: frank is about to edit the line that calls createSession.
    const check = await airspace(['check', '--json', 'src/auth/login.ts', '--lines', '5'], { cwd: frank.dir, timeoutMs: 120_000 });
    const checked = JSON.parse(check.stdout) as { conflicts: { with: string; level: string; risk: number; probability?: number }[] };
    const withErin = checked.conflicts.find((c) => c.with === 'erin')!;
    expect(withErin.level).toBe('resolution');
    expect(withErin.risk).toBeCloseTo(link.risk, 10);
    expect(withErin.probability).toBeCloseTo(p, 10);

    // MCP, in the same worktree: list_advisories (the scan's summary) and check_edit (a probe).
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      cwd: frank.dir,
      env: ENV as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'airspace-probability', version: '1.0.0' });
    await client.connect(transport);
    try {
      type Answer = { structuredContent?: Record<string, unknown> };
      const listed = (await client.callTool({ name: 'list_advisories', arguments: {} }, undefined, { timeout: 120_000 })) as Answer;
      const advisories = (listed.structuredContent as { advisories: { with: string; probability?: number }[] }).advisories;
      expect(advisories.find((x) => x.with === 'erin')?.probability).toBeCloseTo(p, 10);
      const edit = (await client.callTool({ name: 'check_edit', arguments: { path: 'src/auth/login.ts', start_line: 5 } }, undefined, {
        timeout: 120_000,
      })) as Answer;
      const conflicts = (edit.structuredContent as { conflicts: { with: string; probability?: number }[] }).conflicts;
      expect(conflicts.find((c) => c.with === 'erin')?.probability).toBeCloseTo(p, 10);
    } finally {
      await client.close();
    }

    // The language server: frank's diagnostic names the same chance of colliding.
    const lsp = new TestClient(process.execPath, [LSP_BIN, '--stdio'], { AIRSPACE_ENGINE: 'off' });
    try {
      await lsp.initialize([frank.dir]);
      await lsp.connection.sendRequest('airspace/scan', {});
      const file = uriOf(join(realpathSync(frank.dir), 'src/auth/login.ts'));
      const text = (m: string | { value: string }): string => (typeof m === 'string' ? m : m.value);
      const seen = await lsp.until(
        "frank's diagnostic about erin in src/auth/login.ts",
        () => lsp.diagnostics.get(file)?.find((d) => /erin/.test(text(d.message))),
        60_000,
      );
      expect(text(seen.message)).toContain(chanceText(p));
    } finally {
      await lsp.close();
    }
  });
});
