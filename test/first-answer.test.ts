/**
 * A first answer in seconds, end to end with the built CLI: on a repository never scanned, a
 * check through the resident engine answers with what needs no index (overlap) and says the
 * index is warming up (`WARMING_UP`, the channels not checked yet), while the index is built; a
 * later check gives the full answer, the same as a cold in-process check. The index is made slow
 * with `AIRSPACE_TEST_INDEX_DELAY_MS`, a knob that exists only for tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { generateRepo } from '@airspace/bench';
import { DEFER_INDEX_FILES } from '@airspace/scanner';
import { airspace, type Run } from './run-cli.js';
import { ENGINE_ENV, stopEngines } from './engines.js';

/** How long every build of the index is held back in the engine (ms). */
const DELAY_MS = 15_000;
const ENV = { ...ENGINE_ENV, AIRSPACE_FIRST_ANSWER_MS: '750', AIRSPACE_TEST_INDEX_DELAY_MS: String(DELAY_MS) };

interface Answer {
  level: string;
  conflicts: { with: string; level: string; channels: { channel: string }[] }[];
  problems: { code: string; channel?: string; message: string }[];
}

let repo: RepoFixture;
let files: Record<string, string>;
const started = new Set<number>();

function edited(path: string, from: number, to: number, tag: string): string {
  return files[path]!.split('\n')
    .map((line, i) => (i + 1 >= from && i + 1 <= to ? `${line} // ${tag}` : line))
    .join('\n');
}

const partialOf = (a: Answer) => a.problems.find((p) => p.code === 'WARMING_UP' && p.channel === undefined);
const json = (run: Run): Answer => JSON.parse(run.stdout) as Answer;

beforeAll(() => {
  files = generateRepo({ files: 60, seed: 7 }).files as Record<string, string>;
  repo = createRepoFixture(files, { epoch: Math.floor(Date.now() / 1000) - 600 });
});

afterAll(async () => {
  await stopEngines(repo.dir, started);
  repo.dispose();
});

describe('the first check on a repository never scanned', () => {
  it('answers at once with overlap and a warming note, then in full once the index is ready', { timeout: 240_000 }, async () => {
    const [shared, other] = Object.keys(files)
      .filter((p) => p.endsWith('.ts') && !p.endsWith('index.ts'))
      .sort();
    const alice = repo.worktree('alice');
    alice.write(other!, edited(other!, 1, 2, 'alice'));
    repo.worktree('bob').write(shared!, edited(shared!, 3, 5, 'bob'));

    const t0 = Date.now();
    const first = await airspace(['check', shared!, '--lines', '4-4', '--json', '--verbose'], {
      cwd: alice.dir,
      env: ENV,
      timeoutMs: 60_000,
    });
    const firstMs = Date.now() - t0;
    try {
      started.add((JSON.parse(readFileSync(join(repo.dir, '.git', 'airspace', 'engine.json'), 'utf8')) as { pid: number }).pid);
    } catch {
      // No lock: no engine to stop.
    }
    expect(first.stderr).not.toMatch(/in-process/);
    const firstAnswer = json(first);
    // It did not wait for the index: the answer came well before the index could be ready.
    expect(firstMs).toBeLessThan(DELAY_MS);
    // Overlap needs no index: bob's lines are found at once, and the exit code says so.
    expect(firstAnswer.level).toBe('resolution');
    expect(first.code).toBe(2);
    expect(firstAnswer.conflicts[0]!.with).toBe('bob');
    // What was not checked is named, and each such channel says so.
    const partial = partialOf(firstAnswer);
    expect(partial?.message).toMatch(/^partial: index warming up.*not checked yet: .*dependency/);
    expect(firstAnswer.problems.some((p) => p.code === 'WARMING_UP' && p.channel === 'dependency')).toBe(true);

    // A clear partial answer is not presented as fully clear (exit 0, the text says what is missing).
    const clear = await airspace(['check', 'brand-new.ts'], { cwd: alice.dir, env: ENV, timeoutMs: 60_000 });
    expect(clear.code, clear.stderr).toBe(0);
    expect(clear.stdout).toMatch(/CLEAR .*checked so far/);
    expect(clear.stdout).toMatch(/^partial: index warming up.*not checked yet: /m);
    expect(clear.stdout).not.toMatch(/no other agent is close\./);
    // The pre-edit hook's advice says so too.
    const hook = await airspace(['check', '--tool-call', '--json'], {
      cwd: alice.dir,
      env: ENV,
      input: JSON.stringify({ tool_name: 'Write', tool_input: { file_path: join(alice.dir, 'brand-new.ts'), content: '' } }),
      timeoutMs: 60_000,
    });
    expect(hook.code).toBe(0);
    expect(partialOf(json(hook))).toBeDefined();
    const told = await airspace(['check', '--tool-call'], {
      cwd: alice.dir,
      env: ENV,
      input: JSON.stringify({ tool_name: 'Write', tool_input: { file_path: join(alice.dir, 'brand-new.ts'), content: '' } }),
      timeoutMs: 60_000,
    });
    expect(told.code).toBe(0);
    const context = (JSON.parse(told.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(context).toMatch(/^CLEAR \(partial\): .*\n\npartial: index warming up/s);

    // Once the index is ready, the next check gives the full answer: no note, as a cold check.
    let full: Answer | undefined;
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      const again = json(await airspace(['check', shared!, '--lines', '4-4', '--json'], { cwd: alice.dir, env: ENV, timeoutMs: 60_000 }));
      if (!partialOf(again)) {
        full = again;
        break;
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(full, 'a full answer within 3 minutes').toBeDefined();
    expect(full!.problems.some((p) => p.code === 'WARMING_UP')).toBe(false);
    const cold = await airspace(['check', shared!, '--lines', '4-4', '--json', '--no-engine'], { cwd: alice.dir, timeoutMs: 120_000 });
    expect(full).toEqual(json(cold));
  });
});

describe('the first check on a repository never scanned does not wait for an index it cannot have', () => {
  let fresh: RepoFixture;
  const pids = new Set<number>();
  const WAIT_ALL = { ...ENGINE_ENV, AIRSPACE_FIRST_ANSWER_MS: '60000' };
  const remember = () => {
    try {
      pids.add((JSON.parse(readFileSync(join(fresh.dir, '.git', 'airspace', 'engine.json'), 'utf8')) as { pid: number }).pid);
    } catch {
      // No lock: no engine to stop.
    }
  };
  afterAll(async () => {
    await stopEngines(fresh.dir, pids);
    fresh.dispose();
  });

  it(
    'answers in part at once however long it may wait; once facts are cached, a first check waits for them',
    { timeout: 240_000 },
    async () => {
      // Larger than DEFER_INDEX_FILES: a smaller repository's index is built within the first answer's wait.
      const own = generateRepo({ files: DEFER_INDEX_FILES + 200, seed: 11 }).files as Record<string, string>;
      fresh = createRepoFixture(own, { epoch: Math.floor(Date.now() / 1000) - 600 });
      const [shared] = Object.keys(own)
        .filter((p) => p.endsWith('.ts') && !p.endsWith('index.ts'))
        .sort();
      const lines = own[shared!]!.split('\n');
      fresh.worktree('bob').write(shared!, lines.map((l, i) => (i >= 2 && i <= 4 ? `${l} // bob` : l)).join('\n'));
      const alice = fresh.worktree('alice');

      // Allowed to wait a minute for the index, it does not: no facts are cached, the index starts after the answer.
      const t0 = Date.now();
      const first = json(
        await airspace(['check', shared!, '--lines', '4-4', '--json'], { cwd: alice.dir, env: WAIT_ALL, timeoutMs: 120_000 }),
      );
      remember();
      expect(Date.now() - t0).toBeLessThan(30_000);
      expect(first.level).toBe('resolution');
      expect(partialOf(first)?.message).toMatch(/not checked yet: .*dependency/);

      // The index was built after that answer: the next check is whole.
      let full: Answer | undefined;
      for (const deadline = Date.now() + 120_000; !full && Date.now() < deadline;) {
        const again = json(
          await airspace(['check', shared!, '--lines', '4-4', '--json'], { cwd: alice.dir, env: WAIT_ALL, timeoutMs: 120_000 }),
        );
        if (!partialOf(again)) full = again;
      }
      expect(full?.problems.some((p) => p.code === 'WARMING_UP')).toBe(false);

      // A new engine finds the facts cached on disk: its first check waits for the index and is whole.
      await airspace(['engine', 'stop', '--repo', fresh.dir], { env: WAIT_ALL, timeoutMs: 20_000 });
      const warm = json(
        await airspace(['check', shared!, '--lines', '4-4', '--json'], { cwd: alice.dir, env: WAIT_ALL, timeoutMs: 120_000 }),
      );
      remember();
      expect(partialOf(warm)).toBeUndefined();
      expect(warm).toEqual(full);
    },
  );
});
