/** The root package.json's workspaces, for the tests that check the repository's own layout. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Workspace package directories (`packages/core`, `test`), from the root package.json's globs. */
export function workspacePackages(root: string): string[] {
  const globs = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  return globs.flatMap((glob) => {
    if (!glob.endsWith('/*')) return [glob];
    const parent = glob.slice(0, -2);
    return readdirSync(join(root, parent))
      .filter((name) => statSync(join(root, parent, name)).isDirectory() && readdirSync(join(root, parent, name)).includes('package.json'))
      .map((name) => `${parent}/${name}`);
  });
}
