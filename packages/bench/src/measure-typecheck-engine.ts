/**
 * A scan through the resident engine's warm scanner on a real repository whose pair of worktrees
 * the typecheck channel checks, with the check in the engine's background (the default) against
 * the check inside the scan (`--mode inline`, as before). Each run first appends a line to
 * `--file` (a file of one agent's worktree: a new state tree and merge, so nothing comes from the
 * check's result cache), then times the scan's answer; in the background it also times how long
 * after the scan began the compiler's answer was there (the engine told of it), and a scan after
 * that. Prints each run and the medians of the warm runs (the first, cold run indexes the
 * repository and is shown apart).
 *
 *   node dist/measure-typecheck-engine.js --repo DIR --file DIR-ben/src/x.ts [--mode background|inline] [--runs 7]
 */
import { appendFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { EngineCore } from '@airspace/engine';
import { findCommonDir } from '@airspace/engine/client';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const repo = opt('repo');
const file = opt('file');
const mode = opt('mode') ?? 'background';
const runs = Number(opt('runs') ?? 7);
if (!repo || !file || (mode !== 'background' && mode !== 'inline')) {
  console.error('usage: measure-typecheck-engine --repo DIR --file PATH [--mode background|inline] [--runs N]');
  process.exit(1);
}

let ended: (() => void) | undefined;
const core = new EngineCore({
  commonDir: findCommonDir(resolve(repo)) ?? '',
  resident: true,
  backgroundTypecheck: mode === 'background',
  onTypecheck: () => ended?.(),
});
const median = (xs: readonly number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const said = (result: Awaited<ReturnType<EngineCore['scanFor']>>): string => {
  const typecheck = result.links.flatMap((l) => l.channels).find((c) => c.channel === 'typecheck');
  if (!typecheck) return 'no typecheck part';
  if (typecheck.pending) return 'still being checked';
  return `${typecheck.evidence[0]?.message ?? typecheck.problems?.[0]?.message ?? `risk ${typecheck.risk}`}`.slice(0, 110);
};
const scans: number[] = [];
const answers: number[] = [];
const after: number[] = [];
try {
  for (let i = 0; i <= runs; i++) {
    if (i > 0) appendFileSync(file, `// airspace bench edit ${i}\n`);
    const checked = new Promise<void>((r) => (ended = r));
    const started = performance.now();
    const result = await core.scanFor({ cwd: resolve(repo) });
    const scan = performance.now() - started;
    let line = `${i === 0 ? 'cold' : 'warm'} scan ${scan.toFixed(0)} ms: ${said(result)}`;
    if (mode === 'background' && said(result) === 'still being checked') {
      await checked;
      const answer = performance.now() - started;
      const again = performance.now();
      const next = await core.scanFor({ cwd: resolve(repo) });
      const rescan = performance.now() - again;
      line += `; compiler's answer at ${answer.toFixed(0)} ms, scan after it ${rescan.toFixed(0)} ms: ${said(next)}`;
      if (i > 0) (answers.push(answer), after.push(rescan));
    }
    console.log(line);
    if (i > 0) scans.push(scan);
  }
  console.log(
    `${mode}: median warm scan ${median(scans).toFixed(0)} ms over ${scans.length} runs (min ${Math.min(...scans).toFixed(0)}, max ${Math.max(...scans).toFixed(0)})` +
      (mode === 'background'
        ? `; compiler's answer at median ${median(answers).toFixed(0)} ms, scan after it ${median(after).toFixed(0)} ms`
        : '') +
      `; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`,
  );
} finally {
  await core.dispose();
}
