/**
 * A scan that fails reaches the user (issue 34): a base that does not exist in the repository is
 * shown with `window/showMessage` once per distinct error, not per keystroke, and again after a
 * scan succeeded in between. In-process server, stand-in engine, generated repository.
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

describe('a scan that fails', () => {
  it('is shown to the user once per distinct error, not per keystroke', async () => {
    const repo = createRepoFixture({ 'x.ts': lines.join('\n') + '\n' });
    repo.worktree('alice').write('x.ts', edited('alice')).commit('alice');
    const bob = repo.worktree('bob');
    bob.write('x.ts', edited('bob'));
    const file = join(realpathSync(bob.dir), 'x.ts');
    const client = new InProcessClient({ createScanner, settings: { debounceMs: 0 } });
    const shown = () =>
      client.notifications
        .filter((n) => n.method === 'window/showMessage')
        .map((n) => n.params as { type: number; message: string })
        .filter((m) => m.message.includes('cannot scan'));
    const settle = () => client.connection.sendRequest('airspace/scan', { folder: uriOf(bob.dir) });
    try {
      await client.initialize([bob.dir], {}, { settings: { base: 'no-such-base' } });
      await client.until('the error shown', () => shown()[0]);
      expect(shown()[0]!.type).toBe(1);
      expect(shown()[0]!.message).toContain('no-such-base');
      expect(shown()[0]!.message).toContain(realpathSync(bob.dir));
      // Keystrokes: each scan fails the same way; the message is not repeated.
      const text = readFileSync(file, 'utf8');
      await client.open(file, text, 1);
      for (let v = 2; v < 6; v++) {
        await client.change(file, text + `// ${v}\n`, v);
        await settle();
      }
      expect(shown()).toHaveLength(1);
      // A good base: the diagnostics come; a bad one again is shown again.
      await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: { airspace: { base: 'main' } } });
      await client.until('a diagnostic', () => client.diagnostics.get(uriOf(file))?.[0]);
      await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: { airspace: { base: 'no-such-base' } } });
      await client.until('the error shown again', () => shown()[1]);
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});
