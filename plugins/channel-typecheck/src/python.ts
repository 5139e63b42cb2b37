/**
 * Type-checking a pair's merge of Python with pyright (`pyright.ts`), as `check.ts` does for
 * TypeScript: the files the merge changes and their importers that reach both sides' changes
 * (`affectedFiles`), checked in the merged tree first; the base and the two sides only when the
 * merge has errors, and only in those files. A merge error counts when neither side nor the base
 * has it (`newErrors`: file, rule and message, lines mapped by their text), so an import of a
 * package that is not installed, a base that does not type-check or a side that does not alone
 * never counts. Only errors count (pyright's warnings and notes do not).
 *
 * The project's settings come from the merged tree's `pyrightconfig.json` or `pyproject.toml`
 * (`[tool.pyright]`, its one-line keys); `include`/`exclude` do not apply (the files checked are
 * the affected ones). Third-party imports resolve against the repository's own virtual
 * environment (`.venv`, `venv`) when it has one, read from disk, never written.
 */
import type { CheckResult, NewError } from './check.js';
import { affectedFiles, changedPaths, newErrors, readerOf, type Diag, type PairListings } from './compare.js';
import {
  findPyright,
  inDir,
  isPythonPath,
  materialise,
  runPyright,
  venvPython,
  type PyrightAnswer,
  type PyrightDiagnostic,
  type PyrightRequest,
} from './pyright.js';
import { moduleNames, siteOf } from './python-site.js';
import type { BlobTexts } from './tree-fs.js';

export interface PythonCheckInput {
  /** The repository's root (where its virtual environment may be). */
  readonly root: string;
  readonly trees: PairListings;
  /** The trees' ids (their scratch directories are named by them). */
  readonly ids: { readonly base: string; readonly a: string; readonly b: string; readonly merge: string };
  readonly texts: BlobTexts;
  /** The pyright CLI to run ('' for the installed npm package). */
  readonly pyright: string;
  readonly importerDepth: number;
  readonly maxFiles: number;
  readonly deadline: number;
  /** Releases this check's hold on pyright's next run (`holdRuns`) once it has asked. */
  readonly release?: () => void;
}

/** The Python files a pair's merge changes (present in the merge); none: the pair has no Python to check. */
export function changedPython(trees: PairListings): string[] {
  return [...changedPaths(trees.base, trees.merge)].filter((p) => isPythonPath(p) && trees.merge.has(p));
}

/** The project's pyright settings and extra import roots, from the merged tree. */
function projectSettings(
  trees: PairListings,
  texts: BlobTexts,
): { settings: Record<string, unknown>; extraPaths: string[]; config: string } {
  const read = (p: string) => {
    const id = trees.merge.get(p);
    return id ? texts.get(id) : undefined;
  };
  let settings: Record<string, unknown> = {};
  let config = 'pyright defaults';
  const json = read('pyrightconfig.json');
  const toml = read('pyproject.toml');
  if (json !== undefined) {
    try {
      settings = JSON.parse(json.replace(/^\s*\/\/.*$/gm, '')) as Record<string, unknown>;
      config = 'pyrightconfig.json';
    } catch {
      settings = {};
    }
  } else if (toml !== undefined && /^\[tool\.pyright\]\s*$/m.test(toml)) {
    settings = tomlSection(toml, 'tool.pyright');
    config = 'pyproject.toml';
  }
  const extra = Array.isArray(settings.extraPaths) ? settings.extraPaths.filter((p): p is string => typeof p === 'string') : [];
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(settings))
    if (
      ![
        'include',
        'exclude',
        'ignore',
        'strict',
        'executionEnvironments',
        'venvPath',
        'venv',
        'extraPaths',
        'stubPath',
        'projectRoot',
      ].includes(k)
    )
      kept[k] = v;
  return { settings: kept, extraPaths: [...new Set(['src', ...extra])], config };
}

/** The one-line `key = value` entries of a TOML section (strings, booleans, numbers, arrays of strings). */
function tomlSection(toml: string, name: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let inside = false;
  for (const line of toml.split(/\r?\n/)) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) {
      inside = header[1]!.trim() === name;
      continue;
    }
    const entry = inside ? /^\s*([A-Za-z_][\w-]*)\s*=\s*(.+?)\s*(?:#.*)?$/.exec(line) : null;
    if (!entry) continue;
    const raw = entry[2]!.replace(/'/g, '"');
    try {
      out[entry[1]!] = JSON.parse(raw);
    } catch {
      // A multi-line or unusual value: left to pyright's defaults.
    }
  }
  return out;
}

/** pyright's errors of a file of one tree, as diagnostics to compare. */
function diagsOf(answer: ReadonlyMap<string, readonly PyrightDiagnostic[]>, dir: string, rel: string, text: string | undefined): Diag[] {
  const lines = (text ?? '').split(/\r?\n/);
  return (answer.get(inDir(dir, rel)) ?? [])
    .filter((d) => d.severity === 'error')
    .map((d) => {
      const line = d.range.start.line + 1;
      return { path: rel, line, code: d.rule ?? 'error', message: d.message, text: (lines[line - 1] ?? '').trim(), start: 0 };
    });
}

const failed = (a: PyrightAnswer): a is Extract<PyrightAnswer, { readonly failed: string }> => 'failed' in a;

/** Type-checks the Python of a pair's merge; never throws for the project's faults (a `not-checked` reason). */
export async function checkPythonPair(input: PythonCheckInput): Promise<CheckResult> {
  const { trees, ids, texts } = input;
  const cli = findPyright(input.pyright);
  if (!cli) return { status: 'not-checked', reason: 'the Python type checker (npm package pyright) is not installed' };
  const { settings, extraPaths, config } = projectSettings(trees, texts);
  const textIn = (tree: ReadonlyMap<string, string>, rel: string) => {
    const id = tree.get(rel);
    return id ? texts.get(id) : undefined;
  };
  const changed = changedPython(trees);
  const importers = input.importerDepth > 0 ? importersIndex(trees.merge, texts) : new Map<string, Set<string>>();
  const affected = [...affectedFiles(changed, trees, importers, input.importerDepth)];
  const files = affected.slice(0, input.maxFiles);
  const truncated = affected.length - files.length;
  const pythonPath = venvPython(input.root);
  const ask = (roots: string[], abs: string[]) =>
    runPyright(
      {
        cli,
        settings,
        extraPaths,
        ...(pythonPath ? { pythonPath } : {}),
        roots,
        files: abs,
        deadline: input.deadline,
      } satisfies PyrightRequest,
      input.release,
    );
  try {
    const mergeDir = materialise(ids.merge, trees.merge, texts);
    const merged = await ask(
      [mergeDir],
      files.map((f) => inDir(mergeDir, f)),
    );
    if (failed(merged)) return { status: 'not-checked', reason: merged.failed };
    const mergeDiags = new Map<string, Diag[]>();
    for (const rel of files) {
      const d = diagsOf(merged, mergeDir, rel, textIn(trees.merge, rel));
      if (d.length > 0) mergeDiags.set(rel, d);
    }
    const result = { status: 'checked' as const, config: `pyright (${config})`, files: files.length, truncated };
    if (mergeDiags.size === 0) return { ...result, errors: [] };

    // Errors in the merge: the same files in the base and each side, in one run.
    const sides = (['base', 'a', 'b'] as const).map((which) => ({ which, dir: materialise(ids[which], trees[which], texts) }));
    const erring = [...mergeDiags.keys()];
    const others = await ask(
      sides.map((s) => s.dir),
      sides.flatMap((s) => erring.filter((rel) => trees[s.which].has(rel)).map((rel) => inDir(s.dir, rel))),
    );
    if (failed(others)) return { status: 'not-checked', reason: others.failed };
    const errors: NewError[] = [];
    for (const [rel, diags] of mergeDiags) {
      const prior = sides.map((s) => diagsOf(others, s.dir, rel, textIn(trees[s.which], rel)));
      for (const d of newErrors(diags, prior)) {
        const { reader, readerLine } = readerOf(d, trees, (id) => texts.get(id));
        const breaker = reader ? (reader === 'a' ? 'b' : 'a') : undefined;
        const site = breaker ? siteOf(d, trees, texts, breaker) : undefined;
        errors.push({ diag: d, ...(reader ? { reader } : {}), ...(readerLine ? { readerLine } : {}), ...(site ? { site } : {}) });
      }
    }
    return { ...result, errors };
  } catch (e) {
    return { status: 'not-checked', reason: `pyright could not be run: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Modules a file's `import`/`from … import` lines name (dotted, relative ones resolved against its package). */
export function importedModules(rel: string, text: string): string[] {
  const pkg = rel.split('/').slice(0, -1);
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const plain = /^\s*import\s+(.+)$/.exec(line);
    if (plain) {
      for (const part of plain[1]!.split(',')) {
        const name = /^\s*([\w.]+)/.exec(part)?.[1];
        if (name) out.push(name);
      }
      continue;
    }
    const from = /^\s*from\s+(\.*)([\w.]*)\s+import\s+\(?\s*([\w\s,]*)/.exec(line);
    if (!from) continue;
    const dots = from[1]!.length;
    const base =
      dots > 0 ? [...pkg.slice(0, Math.max(0, pkg.length - dots + 1)), ...(from[2] ? from[2].split('.') : [])].join('.') : from[2]!;
    if (base) out.push(base);
    for (const name of from[3]!.split(',')) {
      const n = name.trim().split(/\s+/)[0];
      if (n) out.push(base ? `${base}.${n}` : n);
    }
  }
  return out;
}

/** File → the Python files of the tree that import it. */
function importersIndex(tree: ReadonlyMap<string, string>, texts: BlobTexts): Map<string, Set<string>> {
  const byModule = new Map<string, string[]>();
  for (const rel of tree.keys())
    if (isPythonPath(rel)) for (const m of moduleNames(rel)) (byModule.get(m) ?? byModule.set(m, []).get(m)!).push(rel);
  const index = new Map<string, Set<string>>();
  for (const [from, id] of tree) {
    const text = isPythonPath(from) ? texts.get(id) : undefined;
    if (text === undefined) continue;
    for (const m of importedModules(from, text))
      for (const to of byModule.get(m) ?? []) if (to !== from) (index.get(to) ?? index.set(to, new Set()).get(to)!).add(from);
  }
  return index;
}
