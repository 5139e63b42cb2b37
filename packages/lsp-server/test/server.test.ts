/**
 * Drives the built server over stdio with a protocol client, against a generated repository
 * with two agents in worktrees that change the same lines of src/a.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { writeFileSync, readFileSync, realpathSync } from 'node:fs';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import type { Diagnostic, Hover, CodeLens, CodeAction } from 'vscode-languageserver-protocol';
import { readTrailFile, summarizeShadowTrail, verifyShadowTrail } from '@airspace/trail';
import { TestClient, uriOf } from './support/client.js';

const SERVER = fileURLToPath(new URL('./support/fake-server.mjs', import.meta.url));

const base = (): string[] => {
  const lines: string[] = [];
  for (let i = 1; i <= 30; i++)
    lines.push(i === 8 ? 'export function parse(input: string) {' : i === 20 ? '}' : `  const line${i} = ${i};`);
  return lines;
};
const text = (lines: string[]) => lines.join('\n') + '\n';

/** alice commits lines 10–12 of parse; bob changes line 11 unsaved, five lines further down. */
function scenario() {
  const repo = createRepoFixture({ 'src/a.ts': text(base()), 'src/b.ts': 'export const b = 1;\n' });
  const alice = repo.worktree('alice');
  const a = base();
  a.splice(9, 3, '  const ALICE_EDIT_10 = 10;', '  const ALICE_EDIT_11 = 11;', '  const ALICE_EDIT_12 = 12;');
  alice.write('src/a.ts', text(a)).commit('alice edits parse');
  const bob = repo.worktree('bob');
  const b = base();
  b[10] = '  const BOB_EDIT_11 = 11;';
  // Five lines inserted at the top: bob's line for base line 11 is 16 today.
  const bobText = text(['// 1', '// 2', '// 3', '// 4', '// 5', ...b]);
  bob.write('src/a.ts', bobText);
  return { repo, alice, bob, bobText, bobFile: join(realpathSync(bob.dir), 'src/a.ts') };
}

/** Every string anywhere in a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('the language server over stdio', () => {
  let repo: RepoFixture;
  let alice: FixtureCheckout;
  let bob: FixtureCheckout;
  let client: TestClient;
  let bobFile: string;
  let bobText: string;

  beforeAll(async () => {
    ({ repo, alice, bob, bobText, bobFile } = scenario());
    client = new TestClient(process.execPath, [SERVER, '--stdio']);
    const init = (await client.initialize([bob.dir], {
      window: { showDocument: { support: true } },
      workspace: { configuration: true },
      textDocument: { publishDiagnostics: { relatedInformation: true } },
    })) as { capabilities: Record<string, unknown> };
    expect(init.capabilities.codeLensProvider).toBeTruthy();
    expect(init.capabilities.diagnosticProvider).toBeUndefined(); // this client only takes pushes
    await client.open(bobFile, bobText);
  });

  afterAll(async () => {
    await client?.close();
    repo?.dispose();
  });

  const diags = () => client.diagnostics.get(uriOf(bobFile));
  const overlapDiag = () => diags()?.find((d) => d.source === 'airspace');

  it("puts a diagnostic on today's line naming the other agent, channel, risk and their location", async () => {
    const d = await client.until('a diagnostic', overlapDiag);
    expect(d.range.start.line).toBe(15); // base line 11 is line 16 today
    expect(d.severity).toBe(2); // warning: bob steers (alice has right of way by id)
    expect(d.code).toBe('resolution/overlap');
    expect(d.message).toBe('alice edits parse in src/a.ts lines 10–12 (overlap 1.00): resolution advisory, you steer away');
    // The full evidence is in relatedInformation, at alice's lines.
    const related = d.relatedInformation?.[0];
    expect(related?.location.uri).toBe(uriOf(join(realpathSync(alice.dir), 'src/a.ts')));
    expect(related?.location.range.start.line).toBe(9);
    expect(related?.message).toContain('alice and bob both change src/a.ts around base lines 11–11.');
    expect(
      client.notifications.some(
        (n) => n.method === 'airspace/advisories' && (n.params as { advisories: unknown[] }).advisories.length === 1,
      ),
    ).toBe(true);
  });

  it('hovers with who else is here and their diff hunk', async () => {
    const hover = (await client.connection.sendRequest('textDocument/hover', {
      textDocument: { uri: uriOf(bobFile) },
      position: { line: 15, character: 4 },
    })) as Hover;
    const value = (hover.contents as { value: string }).value;
    expect(value).toContain('alice');
    expect(value).toContain('+  const ALICE_EDIT_11 = 11;');
    expect(value).toContain('-  const line11 = 11;');
    const nothing = await client.connection.sendRequest('textDocument/hover', {
      textDocument: { uri: uriOf(bobFile) },
      position: { line: 2, character: 0 },
    });
    expect(nothing).toBeNull();
  });

  it('serves a code lens above the function the other agent writes', async () => {
    const lenses = (await client.connection.sendRequest('textDocument/codeLens', { textDocument: { uri: uriOf(bobFile) } })) as CodeLens[];
    expect(lenses).toHaveLength(1);
    expect(lenses[0]!.command!.title).toBe('⚠ alice edits parse (overlap 1.00)');
    expect(lenses[0]!.range.start.line).toBe(15);
  });

  it('sends no control character and no identical diagnostics twice', async () => {
    await client.until('a diagnostic', overlapDiag);
    // A NUL anywhere (it was in Diagnostic.data.pair) makes Emacs drop the whole message.
    expect(client.raw).not.toMatch(/\\u00[01][0-9a-f]/i);
    // A save that changes nothing scans again and finds the same: nothing new to send.
    await client.save(bobFile);
    await client.connection.sendRequest('airspace/scan', {});
    await new Promise((r) => setTimeout(r, 200));
    const pushes = client.pushes.filter((p) => p.uri === uriOf(bobFile)).map((p) => JSON.stringify(p.diagnostics));
    expect(pushes.length).toBeGreaterThan(0);
    expect(new Set(pushes).size).toBe(pushes.length);
  });

  it('answers airspace/scan with the scan JSON', async () => {
    const result = (await client.connection.sendRequest('airspace/scan', { folder: uriOf(bob.dir) })) as {
      version: number;
      advisories: { a: string; b: string; level: string }[];
      agents: { id: string }[];
    };
    expect(result.version).toBe(1);
    expect(result.agents.map((a) => a.id).sort()).toEqual(['alice', 'bob']);
    expect(result.advisories).toEqual([expect.objectContaining({ a: 'alice', b: 'bob', level: 'resolution' })]);
  });

  it('offers code actions that open the other side and copy a summary', async () => {
    const d = overlapDiag()!;
    const actions = (await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri: uriOf(bobFile) },
      range: d.range,
      context: { diagnostics: [d] },
    })) as CodeAction[];
    const open = actions.find((a) => a.title.startsWith("Open alice's src/a.ts:10"));
    expect(open).toBeDefined();
    await client.connection.sendRequest('workspace/executeCommand', open!.command!);
    const shown = await client.until('showDocument', () => client.requests.find((r) => r.method === 'window/showDocument'));
    expect((shown.params as { uri: string }).uri).toBe(uriOf(join(realpathSync(alice.dir), 'src/a.ts')));
    expect(new Set(actions.map((a) => a.title)).size).toBe(actions.length);
    const copy = actions.find((a) => a.title.startsWith('Copy a summary'))!;
    const out = (await client.connection.sendRequest('workspace/executeCommand', copy.command!)) as { summary: string };
    expect(out.summary).toContain('my src/a.ts line 16');
    expect(out.summary).toContain('your src/a.ts lines 10–12');
    expect(out.summary).toContain('ALICE_EDIT_12');
  });

  it('acknowledges an advisory and marks its diagnostics', async () => {
    const out = (await client.connection.sendRequest('workspace/executeCommand', {
      command: 'airspace.acknowledge',
      arguments: [{ other: 'alice' }],
    })) as { acknowledged: string[]; recordedIn: string; trail: string };
    expect(out).toMatchObject({ acknowledged: ['alice', 'bob'], recordedIn: 'trail' });
    const trail = await readTrailFile(out.trail);
    expect(verifyShadowTrail(trail).ok).toBe(true);
    const summary = summarizeShadowTrail(trail);
    expect(summary.acknowledgements.map((a) => a.agentId)).toEqual(['bob']);
    expect(summary.awaitingAcknowledgement).toEqual(['alice']);
    const d = await client.until('acknowledged diagnostic', () =>
      String(overlapDiag()?.message).includes('(acknowledged)') ? overlapDiag() : undefined,
    );
    expect(d.severity).toBe(3);
  });

  it('passes declared intent to the next scan', async () => {
    const out = await client.connection.sendRequest('workspace/executeCommand', {
      command: 'airspace.declareIntent',
      arguments: [{ files: ['src/b.ts', uriOf(join(bob.dir, 'src/c.ts'))] }],
    });
    expect(out).toEqual({ intent: ['src/b.ts', 'src/c.ts'] });
    const result = (await client.connection.sendRequest('airspace/scan', {})) as { meta: { intent: Record<string, string[]> } };
    expect(result.meta.intent).toEqual({ bob: ['src/b.ts', 'src/c.ts'] });
  });

  it('follows an unsaved edit that moves lines', async () => {
    const moved = '// a\n// b\n// c\n' + bobText;
    await client.change(bobFile, moved, 1);
    const d = await client.until('moved diagnostic', () => (overlapDiag()?.range.start.line === 18 ? overlapDiag() : undefined));
    expect(d.message).toContain('alice');
    await client.change(bobFile, bobText, 2);
    await client.until('diagnostic back', () => (overlapDiag()?.range.start.line === 15 ? overlapDiag() : undefined));
  });

  it('clears and restores diagnostics when the other worktree changes on disk', async () => {
    writeFileSync(join(alice.dir, 'src/a.ts'), text(base()));
    await client.until('cleared diagnostics', () => (diags()?.length === 0 ? true : undefined));
    const again = base();
    again[10] = '  const ALICE_AGAIN = 11;';
    writeFileSync(join(alice.dir, 'src/a.ts'), text(again));
    const d = await client.until('restored diagnostic', overlapDiag);
    expect(d.range.start.line).toBe(15);
    expect(d.message).toContain('src/a.ts line 11');
  });

  it('survives bad requests with logged errors and degraded answers', async () => {
    client.child.stdin!.write('Content-Length: 9\r\n\r\n{bad json');
    expect(await client.connection.sendRequest('textDocument/hover', { textDocument: { uri: uriOf(bobFile) } })).toBeNull();
    await client.until('a logged error', () =>
      client.notifications.find(
        (n) => n.method === 'window/logMessage' && String((n.params as { message: string }).message).includes('textDocument/hover failed'),
      ),
    );
    const outside = await client.connection.sendRequest('textDocument/hover', {
      textDocument: { uri: 'file:///nonexistent/x.ts' },
      position: { line: 0, character: 0 },
    });
    expect(outside).toBeNull();
    expect(await client.connection.sendRequest('workspace/executeCommand', { command: 'airspace.nope', arguments: [] })).toBeNull();
    expect(
      await client.connection.sendRequest('workspace/executeCommand', { command: 'airspace.acknowledge', arguments: [42] }),
    ).toBeNull();
    expect(await client.connection.sendRequest('airspace/scan', { folder: 'not a uri' })).toBeNull();
    await expect(client.connection.sendRequest('airspace/unknown', {})).rejects.toThrow();
    // Still serving.
    const lenses = (await client.connection.sendRequest('textDocument/codeLens', { textDocument: { uri: uriOf(bobFile) } })) as CodeLens[];
    expect(lenses.length).toBe(1);
    expect(client.stderr).not.toMatch(/uncaught/);
    expect(client.child.exitCode).toBeNull();
  });
});

describe('a client without showDocument or message actions (Neovim 0.7, eglot 1.9)', () => {
  it('shows the other side and the summary as plain messages, never as a request that waits', async () => {
    const { repo, alice, bobFile, bobText, bob } = scenario();
    const client = new TestClient(process.execPath, [SERVER, '--stdio']);
    try {
      await client.initialize([bob.dir], { textDocument: { publishDiagnostics: {} } });
      await client.open(bobFile, bobText);
      const d = await client.until('a diagnostic', () => client.diagnostics.get(uriOf(bobFile))?.[0]);
      expect(strings(d).every((t) => !/[\u0000-\u001f]/.test(t))).toBe(true);
      const actions = (await client.connection.sendRequest('textDocument/codeAction', {
        textDocument: { uri: uriOf(bobFile) },
        range: d.range,
        context: { diagnostics: [d] },
      })) as CodeAction[];
      const open = actions.find((a) => a.title.startsWith("Open alice's"))!;
      await client.connection.sendRequest('workspace/executeCommand', open.command!);
      const where = await client.until('the location as text', () => client.notifications.find((n) => n.method === 'window/showMessage'));
      expect((where.params as { message: string }).message).toContain(`${join(realpathSync(alice.dir), 'src/a.ts')}:10`);
      const copy = actions.find((a) => a.title.startsWith('Copy a summary'))!;
      await client.connection.sendRequest('workspace/executeCommand', copy.command!);
      const said = await client.until('the summary as text', () =>
        client.notifications.find(
          (n) => n.method === 'window/showMessage' && String((n.params as { message: string }).message).includes('ALICE_EDIT_12'),
        ),
      );
      expect(strings(said.params).every((t) => !/[\u0000-\u0009\u000b-\u001f]/.test(t))).toBe(true);
      expect(client.requests.filter((r) => r.method === 'window/showMessageRequest' || r.method === 'window/showDocument')).toEqual([]);
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});

describe('an other agent without a worktree', () => {
  it('gives a lens whose summary command the server accepts', async () => {
    const { repo, bobFile, bobText, bob } = scenario();
    const client = new TestClient(process.execPath, [SERVER, '--stdio'], { FAKE_SCANNER_NO_WORKTREE: 'alice' });
    try {
      await client.initialize([bob.dir], {});
      await client.open(bobFile, bobText);
      await client.until('a diagnostic', () => client.diagnostics.get(uriOf(bobFile))?.[0]);
      const lenses = (await client.connection.sendRequest('textDocument/codeLens', {
        textDocument: { uri: uriOf(bobFile) },
      })) as CodeLens[];
      expect(lenses).toHaveLength(1);
      expect(lenses[0]!.command!.command).toBe('airspace.copySummary');
      const out = (await client.connection.sendRequest('workspace/executeCommand', lenses[0]!.command!)) as { summary: string } | null;
      expect(out?.summary).toContain('my src/a.ts line 16');
      // The same shape acknowledges: the folder whose agent is bob is self.
      const ack = (await client.connection.sendRequest('workspace/executeCommand', {
        command: 'airspace.acknowledge',
        arguments: lenses[0]!.command!.arguments,
      })) as { recordedIn: string };
      expect(ack.recordedIn).toBe('trail');
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});

describe('pull diagnostics for clients that advertise them', () => {
  it('serves textDocument/diagnostic and refreshes, and pushes nothing to such a client', async () => {
    const repo = createRepoFixture({ 'x.ts': 'a\nb\nc\nd\n' });
    const one = repo.worktree('one');
    one.write('x.ts', 'a\nONE\nc\nd\n').commit('one');
    const two = repo.worktree('two');
    two.write('x.ts', 'a\nTWO\nc\nd\n');
    const client = new TestClient(process.execPath, [SERVER, '--stdio']);
    try {
      const init = (await client.initialize([two.dir], {
        textDocument: { diagnostic: { dynamicRegistration: false } },
        workspace: { diagnostics: { refreshSupport: true } },
      })) as { capabilities: Record<string, unknown> };
      expect(init.capabilities.diagnosticProvider).toBeTruthy();
      const file = join(realpathSync(two.dir), 'x.ts');
      await client.open(file, readFileSync(file, 'utf8'));
      await client.until('refresh request', () => client.requests.find((r) => r.method === 'workspace/diagnostic/refresh'));
      const report = (await client.connection.sendRequest('textDocument/diagnostic', { textDocument: { uri: uriOf(file) } })) as {
        kind: string;
        items: Diagnostic[];
      };
      expect(report.kind).toBe('full');
      expect(report.items[0]!.range.start.line).toBe(1);
      expect(report.items[0]!.severity).toBe(2); // two steers
      // vscode-languageclient would show a pushed copy beside the pulled one.
      expect(client.pushes).toEqual([]);
      // Files that are not open reach the client through the workspace pull instead.
      const workspace = (await client.connection.sendRequest('workspace/diagnostic', { previousResultIds: [] })) as {
        items: { uri: string; items: Diagnostic[] }[];
      };
      expect(workspace.items.map((i) => [i.uri, i.items.length])).toEqual([[uriOf(file), 1]]);
    } finally {
      await client.close();
      repo.dispose();
    }
  });

  it('pushes to a client that could pull but cannot be asked to refresh', async () => {
    const repo = createRepoFixture({ 'x.ts': 'a\nb\nc\nd\n' });
    repo.worktree('one').write('x.ts', 'a\nONE\nc\nd\n').commit('one');
    const two = repo.worktree('two');
    two.write('x.ts', 'a\nTWO\nc\nd\n');
    const client = new TestClient(process.execPath, [SERVER, '--stdio']);
    try {
      const init = (await client.initialize([two.dir], { textDocument: { diagnostic: { dynamicRegistration: false } } })) as {
        capabilities: Record<string, unknown>;
      };
      expect(init.capabilities.diagnosticProvider).toBeUndefined();
      const file = join(realpathSync(two.dir), 'x.ts');
      await client.open(file, readFileSync(file, 'utf8'));
      await client.until('pushed', () => client.diagnostics.get(uriOf(file))?.[0]);
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});
