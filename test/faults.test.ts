/**
 * Faults in code and input that Airspace runs or reads in-process — config modules, plugins, MCP
 * requests, `watch --exec` triggers, odd ranges and repository states — never become exit 0 or
 * "clear": each becomes a named problem, `unknown`, or a non-zero exit, and every wait is bounded.
 * Each case runs the built CLI as a child process (an exit or an abort must be seen from outside),
 * on repositories generated here.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { airspace, BIN, ENV } from './run-cli.js';
import { ENGINE_ENV, stopEngines } from './engines.js';

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `export const a${i + 1} = ${i + 1};`).join('\n') + '\n';
const edited = (from: number, to: number, tag: string): string =>
  lines(30)
    .split('\n')
    .map((line, i) => (i + 1 >= from && i + 1 <= to ? `${line} // ${tag}` : line))
    .join('\n');

/** alice and bob both edit lines 7–8 of src/a.ts: a real conflict. */
let repo: RepoFixture;
let bob: string;

beforeAll(() => {
  repo = createRepoFixture({ 'src/a.ts': lines(30), 'src/b.ts': "import { a1 } from './a';\nexport const b = a1;\n" });
  repo.worktree('alice').write('src/a.ts', edited(5, 9, 'alice'));
  bob = repo.worktree('bob').write('src/a.ts', edited(7, 8, 'bob')).dir;
});
afterAll(() => repo?.dispose());

/** Runs with the repository's config file set to `text` for the time of `body`. */
async function withConfig<T>(name: string, text: string, body: () => Promise<T>): Promise<T> {
  const path = join(repo.dir, name);
  writeFileSync(path, text);
  try {
    return await body();
  } finally {
    rmSync(path, { force: true });
  }
}

describe('config modules', () => {
  it('one that never finishes loading: a message naming it and exit 1, within the configured time', async () => {
    const out = await withConfig('airspace.config.mjs', 'await new Promise(() => {});\nexport default {};\n', () =>
      airspace(['scan', '--repo', repo.dir], { env: { ...ENV, AIRSPACE_CONFIG_TIMEOUT_MS: '500' }, timeoutMs: 30_000 }),
    );
    expect(out.code, out.stderr).toBe(1);
    expect(out.stderr).toMatch(/airspace\.config\.mjs did not finish loading within 500 ms/);
  });

  it('one that calls process.exit(0): check on a real conflict and scan --fail-on traffic exit non-zero, saying why', async () => {
    await withConfig('airspace.config.mjs', 'process.exit(0);\nexport default {};\n', async () => {
      for (const args of [
        ['check', 'src/a.ts'],
        ['scan', '--fail-on', 'traffic'],
      ]) {
        const out = await airspace(args, { cwd: bob, timeoutMs: 30_000 });
        expect(out.code, `${args.join(' ')}: ${out.stderr}`).not.toBe(0);
        expect(out.code).not.toBeNull();
        expect(out.stderr).toMatch(/airspace\.config\.mjs called process\.exit\(0\)/);
      }
    });
  });
});

describe('config modules, through the resident engine', () => {
  it('one that never loads is an error within its time, and the engine answers again once it is gone', async () => {
    const fixture = createRepoFixture({ 'src/a.ts': lines(30) });
    fixture.worktree('carol').write('src/a.ts', edited(2, 3, 'carol'));
    const dave = fixture.worktree('dave').write('src/a.ts', edited(2, 4, 'dave')).dir;
    const env = { ...ENGINE_ENV, AIRSPACE_CONFIG_TIMEOUT_MS: '1000' };
    const started = new Set<number>();
    const seen = (): void => {
      try {
        started.add((JSON.parse(readFileSync(join(fixture.dir, '.git', 'airspace', 'engine.json'), 'utf8')) as { pid: number }).pid);
      } catch {
        // no engine (yet)
      }
    };
    try {
      writeFileSync(join(fixture.dir, 'airspace.config.mjs'), 'await new Promise(() => {});\nexport default {};\n');
      const stuck = await airspace(['check', 'src/a.ts'], { cwd: dave, env, timeoutMs: 60_000 });
      seen();
      expect(stuck.code, stuck.stdout + stuck.stderr).toBe(1);
      expect(stuck.stderr).toMatch(/airspace\.config\.mjs did not finish loading within 1000 ms/);
      rmSync(join(fixture.dir, 'airspace.config.mjs'));
      const again = await airspace(['check', 'src/a.ts'], { cwd: dave, env, timeoutMs: 60_000 });
      seen();
      expect(again.code, again.stdout + again.stderr).toBe(2);
    } finally {
      seen();
      await stopEngines(fixture.dir, started);
      fixture.dispose();
    }
  });
});

describe('plugins', () => {
  it('one whose huge arrays make V8 abort: check on a real conflict still answers, naming the plugin', async () => {
    writeFileSync(
      join(repo.dir, 'huge.mjs'),
      "export default { id: 'huge', defaultWeight: 1, score(a) { const keep = []; for (;;) keep.push(new Array(1e7).fill(a.id)); } };\n",
    );
    const config = JSON.stringify({ plugins: ['./huge.mjs'], budget: { channelMs: 30_000, callMs: 30_000 } });
    const out = await withConfig('airspace.config.json', config, () =>
      airspace(['check', 'src/a.ts', '--json'], { cwd: bob, env: { ...ENV, AIRSPACE_PLUGIN_MAX_HEAP_MB: '64' }, timeoutMs: 60_000 }),
    );
    rmSync(join(repo.dir, 'huge.mjs'), { force: true });
    expect(out.code, out.stderr).toBe(2);
    const problems = (JSON.parse(out.stdout) as { problems: { code: string; message: string }[] }).problems;
    expect(problems.find((p) => p.code === 'PLUGIN_EXITED')?.message).toMatch(/huge\.mjs .*aborted.*memory/);
  });
});

describe('airspace mcp', () => {
  it('a 12 MB request line gets a JSON-RPC error, and the requests after it are answered', async () => {
    const line = (x: object): string => JSON.stringify({ jsonrpc: '2.0', ...x }) + '\n';
    const input =
      line({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }) +
      line({ method: 'notifications/initialized' }) +
      line({ id: 7, method: 'tools/list', params: { pad: 'x'.repeat(12 * 1024 * 1024) } }) +
      line({ id: 2, method: 'tools/list' });
    const out = await airspace(['mcp'], { cwd: bob, input, timeoutMs: 60_000 });
    const answers = out.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: number; result?: { tools?: unknown[] }; error?: { message: string } });
    expect(answers.find((a) => a.id === 7)?.error?.message, out.stderr).toMatch(/over the limit/);
    expect(answers.find((a) => a.id === 2)?.result?.tools?.length).toBeGreaterThan(0);
    expect(out.stderr).toMatch(/airspace mcp: a request line of \d+ bytes is over the limit/);
  });
});

describe('MCP answers that must not read as clear or as a failure', () => {
  type ToolAnswer = { content: { text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as ToolAnswer;
  beforeAll(async () => {
    const env = Object.fromEntries(Object.entries(ENV).filter((e): e is [string, string] => e[1] !== undefined));
    client = new Client({ name: 'faults', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: bob, env, stderr: 'pipe' }));
  });
  afterAll(async () => client?.close());

  it('a second acknowledgement says "already acknowledged", not that Airspace failed', async () => {
    const first = await call('acknowledge', { with: 'alice' });
    expect(first.isError, first.content[0]!.text).toBeFalsy();
    const second = await call('acknowledge', { with: 'alice' });
    expect(second.isError, second.content[0]!.text).toBeFalsy();
    expect(second.content[0]!.text).toMatch(/^Already acknowledged: bob acknowledged the advisory with alice before/);
    expect(second.content[0]!.text).not.toMatch(/could not answer/);
    expect(second.structuredContent).toMatchObject({ already: true, receipt: first.structuredContent!['receipt'] });
  });

  it('list_advisories for an agent that does not exist says it is unknown, lists the known ones, and never says go on', async () => {
    const answer = await call('list_advisories', { agent: 'nobody' });
    expect(answer.isError).toBe(true);
    expect(answer.content[0]!.text).toMatch(
      /No agent "nobody" in this repository, so its advisories are unknown; known agents: .*alice.*bob/,
    );
    expect(answer.content[0]!.text).not.toMatch(/go on/i);
  });
});

describe('watch --exec', () => {
  it('a trigger command that never exits is stopped at --exec-timeout; scans and events go on', async () => {
    const fixture = createRepoFixture({ 'src/a.ts': lines(30) });
    fixture.worktree('carol').write('src/a.ts', edited(2, 3, 'carol'));
    const dave = fixture.worktree('dave').write('src/a.ts', edited(2, 4, 'dave'));
    const child = spawn(
      process.execPath,
      [BIN, 'watch', '--repo', fixture.dir, '--jsonl', '--debounce', '100', '--exec', 'sleep 600', '--exec-timeout', '1000'],
      { env: ENV, stdio: ['ignore', 'pipe', 'pipe'], detached: false },
    );
    const events: { type: string; message?: string }[] = [];
    let buffer = '';
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        events.push(JSON.parse(buffer.slice(0, nl)) as { type: string });
        buffer = buffer.slice(nl + 1);
      }
    });
    const exited = new Promise<number | null>((ok) => child.on('close', ok));
    const waitFor = async (what: string, predicate: () => boolean, ms = 30_000): Promise<void> => {
      for (const end = Date.now() + ms; !predicate(); await new Promise((r) => setTimeout(r, 50)))
        if (Date.now() > end) throw new Error(`no ${what}: ${JSON.stringify(events)}`);
    };
    try {
      // The first scan raises carol ↔ dave and its triggers start "sleep 600": ready comes anyway.
      await waitFor('ready', () => events.some((e) => e.type === 'ready'));
      expect(events.filter((e) => e.type === 'trigger').length).toBeGreaterThan(0);
      dave.write('src/a.ts', lines(30));
      await waitFor('cleared', () => events.some((e) => e.type === 'cleared'));
      await waitFor('timeout error', () => events.some((e) => e.type === 'error' && /did not finish within 1000 ms/.test(e.message!)));
    } finally {
      child.kill('SIGINT');
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('hung'), 15_000))]);
      if (code === 'hung') child.kill('SIGKILL');
      fixture.dispose();
      expect(code).toBe(0);
    }
  });
});

describe('unclear answers made clear', () => {
  it('line ranges past the end of the file are refused, saying how long it is', async () => {
    for (const args of [
      ['check', 'src/a.ts', '--lines', '1-100000000000000000000000'],
      ['check', 'src/a.ts:25-40'],
      ['check', 'src/a.ts', '--lines', '31'],
    ]) {
      const out = await airspace(args, { cwd: bob, timeoutMs: 30_000 });
      expect(out.code, `${args.join(' ')}: ${out.stdout}${out.stderr}`).toBe(1);
      expect(out.stderr).toMatch(/src\/a\.ts has 30 lines; give lines within 1-30|no file has that many lines/);
      expect(out.stdout + out.stderr).not.toMatch(/e\+\d/);
    }
    const within = await airspace(['check', 'src/a.ts:25-30'], { cwd: bob, timeoutMs: 30_000 });
    expect(within.code, within.stderr).not.toBe(1);
  });

  it("a shallow clone's unknown pair shows no probability, in JSON and in the table", async () => {
    const deep = createRepoFixture({ 'src/a.ts': lines(30), 'notes.md': '# n\n' });
    const scratch = mkdtempSync(join(tmpdir(), 'airspace-faults-shallow-'));
    try {
      for (let i = 0; i < 3; i++) deep.write('notes.md', `# n${i}\n`).commit(`main ${i}`);
      for (const branch of ['left', 'right']) {
        deep.git('checkout', '-q', '-b', branch, 'HEAD~3');
        deep.write('src/a.ts', edited(1, 2, branch)).commit(branch);
        deep.git('checkout', '-q', 'main');
      }
      const shallow = join(scratch, 'shallow');
      execFileSync('git', ['clone', '-q', '--depth', '1', '--no-single-branch', `file://${deep.dir}`, shallow]);
      for (const branch of ['left', 'right']) execFileSync('git', ['branch', '-q', branch, `origin/${branch}`], { cwd: shallow });
      const json = await airspace(['scan', '--repo', shallow, '--source', 'branches', '--json'], { timeoutMs: 60_000 });
      const result = JSON.parse(json.stdout) as {
        links: { level: string; probability?: number }[];
        advisories: { probability?: number }[];
      };
      expect(result.links).toMatchObject([{ level: 'unknown' }]);
      expect(result.links[0]!.probability).toBeUndefined();
      expect(result.advisories[0]!.probability).toBeUndefined();
      const table = await airspace(['scan', '--repo', shallow, '--source', 'branches'], { timeoutMs: 60_000 });
      expect(table.stdout).toMatch(/^UNKNOWN\s+1\.00\s+–\s+left ↔ right/m);
      expect(table.stdout).not.toMatch(/chance of colliding|100%/);
    } finally {
      deep.dispose();
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('a repository with no commits is told so, not asked for a base ref', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'airspace-faults-empty-'));
    try {
      execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: empty });
      const out = await airspace(['scan', '--repo', empty], { timeoutMs: 30_000 });
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(/^airspace: This repository has no commits yet/);
      expect(out.stderr).not.toMatch(/pass a base ref/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('trail verify --head with a typo says so: a malformed head, or one a digit off a receipt, is no tampering', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-faults-trail-'));
    try {
      const at = (m: number): string => new Date(Date.parse('2026-03-01T12:00:00.000Z') + m * 60_000).toISOString();
      for (const agentId of ['alice', 'bob'])
        writeFileSync(
          join(dir, `${agentId}.json`),
          JSON.stringify({
            version: 1,
            agentId,
            taskId: 'task-7',
            repositoryId: 'example/shop',
            base: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
            scopeId: 'worktree-diff',
            readPaths: [],
            writePaths: ['src/cart.ts'],
            complete: true,
            observedAt: at(0),
            expiresAt: at(60),
          }),
        );
      const trail = join(dir, 'trail.json');
      const created = await airspace(
        ['trail', 'create', trail, '--a', join(dir, 'alice.json'), '--b', join(dir, 'bob.json'), '--now', at(1)],
        { timeoutMs: 30_000 },
      );
      expect(created.code, created.stderr).toBe(0);
      const verified = await airspace(['trail', 'verify', trail], { timeoutMs: 30_000 });
      const head = /head ([0-9a-f]{64})/.exec(verified.stdout)![1]!;
      const malformed = await airspace(['trail', 'verify', trail, '--head', head.slice(0, 12)], { timeoutMs: 30_000 });
      expect(malformed.code).toBe(1);
      expect(malformed.stderr).toMatch(/--head "[0-9a-f]{12}" is not a receipt hash/);
      expect(malformed.stderr).not.toMatch(/does not verify/);
      const slip = await airspace(['trail', 'verify', trail, '--head', (head[0] === 'a' ? 'b' : 'a') + head.slice(1)], {
        timeoutMs: 30_000,
      });
      expect(slip.code).toBe(1);
      expect(slip.stderr).toMatch(/receipt 0's hash differs from it in 1 digit: check the head you copied/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
