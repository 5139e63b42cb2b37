/**
 * `airspace mcp` end to end: the SDK's own client over stdio (StdioClientTransport spawning the
 * built CLI) in the worktrees of a generated repository with several agents, answered by the
 * resident engine and, with AIRSPACE_ENGINE=off, in-process — the same answers. Every engine
 * started here is stopped, and killed by pid if it does not stop.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import { airspace, BIN, ENV } from './run-cli.js';
import { repoFingerprint } from './fingerprint.js';

const ENGINE_ENV = { ...ENV, AIRSPACE_ENGINE: 'on', AIRSPACE_ENGINE_IDLE_MS: '120000' } as Record<string, string>;
const OFF_ENV = { ...ENV, AIRSPACE_ENGINE: 'off' } as Record<string, string>;

const BASE = {
  'src/a.ts': Array.from({ length: 20 }, (_, i) => `export const a${i + 1} = ${i + 1};`).join('\n') + '\n',
  'src/b.ts': "import { a1 } from './a.js';\nexport const b = a1 + 1;\n",
  'docs/notes.md': '# notes\n',
};
const edit = (from: number, to: number, tag: string): string =>
  BASE['src/a.ts']
    .split('\n')
    .map((line, i) => (i + 1 >= from && i + 1 <= to ? `${line} // ${tag}` : line))
    .join('\n');

let repo: RepoFixture;
let alice: FixtureCheckout;
let bob: FixtureCheckout;
const clients: Client[] = [];

async function connect(cwd: string, env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd, env, stderr: 'pipe' });
  const client = new Client({ name: 'airspace-e2e', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

type ToolAnswer = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> =>
  (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as ToolAnswer;

function enginePid(): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(repo.dir, '.git', 'airspace', 'engine.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}
const pids = new Set<number>();

beforeAll(() => {
  repo = createRepoFixture(BASE, { epoch: Math.floor(Date.now() / 1000) - 600 });
  alice = repo
    .worktree('alice')
    .write('src/a.ts', edit(5, 9, 'alice'))
    .commit('alice: a5-a9');
  bob = repo.worktree('bob').write('src/a.ts', edit(7, 8, 'bob'));
  repo.worktree('carol').write('docs/notes.md', '# notes\n\nmore\n');
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await airspace(['engine', 'stop', '--repo', repo.dir], { env: ENGINE_ENV, timeoutMs: 20_000 }).catch(() => undefined);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already stopped.
    }
  }
  repo.dispose();
});

describe('airspace mcp (SDK client over stdio)', () => {
  it('offers the tools and resource, and answers through the engine as in-process', { timeout: 300_000 }, async () => {
    const before = repoFingerprint(repo.dir);
    const viaEngine = await connect(alice.dir, ENGINE_ENV);
    const tools = await viaEngine.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(['acknowledge', 'check_edit', 'declare_intent', 'list_advisories']);
    for (const t of tools.tools) expect(t.description!.length).toBeGreaterThan(40);
    expect(viaEngine.getInstructions()).toMatch(/check_edit/);

    // alice is about to edit the lines bob changes: resolution, bob's diff, and what to do.
    const check = await call(viaEngine, 'check_edit', { path: 'src/a.ts', start_line: 7, end_line: 8 });
    const pid = enginePid();
    if (pid) pids.add(pid);
    expect(pid).toBeDefined();
    expect(check.isError).toBeFalsy();
    const text = check.content[0]!.text;
    expect(text).toMatch(/^RESOLUTION: editing src\/a\.ts:7-8 as alice/);
    expect(text).toMatch(/bob's change to src\/a\.ts/);
    expect(text).toMatch(/```diff\n@@ /);
    expect(text).toMatch(/\nNext: (steer away|hold course)/);
    expect(check.structuredContent).toMatchObject({ path: 'src/a.ts', agent: 'alice', level: 'resolution' });

    const inProcess = await connect(alice.dir, OFF_ENV);
    const cold = await call(inProcess, 'check_edit', { path: 'src/a.ts', start_line: 7, end_line: 8 });
    expect(cold.structuredContent).toEqual(check.structuredContent);
    expect(cold.content).toEqual(check.content);

    const clear = await call(viaEngine, 'check_edit', { path: 'docs/other.md' });
    expect(clear.content[0]!.text).toMatch(/^CLEAR: .*Next: go on with the edit\.$/s);
    const bad = await call(viaEngine, 'check_edit', { path: 'src' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/is a directory.*Fix the arguments/);

    // Declared intent counts at once: bob's check of src/b.ts now meets alice.
    const bobClient = await connect(bob.dir, ENGINE_ENV);
    expect((await call(bobClient, 'check_edit', { path: 'src/b.ts', start_line: 2 })).structuredContent).toMatchObject({ level: 'clear' });
    const declared = await call(viaEngine, 'declare_intent', { paths: ['src/b.ts'], note: 'renaming b' });
    expect(declared.content[0]!.text).toMatch(/^Declared for alice: src\/b\.ts \(counts now, until /);
    const after = await call(bobClient, 'check_edit', { path: 'src/b.ts', start_line: 2 });
    expect(after.structuredContent).toMatchObject({ level: 'traffic' });
    expect(after.content[0]!.text).toMatch(/TRAFFIC with alice/);
    expect(after.content[0]!.text).toMatch(/Next: go on carefully, but first tell alice/);
    // The in-process server reads the same declaration.
    expect((await call(await connect(bob.dir, OFF_ENV), 'check_edit', { path: 'src/b.ts', start_line: 2 })).structuredContent).toEqual(
      after.structuredContent,
    );

    const advisories = await call(viaEngine, 'list_advisories', {});
    expect(advisories.content[0]!.text).toMatch(/advisor(y|ies) for alice/);
    expect(advisories.structuredContent).toMatchObject({ agent: 'alice' });
    expect((advisories.structuredContent!.advisories as { with: string }[]).map((a) => a.with)).toContain('bob');

    const ack = await call(viaEngine, 'acknowledge', { with: 'bob', note: 'we split the lines' });
    expect(ack.isError).toBeFalsy();
    expect(ack.content[0]!.text).toMatch(/^Acknowledged the advisory between alice and bob; recorded in /);
    expect(existsSync(ack.structuredContent!.trail as string)).toBe(true);
    const verify = await airspace(['trail', 'verify', ack.structuredContent!.trail as string]);
    expect(verify.code).toBe(0);
    const nobody = await call(viaEngine, 'acknowledge', { with: 'carol' });
    expect(nobody.isError).toBe(true);

    const resource = await viaEngine.readResource({ uri: 'airspace://scan' });
    const scan = JSON.parse((resource.contents[0] as { text: string }).text) as { agents: { id: string }[] };
    expect(scan.agents.map((a) => a.id)).toEqual(expect.arrayContaining(['alice', 'bob', 'carol']));

    // One engine answered both servers; nothing of the user's changed.
    expect(enginePid()).toBe(pid);
    expect(repoFingerprint(repo.dir)).toEqual(before);
  });
});
