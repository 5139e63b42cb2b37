/**
 * The co-change history index (`CommitHistory` of @airspace/git): a deterministic generated
 * history (default 60,000 commits, written by one `git fast-import`) or any repository by path.
 * Measured beside the baseline of git itself listing the same history (`git log --name-only`, the
 * pass the index is mined from): cold build of the whole history, cold build of one window (what a
 * first live scan mines), a warm open from the cache, a view, and the incremental update after
 * new commits on top (one commit at a time and a batch), in milliseconds per commit.
 *
 *   node dist/measure-history.js [--commits 60000] [--seed 7] [--repo DIR] [--write ../../docs/benchmarks.md]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommitHistory, DEFAULT_CO_CHANGE_VIEW } from '@airspace/git';
import { prng } from './generate.js';
import { writeMarkedBlock } from './report.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const COMMITS = Number(opt('commits') ?? 60_000);
const SEED = Number(opt('seed') ?? 7);

const ms = (t: number): string => (t >= 1000 ? `${(t / 1000).toFixed(2)} s` : `${t.toFixed(t < 10 ? 1 : 0)} ms`);
const mib = (kb: number): string => `${Math.round(kb / 1024)} MiB`;

/**
 * fast-import stream of `count` commits on `refs/heads/main` after `from` (or a root): files in
 * coupled groups (a commit changes 2–4 files of one group 60% of the time, else 1–3 files at
 * random), 1% mass commits of 40 files, and every 40th commit a two-commit side branch merged back.
 */
function historyStream(count: number, seed: number, start: number, from?: string): string {
  const rand = prng(seed);
  const groups = Array.from({ length: 400 }, (_, g) =>
    Array.from({ length: 5 }, (_, k) => `src/g${g % 40}/m${g}/f${k}.${k % 2 ? 'ts' : 'py'}`),
  );
  const loose = Array.from({ length: 3000 }, (_, i) => `lib/d${i % 60}/x${i}.js`);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const out: string[] = [];
  let mark = 0;
  let time = 1_600_000_000 + start * 600;
  let parent = from ? `from ${from}\n` : '';
  const commit = (ref: string, files: readonly string[], merge?: string): number => {
    const m = ++mark;
    time += 600;
    const msg = `c${start + m}`;
    out.push(
      `commit ${ref}\nmark :${m}\ncommitter Bench <bench@example.invalid> ${time} +0000\ndata ${msg.length}\n${msg}\n${parent}${merge ? `merge ${merge}\n` : ''}`,
    );
    for (const f of new Set(files)) {
      const body = `${f} ${start + m}\n`;
      out.push(`M 100644 inline ${f}\ndata ${body.length}\n${body}`);
    }
    out.push('\n');
    return m;
  };
  const files = (): string[] => {
    const r = rand();
    if (r < 0.01) return Array.from({ length: 40 }, () => pick(loose));
    if (r < 0.61) {
      const g = pick(groups);
      return g.slice(0, 2 + Math.floor(rand() * 3));
    }
    return Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(loose));
  };
  let made = 0;
  while (made < count) {
    if (made > 0 && made % 40 === 0 && made + 3 <= count) {
      // A side branch of two commits from the current tip, merged back.
      const tip = `:${mark}`;
      parent = `from ${tip}\n`;
      commit('refs/heads/side', files());
      parent = '';
      const side = commit('refs/heads/side', files());
      parent = `from ${tip}\n`;
      commit('refs/heads/main', files());
      parent = '';
      commit('refs/heads/main', [], `:${side}`);
      made += 4;
      continue;
    }
    commit('refs/heads/main', files());
    parent = '';
    made++;
  }
  return out.join('');
}

function git(cwd: string, ...a: string[]): string {
  return execFileSync('git', a, { cwd, encoding: 'utf8', maxBuffer: 1 << 30 }).trim();
}

async function time<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t = performance.now();
  const value = await work();
  return { value, ms: performance.now() - t };
}

async function measure(repo: string, label: string, canAdd: boolean): Promise<string[]> {
  const rows: string[] = [];
  const head = git(repo, 'rev-parse', 'HEAD');
  const total = Number(git(repo, 'rev-list', '--count', 'HEAD'));
  // Baseline: git alone producing what the index is mined from.
  // The faster of two runs: the first also pays for reading the objects from disk.
  let gitMs = Infinity;
  let bytes = 0;
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    bytes = spawnSync('git', ['log', '--name-only', '-z', '--no-renames', '--diff-merges=off', '--format=%x01%H %ct %P', 'HEAD'], {
      cwd: repo,
      maxBuffer: 1 << 30,
    }).stdout.length;
    gitMs = Math.min(gitMs, performance.now() - t0);
  }
  rows.push(
    `| baseline: \`git log --name-only\` of the whole history (faster of two) | ${ms(gitMs)} | — | ${(bytes / 1e6).toFixed(1)} MB of output |`,
  );

  const cache = mkdtempSync(join(tmpdir(), 'airspace-history-bench-'));
  try {
    const cold = await time(async () => {
      const h = await CommitHistory.open(repo, { cacheDir: cache });
      await h.ensure('HEAD');
      return { h, view: await h.viewAt('HEAD', DEFAULT_CO_CHANGE_VIEW) };
    });
    const rss = process.resourceUsage().maxRSS;
    rows.push(
      `| cold: whole history mined, cached, one view | ${ms(cold.ms)} | ${mib(rss)} | ${cold.value.h.graph.size} commits, ${cold.value.h.graph.paths.length} paths; ratio to the baseline ${(cold.ms / gitMs).toFixed(2)}× |`,
    );
    const window = await time(async () => {
      const h = await CommitHistory.open(repo, { cacheDir: false });
      return (await h.viewAt('HEAD', DEFAULT_CO_CHANGE_VIEW))!;
    });
    rows.push(
      `| cold: one window (${DEFAULT_CO_CHANGE_VIEW.window} commits back from HEAD, a first live scan) | ${ms(window.ms)} | — | ${window.value.commits} commits count (merges and commits over ${DEFAULT_CO_CHANGE_VIEW.maxFilesPerCommit} files left out) |`,
    );
    const warm = await time(async () => {
      const h = await CommitHistory.open(repo, { cacheDir: cache });
      return { h, view: (await h.viewAt('HEAD', DEFAULT_CO_CHANGE_VIEW))! };
    });
    rows.push(
      `| warm: new process state, history read from the cache, one view | ${ms(warm.ms)} | — | ${warm.value.h.graph.size} commits read |`,
    );
    const view = warm.value.view;
    const sample = [...new Set(warm.value.h.graph.paths.slice(0, 2000))].filter((p) => view.count(p) > 0).slice(0, 200);
    const q = await time(async () => sample.reduce((n, p) => n + view.partners(p, 2).length, 0));
    rows.push(
      `| partners of a file (as the channel asks, support ≥ 2) | ${((1000 * q.ms) / Math.max(1, sample.length)).toFixed(0)} µs | — | mean over ${sample.length} files with history |`,
    );

    if (!canAdd) {
      // A real repository is not written to: the cache is built as of HEAD~50, then HEAD's view adds the rest.
      const back = await CommitHistory.open(repo, { cacheDir: false });
      await back.ensure('HEAD~50');
      const before = back.graph.size;
      const r = await time(() => back.viewAt('HEAD', DEFAULT_CO_CHANGE_VIEW));
      const added = back.graph.size - before;
      rows.push(
        `| incremental: from HEAD~50 to HEAD (${added} commits added), then a view | ${ms(r.ms)} | — | ${ms(r.ms / Math.max(1, added))} per commit |`,
      );
    } else {
      // Incremental: commits on top of the cached tip, then a view as of the new tip.
      const one: number[] = [];
      let h = warm.value.h;
      for (let i = 0; i < 9; i++) {
        const tip = git(repo, 'rev-parse', 'HEAD');
        execFileSync('git', ['fast-import', '--quiet', '--force'], {
          cwd: repo,
          input: historyStream(1, SEED + 100 + i, COMMITS + 10 * i, tip),
        });
        const r = await time(() => h.viewAt('HEAD', DEFAULT_CO_CHANGE_VIEW));
        one.push(r.ms);
      }
      one.sort((a, b) => a - b);
      rows.push(
        `| incremental: one new commit, then a view as of it (same process) | ${ms(one[4]!)} | — | median of 9 (min ${ms(one[0]!)}, max ${ms(one[8]!)}): one \`git log\` of the new commit, a cache segment, a walk |`,
      );
      const tip = git(repo, 'rev-parse', 'HEAD');
      execFileSync('git', ['fast-import', '--quiet', '--force'], { cwd: repo, input: historyStream(100, SEED + 999, COMMITS + 1000, tip) });
      h = await CommitHistory.open(repo, { cacheDir: cache });
      const batch = await time(() => h.viewAt('HEAD', DEFAULT_CO_CHANGE_VIEW));
      rows.push(
        `| incremental: 100 new commits, then a view (history read from the cache before timing) | ${ms(batch.ms)} | — | ${ms(batch.ms / 100)} per commit |`,
      );
    }
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
  return [
    `### Co-change history: ${label}`,
    '',
    `${total} commits, HEAD \`${head}\`.`,
    '',
    '| run | time | peak memory (RSS) | notes |',
    '|---|---|---|---|',
    ...rows,
    '',
  ];
}

async function main(): Promise<void> {
  const given = opt('repo');
  const lines: string[] = [];
  const started = loadavg()[0]!.toFixed(1);
  if (given) lines.push(...(await measure(given, given.replace(/^.*\//, ''), false)));
  else {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-history-repo-'));
    try {
      git(dir, 'init', '-q', '-b', 'main');
      const t = performance.now();
      execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, input: historyStream(COMMITS, SEED, 0), maxBuffer: 1 << 30 });
      console.error(`generated ${COMMITS} commits in ${ms(performance.now() - t)}`);
      lines.push(...(await measure(dir, `generated, ${COMMITS} commits (seed ${SEED})`, true)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const md = [
    ...lines,
    `Command: \`node dist/measure-history.js ${args.join(' ')}\` — ${cpus().length} cores, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${started} at the start and ${loadavg()[0]!.toFixed(1)} at the end.`,
    '',
  ].join('\n');
  console.log(md);
  const write = opt('write');
  if (write) {
    writeMarkedBlock(write, given ? 'bench:history-repo' : 'bench:history', md);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
