/**
 * Workspace folders (issue 16, item 5): a file opened before `initialized`, two folders in one
 * worktree, folders removed one by one. In-process server, stand-in engine, generated repository.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync, realpathSync } from 'node:fs';
import { createRepoFixture, type FixtureCheckout, type RepoFixture } from '@airspace/git/fixture';
import type { ScanResult } from '@airspace/core';
import { createScanner } from './support/fake-scanner.mjs';
import { InProcessClient } from './support/in-process.js';
import { uriOf } from './support/client.js';

const lines = Array.from({ length: 20 }, (_, i) => `const v${i + 1} = ${i + 1};`);
const edited = (who: string) => lines.map((l, i) => (i === 9 ? `const v10 = "${who}";` : l)).join('\n') + '\n';

describe('workspace folders', () => {
  let repo: RepoFixture;
  let bob: FixtureCheckout;
  let carol: FixtureCheckout;

  beforeAll(() => {
    repo = createRepoFixture({ 'src/x.ts': lines.join('\n') + '\n', 'lib/y.ts': 'export const y = 1;\n' });
    repo.worktree('alice').write('src/x.ts', edited('alice')).commit('alice');
    bob = repo.worktree('bob');
    bob.write('src/x.ts', edited('bob'));
    carol = repo.worktree('carol');
    carol.write('src/x.ts', edited('carol'));
  });
  afterAll(() => repo?.dispose());

  const folderUris = (client: InProcessClient) =>
    new Set(client.notifications.filter((n) => n.method === 'airspace/advisories').map((n) => (n.params as { folder: string }).folder));

  it("does not make an opened file's directory a folder when the file comes before initialized", async () => {
    const client = new InProcessClient({ createScanner, settings: { debounceMs: 20 } });
    try {
      const file = join(realpathSync(bob.dir), 'src/x.ts');
      await client.connection.sendRequest('initialize', {
        processId: null,
        rootUri: null,
        capabilities: {},
        workspaceFolders: [{ uri: uriOf(bob.dir), name: 'bob' }],
      });
      await client.open(file, readFileSync(file, 'utf8'));
      await client.connection.sendNotification('initialized', {});
      await client.until('a diagnostic', () => client.diagnostics.get(uriOf(file))?.[0]);
      await client.connection.sendRequest('airspace/scan', { folder: uriOf(bob.dir) });
      expect(folderUris(client)).toEqual(new Set([uriOf(realpathSync(bob.dir))]));
    } finally {
      await client.close();
    }
  });

  it('keeps a worktree self while one of its folders remains, and the other worktrees scanned', async () => {
    const client = new InProcessClient({ createScanner, settings: { debounceMs: 20 } });
    const bobFile = uriOf(join(realpathSync(bob.dir), 'src/x.ts'));
    const carolFile = uriOf(join(realpathSync(carol.dir), 'src/x.ts'));
    const folder = (dir: string) => ({ uri: uriOf(dir), name: dir });
    const [bobSrc, bobLib] = [join(bob.dir, 'src'), join(bob.dir, 'lib')];
    const removeFolder = (dir: string) =>
      client.connection.sendNotification('workspace/didChangeWorkspaceFolders', { event: { added: [], removed: [folder(dir)] } });
    const scan = async (dir: string) => (await client.connection.sendRequest('airspace/scan', { folder: uriOf(dir) })) as ScanResult | null;
    try {
      await client.initialize([bobSrc, bobLib, carol.dir], { workspace: { workspaceFolders: true } });
      await client.until('diagnostics for bob and carol', () =>
        client.diagnostics.get(bobFile)?.length && client.diagnostics.get(carolFile)?.length ? true : undefined,
      );
      await removeFolder(bobSrc);
      expect((await scan(bobLib))?.advisories.length).toBeGreaterThan(0);
      expect(client.diagnostics.get(bobFile)?.length).toBeGreaterThan(0);
      await removeFolder(bobLib);
      const carolScan = await scan(carol.dir);
      expect(carolScan?.agents.map((a) => a.id).sort()).toEqual(['alice', 'bob', 'carol']);
      await client.until("bob's diagnostics cleared", () => (client.diagnostics.get(bobFile)?.length === 0 ? true : undefined));
      expect(client.diagnostics.get(carolFile)?.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});
