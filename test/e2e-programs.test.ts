/**
 * The end-to-end suites that drive real programs on a machine that has none of them (PATH with
 * only node and git, as on a fresh machine): they are skipped with the install command, and under
 * `AIRSPACE_REQUIRE_E2E=1` (.ci/run) they fail saying what is missing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { onPath } from './programs.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const VITEST = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const SUITES = ['nvim-lsp.test.ts', 'emacs-lsp.test.ts', 'view/view.test.ts'];

interface JsonReport {
  testResults: { name: string; assertionResults: { status: string; fullName: string; failureMessages: string[] }[] }[];
}

const scratch = mkdtempSync(join(tmpdir(), 'airspace-programs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the suites with a PATH that holds node and git only: what `npm test` prints, and the JSON report. */
function runBare(env: Record<string, string>): { status: number | null; output: string; report: JsonReport } {
  const bin = mkdtempSync(join(scratch, 'bin-'));
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync(onPath('git')!, join(bin, 'git'));
  const out = join(bin, 'report.json');
  const { AIRSPACE_REQUIRE_E2E: _, ...inherited } = process.env;
  const run = spawnSync(process.execPath, [VITEST, 'run', ...SUITES, '--reporter=default', '--reporter=json', `--outputFile.json=${out}`], {
    cwd: HERE,
    env: { ...inherited, PATH: bin, NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 110_000,
  });
  return { status: run.status, output: run.stdout + run.stderr, report: JSON.parse(readFileSync(out, 'utf8')) as JsonReport };
}

const results = (r: JsonReport) => r.testResults.flatMap((f) => f.assertionResults);
const INSTALLS = ['apt-get install neovim', 'apt-get install emacs-nox elpa-eglot', 'apt-get install chromium'];

describe('end-to-end suites on a machine without their programs', () => {
  it('are skipped, each saying how to install what it needs', () => {
    const { status, output, report } = runBare({});
    expect(status).toBe(0);
    const all = results(report);
    const skipped = all.filter((t) => t.status !== 'passed');
    expect(all.filter((t) => t.status === 'failed')).toEqual([]);
    // The Neovim suite, the Emacs suite and the three browser tests; the docs checks still run.
    expect(skipped.length).toBeGreaterThanOrEqual(5);
    expect(all.filter((t) => t.status === 'passed').length).toBe(2);
    for (const install of INSTALLS) {
      expect(output).toContain(install);
      expect(skipped.some((t) => t.fullName.includes(install))).toBe(true);
    }
  });

  it('fail under AIRSPACE_REQUIRE_E2E=1, naming the missing program and its install command', () => {
    const { status, report } = runBare({ AIRSPACE_REQUIRE_E2E: '1' });
    expect(status).not.toBe(0);
    const failed = results(report).filter((t) => t.status === 'failed');
    expect(failed).toHaveLength(3);
    for (const install of INSTALLS) expect(failed.some((t) => t.failureMessages.join('\n').includes(install))).toBe(true);
  });
});
