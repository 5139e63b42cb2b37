/**
 * The built server with its default engine (@airspace/scanner: overlap, tree and merge channels)
 * over stdio, on a generated repository: what an editor user gets out of the box.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { realpathSync, writeFileSync } from 'node:fs';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import type { Hover } from 'vscode-languageserver-protocol';
import { TestClient, uriOf } from './support/client.js';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const base = Array.from({ length: 30 }, (_, i) => `const line${i + 1} = ${i + 1};`);
const text = (lines: string[]) => lines.join('\n') + '\n';
const edit = (at: number, value: string) => base.map((l, i) => (i === at - 1 ? value : l));

describe('the server with the default engine', () => {
  let repo: RepoFixture;
  let bob: FixtureCheckout;
  let alice: FixtureCheckout;
  let client: TestClient;
  let file: string;

  beforeAll(async () => {
    repo = createRepoFixture({ 'src/a.ts': text(base), 'airspace.config.json': '{}\n' });
    alice = repo.worktree('alice');
    alice.write('src/a.ts', text(edit(11, 'const line11 = "alice";'))).commit('alice');
    bob = repo.worktree('bob');
    const bobText = text(['// bob', '// bob', ...edit(11, 'const line11 = "bob";')]);
    bob.write('src/a.ts', bobText);
    file = join(realpathSync(bob.dir), 'src/a.ts');
    client = new TestClient(process.execPath, [BIN, '--stdio']);
    await client.initialize([bob.dir], { workspace: { configuration: true } });
    await client.open(file, bobText);
  });

  afterAll(async () => {
    await client?.close();
    repo?.dispose();
  });

  const diagnostic = () => client.diagnostics.get(uriOf(file))?.find((d) => d.source === 'airspace');

  it("warns bob on today's line from the line-precise channels, once", async () => {
    const d = await client.until('a diagnostic', diagnostic, 60_000);
    expect(client.diagnostics.get(uriOf(file))).toHaveLength(1);
    expect(d.range.start.line).toBe(12); // base line 11 + two inserted lines
    expect(d.severity).toBe(2);
    // overlap and merge agree on the line: one diagnostic from the stronger, naming the other.
    expect(String(d.code)).toMatch(/^resolution\/(overlap|merge)$/);
    expect(d.message).toMatch(
      /^alice edits src\/a\.ts line 11 \((overlap|merge) 1\.00; also [a-z, -]*(overlap|merge)[a-z, -]*\): resolution advisory, you steer away; 100% chance of colliding$/,
    );
    expect(d.relatedInformation?.[0]?.location.uri).toBe(uriOf(join(realpathSync(alice.dir), 'src/a.ts')));
    expect(d.relatedInformation?.[0]?.message).toMatch(
      /^alice's side, src\/a\.ts line 11 \[(overlap|merge) 1\.00; 100% chance of colliding\]: /,
    );
    // Startup scans (folder added, file opened) that find the same send it once.
    await client.connection.sendRequest('airspace/scan', {});
    const pushes = client.pushes.filter((p) => p.uri === uriOf(file)).map((p) => JSON.stringify(p.diagnostics));
    expect(new Set(pushes).size).toBe(pushes.length);
  });

  it("hovers with alice's hunk and answers airspace/scan with the engine's JSON", async () => {
    const hover = (await client.connection.sendRequest('textDocument/hover', {
      textDocument: { uri: uriOf(file) },
      position: { line: 12, character: 0 },
    })) as Hover;
    expect((hover.contents as { value: string }).value).toContain('+const line11 = "alice";');
    const result = (await client.connection.sendRequest('airspace/scan', {})) as { links: { channels: { channel: string }[] }[] };
    expect(result.links[0]!.channels.map((c) => c.channel)).toEqual(expect.arrayContaining(['overlap', 'tree', 'merge']));
  });

  it("clears when alice moves away and applies the editor's thresholds", async () => {
    writeFileSync(join(alice.dir, 'src/a.ts'), text(edit(25, 'const line25 = "alice";')));
    // Cleared: no advisory left (a forecast, an Information diagnostic of a clear pair, may stay).
    const advisories = () => client.diagnostics.get(uriOf(file))?.filter((d) => d.code !== 'forecast');
    await client.until('cleared', () => (advisories()?.length === 0 ? true : undefined), 60_000);
    // Same file, far apart: small risks (proximity, tree), below τ_TA by default, above the editor's.
    await client.connection.sendNotification('workspace/didChangeConfiguration', {
      settings: { airspace: { thresholds: { traffic: 0.01, resolution: 0.99 } } },
    });
    const d = await client.until(
      'a traffic advisory',
      () => client.diagnostics.get(uriOf(file))?.find((x) => String(x.code).startsWith('traffic/')),
      60_000,
    );
    expect(String(d.code)).toMatch(/^traffic\//);
    expect(d.severity).toBe(2);
    expect(d.message).toContain('traffic advisory');
  });
});

describe("the default engine's symbol evidence in lenses", () => {
  it('says the other agent edits what self only calls, whichever of the pair is the writer', async () => {
    const config = 'export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n';
    const repo = createRepoFixture({ 'src/config.ts': config, 'src/app.ts': 'export function main() {\n  return 1;\n}\n' });
    // ann (self, first of the pair) only calls parseConfig; zed changes its signature.
    repo.worktree('zed').write('src/config.ts', config.replace('(text: string)', '(text: string, strict: boolean)')).commit('strict');
    const ann = repo.worktree('ann');
    const annText = "import { parseConfig } from './config';\nexport function main() {\n  return parseConfig('{}');\n}\n";
    ann.write('src/app.ts', annText);
    const file = join(realpathSync(ann.dir), 'src/app.ts');
    const client = new TestClient(process.execPath, [BIN, '--stdio']);
    try {
      await client.initialize([ann.dir], {});
      await client.open(file, annText);
      // The read is resolved by name here (0.27): below the fitted τ_TA, so this test asks for a low band.
      await client.connection.sendNotification('workspace/didChangeConfiguration', {
        settings: { airspace: { thresholds: { traffic: 0.1, resolution: 0.99 } } },
      });
      const d = await client.until(
        'a diagnostic',
        () => client.diagnostics.get(uriOf(file))?.find((x) => String(x.code).endsWith('/symbols')),
        60_000,
      );
      expect(d.message).toMatch(/^zed edits parseConfig in src\/config\.ts lines? [0-9–]+ \(symbols /);
      const lenses = (await client.connection.sendRequest('textDocument/codeLens', { textDocument: { uri: uriOf(file) } })) as {
        command: { title: string };
      }[];
      expect(lenses.map((l) => l.command.title)).toEqual([
        expect.stringMatching(/^⚠ zed edits parseConfig \(symbols [0-9.]+; (\d+%|<1%|>99%) chance of colliding\)$/),
      ]);
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});

describe('the server with hostile plugins in the config', () => {
  let repo: RepoFixture;
  let client: TestClient;

  afterAll(async () => {
    await client?.close();
    repo?.dispose();
  });

  it('answers airspace/scan and warns although one plugin never answers and another calls process.exit', async () => {
    const plugin = (id: string, body: string) =>
      `export default { id: '${id}', defaultWeight: 0.1, async score() { ${body}; return { risk: 0, evidence: [] }; } };\n`;
    repo = createRepoFixture({
      'src/a.ts': text(base),
      'channels/hangs.mjs': plugin('hangs', "console.log('stdout is the protocol'); await new Promise(() => {})"),
      'channels/exits.mjs': plugin('exits', 'process.exit(0)'),
      'channels/rejects.mjs': plugin('rejects', "Promise.reject(new Error('stray'))"),
      'airspace.config.json': JSON.stringify({
        plugins: ['./channels/hangs.mjs', './channels/exits.mjs', './channels/rejects.mjs'],
        budget: { callMs: 500 },
      }),
    });
    repo
      .worktree('alice')
      .write('src/a.ts', text(edit(11, 'const line11 = "alice";')))
      .commit('alice');
    const bob = repo.worktree('bob');
    const bobText = text(edit(11, 'const line11 = "bob";'));
    bob.write('src/a.ts', bobText);
    const file = join(realpathSync(bob.dir), 'src/a.ts');
    client = new TestClient(process.execPath, [BIN, '--stdio']);
    await client.initialize([bob.dir], { workspace: { configuration: true } });
    await client.open(file, bobText);
    const result = (await Promise.race([
      client.connection.sendRequest('airspace/scan', { folder: uriOf(bob.dir) }),
      new Promise((_, reject) => setTimeout(() => reject(new Error('airspace/scan did not answer within 60 s')), 60_000)),
    ])) as { links: { level: string }[]; problems: { code: string; channel?: string }[] };
    expect(result.links[0]!.level).toBe('resolution');
    expect(result.problems.map((p) => `${p.code}:${p.channel}`)).toEqual(
      expect.arrayContaining(['CHANNEL_TIMED_OUT:hangs', 'PLUGIN_EXITED:exits', 'PLUGIN_UNHANDLED_REJECTION:rejects']),
    );
    const d = await client.until('a diagnostic', () => client.diagnostics.get(uriOf(file))?.find((x) => x.source === 'airspace'), 60_000);
    expect(d.message).toContain('alice');
  });
});

describe('config files', () => {
  it("honours the main worktree's airspace.config.mjs from a linked worktree and follows its edits", async () => {
    const repo = createRepoFixture({ 'src/a.ts': text(base) });
    repo
      .worktree('alice')
      .write('src/a.ts', text(edit(3, 'const line3 = "alice";')))
      .commit('alice');
    const bob = repo.worktree('bob');
    bob.write('src/a.ts', text(edit(20, 'const line20 = "bob";')));
    // Kept in the main worktree only (untracked): bob's branch has no config of its own.
    const config = (traffic: number) => `export default { thresholds: { traffic: ${traffic} } };\n`;
    writeFileSync(join(repo.dir, 'airspace.config.mjs'), config(0.11));
    const client = new TestClient(process.execPath, [BIN, '--stdio']);
    const traffic = async () =>
      ((await client.connection.sendRequest('airspace/scan', {})) as { thresholds: { traffic: number } } | null)?.thresholds.traffic;
    try {
      await client.initialize([bob.dir]);
      await client.until('the first advisories', () => client.notifications.find((n) => n.method === 'airspace/advisories'), 60_000);
      expect(await traffic()).toBe(0.11);
      writeFileSync(join(repo.dir, 'airspace.config.mjs'), config(0.12));
      const t0 = Date.now();
      let seen = await traffic();
      while (seen !== 0.12 && Date.now() - t0 < 30_000) {
        await new Promise((r) => setTimeout(r, 200));
        seen = await traffic();
      }
      expect(seen).toBe(0.12);
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});

describe('a worktree created and edited at once', () => {
  it('is scanned without waiting for its next change', async () => {
    const repo = createRepoFixture({ 'src/a.ts': text(base) });
    const bob = repo.worktree('bob');
    const bobText = text(edit(11, 'const line11 = "bob";'));
    bob.write('src/a.ts', bobText);
    const file = join(realpathSync(bob.dir), 'src/a.ts');
    const client = new TestClient(process.execPath, [BIN, '--stdio']);
    try {
      await client.initialize([bob.dir]);
      await client.open(file, bobText);
      await client.until('the first scan', () => client.notifications.find((n) => n.method === 'airspace/advisories'), 60_000);
      // Created and edited in one go, before the server can have listed (or watched) it.
      repo.worktree('carol').write('src/a.ts', text(edit(11, 'const line11 = "carol";')));
      const d = await client.until(
        'a diagnostic naming carol',
        () => client.diagnostics.get(uriOf(file))?.find((x) => String(x.message).includes('carol')),
        20_000,
      );
      expect(d.range.start.line).toBe(10);
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});
