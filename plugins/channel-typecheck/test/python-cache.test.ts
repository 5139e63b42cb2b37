/**
 * What the Python check asks pyright, with a stand-in pyright that logs the files it is asked and
 * flags `use(NAME)` where its tree defines no `NAME` (so an error can be the merge's alone): a
 * file's errors are cached by its text, what it imports and the settings and interpreter of the
 * run, and a file only one side's changes reach is never asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPythonPair } from '../src/python.js';
import { BlobTexts } from '../src/tree-fs.js';

const FAKE = `
const fs = require('fs');
const path = require('path');
const args = process.argv.slice(2);
const files = args.filter((a) => a.endsWith('.py'));
fs.appendFileSync(path.join(__dirname, 'runs.log'), JSON.stringify(files) + '\\n');
const config = JSON.parse(fs.readFileSync(args[args.indexOf('-p') + 1], 'utf8'));
const roots = config.executionEnvironments.map((e) => e.root);
const texts = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? texts(path.join(dir, e.name)) : e.name.endsWith('.py') ? [fs.readFileSync(path.join(dir, e.name), 'utf8')] : []);
const diags = [];
for (const file of files) {
  const all = texts(roots.find((r) => file.startsWith(r + '/'))).join('\\n');
  fs.readFileSync(file, 'utf8').split('\\n').forEach((line, i) => {
    const used = /use\\((\\w+)\\)/.exec(line);
    if (used && !all.includes('def ' + used[1] + '('))
      diags.push({ file, severity: 'error', rule: 'reportUndefined', message: used[1] + ' is not defined', range: { start: { line: i, character: 0 } } });
  });
}
process.stdout.write(JSON.stringify({ generalDiagnostics: diags }));
process.exit(diags.length > 0 ? 1 : 0);
`;

type Files = Record<string, string | null>;

let dir: string;
let root: string;
let pyright: string;
let trees = 0;
const texts = new BlobTexts();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fake-pyright-'));
  pyright = join(dir, 'fake.cjs');
  writeFileSync(pyright, FAKE);
  root = join(dir, 'repo');
  mkdirSync(root);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A listing of `files` (blob ids by content, as git's), their texts known. */
function listing(files: Files): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, text] of Object.entries(files)) {
    if (text === null) continue;
    const id = createHash('sha1').update(text).digest('hex');
    texts.set(id, text);
    out.set(path, id);
  }
  return out;
}

/** Checks the pair of sides `a` and `b` of `base` (merged by applying both); returns the result and the files pyright was asked, per run. */
async function check(base: Files, a: Files, b: Files, at = root) {
  const log = join(dir, 'runs.log');
  rmSync(log, { force: true });
  const n = ++trees;
  const result = await checkPythonPair({
    root: at,
    trees: {
      base: listing(base),
      a: listing({ ...base, ...a }),
      b: listing({ ...base, ...b }),
      merge: listing({ ...base, ...a, ...b }),
    },
    ids: { base: `t${n}-base`, a: `t${n}-a`, b: `t${n}-b`, merge: `t${n}-merge` },
    texts,
    pyright,
    importerDepth: 3,
    maxFiles: 400,
    deadline: Date.now() + 60_000,
  });
  let runs: string[][] = [];
  try {
    runs = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as string[]).map((f) => f.replace(/^.*\/(t\d+-\w+)\//, '$1:').replace(/^t\d+-/, '')));
  } catch {
    runs = [];
  }
  return { result, runs };
}

const errorsOf = (r: Awaited<ReturnType<typeof check>>['result']) =>
  r.status === 'checked' ? r.errors.map((e) => `${e.diag.path}:${e.diag.line} ${e.diag.message}`) : [r.reason];

const BASE: Files = {
  'src/shop/__init__.py': '',
  'src/shop/core.py': 'def old() -> int:\n    return 1\n',
  'src/shop/other.py': 'def label() -> str:\n    return "x"\n',
};
const RENAME: Files = { 'src/shop/core.py': 'def new() -> int:\n    return 1\n' };
const CALL: Files = { 'src/shop/use.py': 'from shop.core import old\n\nuse(old)\n' };

describe('pyright errors cached by what a file reads', () => {
  it('a second check of the same states asks pyright nothing, with the same new error', async () => {
    const first = await check(BASE, RENAME, CALL);
    expect(errorsOf(first.result)).toEqual(['src/shop/use.py:3 old is not defined']);
    // The merge's file, then the same file in the sides that have it (the base and a do not).
    expect(first.runs).toEqual([['merge:src/shop/use.py'], ['b:src/shop/use.py']]);
    const again = await check(BASE, RENAME, CALL);
    expect(errorsOf(again.result)).toEqual(['src/shop/use.py:3 old is not defined']);
    expect(again.runs).toEqual([]);
  });

  it('a changed text, of the file or of a module it imports, is asked again', async () => {
    await check(BASE, RENAME, CALL);
    const edited = await check(BASE, RENAME, { 'src/shop/use.py': 'from shop.core import old\n\n\nuse(old)\n' });
    expect(errorsOf(edited.result)).toEqual(['src/shop/use.py:4 old is not defined']);
    expect(edited.runs).toEqual([['merge:src/shop/use.py'], ['b:src/shop/use.py']]);
    // a's core.py fixed: the merge's use.py reads another core.py (b's own use.py is cached).
    const fixed = await check(BASE, { 'src/shop/core.py': 'def new() -> int:\n    return 1\n\n\ndef old() -> int:\n    return 2\n' }, CALL);
    expect(errorsOf(fixed.result)).toEqual([]);
    expect(fixed.runs).toEqual([['merge:src/shop/use.py']]);
  });

  it("a change of the project's pyright settings, or of the interpreter, is asked again", async () => {
    await check(BASE, RENAME, CALL);
    const strict = await check({ ...BASE, 'pyproject.toml': '[tool.pyright]\ntypeCheckingMode = "strict"\n' }, RENAME, CALL);
    expect(strict.runs).toEqual([['merge:src/shop/use.py'], ['b:src/shop/use.py']]);
    const venv = join(dir, 'with-venv');
    mkdirSync(join(venv, '.venv', 'bin'), { recursive: true });
    writeFileSync(join(venv, '.venv', 'bin', 'python'), '');
    const other = await check(BASE, RENAME, CALL, venv);
    expect(errorsOf(other.result)).toEqual(['src/shop/use.py:3 old is not defined']);
    expect(other.runs).toEqual([['merge:src/shop/use.py'], ['b:src/shop/use.py']]);
  });
});

describe('files only one side reaches are not asked', () => {
  it('changes in modules that do not import each other: clear, and no pyright run', async () => {
    const apart = await check(BASE, RENAME, { 'src/shop/other.py': 'def label() -> str:\n    return "y"\n' });
    expect(apart.result).toMatchObject({ status: 'checked', files: 2, errors: [] });
    expect(apart.runs).toEqual([]);
  });

  it('a file reaching the other side through a module in between, or a module the other side removed, is asked', async () => {
    const through = await check(BASE, RENAME, {
      'src/shop/mid.py': 'from shop import core\n',
      'src/shop/far.py': 'from shop.mid import core\n\nuse(old)\n',
    });
    expect(errorsOf(through.result)).toEqual(['src/shop/far.py:3 old is not defined']);
    expect(through.runs[0]!.sort()).toEqual(['merge:src/shop/far.py', 'merge:src/shop/mid.py']);
    const removed = await check(BASE, { 'src/shop/other.py': null }, { 'src/shop/tag.py': 'import shop.other\n# tags\n' });
    expect(removed.runs).toEqual([['merge:src/shop/tag.py']]);
  });
});
