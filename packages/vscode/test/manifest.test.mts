/**
 * The extension cannot run here (no VS Code); check what binds it to the server: the manifest's
 * commands exist, the build produced the entry point, and the bundled server resolves.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Commands } from '@airspace/lsp-server';

const manifest = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8')) as {
  main: string;
  contributes: { commands: { command: string }[]; configuration: { properties: Record<string, unknown> } };
};

describe('the VS Code extension package', () => {
  it('contributes only commands that the server or the extension implements', () => {
    const extension = readFileSync(fileURLToPath(new URL('../src/extension.ts', import.meta.url)), 'utf8');
    for (const { command } of manifest.contributes.commands) {
      const known = (Object.values(Commands) as string[]).includes(command) || extension.includes(`registerCommand('${command}'`);
      expect(known, command).toBe(true);
    }
  });

  it('has a built entry point and finds the bundled server', () => {
    expect(existsSync(fileURLToPath(new URL(`../${manifest.main}`, import.meta.url)))).toBe(true);
    const require = createRequire(import.meta.url);
    expect(existsSync(require.resolve('@airspace/lsp-server/bin'))).toBe(true);
  });

  it('offers settings for every server setting it passes on', () => {
    for (const key of ['base', 'sources', 'weights', 'thresholds', 'config', 'debounceMs', 'poll'])
      expect(manifest.contributes.configuration.properties).toHaveProperty(`airspace.${key}`);
  });
});
