/**
 * docs/architecture.md stays a true map: every workspace package has a section (a `### <dir>`
 * heading) with an **Invariant:** line, and every first-level folder of a package's `src/` is named
 * in that section. The failure says exactly what to add.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
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

describe(DOC, () => {
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
