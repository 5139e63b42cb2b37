/**
 * How long a save in another worktree takes to reach an editor: Neovim (headless, the documented
 * setup of docs/editors.md) opens a file of one worktree, another worktree's file is saved again
 * and again (alternating two versions, each changing which lines collide), and the time from each
 * save to the change of the buffer's diagnostics is recorded (lua/editor-latency.lua). The path
 * measured is all of it: file event, the engine's quiet period and rescan, its notification, the
 * language server's scan and publishDiagnostics, Neovim's handler.
 *
 *   node dist/measure-editor.js [--files 3000] [--saves 20] [--rounds 2] [--gap 700]
 *                               [--repo DIR --path FILE [--line N] [--name NAME]] [--before CHECKOUT]
 *                               [--write ../../docs/editors.md [--marker NAME]]
 *
 * Generated: a repository of `--files` files with three worktrees (the opened one, the saving one,
 * a third agent). `--repo DIR --path FILE`: a repository of yours; two worktrees (detached at its
 * HEAD) are added next to a temporary directory for the run and removed after it, and FILE's lines
 * `--line` and the next (10 by default) are the ones edited. `--before CHECKOUT`: another built
 * checkout of Airspace (e.g. main) measured in the same run, rounds alternating with this one so
 * that the machine's drift hits both alike. Each round starts a new editor and engine (stopped at
 * its end). Needs `nvim` and the built CLI.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRepoFixture } from '@airspace/git/fixture';
import { enginePaths, findCommonDir } from '@airspace/engine/client';
import { stopEngineAt } from './engine-control.js';
import { generateRepo } from './generate.js';
import { commandLine } from './options.js';

const USAGE = `Usage: node dist/measure-editor.js [--files 3000] [--saves 20] [--rounds 2] [--gap 700]
                                [--repo DIR --path FILE [--line N] [--name NAME]] [--before CHECKOUT]
                                [--write ../../docs/editors.md [--marker NAME]]`;
const args = process.argv.slice(2);
const { opt } = commandLine({
  usage: USAGE,
  values: ['files', 'saves', 'rounds', 'gap', 'repo', 'path', 'line', 'name', 'before', 'write', 'marker'],
});
const HERE = fileURLToPath(new URL('../../..', import.meta.url));
const SCRIPT = fileURLToPath(new URL('../lua/editor-latency.lua', import.meta.url));
const SETUP_DIR = join(HERE, 'test', 'nvim');
const SAVES = Number(opt('saves') ?? 20);
const ROUNDS = Number(opt('rounds') ?? 2);
const GAP_MS = Number(opt('gap') ?? 700);

/** A repository with the opened worktree and the one whose file is saved. */
interface Setup {
  readonly label: string;
  /** The file the editor opens (absolute). */
  readonly opened: string;
  /** The other worktree's file that is saved (absolute), and its two versions. */
  readonly saved: string;
  readonly variants: readonly [string, string];
  readonly dispose: () => void;
}

/** `text` with the 1-based lines `at` marked as `who`'s edits. */
function edited(text: string, at: readonly number[], who: string): string {
  const lines = text.split('\n');
  for (const n of at) lines[n - 1] = `${lines[n - 1] ?? ''} // ${who}`;
  return lines.join('\n');
}

function generated(): Setup {
  const files = Number(opt('files') ?? 3000);
  const gen = generateRepo({ files, seed: 11 });
  const fixture = createRepoFixture(gen.files);
  const ts = Object.keys(gen.files)
    .filter((p) => p.endsWith('.ts') && !p.endsWith('index.ts') && String(gen.files[p]).split('\n').length > 12)
    .sort();
  const path = ts[0]!;
  const base = String(gen.files[path]);
  const self = fixture.worktree('self');
  self.write(path, edited(base, [4, 5], 'self'));
  const other = fixture.worktree('other');
  other.write(path, edited(base, [4, 5], 'other'));
  const third = fixture.worktree('third');
  third.write(ts[1]!, edited(String(gen.files[ts[1]!]), [3], 'third')).commit('third');
  // Racily clean index entries (files written within the index's second) make every later
  // status read them again; an agent's own git refreshes its index.
  for (const dir of [fixture.dir, self.dir, other.dir, third.dir])
    execFileSync('git', ['status', '--porcelain'], { cwd: dir, stdio: 'ignore' });
  return {
    label: `generated repository: ${Object.keys(gen.files).length} files, 3 worktrees besides the main one (seed 11)`,
    opened: join(realpathSync(self.dir), path),
    saved: join(realpathSync(other.dir), path),
    variants: [edited(base, [4], 'other'), edited(base, [4, 5], 'other')],
    dispose: fixture.dispose,
  };
}

function given(repo: string): Setup {
  const path = opt('path');
  if (!path) throw new Error('--repo needs --path FILE (a file of the repository with lines to edit)');
  const line = Number(opt('line') ?? 10);
  const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
  const count = execFileSync('git', ['ls-files'], { cwd: repo, encoding: 'utf8' }).split('\n').filter(Boolean).length;
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'airspace-editor-bench-')));
  const add = (name: string): string => {
    const dir = join(parent, name);
    execFileSync('git', ['worktree', 'add', '--detach', dir, 'HEAD'], { cwd: repo, stdio: 'ignore' });
    return dir;
  };
  const self = add('self');
  const other = add('other');
  const base = readFileSync(join(self, path), 'utf8');
  writeFileSync(join(self, path), edited(base, [line, line + 1], 'self'));
  writeFileSync(join(other, path), edited(base, [line, line + 1], 'other'));
  return {
    label: `${opt('name') ?? repo} at ${head}: ${count} files, 2 worktrees added for the run (${path} lines ${line}–${line + 1})`,
    opened: join(self, path),
    saved: join(other, path),
    variants: [edited(base, [line], 'other'), edited(base, [line, line + 1], 'other')],
    dispose: () => {
      for (const dir of [self, other]) execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: repo, stdio: 'ignore' });
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

interface Round {
  readonly version: string;
  readonly first: number;
  readonly latencies: readonly number[];
  readonly flickers: number;
  readonly load: readonly [number, number];
}

/** Stops the repository's engine (killed by pid if it does not stop). */
async function stopEngine(dir: string): Promise<void> {
  const commonDir = findCommonDir(dirname(dir));
  if (!commonDir) return;
  await stopEngineAt(enginePaths(commonDir));
}

/** One editor session of `checkout`'s language server: `SAVES` saves, their latencies. */
async function round(setup: Setup, version: string, checkout: string): Promise<Round> {
  const out = mkdtempSync(join(tmpdir(), 'airspace-editor-bench-out-'));
  const load0 = loadavg()[0]!;
  try {
    const variantFile = (i: number): string => {
      const file = join(out, `variant-${i}`);
      writeFileSync(file, setup.variants[i]!);
      return file;
    };
    const run = spawnSync('nvim', ['--headless', '--clean', '-n', '-i', 'NONE', '-c', `luafile ${SCRIPT}`], {
      env: {
        ...process.env,
        AIRSPACE_ENGINE: 'on',
        AIRSPACE_ENGINE_IDLE_MS: '600000',
        AIRSPACE_LSP_CMD: JSON.stringify([process.execPath, join(checkout, 'packages/cli/dist/bin.js'), 'lsp', '--stdio']),
        AIRSPACE_SETUP_DIR: SETUP_DIR,
        AIRSPACE_FILE: setup.opened,
        AIRSPACE_SAVE_PATH: setup.saved,
        AIRSPACE_VARIANT_A: variantFile(0),
        AIRSPACE_VARIANT_B: variantFile(1),
        AIRSPACE_SAVES: String(SAVES),
        AIRSPACE_GAP_MS: String(GAP_MS),
        AIRSPACE_TIMEOUT_MS: '120000',
        AIRSPACE_OUT: join(out, 'result.json'),
      },
      encoding: 'utf8',
      timeout: 15 * 60_000,
    });
    if (run.error) throw run.error;
    const got = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
      first?: number;
      latencies: number[];
      states: { seen: string; settled: string }[];
      error?: string;
    };
    if (got.error) throw new Error(`${version}: ${got.error}`);
    // Each save must show one of the two answers, in turn, and keep it.
    const flickers = got.states.filter((s) => s.seen !== s.settled).length;
    const alternating = got.states.every((s, i) => i < 2 || s.settled === got.states[i - 2]!.settled);
    if (!alternating) throw new Error(`${version}: the diagnostics did not alternate with the saves: ${JSON.stringify(got.states)}`);
    return { version, first: got.first ?? Number.NaN, latencies: got.latencies, flickers, load: [load0, loadavg()[0]!] };
  } finally {
    await stopEngine(setup.opened);
    rmSync(out, { recursive: true, force: true });
  }
}

const quantile = (xs: readonly number[], q: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;
const ms = (x: number): string => `${x.toFixed(0)} ms`;

function report(setup: Setup, rounds: readonly Round[]): string {
  const versions = [...new Set(rounds.map((r) => r.version))];
  const rows = versions.map((v) => {
    const mine = rounds.filter((r) => r.version === v);
    const all = mine.flatMap((r) => r.latencies);
    const perRound = mine.map((r) => ms(quantile(r.latencies, 0.5))).join(', ');
    const loads = mine.map((r) => `${r.load[0].toFixed(1)}–${r.load[1].toFixed(1)}`).join(', ');
    const flickers = mine.reduce((n, r) => n + r.flickers, 0);
    return `| ${v} | ${ms(quantile(all, 0.5))} | ${ms(quantile(all, 0.9))} | ${all.length} | ${perRound} | ${loads} | ${flickers} |`;
  });
  return [
    `#### Save in another worktree → Neovim's diagnostics: ${setup.label}`,
    '',
    `Command: \`node dist/measure-editor.js ${args.join(' ')}\` — ${cpus().length} cores, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}; ${SAVES} saves per round, ${GAP_MS} ms apart, rounds alternating.`,
    '',
    '| version | median | p90 | saves | median per round | load average (round start–end) | flickers |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const repo = opt('repo');
  const before = opt('before');
  const setup = repo ? given(resolve(repo)) : generated();
  const rounds: Round[] = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      if (before) rounds.push(await round(setup, 'before', resolve(before)));
      rounds.push(await round(setup, before ? 'after' : 'this build', HERE));
      console.error(
        `round ${r + 1}: ${rounds
          .slice(-2)
          .map((x) => `${x.version} median ${ms(quantile(x.latencies, 0.5))}`)
          .join(', ')}`,
      );
    }
  } finally {
    setup.dispose();
  }
  const md = report(setup, rounds);
  console.log(md);
  const write = opt('write');
  if (write) {
    const marker = opt('marker') ?? (repo ? 'bench:editor-repo' : 'bench:editor');
    const begin = `<!-- ${marker} -->`;
    const end = `<!-- /${marker} -->`;
    const old = existsSync(write) ? readFileSync(write, 'utf8') : '';
    const block = `${begin}\n${md}\n${end}`;
    writeFileSync(
      write,
      old.includes(begin) ? old.replace(new RegExp(`${begin}[\\s\\S]*?${end}`), block) : `${old.trimEnd()}\n\n${block}\n`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
