/**
 * MCP sessions as a model lives them, replayed with the SDK's own client over stdio (the built
 * CLI's `airspace mcp`, in-process answers): acknowledge then list again, declare then withdraw
 * intent, a declared file probed by another agent, a path and a symbol of one file, a path
 * outside the repository, and the compact summary resource. Asserts the text the model reads
 * and the structured content beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import { BIN, ENV } from './run-cli.js';

const OFF_ENV = { ...ENV, AIRSPACE_ENGINE: 'off' } as Record<string, string>;

const defs = (name: string, n: number): string =>
  Array.from({ length: n }, (_, i) => `export function ${name}${i + 1}(x: number): number {\n  return x + ${i + 1};\n}\n`).join('\n');
const BASE = {
  'src/a.ts': Array.from({ length: 20 }, (_, i) => `export const a${i + 1} = ${i + 1};`).join('\n') + '\n',
  'src/b.ts': 'export const b = 1;\nexport const bb = 2;\n',
  'src/c.ts': defs('c', 6),
  'lib/d.ts': defs('d', 12),
};
const edit = (from: number, to: number, tag: string): string =>
  BASE['src/a.ts']
    .split('\n')
    .map((line, i) => (i + 1 >= from && i + 1 <= to ? `${line} // ${tag}` : line))
    .join('\n');

let repo: RepoFixture;
const dirs: Record<string, FixtureCheckout> = {};
const clients: Client[] = [];

async function connect(cwd: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd, env: OFF_ENV, stderr: 'pipe' });
  const client = new Client({ name: 'airspace-session', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

type ToolAnswer = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> =>
  (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as ToolAnswer;
const text = (a: ToolAnswer): string => a.content[0]!.text;

beforeAll(() => {
  repo = createRepoFixture(BASE, { epoch: Math.floor(Date.now() / 1000) - 600 });
  dirs.alice = repo
    .worktree('alice')
    .write('src/a.ts', edit(5, 9, 'alice'))
    .commit('alice: a5-a9');
  dirs.bob = repo.worktree('bob').write('src/a.ts', edit(7, 8, 'bob'));
  dirs.carol = repo.worktree('carol').write('src/b.ts', 'export const b = 10;\nexport const bb = 2;\n');
  dirs.dave = repo.worktree('dave');
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  repo.dispose();
});

describe('MCP sessions as a model meets them', () => {
  it('says an advisory was acknowledged and stops asking for an acknowledgement', { timeout: 240_000 }, async () => {
    const bob = await connect(dirs.bob!.dir);
    const before = await call(bob, 'list_advisories', {});
    expect(text(before)).toMatch(/then call acknowledge with "alice"/);
    const ack = await call(bob, 'acknowledge', { with: 'alice', note: 'moved to a12' });
    expect(ack.isError).toBeFalsy();
    const after = await call(bob, 'list_advisories', {});
    expect(text(after)).toMatch(/RESOLUTION \(acknowledged by you\) with alice/);
    expect(text(after)).not.toMatch(/call acknowledge/);
    expect(text(after)).toMatch(/Next: steer away, as acknowledged: alice has right of way/);
    const advisories = after.structuredContent!.advisories as { with: string; acknowledged?: boolean }[];
    expect(advisories.find((a) => a.with === 'alice')?.acknowledged).toBe(true);
    // check_edit of the shared lines says so too, and asks for nothing again.
    const check = await call(bob, 'check_edit', { path: 'src/a.ts', start_line: 7, end_line: 8 });
    expect(text(check)).toMatch(/RESOLUTION \(acknowledged by you\) with alice/);
    expect(text(check)).not.toMatch(/call acknowledge/);
  });

  it(
    'quotes a declared file and its note to the agent probing it, then lets the declaration be withdrawn',
    { timeout: 240_000 },
    async () => {
      const carol = await connect(dirs.carol!.dir);
      const dave = await connect(dirs.dave!.dir);
      const declared = await call(carol, 'declare_intent', { paths: ['src/c.ts'], note: 'splitting c into two modules' });
      expect(declared.isError).toBeFalsy();
      const probe = await call(dave, 'check_edit', { path: 'src/c.ts' });
      expect(text(probe)).toMatch(/^TRAFFIC: editing src\/c\.ts as dave would come close to carol\./);
      expect(text(probe)).toMatch(/- carol declared src\/c\.ts \("splitting c into two modules"\), until /);
      // carol's real change is in src/b.ts: not what dave meets in src/c.ts.
      expect(text(probe)).not.toMatch(/carol's change to src\/b\.ts/);
      const conflict = (probe.structuredContent!.conflicts as { with: string; declared?: { note?: string } }[])[0]!;
      expect(conflict.declared?.note).toBe('splitting c into two modules');

      const withdrawn = await call(carol, 'declare_intent', { paths: [] });
      expect(withdrawn.isError).toBeFalsy();
      expect(text(withdrawn)).toMatch(/^Withdrew the declared intent of carol: it no longer counts for anyone\./);
      expect(withdrawn.structuredContent!.withdrawn).toBe(true);
      const clear = await call(dave, 'check_edit', { path: 'src/c.ts' });
      expect(text(clear)).toMatch(/^CLEAR: /);
    },
  );

  it('counts a symbol declared beside its file as that definition, not the whole file', { timeout: 240_000 }, async () => {
    const carol = await connect(dirs.carol!.dir);
    const dave = await connect(dirs.dave!.dir);
    // d12 is at lines 56-58 of lib/d.ts; d1 at 1-3.
    await call(carol, 'declare_intent', { paths: [], symbols: ['lib/d.ts#d1'] });
    const symbolOnly = await call(dave, 'check_edit', { path: 'lib/d.ts', start_line: 56, end_line: 58 });
    await call(carol, 'declare_intent', { paths: ['lib/d.ts'], symbols: ['lib/d.ts#d1'] });
    const both = await call(dave, 'check_edit', { path: 'lib/d.ts', start_line: 56, end_line: 58 });
    await call(carol, 'declare_intent', { paths: [] });
    const level = (a: ToolAnswer): unknown => a.structuredContent!.level;
    expect(level(both)).toBe(level(symbolOnly));
    const evidence = JSON.stringify(both.structuredContent!.conflicts);
    expect(evidence).not.toMatch(/whole file|the whole of/);
  });

  it('tells a model that a path outside the repository needs no check', { timeout: 120_000 }, async () => {
    const dave = await connect(dirs.dave!.dir);
    const outside = await call(dave, 'check_edit', { path: '/tmp/elsewhere/notes.md' });
    expect(outside.isError).toBeFalsy();
    expect(text(outside)).toMatch(/outside the repository's work trees .* it needs no check\. Next: go on with the edit\.$/);
    expect(text(outside)).not.toMatch(/Fix the arguments/);
    const git = await call(dave, 'check_edit', { path: '.git/config' });
    expect(text(git)).toMatch(/needs no check/);
  });

  it('offers a compact summary beside the full scan', { timeout: 240_000 }, async () => {
    const alice = await connect(dirs.alice!.dir);
    const summary = await alice.readResource({ uri: 'airspace://summary' }, { timeout: 120_000 });
    const full = await alice.readResource({ uri: 'airspace://scan' }, { timeout: 120_000 });
    const brief = (summary.contents[0] as { text: string }).text;
    const whole = (full.contents[0] as { text: string }).text;
    const parsed = JSON.parse(brief) as { agents: { id: string }[]; pairs: { a: string; b: string; level: string; hold?: string }[] };
    expect(parsed.agents.map((a) => a.id)).toEqual(expect.arrayContaining(['alice', 'bob', 'carol']));
    const pair = parsed.pairs.find((p) => [p.a, p.b].sort().join() === 'alice,bob');
    expect(pair).toMatchObject({ level: 'resolution', hold: 'alice' });
    expect(brief.length * 5).toBeLessThan(whole.length);
  });
});
