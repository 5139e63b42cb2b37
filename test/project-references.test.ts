/**
 * `npm run typecheck` is `tsc -b` over the root tsconfig.json's project references: a package
 * left out of them is never type-checked there. Every workspace package with a tsconfig.json
 * must be referenced. Tests are type-checked by each package's `lint` (`tsc -p tsconfig.test.json`;
 * vitest strips types without checking them), so every workspace package must have one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workspacePackages } from './workspace.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Workspace packages with a tsconfig.json that the root tsconfig.json does not reference. */
export function unreferencedPackages(root: string): string[] {
  const references = (JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as { references: { path: string }[] }).references.map(
    (r) => r.path.replace(/^\.\//, '').replace(/\/$/, ''),
  );
  return workspacePackages(root).filter((pkg) => existsSync(join(root, pkg, 'tsconfig.json')) && !references.includes(pkg));
}

/** Workspace packages without a `lint` script: their tests' types are never checked. */
export function packagesWithoutLint(root: string): string[] {
  return workspacePackages(root).filter((pkg) => {
    const manifest = JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    return !manifest.scripts?.['lint'];
  });
}

describe('tsconfig.json', () => {
  it('references every workspace package that has a tsconfig.json', () => {
    expect(unreferencedPackages(ROOT)).toEqual([]);
  });

  it('every workspace package type-checks its tests', () => {
    expect(packagesWithoutLint(ROOT)).toEqual([]);
  });
});
