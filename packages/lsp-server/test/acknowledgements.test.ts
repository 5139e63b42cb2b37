/**
 * Acknowledgements outlive the server (issue 16, item 8): restored from the pair's trail at start,
 * before the first delivery, and kept across rescans (issue 34: no warning that turns information).
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync, realpathSync } from 'node:fs';
import { createRepoFixture } from '@airspace/git/fixture';
import { createScanner } from './support/fake-scanner.mjs';
import { InProcessClient } from './support/in-process.js';
import { uriOf } from './support/client.js';

const lines = Array.from({ length: 12 }, (_, i) => `const v${i + 1} = ${i + 1};`);
const edited = (who: string) => lines.map((l, i) => (i === 5 ? `const v6 = "${who}";` : l)).join('\n') + '\n';

describe('acknowledgements across restarts', () => {
  it('marks an advisory acknowledged in an earlier session as acknowledged again', async () => {
    const repo = createRepoFixture({ 'x.ts': lines.join('\n') + '\n' });
    repo.worktree('alice').write('x.ts', edited('alice')).commit('alice');
    const bob = repo.worktree('bob');
    bob.write('x.ts', edited('bob'));
    const file = uriOf(join(realpathSync(bob.dir), 'x.ts'));
    const session = async (work: (client: InProcessClient) => Promise<void>) => {
      const client = new InProcessClient({ createScanner });
      try {
        await client.initialize([bob.dir]);
        await work(client);
      } finally {
        await client.close();
      }
    };
    try {
      await session(async (client) => {
        const d = await client.until('a warning', () => client.diagnostics.get(file)?.[0]);
        expect(d.severity).toBe(2);
        const out = await client.connection.sendRequest('workspace/executeCommand', {
          command: 'airspace.acknowledge',
          arguments: [{ other: 'alice' }],
        });
        expect(out).toMatchObject({ recordedIn: 'trail' });
      });
      await session(async (client) => {
        await client.until(
          'the acknowledged diagnostic',
          () => (client.diagnostics.get(file)?.[0]?.severity === 3 ? true : undefined),
          10_000,
        );
        const actions = (await client.connection.sendRequest('textDocument/codeAction', {
          textDocument: { uri: file },
          range: client.diagnostics.get(file)![0]!.range,
          context: { diagnostics: [] },
        })) as { title: string }[];
        expect(actions.some((a) => a.title.startsWith('Acknowledge'))).toBe(false);
        // Rescans (keystrokes) keep it information; it never was a warning in this session.
        const text = readFileSync(realpathSync(join(bob.dir, 'x.ts')), 'utf8');
        await client.open(join(realpathSync(bob.dir), 'x.ts'), text, 1);
        for (let v = 2; v < 6; v++) {
          await client.change(join(realpathSync(bob.dir), 'x.ts'), `${text}// ${v}\n`, v);
          await client.connection.sendRequest('airspace/scan', { folder: uriOf(bob.dir) });
        }
        const severities = client.pushes.filter((p) => p.uri === file).flatMap((p) => p.diagnostics.map((d) => d.severity));
        expect(severities.length).toBeGreaterThan(0);
        expect(new Set(severities)).toEqual(new Set([3]));
        expect(client.diagnostics.get(file)?.[0]?.message).toMatch(/\(acknowledged\)$/);
      });
    } finally {
      repo.dispose();
    }
  });
});
