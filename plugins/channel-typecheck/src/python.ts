/**
 * Type-checking a pair's merge of Python with pyright (`pyright.ts`), as `check.ts` does for
 * TypeScript: the files the merge changes and their importers that reach both sides' changes
 * (`affectedFiles`), of which only those whose text or imports, transitively, reach a change of
 * each side (`reachedByBoth`: any other file reads in the merge what it reads in one side's tree,
 * so it cannot have a new error), are checked in the merged tree first; the base and the two sides
 * only when the merge has errors, and only in those files. A file's errors are cached by what they
 * depend on (`diagnosticsKey`), so a state already checked is not checked again, and a check that
 * finds nothing to ask runs no pyright. A merge error counts when neither side nor the base
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
  diagnosticsKey,
  findPyright,
  inDir,
  isPyrightInput,
  isPythonPath,
  materialise,
  pyrightDiagnostics,
  runPyright,
  venvPython,
  type PyrightDiagnostic,
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

const failed = <T extends object>(a: T | { readonly failed: string }): a is { readonly failed: string } => 'failed' in a;

/** Type-checks the Python of a pair's merge; never throws for the project's faults (a `not-checked` reason). */
export async function checkPythonPair(input: PythonCheckInput): Promise<CheckResult> {
  try {
    return await checkPython(input);
  } catch (e) {
    return { status: 'not-checked', reason: `pyright could not be run: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    // A check that asked pyright nothing (every file pruned or cached) holds no one's run.
    input.release?.();
  }
}

type Tree = 'base' | 'a' | 'b' | 'merge';

async function checkPython(input: PythonCheckInput): Promise<CheckResult> {
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
  const graphs = new Map<Tree, ImportGraph>();
  const graphOf = (which: Tree) => graphs.get(which) ?? graphs.set(which, importGraph(trees[which], texts)).get(which)!;
  // Only a file both sides' changes reach can read in the merge what it reads in neither side.
  const reached = reachedByBoth(trees, graphOf('merge'));
  const candidates = affected.filter((rel) => reached.has(rel));
  const files = candidates.slice(0, input.maxFiles);
  const truncated = candidates.length - files.length;
  const result = { status: 'checked' as const, config: `pyright (${config})`, files: affected.length - truncated, truncated };
  if (files.length === 0) return { ...result, errors: [] };

  const pythonPath = venvPython(input.root);
  const run = { cli, settings, extraPaths, ...(pythonPath ? { pythonPath } : {}) };
  /** The errors of these files of these trees: cached, or from one pyright run for the rest. */
  const diagnose = async (wanted: readonly (readonly [Tree, string])[]): Promise<Map<string, readonly Diag[]> | { failed: string }> => {
    const out = new Map<string, readonly Diag[]>();
    const misses = new Map<string, (readonly [Tree, string])[]>();
    for (const [which, rel] of wanted) {
      const key = diagnosticsKey(run, rel, readsOf(graphOf(which), trees[which], rel));
      const hit = pyrightDiagnostics.get(key);
      if (hit) out.set(`${which}\0${rel}`, hit);
      else (misses.get(key) ?? misses.set(key, []).get(key)!).push([which, rel]);
    }
    if (misses.size === 0) return out;
    // One tree per file to check: the others with the same key read the same.
    const asked = [...misses.values()].map((same) => same[0]!);
    const dirs = new Map<Tree, string>();
    for (const [which] of asked) if (!dirs.has(which)) dirs.set(which, materialise(ids[which], trees[which], texts));
    const answer = await runPyright(
      { ...run, roots: [...dirs.values()], files: asked.map(([which, rel]) => inDir(dirs.get(which)!, rel)), deadline: input.deadline },
      input.release,
    );
    if (failed(answer)) return answer;
    for (const [key, same] of misses) {
      const [which, rel] = same[0]!;
      const diags = diagsOf(answer, dirs.get(which)!, rel, textIn(trees[which], rel));
      pyrightDiagnostics.set(key, diags);
      for (const [w, r] of same) out.set(`${w}\0${r}`, diags);
    }
    return out;
  };

  const merged = await diagnose(files.map((rel) => ['merge', rel] as const));
  if (failed(merged)) return { status: 'not-checked', reason: merged.failed };
  const erring = files.filter((rel) => (merged.get(`merge\0${rel}`) ?? []).length > 0);
  if (erring.length === 0) return { ...result, errors: [] };

  // Errors in the merge: the same files in the base and each side.
  const sides = ['base', 'a', 'b'] as const;
  const others = await diagnose(
    sides.flatMap((which) => erring.filter((rel) => trees[which].has(rel)).map((rel) => [which, rel] as const)),
  );
  if (failed(others)) return { status: 'not-checked', reason: others.failed };
  const errors: NewError[] = [];
  for (const rel of erring) {
    const prior = sides.map((which) => others.get(`${which}\0${rel}`) ?? []);
    for (const d of newErrors(merged.get(`merge\0${rel}`)!, prior)) {
      const { reader, readerLine } = readerOf(d, trees, (id) => texts.get(id));
      const breaker = reader ? (reader === 'a' ? 'b' : 'a') : undefined;
      const site = breaker ? siteOf(d, trees, texts, breaker) : undefined;
      errors.push({ diag: d, ...(reader ? { reader } : {}), ...(readerLine ? { readerLine } : {}), ...(site ? { site } : {}) });
    }
  }
  return { ...result, errors };
}

/** Proper dotted prefixes of a module name: `a.b.c` → `a`, `a.b`. */
const parentsOf = (module: string): string[] => {
  const parts = module.split('.');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('.'));
};

const push = (map: Map<string, string[]>, key: string, value: string) => (map.get(key) ?? map.set(key, []).get(key)!).push(value);

/** Files by the module names they may be imported by (`moduleNames`), and by each package above those names. */
class ModuleIndex {
  private readonly exact = new Map<string, string[]>();
  private readonly under = new Map<string, string[]>();
  constructor(paths: Iterable<string>) {
    for (const rel of paths)
      for (const name of moduleNames(rel)) {
        push(this.exact, name, rel);
        for (const parent of parentsOf(name)) push(this.under, parent, rel);
      }
  }
  /**
   * The files an import of `module` may read: the module, the packages above it (their
   * `__init__`), and the modules under it (a `from package import name` may name a submodule).
   */
  related(module: string): string[] {
    return [
      ...(this.exact.get(module) ?? []),
      ...(this.under.get(module) ?? []),
      ...parentsOf(module).flatMap((p) => this.exact.get(p) ?? []),
    ];
  }
}

/** A tree's Python files: what each imports (module names), and the files those imports may read. */
interface ImportGraph {
  readonly imports: ReadonlyMap<string, readonly string[]>;
  readonly reads: ReadonlyMap<string, ReadonlySet<string>>;
}

function importGraph(tree: ReadonlyMap<string, string>, texts: BlobTexts): ImportGraph {
  const python = [...tree.keys()].filter(isPythonPath);
  const index = new ModuleIndex(python);
  const imports = new Map<string, string[]>();
  const reads = new Map<string, Set<string>>();
  for (const rel of python) {
    const modules = importedModules(rel, texts.get(tree.get(rel)!) ?? '');
    imports.set(rel, modules);
    reads.set(rel, new Set(modules.flatMap((m) => index.related(m)).filter((f) => f !== rel)));
  }
  return { imports, reads };
}

/** The files `rel` reads in its tree, itself included, transitively: path → blob id. */
function readsOf(graph: ImportGraph, tree: ReadonlyMap<string, string>, rel: string): Map<string, string> {
  const seen = new Map<string, string>([[rel, tree.get(rel) ?? '']]);
  const todo = [rel];
  for (let f = todo.pop(); f !== undefined; f = todo.pop())
    for (const g of graph.reads.get(f) ?? []) if (!seen.has(g)) (seen.set(g, tree.get(g)!), todo.push(g));
  return seen;
}

/**
 * The merged files whose text or imports (transitively, over-approximated as `ModuleIndex`
 * relates them) reach a change of each side. Any other merged file reads in the merge exactly what
 * it reads in the tree of the side whose changes it does not reach (the same texts, the same
 * modules present or absent), so pyright says the same of it there: it cannot have a new error.
 * A side that changes pyright's configuration reaches every file.
 */
function reachedByBoth(trees: PairListings, graph: ImportGraph): Set<string> {
  const reachedBy = (side: 'a' | 'b'): Set<string> => {
    const changed = [...changedPaths(trees.base, trees[side])];
    if (changed.some((p) => isPyrightInput(p) && !isPythonPath(p))) return new Set(graph.imports.keys());
    const own = new Set(changed.filter(isPythonPath));
    const index = new ModuleIndex(own);
    const reached = new Set<string>();
    for (const [rel, modules] of graph.imports) if (own.has(rel) || modules.some((m) => index.related(m).length > 0)) reached.add(rel);
    // Then every file that reads a reached one.
    const readers = new Map<string, string[]>();
    for (const [rel, read] of graph.reads) for (const g of read) push(readers, g, rel);
    const todo = [...reached];
    for (let f = todo.pop(); f !== undefined; f = todo.pop())
      for (const r of readers.get(f) ?? []) if (!reached.has(r)) (reached.add(r), todo.push(r));
    return reached;
  };
  const ofA = reachedBy('a');
  return new Set([...reachedBy('b')].filter((f) => ofA.has(f)));
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
