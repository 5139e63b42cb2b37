/**
 * Declared intent through the language server (the built bin, its default engine): a fresh
 * worktree that has changed nothing yet declares a file another agent is changing, and is told
 * about it at once, as itself (its worktree's agent, not a stand-in without a worktree).
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createRepoFixture } from '@airspace/git/fixture';
import { TestClient } from '../packages/lsp-server/test/support/client.js';

const BIN = fileURLToPath(new URL('../packages/lsp-server/dist/bin.js', import.meta.url));

interface Advisories {
  readonly self: string | null;
  readonly advisories: readonly { a: string; b: string; level: string; evidence?: readonly { message: string }[] }[];
}

describe('airspace.declareIntent before the first edit', () => {
  it('makes the fresh worktree an agent with its advisory', async () => {
    const repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n' });
    repo.worktree('alice').write('src/a.ts', 'export const a = 2;\n');
    const bob = repo.worktree('bob');
    const client = new TestClient(process.execPath, [BIN, '--stdio']);
    try {
      await client.initialize([bob.dir]);
      await client.connection.sendRequest('airspace/scan', {});
      await client.connection.sendRequest('workspace/executeCommand', {
        command: 'airspace.declareIntent',
        arguments: [{ files: ['src/a.ts'] }],
      });
      const told = await client.until(
        'an advisory for bob',
        () => {
          const last = client.notifications.filter((n) => n.method === 'airspace/advisories').at(-1)?.params as Advisories | undefined;
          return last?.self === 'bob' && last.advisories.length > 0 ? last : undefined;
        },
        60_000,
      );
      expect(told.advisories[0]).toMatchObject({ level: 'traffic' });
      expect([told.advisories[0]!.a, told.advisories[0]!.b].sort()).toEqual(['alice', 'bob']);
      expect(told.advisories[0]!.evidence?.some((e) => /bob declared it is about to touch it/.test(e.message))).toBe(true);
    } finally {
      await client.close();
      repo.dispose();
    }
  });

  it('is applied when sent right after initialized, before the folders are added', async () => {
    const repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n' });
    repo.worktree('alice').write('src/a.ts', 'export const a = 2;\n');
    const bob = repo.worktree('bob');
    const client = new TestClient(process.execPath, [BIN, '--stdio']);
    try {
      await client.initialize([bob.dir]);
      // No scan first: the command follows `initialized` at once.
      const answer = (await client.connection.sendRequest('workspace/executeCommand', {
        command: 'airspace.declareIntent',
        arguments: [{ files: ['src/a.ts'] }],
      })) as { intent?: string[] } | null;
      expect(answer?.intent).toEqual(['src/a.ts']);
      const told = await client.until(
        'an advisory for bob',
        () => {
          const last = client.notifications.filter((n) => n.method === 'airspace/advisories').at(-1)?.params as Advisories | undefined;
          return last?.self === 'bob' && last.advisories.length > 0 ? last : undefined;
        },
        60_000,
      );
      expect(told.advisories[0]).toMatchObject({ level: 'traffic' });
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});
