/**
 * Where the change that breaks a merged Python line is, for its evidence ("erin changed
 * create_session at src/app/session.py:6–8"). pyright's JSON output carries no related
 * locations, so this reads the sources: a name on the breaking line whose `def` or `class` the
 * other side changed (the block's text differs from the base's), else the module an import line
 * names when the other side changed or removed its file.
 */
import type { BreakSite } from './check.js';
import type { Diag, PairListings } from './compare.js';
import type { BlobTexts } from './tree-fs.js';

/** Module names a file may be imported by: every dotted suffix of its path (`src/app/core.py` → `app.core`, `core`, …). */
export function moduleNames(rel: string): string[] {
  const parts = rel.replace(/\.pyi?$/, '').split('/');
  if (parts[parts.length - 1] === '__init__') parts.pop();
  return parts.map((_, i) => parts.slice(i).join('.')).filter((n) => n.length > 0);
}

interface Block {
  readonly name: string;
  /** 1-based, first (decorators included) to last line. */
  readonly lines: readonly [number, number];
  readonly text: string;
}

const indentOf = (line: string) => /^\s*/.exec(line)![0].length;

/** The `def`/`class` blocks named `name` in a file (methods qualified by their class). */
export function blocksNamed(text: string, name: string): Block[] {
  const lines = text.split(/\r?\n/);
  const out: Block[] = [];
  const head = new RegExp(`^(\\s*)(?:async\\s+def|def|class)\\s+${name}\\b`);
  lines.forEach((line, i) => {
    const m = head.exec(line);
    if (!m) return;
    const indent = m[1]!.length;
    let first = i;
    while (first > 0 && lines[first - 1]!.trim().startsWith('@') && indentOf(lines[first - 1]!) === indent) first--;
    let last = i;
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j]!;
      if (l.trim() === '') continue;
      if (indentOf(l) <= indent && !/^\s*[)\]}]/.test(l)) break;
      last = j;
    }
    let owner: string | undefined;
    for (let j = i - 1; j >= 0 && indent > 0; j--) {
      const c = /^(\s*)class\s+(\w+)/.exec(lines[j]!);
      if (c && c[1]!.length < indent) {
        owner = c[2];
        break;
      }
    }
    out.push({ name: owner ? `${owner}.${name}` : name, lines: [first + 1, last + 1], text: lines.slice(first, last + 1).join('\n') });
  });
  return out;
}

/** The change of `side` that breaks the merged line of `d`, when one can be named. */
export function siteOf(d: Diag, trees: PairListings, texts: BlobTexts, side: 'a' | 'b'): BreakSite | undefined {
  const textOf = (tree: ReadonlyMap<string, string>, rel: string) => {
    const id = tree.get(rel);
    return id ? texts.get(id) : undefined;
  };
  const changed = [...new Set([...trees[side].keys(), ...trees.base.keys()])].filter(
    (p) => /\.pyi?$/.test(p) && trees[side].get(p) !== trees.base.get(p),
  );
  const names = [...new Set(d.text.match(/[A-Za-z_]\w*/g) ?? [])];
  for (const name of names) {
    for (const rel of changed) {
      const merged = textOf(trees.merge, rel);
      if (merged === undefined) continue;
      const before = textOf(trees.base, rel) ?? '';
      const block = blocksNamed(merged, name).find((b) => !before.includes(b.text));
      if (block) return { side, path: rel, name: block.name, lines: block.lines };
    }
  }
  // An import of a module the other side changed or removed.
  const imported = /^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))/.exec(d.text);
  const module = (imported?.[1] ?? imported?.[2])?.replace(/^\.+/, '');
  if (module) {
    const file = changed.find((rel) => moduleNames(rel).includes(module));
    if (file) return { side, path: file };
  }
  return undefined;
}
