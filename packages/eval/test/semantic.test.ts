import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineChannel, importGraphOfEdges, type Agent, type FileEdit } from '@airspace/core';
import { createRepoFixture, type FileTree, type RepoFixture } from '@airspace/git/fixture';
import { labelKnown, labelOf, type SemanticCheck } from '../src/extract/scenario.js';
import { formatTable } from '../src/report/table.js';
import { runEval, type EvalRun } from '../src/run.js';
import type { ScoredScenario } from '../src/score/cache.js';
import { createChannelScorer } from '../src/score/scorer.js';
import { apart } from '../src/score/semantic.js';
import { sharedFileChannel } from './helpers.js';

const lines = (...l: string[]) => l.join('\n') + '\n';

const TSCONFIG = lines(
  '{',
  '  "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true },',
  '  "include": ["src"]',
  '}',
);

const PROJECT: FileTree = {
  'tsconfig.json': TSCONFIG,
  'package.json': lines('{ "name": "shop", "private": true, "type": "module" }'),
  'src/session.ts': lines('export function createSession(user: string): string {', '  return user;', '}'),
  'src/math.ts': lines('export function parse(text: string): number {', '  return Number(text);', '}'),
  'src/format.ts': lines('export function format(value: number, unit: string): string {', '  return `${value} ${unit}`;', '}'),
};

/** Merges `branch` into main with --no-ff (git merges every scenario here cleanly). */
function merge(repo: RepoFixture, branch: string): string {
  repo.git('merge', '--no-ff', '--no-edit', '-m', `merge ${branch}`, branch);
  return repo.head();
}

interface Fixture {
  readonly repo: RepoFixture;
  readonly merges: { broken: string; identical: string; unrelated: string; brokenBase: string };
}

/**
 * Four merges git makes cleanly, oldest first:
 * - `broken`: one side adds a parameter to createSession, the other adds a call with one argument;
 * - `identical`: both sides make the same edit;
 * - `unrelated`: the sides change different modules;
 * - `brokenBase`: the base does not compile (a type error both sides inherit), the sides change other files.
 */
function semanticHistory(): Fixture {
  const repo = createRepoFixture(PROJECT);
  const s1 = repo.worktree('s1');
  s1.write('src/session.ts', lines('export function createSession(user: string, ttl: number): string {', '  return user + ttl;', '}'));
  s1.commit('s1 adds a ttl parameter');
  repo.write('src/login.ts', lines("import { createSession } from './session.js';", "export const token = createSession('ann');"));
  repo.commit('main calls createSession');
  const broken = merge(repo, 's1');
  // The merge commit repairs the call, as a person merging would: the label reads the parents, not this.
  repo.write('src/login.ts', lines("import { createSession } from './session.js';", "export const token = createSession('ann', 1);"));
  repo.commit('fix the call');

  const same = lines('export function parse(text: string): number {', '  return Number(text.trim());', '}');
  const s2 = repo.worktree('s2');
  s2.write('src/math.ts', same).commit('s2 trims');
  repo.write('src/math.ts', same).commit('main trims');
  const identical = merge(repo, 's2');

  const s3 = repo.worktree('s3');
  s3.write('src/math.ts', lines('export function parse(text: string): number {', '  return parseFloat(text);', '}')).commit('s3');
  repo.write('src/format.ts', lines('export function format(value: number, unit: string): string {', '  return `${value}${unit}`;', '}'));
  repo.commit('main formats');
  const unrelated = merge(repo, 's3');

  repo.write('src/bad.ts', lines("export const count: number = 'many';")).commit('main breaks the build');
  const s4 = repo.worktree('s4');
  s4.write('src/math.ts', lines('export function parse(text: string): number {', '  return Number.parseFloat(text);', '}')).commit('s4');
  repo.write('src/bad.ts', lines("export const count: number = 'many';", 'export const more = 1;')).commit('main edits bad.ts');
  const brokenBase = merge(repo, 's4');
  return { repo, merges: { broken, identical, unrelated, brokenBase } };
}

/** A repository with TypeScript sources and no tsconfig: a merge of two edits to them. */
function noTsconfigHistory(): { repo: RepoFixture; merge: string } {
  const { ['tsconfig.json']: _none, ...files } = PROJECT;
  const repo = createRepoFixture(files);
  const s1 = repo.worktree('s1');
  s1.write('src/session.ts', lines('export function createSession(user: string, ttl: number): string {', '  return user + ttl;', '}'));
  s1.commit('s1 adds a ttl parameter');
  repo.write('src/login.ts', lines("import { createSession } from './session.js';", "export const token = createSession('ann');"));
  repo.commit('main calls createSession');
  return { repo, merge: merge(repo, 's1') };
}

const scorer = () => createChannelScorer({ channels: [sharedFileChannel] });
const byMerge = (run: EvalRun, fraction = 1): Map<string, ScoredScenario> =>
  new Map((run.scored.get(fraction) ?? []).map((s) => [s.merge, s]));
const status = (c: SemanticCheck | undefined) => c?.status;

let fx: Fixture;
let cacheDir: string;
beforeAll(() => {
  fx = semanticHistory();
  cacheDir = mkdtempSync(join(tmpdir(), 'airspace-eval-semantic-'));
});
afterAll(() => {
  fx.repo.dispose();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('the semantic label', () => {
  let run: EvalRun;
  beforeAll(async () => {
    run = await runEval({ repo: fx.repo.dir, scorer: scorer(), label: 'textual+semantic', early: [0.5], cacheDir });
  }, 120_000);

  it('is true where one side changes a signature and the other adds a call with the old one, merged cleanly', () => {
    const s = byMerge(run).get(fx.merges.broken)!;
    expect(s.labels.textual).toBe(false);
    expect(status(s.semantic)).toBe('broken');
    expect(s.semantic?.status === 'broken' && s.semantic.errors.join('\n')).toMatch(/src\/login\.ts:2 TS2554/);
    expect(labelOf(s, 'semantic')).toBe(true);
    expect(labelOf(s, 'textual+semantic')).toBe(true);
    expect(labelOf(s, 'textual')).toBe(false);
    // Part-way too (one commit per side: the same states), and the final verdict is on every record.
    const half = byMerge(run, 0.5).get(fx.merges.broken)!;
    expect(status(half.semantic)).toBe('broken');
    expect(status(half.labels.semantic)).toBe('broken');
  });

  it('is false for identical edits, unrelated changes and a base that does not compile', () => {
    const m = byMerge(run);
    for (const merge of [fx.merges.identical, fx.merges.unrelated, fx.merges.brokenBase]) {
      const s = m.get(merge)!;
      expect(status(s.semantic)).toBe('clear');
      expect(labelOf(s, 'semantic')).toBe(false);
      expect(labelKnown(s, 'semantic')).toBe(true);
    }
    // Sides whose changes no file reaches both of are clear without the compiler; the others are compiled.
    const pruned = (merge: string) => (m.get(merge)!.semantic as { pruned?: true }).pruned === true;
    expect(pruned(fx.merges.unrelated)).toBe(true);
    expect(pruned(fx.merges.brokenBase)).toBe(true);
    expect(pruned(fx.merges.identical)).toBe(false);
    expect(pruned(fx.merges.broken)).toBe(false);
  });

  it('reports its prevalence per fraction, and evaluates under textual ∪ semantic', () => {
    const full = run.context.semantic?.find((f) => f.fraction === 1);
    expect(full).toMatchObject({
      scenarios: 4,
      broken: 1,
      clear: 3,
      conflict: 0,
      notChecked: 0,
      semantic: 1,
      prevalence: 0.25,
      unlabelled: 0,
    });
    expect(run.evaluation.label).toBe('textual+semantic');
    expect(run.evaluation.positives).toBe(1);
    expect(run.foresight[0]!.byLabel.map((b) => b.label)).toEqual(['textual+semantic', 'semantic', 'collided']);
    expect(formatTable(run.evaluation, run.context)).toContain(
      'semantic, full diffs: 1 broken (observed or final) of 4 scenarios, prevalence 25.0%; observed merges 1 broken, 3 clear',
    );
  });

  it('is paid once: verdicts are cached by trees, and a second run reads them', async () => {
    const files = readdirSync(cacheDir).filter((f) => f.startsWith('semantic-'));
    expect(files).toHaveLength(1);
    const again = await runEval({ repo: fx.repo.dir, scorer: scorer(), label: 'semantic', early: [0.5], cacheDir });
    expect(again.context.fromCache).toBe((run.context.fromCache ?? 0) + 8);
    expect(status(byMerge(again).get(fx.merges.broken)?.semantic)).toBe('broken');
    // Another time limit decides only whether a verdict is reached: the verdicts paid for are read, not checked again.
    const longer = await runEval({
      repo: fx.repo.dir,
      scorer: scorer(),
      label: 'semantic',
      early: [0.5],
      cacheDir,
      semantic: { timeLimitMs: 600_000 },
    });
    expect(readdirSync(cacheDir).filter((f) => f.startsWith('semantic-'))).toEqual(files);
    expect(longer.context.fromCache).toBe(again.context.fromCache);
    expect(status(byMerge(longer).get(fx.merges.broken)?.semantic)).toBe('broken');
  }, 120_000);

  it('checks again a verdict its time limit cut off, rather than keeping it as not checked', async () => {
    // A stand-in checker: cut off by its time limit while \`hurried\`, then breaking every pair it is asked about.
    let hurried = true;
    const asked: string[] = [];
    const checker = defineChannel({
      id: 'typecheck',
      defaultWeight: 1,
      score(a, b) {
        asked.push(`${a.id}:${b.id}`);
        return hurried
          ? {
              risk: 0,
              evidence: [],
              problems: [{ code: 'NOT_CHECKED', message: `${a.id} and ${b.id} was not type-checked: time limit reached.` }],
            }
          : { risk: 1, evidence: [{ kind: 'typecheck-error', message: 'TS2554 Expected 2 arguments, but got 1', risk: 1 }] };
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'airspace-eval-semantic-limit-'));
    try {
      const first = await runEval({
        repo: fx.repo.dir,
        scorer: scorer(),
        label: 'semantic',
        semantic: { channel: checker },
        cacheDir: dir,
      });
      // Cut off: no verdict, so the scenario is counted and left out.
      expect(byMerge(first).get(fx.merges.broken)).toBeUndefined();
      expect(Object.keys(first.context.semantic!.find((f) => f.fraction === 1)!.notCheckedBy)).toEqual(['time limit reached']);
      const cutOff = asked.length;
      expect(cutOff).toBeGreaterThan(0);
      hurried = false;
      const again = await runEval({
        repo: fx.repo.dir,
        scorer: scorer(),
        label: 'semantic',
        semantic: { channel: checker },
        cacheDir: dir,
      });
      // Read from the cache, and checked again there: the same pairs asked once more.
      expect(again.context.fromCache).toBeGreaterThan(0);
      expect(asked.length).toBe(2 * cutOff);
      expect(status(byMerge(again).get(fx.merges.broken)?.semantic)).toBe('broken');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('is not asked for under a label that does not read it', async () => {
    const plain = await runEval({ repo: fx.repo.dir, scorer: scorer(), label: 'textual', cacheDir: false });
    expect(plain.context.semantic).toBeUndefined();
    expect(byMerge(plain).get(fx.merges.broken)?.semantic).toBeUndefined();
  }, 120_000);
});

describe('a repository without a tsconfig', () => {
  it('is not checked, counted with its reason, and left out of the figures rather than read as clear', async () => {
    const { repo, merge } = noTsconfigHistory();
    try {
      const run = await runEval({ repo: repo.dir, scorer: scorer(), label: 'semantic', cacheDir: false });
      const full = run.context.semantic?.find((f) => f.fraction === 1);
      expect(full).toMatchObject({ scenarios: 1, broken: 0, clear: 0, notChecked: 1, unlabelled: 1, prevalence: null });
      expect(Object.keys(full!.notCheckedBy)).toEqual(['no tsconfig.json in the merged tree and no Python file changed']);
      expect(run.scored.get(1)).toEqual([]);
      expect(run.evaluation.scenarios).toBe(0);
      expect(existsSync(join(repo.dir, '.git', 'airspace'))).toBe(false);
      void merge;
    } finally {
      repo.dispose();
    }
  }, 120_000);
});

describe('apart: sides that provably cannot break each other', () => {
  // Blobs are named by their text here: `text` reads the id as the file's content.
  const MODULE = 'export const x = 1;';
  const edit = (path: string, status: FileEdit['status'] = 'modified', newText = MODULE, baseText = MODULE): FileEdit => ({
    path,
    status,
    weight: 1,
    baseRanges: 'whole',
    newRanges: 'whole',
    ...(status === 'added' ? {} : { baseBlob: baseText }),
    ...(status === 'deleted' ? {} : { newBlob: newText }),
  });
  const agent = (id: string, ...files: FileEdit[]): Agent => ({ id, label: id, startedAt: 0, committedWork: 1, files });
  const text = (blob: string) => Promise.resolve(blob);
  // app.ts imports a.ts and b.ts; c.ts imports d.ts; e.ts stands alone.
  const graph = importGraphOfEdges([
    ['src/app.ts', 'src/a.ts'],
    ['src/app.ts', 'src/b.ts'],
    ['src/c.ts', 'src/d.ts'],
    ['src/top.ts', 'src/app.ts'],
  ]);

  it('are the sides whose changes no file reaches both of', async () => {
    expect(await apart(agent('p', edit('src/d.ts')), agent('q', edit('src/e.ts')), graph, text)).toBe(true);
    expect(await apart(agent('p', edit('src/a.ts')), agent('q', edit('src/c.ts')), graph, text)).toBe(true);
    // A side that changes no module source (docs): the merge's sources are the other side's.
    expect(await apart(agent('p', edit('src/a.ts')), agent('q', edit('README.md')), graph, text)).toBe(true);
  });

  it('are never sides that meet in a file, directly or through any chain of importers', async () => {
    expect(await apart(agent('p', edit('src/a.ts')), agent('q', edit('src/a.ts')), graph, text)).toBe(false);
    expect(await apart(agent('p', edit('src/a.ts')), agent('q', edit('src/app.ts')), graph, text)).toBe(false);
    // Neither imports the other, but app.ts (and top.ts) read both.
    expect(await apart(agent('p', edit('src/a.ts')), agent('q', edit('src/b.ts')), graph, text)).toBe(false);
    expect(await apart(agent('p', edit('src/a.ts')), agent('q', edit('src/top.ts')), graph, text)).toBe(false);
  });

  it('are never sides that change what the program sees without an import', async () => {
    const e = agent('q', edit('src/e.ts'));
    for (const p of [
      agent('p', edit('src/types.d.ts')),
      agent('p', edit('tsconfig.json')),
      agent('p', edit('package.json')),
      agent('p', edit('src/d.ts', 'modified', 'const g = 1;')),
      agent('p', edit('src/d.ts', 'modified', MODULE + '\ndeclare global { var g: number }')),
      agent('p', edit('src/d.ts', 'modified', MODULE + "\ndeclare module './e.js' { const y: number }")),
      agent('p', edit('src/d.ts', 'modified', MODULE, 'const g = 1;')),
    ])
      expect(await apart(p, e, graph, text)).toBe(false);
    // A file one side adds that the other side's changed code names: its import resolves only in the merge.
    const adds = agent('q', edit('src/fresh.ts', 'added'));
    expect(
      await apart(agent('p', edit('src/d.ts', 'modified', "import { x } from './fresh.js';\nexport const y = x;")), adds, graph, text),
    ).toBe(false);
    expect(await apart(agent('p', edit('src/d.ts')), adds, graph, text)).toBe(true);
  });
});
