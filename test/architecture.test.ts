/**
 * docs/architecture.md stays a true map: every workspace package has a section (a `### <dir>`
 * heading) with an **Invariant:** line, every first-level folder of a package's `src/` is named
 * in that section, every path and identifier the page writes in backticks exists, and the page
 * stays short. The failure says exactly what to fix.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workspacePackages } from './workspace.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC = 'docs/architecture.md';

/** First-level folders of a package's `src/`. */
function srcFolders(root: string, pkg: string): string[] {
  const src = join(root, pkg, 'src');
  try {
    return readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory());
  } catch {
    return [];
  }
}

/** The text of the section headed `### <pkg>` (up to the next `##`/`###` heading), or undefined. */
export function sectionOf(doc: string, pkg: string): string | undefined {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => l === `### ${pkg}` || l.startsWith(`### ${pkg} `));
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && /^#{2,3} /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** What is missing from the doc, one instruction per line. */
export function missingFromDoc(doc: string, root: string): string[] {
  const missing: string[] = [];
  for (const pkg of workspacePackages(root)) {
    const name = (JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8')) as { name: string }).name;
    const section = sectionOf(doc, pkg);
    if (section === undefined) {
      missing.push(
        `${pkg}: add a section "### ${pkg} (\`${name}\`)" under its layer in ${DOC}: what it does in 2–8 lines, its folders, and an "**Invariant:**" line.`,
      );
      continue;
    }
    if (!section.includes('**Invariant:**')) missing.push(`${pkg}: add an "**Invariant:** …" line to its section in ${DOC}.`);
    for (const folder of srcFolders(root, pkg)) {
      if (!section.includes(`${folder}/`))
        missing.push(`${pkg}/src/${folder}/: name \`${folder}/\` in the section "### ${pkg}" of ${DOC}, with what it holds.`);
    }
  }
  return missing;
}

/** Longest the map may grow: it names roles, invariants and key types, not every file. */
const MAX_CHARS = 20_000;

/** Source text searched for identifiers: every package's, plugin's and example's `src/`, and test/. */
function sourceText(root: string): string {
  const dirs = [...workspacePackages(root).map((pkg) => join(root, pkg, pkg === 'test' ? '' : 'src'))];
  const texts: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      // This file names made-up identifiers on purpose.
      if (name === 'node_modules' || name === 'dist' || name === 'architecture.test.ts') continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|tsx|mts|cjs|mjs|js)$/.test(name)) texts.push(readFileSync(path, 'utf8'));
    }
  };
  for (const dir of dirs) walk(dir);
  texts.push(readFileSync(join(root, '.dependency-cruiser.cjs'), 'utf8'));
  return texts.join('\n');
}

/** The names of the files under a folder, at any depth (a section may name `checksum.ts` of `cache/`). */
function fileNamesUnder(dir: string): Set<string> {
  const names = new Set<string>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(at, entry.name));
      else names.add(entry.name);
    }
  };
  if (existsSync(dir)) walk(dir);
  return names;
}

/** The package directory whose section a line of the doc is in, if any. */
function sectionPackages(doc: string, root: string): (string | undefined)[] {
  const packages = new Set(workspacePackages(root));
  let current: string | undefined;
  return doc.split('\n').map((line) => {
    const heading = /^#{2,3} (\S+)/.exec(line);
    if (heading) current = packages.has(heading[1]!) ? heading[1] : undefined;
    return current;
  });
}

/** What the doc names in backticks that does not exist: paths, package names, identifiers. */
export function unresolvedNames(doc: string, root: string): string[] {
  const source = sourceText(root);
  const packageNames = new Set(
    workspacePackages(root).map((pkg) => (JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8')) as { name: string }).name),
  );
  const owners = sectionPackages(doc, root);
  const unresolved: string[] = [];
  doc.split('\n').forEach((line, i) => {
    const pkg = owners[i];
    for (const match of line.matchAll(/`([^`]+)`/g)) {
      const name = match[1]!.replace(/\(\)$/, '');
      // Formulas, commands, shapes and patterns (`<id>`, `*`) are prose, not names.
      if (/[\s<>*…{}[\]=^:]/.test(name) || /[^\x20-\x7e]/.test(name) || name.startsWith('-')) continue;
      if (name.startsWith('@airspace/')) {
        const base = name.split('/').slice(0, 2).join('/');
        if (!packageNames.has(base)) unresolved.push(`${name}: no workspace package is named ${base}`);
        continue;
      }
      if (packageNames.has(name)) continue;
      if (name.includes('/') || /\.(ts|md|json|cjs|mjs|scm)$/.test(name)) {
        const bases = [root, ...(pkg ? [join(root, pkg), join(root, pkg, 'src')] : [])];
        // A bare file name a user writes (`airspace.config.json`) resolves if the code reads it.
        const known =
          bases.some((base) => existsSync(join(base, name))) ||
          (!name.includes('/') &&
            (source.includes(`'${name}'`) || (pkg !== undefined && fileNamesUnder(join(root, pkg, 'src')).has(name))));
        if (!known) unresolved.push(`${name}: no such file or folder${pkg ? ` (nor under ${pkg})` : ''}`);
        continue;
      }
      if (/^[A-Za-z_$][\w$-]*$/.test(name) && !new RegExp(`(^|[^\\w$-])${name.replace(/\$/g, '\\$')}($|[^\\w$-])`).test(source))
        unresolved.push(`${name}: named nowhere in the source`);
    }
  });
  return unresolved;
}

describe(DOC, () => {
  it('is a map, not an inventory: short enough to read', () => {
    expect(readFileSync(join(ROOT, DOC), 'utf8').length).toBeLessThanOrEqual(MAX_CHARS);
  });

  it('names only paths and identifiers that exist', () => {
    expect(unresolvedNames(readFileSync(join(ROOT, DOC), 'utf8'), ROOT)).toEqual([]);
  });

  it('says which name does not resolve', () => {
    const doc =
      '### packages/core (`@airspace/core`)\n`scan.ts`, `scanAirspace`, `notAThingAnywhere`, `src/gone.ts`, `@airspace/nope`, `R = 1 − x`\n';
    expect(unresolvedNames(doc, ROOT)).toEqual([
      'notAThingAnywhere: named nowhere in the source',
      'src/gone.ts: no such file or folder (nor under packages/core)',
      '@airspace/nope: no workspace package is named @airspace/nope',
    ]);
  });

  it('names every workspace package, its src/ folders and an invariant for each', () => {
    expect(missingFromDoc(readFileSync(join(ROOT, DOC), 'utf8'), ROOT)).toEqual([]);
  });

  it('says what to add when a package or a folder is missing', () => {
    const doc = readFileSync(join(ROOT, DOC), 'utf8');
    const withoutCore = doc.replace(/^### packages\/core .*$/m, '### core, renamed');
    expect(missingFromDoc(withoutCore, ROOT)).toEqual([
      `packages/core: add a section "### packages/core (\`@airspace/core\`)" under its layer in ${DOC}: what it does in 2–8 lines, its folders, and an "**Invariant:**" line.`,
    ]);
    const withoutCache = doc.replace(/`cache\/`/g, '`the cache`').replace(/cache\/ /g, '');
    expect(missingFromDoc(withoutCache, ROOT).filter((m) => m.includes('cache'))).toEqual([
      `packages/analysis/src/cache/: name \`cache/\` in the section "### packages/analysis" of ${DOC}, with what it holds.`,
    ]);
  });
});
