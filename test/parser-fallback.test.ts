/**
 * The parser the built CLI falls back to (`AIRSPACE_PARSER`, `packages/analysis/src/extract/parser-backend.ts`):
 * the demo through tree-sitter's WebAssembly build gives the native table and says so once; with
 * no parser at all, the channels that need code facts are not checked (never clear) and a
 * `--fail-on` gate fails.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { airspace, ENV } from './run-cli.js';

const withParser = (parser: string) => ({ ...ENV, AIRSPACE_PARSER: parser });

let scratch: string;
let repo: RepoFixture;
let ann: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'airspace-parser-'));
  // Two agents in different files of different folders: clear whichever channels run.
  repo = createRepoFixture(
    { 'src/a.ts': "import { b } from '../lib/b';\nexport const a = b + 1;\n", 'lib/b.ts': 'export const b = 1;\n' },
    { epoch: Math.floor(Date.now() / 1000) - 600 },
  );
  ann = repo.worktree('ann').write('src/a.ts', "import { b } from '../lib/b';\nexport const a = b + 2;\n").dir;
  repo.worktree('ben').write('docs/notes.md', '# notes\n');
});
afterAll(() => {
  repo?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

async function demo(parser: string): Promise<ScanResult> {
  const run = await airspace(['demo', '--json', '--dir', scratch], { env: withParser(parser), timeoutMs: 120_000 });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as ScanResult;
}

/** Every pair's level and risk, and each channel's risk and problem codes. */
const table = (r: ScanResult) =>
  r.links.map((l) => ({
    pair: `${l.a} ${l.b}`,
    level: l.level,
    risk: l.risk.toFixed(2),
    channels: l.channels.map((c) => `${c.channel} ${c.risk.toFixed(2)} ${(c.problems ?? []).map((p) => p.code).join(',')}`),
  }));

describe('the parser', () => {
  it('through wasm, the demo gives the native table and says so once', async () => {
    const native = await demo('native');
    const wasm = await demo('wasm');
    expect(table(native).find((l) => l.pair === 'erin frank')?.level).toBe('resolution');
    expect(table(wasm)).toEqual(table(native));
    expect(native.problems.filter((p) => p.code.startsWith('PARSER_'))).toEqual([]);
    expect(wasm.problems.filter((p) => p.code.startsWith('PARSER_')).map((p) => p.code)).toEqual(['PARSER_WASM']);
    // The printed table too, line for line.
    const printed = (parser: string) => airspace(['demo', '--dir', scratch], { env: withParser(parser), timeoutMs: 120_000 });
    const [nativeTable, wasmTable] = [await printed('native'), await printed('wasm')];
    expect(nativeTable.stdout).toMatch(/erin ↔ frank/);
    expect(wasmTable.stdout).toBe(nativeTable.stdout);
  }, 240_000);

  it('with the native binding missing, auto falls back to wasm: the same table, said once', async () => {
    // A preload that makes `require('tree-sitter')` fail, as where it was never compiled.
    const blocker = join(scratch, 'no-native.cjs');
    writeFileSync(
      blocker,
      "const M = require('node:module');\nconst load = M._load;\nM._load = function (r, ...rest) {\n  if (r === 'tree-sitter') throw new Error('no native binding here');\n  return load.call(this, r, ...rest);\n};\n",
    );
    const env = { ...ENV, AIRSPACE_PARSER: 'auto', NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${blocker}`.trim() };
    const run = await airspace(['demo', '--json', '--dir', scratch], { env, timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    const fallback = JSON.parse(run.stdout) as ScanResult;
    expect(table(fallback)).toEqual(table(await demo('native')));
    const notes = fallback.problems.filter((p) => p.code.startsWith('PARSER_'));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.code).toBe('PARSER_WASM');
    expect(notes[0]!.message).toContain('no native binding here');
  }, 240_000);

  it('with none, the channels that need facts are not checked, with why, and erin ↔ frank is not called a resolution', async () => {
    const none = await demo('none');
    const codes = none.problems.filter((p) => p.code === 'PARSER_UNAVAILABLE');
    expect(codes.map((p) => p.channel ?? '(scan)').sort()).toEqual(['(scan)', 'call-graph', 'dependency', 'symbols']);
    for (const p of codes) expect(p.message).toMatch(/not checked/);
    const erin = none.links.find((l) => l.a === 'erin' && l.b === 'frank')!;
    expect(erin.level).not.toBe('resolution');
    for (const id of ['symbols', 'call-graph', 'dependency']) {
      const part = erin.channels.find((c) => c.channel === id)!;
      expect(part.risk).toBe(0);
      expect(part.problems?.map((p) => p.code)).toEqual(['PARSER_UNAVAILABLE']);
    }
  }, 120_000);

  it('--fail-on fails when no parser loaded, passes the same clear scan with one; --verbose names the wasm parser once', async () => {
    const scan = (parser: string, ...extra: string[]) =>
      airspace(['scan', '--fail-on', 'resolution', '--base', 'main', ...extra], { cwd: repo.dir, env: withParser(parser) });
    const native = await scan('native');
    expect(native.code, native.stderr).toBe(0);
    const none = await scan('none');
    expect(none.code).toBe(1);
    expect(none.stdout).toMatch(/No tree-sitter parser loaded \(AIRSPACE_PARSER=none\): .*not checked/);
    const wasm = await scan('wasm', '--verbose');
    expect(wasm.code, wasm.stderr).toBe(0);
    expect(wasm.stderr.match(/parser: wasm/g)).toHaveLength(1);
    expect(wasm.stdout).not.toMatch(/WebAssembly/);
  }, 120_000);

  // ns.ts holds imports inside a namespace: the import scanner declines it, only tree-sitter reads it.
  it('graph without a parser says why the files it could not read were skipped', async () => {
    // A repository of its own: facts cached by another test's parse would be read, not parsed.
    const own = createRepoFixture({ 'a.ts': 'export const a = 1;\n', 'ns.ts': "namespace N {\n  import y = require('./a');\n}\n" });
    try {
      await graphWithoutParser(own.dir);
    } finally {
      own.dispose();
    }
  }, 120_000);

  async function graphWithoutParser(dir: string): Promise<void> {
    const none = await airspace(['graph'], { cwd: dir, env: withParser('none') });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toMatch(/1 skipped/);
    expect(none.stdout).toMatch(
      /No tree-sitter parser loaded \(AIRSPACE_PARSER=none\): files the import scanner could not read were skipped/,
    );
    const json = JSON.parse((await airspace(['graph', '--json'], { cwd: dir, env: withParser('none') })).stdout) as {
      skipped: { path: string }[];
    };
    expect(json.skipped.map((s) => s.path)).toEqual(['ns.ts']);
  }

  it('check --fail-on fails when no parser loaded; without --fail-on the answer is unchanged; --verbose names wasm', async () => {
    const check = (parser: string, ...extra: string[]) =>
      airspace(['check', 'src/a.ts', '--base', 'main', ...extra], { cwd: ann, env: withParser(parser) });
    expect((await check('native', '--fail-on', 'traffic')).code).toBe(0);
    const none = await check('none', '--fail-on', 'traffic');
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/No tree-sitter parser loaded/);
    expect((await check('none')).code).toBe(0);
    const wasm = await check('wasm', '--verbose');
    expect(wasm.code, wasm.stderr).toBe(0);
    expect(wasm.stderr.match(/parser: wasm/g)).toHaveLength(1);
  }, 120_000);
});
