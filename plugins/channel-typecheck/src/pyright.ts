/**
 * Running pyright (npm package `pyright`, its CLI with `--outputjson`) over git trees. pyright
 * reads files from disk, so each tree's Python files are written once, from their blobs, to a
 * private temporary directory of the process (one directory per tree id, reused by every scan
 * while it lives, removed at exit): never to a work tree. One pyright process checks several
 * trees at once, one execution environment per tree (each tree is its own import root, `src/`
 * and the project's `extraPaths` included); requests made within a few milliseconds of each
 * other, or by checks started together (`holdRuns`), share one process, since pyright's start-up (reading typeshed's builtins) is most of a small
 * check's cost.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Diag } from './compare.js';
import type { BlobTexts } from './tree-fs.js';

/** A Python source or stub of the project (not a virtual environment's, not installed dependencies'). */
export const isPythonPath = (path: string): boolean =>
  /\.pyi?$/.test(path) && !/(?:^|\/)(?:node_modules|site-packages|\.?venv|\.tox|\.nox)\//.test(path);

/** Files of a tree pyright reads: Python sources, and the configuration the project's settings come from. */
export const isPyrightInput = (path: string): boolean => isPythonPath(path) || path === 'pyproject.toml' || path === 'pyrightconfig.json';

/** The pyright CLI to run: `configured` (a path), else the installed npm package's; undefined when neither is there. */
export function findPyright(configured: string): string | undefined {
  if (configured) return existsSync(configured) ? configured : undefined;
  try {
    const cli = join(dirname(createRequire(import.meta.url).resolve('pyright/package.json')), 'index.js');
    return existsSync(cli) ? cli : undefined;
  } catch {
    return undefined;
  }
}

/** The interpreter of the repository's own virtual environment, if it has one (read, never written). */
export function venvPython(root: string): string | undefined {
  for (const dir of ['.venv', 'venv']) {
    const python = join(root, dir, 'bin', 'python');
    if (existsSync(python)) return python;
  }
  return undefined;
}

/** `dir/rel`: where a tree's file is in its scratch directory. */
export const inDir = (dir: string, rel: string): string => join(dir, rel);

/** One error or warning pyright reports, as `--outputjson` writes it. */
export interface PyrightDiagnostic {
  readonly file: string;
  readonly severity: 'error' | 'warning' | 'information';
  readonly message: string;
  readonly rule?: string;
  readonly range: { readonly start: { readonly line: number; readonly character: number } };
}

let scratch: string | undefined;
/** Tree id → its directory, oldest first. */
const written = new Map<string, string>();
const MAX_TREES = 24;

function scratchDir(): string {
  if (!scratch) {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-pyright-'));
    scratch = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return scratch;
}

/** The directory holding a tree's Python files (written on first use). */
export function materialise(treeId: string, listing: ReadonlyMap<string, string>, texts: BlobTexts): string {
  const known = written.get(treeId);
  if (known && existsSync(known)) return known;
  if (written.size >= MAX_TREES) {
    const [oldest, dir] = written.entries().next().value as [string, string];
    written.delete(oldest);
    rmSync(dir, { recursive: true, force: true });
  }
  const dir = join(scratchDir(), treeId);
  rmSync(dir, { recursive: true, force: true });
  for (const [path, id] of listing) {
    if (!isPythonPath(path)) continue;
    const text = texts.get(id);
    if (text === undefined) continue;
    const abs = join(dir, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  }
  mkdirSync(dir, { recursive: true });
  written.set(treeId, dir);
  return dir;
}

/**
 * pyright's errors of one file, by everything they depend on (`diagnosticsKey`), for the life of
 * the process: a file whose text, imports and settings are those of a state already checked (the
 * same base at every fraction of a replayed merge, a side equal to an earlier merge) is not
 * checked again. Bounded: the oldest entries go first.
 */
export class DiagnosticCache {
  private readonly byKey = new Map<string, readonly Diag[]>();
  constructor(private readonly max = 50_000) {}
  get(key: string): readonly Diag[] | undefined {
    return this.byKey.get(key);
  }
  set(key: string, diags: readonly Diag[]): void {
    this.byKey.delete(key);
    if (this.byKey.size >= this.max) this.byKey.delete(this.byKey.keys().next().value as string);
    this.byKey.set(key, diags);
  }
}

/** The process's cache of pyright's errors (`DiagnosticCache`). */
export const pyrightDiagnostics = new DiagnosticCache();

/**
 * What a file's pyright errors depend on: pyright itself, the settings and import roots of the
 * run, the interpreter whose packages resolve third-party imports, the file's path, and every
 * file of its tree its imports may read, transitively (`reads`: path → blob id, the file's own
 * included), so that a change anywhere it can see, an added or a removed module, is a new key.
 */
export function diagnosticsKey(
  run: Pick<PyrightRequest, 'cli' | 'settings' | 'extraPaths' | 'pythonPath'>,
  rel: string,
  reads: ReadonlyMap<string, string>,
): string {
  const hash = createHash('sha256').update(JSON.stringify([run.cli, run.settings, run.extraPaths, run.pythonPath ?? '', rel]));
  for (const path of [...reads.keys()].sort()) hash.update(`\n${path}\0${reads.get(path)}`);
  return hash.digest('hex');
}

/** What one check asks pyright: these files, in these trees (directories), under these settings. */
export interface PyrightRequest {
  readonly cli: string;
  /** The project's own settings (`pyproject.toml`'s `[tool.pyright]`, `pyrightconfig.json`), for every tree. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** Directories (of `extraPaths`, `src`) added to each tree's import roots, relative to the tree. */
  readonly extraPaths: readonly string[];
  /** The interpreter whose installed packages resolve third-party imports, if the repository has one. */
  readonly pythonPath?: string;
  readonly roots: readonly string[];
  /** Absolute paths of the files to check. */
  readonly files: readonly string[];
  readonly deadline: number;
}

/** Diagnostics by absolute file, or why pyright could not check. */
export type PyrightAnswer = ReadonlyMap<string, PyrightDiagnostic[]> | { readonly failed: string };

interface Pending {
  readonly request: PyrightRequest;
  readonly resolve: (answer: PyrightAnswer) => void;
}

let pending: Pending[] = [];
/** How long a request waits for others to share its process (small beside pyright's start-up). */
const GATHER_MS = 30;
/** How long held checks may keep a request waiting at most. */
const HOLD_MS = 5_000;
/** Checks started together that have not asked yet (`holdRuns`). */
let holders = 0;
let gathered = false;
let batch = 0;

/**
 * Holds the next run until this check has asked (the `release` given to `runPyright`) or ended
 * (calling the returned function; again is harmless): checks started together share one run
 * however long their git work takes (`HOLD_MS` at most).
 */
export function holdRuns(): () => void {
  holders++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holders--;
    if (gathered && holders === 0 && pending.length > 0) flush();
  };
}

/**
 * Checks the request's files; requests made within `GATHER_MS` (or while checks started together
 * are held) with the same settings share one pyright process. `release`: this check's hold.
 */
export function runPyright(request: PyrightRequest, release?: () => void): Promise<PyrightAnswer> {
  return new Promise((resolve) => {
    if (pending.length === 0) {
      const mine = ++batch;
      gathered = false;
      setTimeout(() => {
        gathered = true;
        if (mine === batch && holders === 0 && pending.length > 0) flush();
      }, GATHER_MS);
      setTimeout(() => mine === batch && pending.length > 0 && flush(), HOLD_MS);
    }
    pending.push({ request, resolve });
    release?.();
  });
}

function flush(): void {
  batch++;
  gathered = false;
  const groups = new Map<string, Pending[]>();
  for (const p of pending) {
    const r = p.request;
    const key = JSON.stringify([r.cli, r.settings, r.extraPaths, r.pythonPath ?? '']);
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(p);
  }
  pending = [];
  for (const group of groups.values()) {
    const first = group[0]!.request;
    const merged: PyrightRequest = {
      ...first,
      roots: [...new Set(group.flatMap((p) => p.request.roots))],
      files: [...new Set(group.flatMap((p) => p.request.files))],
      deadline: Math.min(...group.map((p) => p.request.deadline)),
    };
    void spawnPyright(merged).then((answer) => {
      for (const p of group) p.resolve(answer);
    });
  }
}

/** The configuration of one run: the project's settings, and one execution environment per tree. */
function configOf(r: PyrightRequest): Record<string, unknown> {
  const environments = r.roots.map((root) => {
    const extra = r.extraPaths.map((p) => join(root, p)).filter((p) => existsSync(p));
    return { root, ...(extra.length > 0 ? { extraPaths: extra } : {}) };
  });
  return { ...r.settings, executionEnvironments: environments };
}

let runs = 0;

async function spawnPyright(r: PyrightRequest): Promise<PyrightAnswer> {
  if (r.files.length === 0) return new Map();
  const config = join(scratchDir(), `pyrightconfig-${process.pid}-${++runs}.json`);
  writeFileSync(config, JSON.stringify(configOf(r)));
  const args = [r.cli, '--outputjson', '-p', config, ...(r.pythonPath ? ['--pythonpath', r.pythonPath] : []), ...r.files];
  const ms = r.deadline - Date.now();
  if (ms <= 0) return { failed: 'time limit reached' };
  const out = await new Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: scratchDir(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), ms);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', (e) => (clearTimeout(timer), resolve({ code: null, stdout, stderr: e.message, timedOut })));
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr, timedOut })));
  });
  rmSync(config, { force: true });
  if (out.timedOut) return { failed: 'time limit reached' };
  return parseAnswer(out.code, out.stdout, out.stderr);
}

/** pyright's JSON answer by file; exit 0 (no errors) and 1 (errors) answer, anything else failed. */
function parseAnswer(code: number | null, stdout: string, stderr: string): PyrightAnswer {
  let parsed: { generalDiagnostics?: PyrightDiagnostic[] } | undefined;
  try {
    parsed = JSON.parse(stdout) as { generalDiagnostics?: PyrightDiagnostic[] };
  } catch {
    parsed = undefined;
  }
  if ((code !== 0 && code !== 1) || !parsed || !Array.isArray(parsed.generalDiagnostics)) {
    const said = (stderr || stdout).trim().split('\n')[0]?.slice(0, 200);
    return { failed: `pyright failed (exit ${code ?? 'none'})${said ? `: ${said}` : ''}` };
  }
  const byFile = new Map<string, PyrightDiagnostic[]>();
  for (const d of parsed.generalDiagnostics) (byFile.get(d.file) ?? byFile.set(d.file, []).get(d.file)!).push(d);
  return byFile;
}
