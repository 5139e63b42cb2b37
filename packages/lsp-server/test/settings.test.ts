/**
 * Settings reach the scanner whichever way the client sends them (issue 34): Neovim 0.7 does not
 * advertise `workspace/configuration` yet answers it, `init_options` arrive as
 * initializationOptions, and some clients send `workspace/didChangeConfiguration` without the
 * `airspace` section around the settings. In-process server, stand-in engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import type { CreateLspScanner, LspScannerOptions } from '../src/lsp-scanner.js';
import { settingsIn } from '../src/settings.js';
import { createScanner as createFakeScanner } from './support/fake-scanner.mjs';
import { InProcessClient } from './support/in-process.js';

/** Records the options of every scanner the server creates; scans with the stand-in engine on `main`. */
function recording(): { createScanner: CreateLspScanner; made: LspScannerOptions[] } {
  const made: LspScannerOptions[] = [];
  return {
    made,
    createScanner: (options) => {
      made.push(options);
      return createFakeScanner({ ...options, base: 'main' });
    },
  };
}

/** Waits (bounded) until a scanner was made with `base`. */
async function madeWith(made: readonly LspScannerOptions[], base: string, ms = 10_000): Promise<void> {
  for (const t0 = Date.now(); !made.some((o) => o.base === base); await new Promise((r) => setTimeout(r, 20)))
    if (Date.now() - t0 > ms) throw new Error(`no scanner with base ${base} within ${ms} ms: ${JSON.stringify(made)}`);
}

describe('settings', () => {
  let repo: RepoFixture;
  beforeAll(() => {
    repo = createRepoFixture({ 'x.ts': 'a\n' });
  });
  afterAll(() => repo?.dispose());

  it('are asked for with workspace/configuration even when the client does not advertise it (Neovim 0.7)', async () => {
    const { createScanner, made } = recording();
    const client = new InProcessClient({ createScanner });
    client.connection.onRequest('workspace/configuration', () => [{ base: 'develop' }]);
    try {
      await client.initialize([repo.dir], { workspace: { workspaceFolders: true } });
      await client.connection.sendRequest('airspace/scan', {});
      expect(made.map((o) => o.base)).toEqual(['develop']);
    } finally {
      await client.close();
    }
  });

  it('that arrive late from a client that did not advertise them replace the scanner', async () => {
    const { createScanner, made } = recording();
    const client = new InProcessClient({ createScanner });
    client.connection.onRequest('workspace/configuration', () => new Promise((r) => setTimeout(() => r([{ base: 'late' }]), 1500)));
    try {
      await client.initialize([repo.dir]);
      await madeWith(made, 'late');
      expect(made[0]?.base).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it.each([
    ['{ settings: {…} }', { settings: { base: 'init' } }],
    ['{ airspace: {…} }', { airspace: { base: 'init' } }],
    ['{ settings: { airspace: {…} } }', { settings: { airspace: { base: 'init' } } }],
  ])('come from initializationOptions as %s', async (_, initializationOptions) => {
    const { createScanner, made } = recording();
    const client = new InProcessClient({ createScanner });
    client.connection.onRequest('workspace/configuration', () => new Error('no'));
    try {
      await client.initialize([repo.dir], {}, initializationOptions);
      await client.connection.sendRequest('airspace/scan', {});
      expect(made.map((o) => o.base)).toEqual(['init']);
    } finally {
      await client.close();
    }
  });

  it('sent by didChangeConfiguration without the airspace section still apply', async () => {
    const { createScanner, made } = recording();
    const client = new InProcessClient({ createScanner });
    try {
      await client.initialize([repo.dir]);
      await client.connection.sendRequest('airspace/scan', {});
      await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: { base: 'pushed' } });
      await madeWith(made, 'pushed');
    } finally {
      await client.close();
    }
  });

  it.each([
    [null, undefined],
    [{ clipboard: true }, undefined],
    [{ typescript: { format: {} } }, undefined],
    [{ base: 'b' }, { base: 'b' }],
    [{ airspace: { base: 'b' }, base: 'other' }, { base: 'b' }],
  ])('are found in %j as %j', (payload, expected) => {
    expect(settingsIn(payload)).toEqual(expected);
  });
});
