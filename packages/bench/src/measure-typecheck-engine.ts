/**
 * A scan through the resident engine's warm scanner on a real repository whose pair of worktrees
 * the typecheck channel checks, with the check in the engine's background (the default) against
 * the check inside the scan (`--mode inline`, as before). Each run first appends a line to
 * `--file` (a file of one agent's worktree: a new state tree and merge, so nothing comes from the
 * check's result cache), then times the scan's answer; in the background it also times how long
 * after the scan began the compiler's answer was there (the engine told of it), and a scan after
 * that. With `--check-in DIR --check PATH [--lines L]` it also times an agent's check (`airspace
 * check PATH --lines L` asked in worktree DIR) asked at once after the scan, while the compiler
 * works on the pair, and the same check once the compiler has answered. Prints each run and the
 * medians of the warm runs (the first, cold run indexes the repository and is shown apart).
 *
 *   node dist/measure-typecheck-engine.js --repo DIR --file DIR-ben/src/x.ts [--mode background|inline] [--runs 7]
 *     [--check-in DIR-ann --check src/y.ts --lines 10-12]
 *
 * `--mode first` measures a repository never scanned instead (remove `<git common dir>/airspace`
 * first): the first check (`--check-in`, `--check`, `--lines`), the engine's refresh right after
 * it (what the resident engine does when it starts following the worktrees: it scans every pair,
 * and starts their type-checks), then the same check every 0.5 s until it is no longer partial
 * (`WARMING_UP`): when the index was ready, and when the compiler's answer came, from the start.
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
const checkIn = opt('check-in');
const checkTarget = opt('check');
const checkLines = opt('lines');
if (!repo || (mode !== 'first' && !file) || !['background', 'inline', 'first'].includes(mode) || (mode === 'first' && !checkTarget)) {
  console.error(
    'usage: measure-typecheck-engine --repo DIR --file PATH [--mode background|inline] [--runs N] [--check-in DIR --check PATH [--lines L]]\n' +
      '       measure-typecheck-engine --repo DIR --mode first --check-in DIR --check PATH [--lines L]',
  );
  process.exit(1);
}

let ended: (() => void) | undefined;
const core = new EngineCore({
  commonDir: findCommonDir(resolve(repo)) ?? '',
  resident: true,
  backgroundTypecheck: mode !== 'inline',
  onTypecheck: () => ended?.(),
});
const median = (xs: readonly number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const said = (result: Awaited<ReturnType<EngineCore['scanFor']>>): string => {
  const typecheck = result.links.flatMap((l) => l.channels).find((c) => c.channel === 'typecheck');
  if (!typecheck) return 'no typecheck part';
  if (typecheck.pending) return 'still being checked';
  return `${typecheck.evidence[0]?.message ?? typecheck.problems?.[0]?.message ?? `risk ${typecheck.risk}`}`.slice(0, 110);
};
/** Times one agent's check (the `--check` question); undefined without one. */
async function timedCheck(): Promise<{ ms: number; partial: boolean } | undefined> {
  if (!checkTarget) return undefined;
  const started = performance.now();
  const result = await core.check({
    cwd: resolve(checkIn ?? repo!),
    target: checkTarget,
    ...(checkLines ? { lines: checkLines } : {}),
  });
  return { ms: performance.now() - started, partial: result.problems.some((p) => p.code === 'WARMING_UP') };
}
const load = (): string => `${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`;

async function warmRuns(): Promise<void> {
  const scans: number[] = [];
  const answers: number[] = [];
  const after: number[] = [];
  const busy: number[] = [];
  const idle: number[] = [];
  for (let i = 0; i <= runs; i++) {
    if (i > 0) appendFileSync(file!, `// airspace bench edit ${i}\n`);
    const checked = new Promise<void>((r) => (ended = r));
    const started = performance.now();
    const result = await core.scanFor({ cwd: resolve(repo!) });
    const scan = performance.now() - started;
    let line = `${i === 0 ? 'cold' : 'warm'} scan ${scan.toFixed(0)} ms: ${said(result)}`;
    if (mode === 'background' && said(result) === 'still being checked') {
      // Asked while the compiler works on the pair.
      const during = await timedCheck();
      if (during) line += `; check while the compiler works ${during.ms.toFixed(0)} ms`;
      await checked;
      const answer = performance.now() - started;
      const quiet = await timedCheck();
      if (quiet) line += `, once it answered ${quiet.ms.toFixed(0)} ms`;
      const again = performance.now();
      let next = await core.scanFor({ cwd: resolve(repo!) });
      const rescan = performance.now() - again;
      // A check that met its time limit is tried once more: its answer is the one after.
      if (said(next) === 'still being checked') {
        await new Promise<void>((r) => (ended = r));
        next = await core.scanFor({ cwd: resolve(repo!) });
        line += ` (tried twice: answer at ${(performance.now() - started).toFixed(0)} ms)`;
      }
      line += `; compiler's answer at ${answer.toFixed(0)} ms, scan after it ${rescan.toFixed(0)} ms: ${said(next)}`;
      if (i > 0) {
        answers.push(answer);
        after.push(rescan);
        if (during && quiet) (busy.push(during.ms), idle.push(quiet.ms));
      }
    }
    console.log(line);
    if (i > 0) scans.push(scan);
  }
  console.log(
    `${mode}: median warm scan ${median(scans).toFixed(0)} ms over ${scans.length} runs (min ${Math.min(...scans).toFixed(0)}, max ${Math.max(...scans).toFixed(0)})` +
      (answers.length > 0
        ? `; compiler's answer at median ${median(answers).toFixed(0)} ms, scan after it ${median(after).toFixed(0)} ms`
        : '') +
      (busy.length > 0
        ? `; check while the compiler works median ${median(busy).toFixed(0)} ms (max ${Math.max(...busy).toFixed(0)}), once it answered ${median(idle).toFixed(0)} ms`
        : '') +
      `; ${load()}`,
  );
}

async function firstRun(): Promise<void> {
  let answered: number | undefined;
  const started = performance.now();
  ended = () => (answered ??= performance.now() - started);
  const first = await timedCheck();
  console.log(`first check ${first!.ms.toFixed(0)} ms${first!.partial ? ' (partial: index warming up)' : ''}; ${load()}`);
  // What the resident engine does once it follows the worktrees: a refresh of every pair.
  void core.refresh();
  let ready: number | undefined;
  for (let n = 0; n < 1200 && ready === undefined; n++) {
    await new Promise((r) => setTimeout(r, 500));
    const again = await timedCheck();
    if (!again!.partial) ready = performance.now() - started;
  }
  for (let n = 0; n < 1200 && answered === undefined; n++) await new Promise((r) => setTimeout(r, 500));
  const fmt = (ms: number | undefined) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
  console.log(`first: index ready (a full check) at ${fmt(ready)}; the compiler's answer at ${fmt(answered)}; ${load()}`);
}

try {
  await (mode === 'first' ? firstRun() : warmRuns());
} finally {
  await core.dispose();
}
