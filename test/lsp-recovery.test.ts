/**
 * The language server with its default engine (the built bin) on a generated repository of 400
 * files: a configuration change during the first, cold scan used to stop scanning for good
 * (issue 16, item 1; the old code timed out here every run). ~15 s, hence in test/.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { realpathSync } from 'node:fs';
import { createRepoFixture } from '@airspace/git/fixture';
import { generateRepo } from '@airspace/bench';
import { TestClient, uriOf } from '../packages/lsp-server/test/support/client.js';

const BIN = fileURLToPath(new URL('../packages/lsp-server/dist/bin.js', import.meta.url));

describe('a configuration change during the first scan', () => {
  it('replaces the engine and scans again instead of waiting for good', async () => {
    // Large enough that the first (cold) scan is still running when the change arrives.
    const { files } = generateRepo({ files: 400, seed: 3 });
    const repo = createRepoFixture(files);
    const target = Object.keys(files)
      .filter((p) => p.endsWith('.ts'))
      .sort()[0]!;
    repo.worktree('alice').write(target, `// alice\n${files[target]}`).commit('alice');
    const bob = repo.worktree('bob');
    bob.write(target, `// bob\n${files[target]}`);
    const client = new TestClient(process.execPath, [BIN, '--stdio']);
    try {
      await client.initialize([bob.dir], { workspace: { configuration: true } });
      const file = join(realpathSync(bob.dir), target);
      await client.open(file, `// bob\n${files[target]}`);
      for (const ms of [50, 100, 200]) {
        await new Promise((r) => setTimeout(r, ms));
        await client.connection.sendNotification('workspace/didChangeConfiguration', {
          settings: { airspace: { thresholds: { traffic: 0.3 + ms / 1000 } } },
        });
      }
      const scan = (await Promise.race([
        client.connection.sendRequest('airspace/scan', {}),
        new Promise((r) => setTimeout(() => r('silent'), 60_000)),
      ])) as { thresholds?: { traffic: number } } | 'silent';
      expect(scan).not.toBe('silent');
      expect((scan as { thresholds: { traffic: number } }).thresholds.traffic).toBe(0.5);
      await client.until('a diagnostic', () => client.diagnostics.get(uriOf(file))?.find((d) => d.source === 'airspace'), 60_000);
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});
