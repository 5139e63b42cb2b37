/** declareIntent's paths (issue 16, item 12): mapped when inside the worktree, refused otherwise. */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { createRepoFixture } from '@airspace/git/fixture';
import { intentPath } from '../src/intent.js';
import { createScanner } from './support/fake-scanner.mjs';
import { InProcessClient } from './support/in-process.js';
import type { CreateLspScanner } from '../src/lsp-scanner.js';
import { uriOf } from './support/client.js';

describe('intentPath', () => {
  const wt = '/home/dev/tree';
  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['./src/../src/a.ts', 'src/a.ts'],
    ['src\\win\\a.ts', 'src/win/a.ts'],
    ['/home/dev/tree/src/a.ts', 'src/a.ts'],
    [pathToFileURL('/home/dev/tree/b.ts').href, 'b.ts'],
  ])('maps %s to %s', (item, path) => expect(intentPath(wt, item)).toEqual({ path }));

  it.each([
    '/abs/x.ts',
    '/home/dev/treehouse/a.ts',
    '../x.ts',
    'src/../../x.ts',
    '',
    '.',
    'file://host/%%',
    '.git/config',
    '/home/dev/tree/.git/hooks/x',
  ])('refuses %j with a problem', (item) => {
    const got = intentPath(wt, item);
    expect(got).toMatchObject({ problem: { code: 'INTENT_PATH_REFUSED' } });
    expect('problem' in got && got.problem.message).toMatch(/^declareIntent: .* not declared\.$/);
  });
});

describe('airspace.declareIntent', () => {
  it('declares the paths inside the worktree and refuses an absolute one outside it', async () => {
    const repo = createRepoFixture({ 'a.ts': 'a\n' });
    const client = new InProcessClient({ createScanner });
    try {
      await client.initialize([repo.dir]);
      await client.connection.sendRequest('airspace/scan', { folder: uriOf(repo.dir) });
      const inside = join(realpathSync(repo.dir), 'src/in.ts');
      const out = (await client.connection.sendRequest('workspace/executeCommand', {
        command: 'airspace.declareIntent',
        arguments: [{ files: ['/abs/x.ts', inside, 'b.ts'] }],
      })) as { intent: string[]; problems?: { message: string }[] };
      expect(out.intent).toEqual(['b.ts', 'src/in.ts']);
      expect(out.problems?.map((p) => p.message)).toEqual([
        expect.stringContaining('"/abs/x.ts" is an absolute path outside this worktree'),
      ]);
      await client.until('a warning shown', () => client.notifications.find((n) => n.method === 'window/showMessage'));
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});

describe('declared intent before the first edit', () => {
  it("is keyed by the id git's worktree source gives self, `@n` included", async () => {
    const repo = createRepoFixture({ 'a.ts': 'a\n' });
    const outside = mkdtempSync(join(tmpdir(), 'airspace-intent-'));
    // Two detached worktrees in folders of the same name: git's ids are `wt` and `wt@2`.
    const first = join(outside, 'one', 'wt');
    const second = join(outside, 'two', 'wt');
    repo.git('worktree', 'add', '--detach', first);
    repo.git('worktree', 'add', '--detach', second);
    const asked: (Readonly<Record<string, readonly unknown[]>> | undefined)[] = [];
    const capturing: CreateLspScanner = async (options, context) => {
      const inner = await createScanner(options, context);
      return { scan: (input) => (asked.push(input?.intent), inner.scan(input)), dispose: () => inner.dispose() };
    };
    const client = new InProcessClient({ createScanner: capturing });
    try {
      await client.initialize([second]);
      await client.connection.sendRequest('airspace/scan', {});
      await client.connection.sendRequest('workspace/executeCommand', {
        command: 'airspace.declareIntent',
        arguments: [{ files: ['a.ts'] }],
      });
      await client.connection.sendRequest('airspace/scan', {});
      expect(asked.find((i) => i !== undefined)).toEqual({ 'wt@2': ['a.ts'] });
    } finally {
      await client.close();
      repo.dispose();
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('airspace.declareIntent with symbols', () => {
  it('hands the scanner each symbol with its path, and refuses one without its file', async () => {
    const repo = createRepoFixture({ 'a.ts': 'a\n' });
    const asked: (Readonly<Record<string, readonly unknown[]>> | undefined)[] = [];
    const capturing: CreateLspScanner = async (options, context) => {
      const inner = await createScanner(options, context);
      return { scan: (input) => (asked.push(input?.intent), inner.scan(input)), dispose: () => inner.dispose() };
    };
    const client = new InProcessClient({ createScanner: capturing });
    try {
      await client.initialize([repo.dir]);
      await client.connection.sendRequest('airspace/scan', {});
      const out = (await client.connection.sendRequest('workspace/executeCommand', {
        command: 'airspace.declareIntent',
        arguments: [{ files: ['b.ts'], symbols: ['src/a.ts#Parser.parse', 'nofile'] }],
      })) as { intent: string[]; problems?: { message: string }[] };
      expect(out.intent).toEqual(['b.ts', 'src/a.ts#Parser.parse']);
      expect(out.problems?.map((p) => p.message)).toEqual([expect.stringContaining('"nofile" is not a symbol written as path#name')]);
      await client.connection.sendRequest('airspace/scan', {});
      expect(Object.values(asked.find((i) => i !== undefined) ?? {})).toEqual([['b.ts', { path: 'src/a.ts', symbol: 'Parser.parse' }]]);
    } finally {
      await client.close();
      repo.dispose();
    }
  });
});
