/**
 * The resident engine's type-checks: in the background, in the compiler's thread. The engine
 * answers (scans, an editor's scan, an agent's check) while that thread is held in a check, as a
 * check of seconds would hold it, and a check queued before the index settled starts after it.
 * The thread is held deterministically (an Atomics gate it waits on), never timed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { WARMING_UP } from '@airspace/scanner';
import { EngineCore, scanInProcess } from '../src/questions.js';

const ls = (...l: string[]) => l.join('\n') + '\n';
const project = {
  'tsconfig.json': ls(
    '{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true }, "include": ["src"] }',
  ),
  'package.json': ls('{ "name": "shop", "private": true, "type": "module" }'),
  'src/session.ts': ls('export function createSession(user: string): string {', '  return user;', '}'),
  'src/notes.ts': ls(...Array.from({ length: 20 }, (_, i) => `export const note${i + 1} = ${i + 1};`)),
};
const notes = (line: number, text: string) =>
  ls(...Array.from({ length: 20 }, (_, i) => (i + 1 === line ? text : `export const note${i + 1} = ${i + 1};`)));
const until = async (done: () => boolean): Promise<void> => {
  for (let i = 0; i < 1200 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
};

/**
 * erin changes createSession's signature, frank adds a call with the old one: their merge breaks.
 * Both also change lines far apart in one file: a pair the channel checks even before the index
 * (which shows that frank's new file imports erin's changed one) is ready.
 */
function pair(repo: RepoFixture) {
  repo
    .worktree('erin')
    .write('src/session.ts', ls('export function createSession(user: string, ttlMs: number): string {', '  return user + ttlMs;', '}'))
    .write('src/notes.ts', notes(2, 'export const note2 = "erin";'));
  return repo
    .worktree('frank')
    .write('src/login.ts', ls("import { createSession } from './session.js';", '', 'export const token = createSession("frank");'))
    .write('src/notes.ts', notes(18, 'export const note18 = "frank";'));
}

const typecheckOf = (result: Awaited<ReturnType<typeof scanInProcess>>) =>
  result.links.find((l) => l.a === 'erin' && l.b === 'frank')?.channels.find((c) => c.channel === 'typecheck');

/** The compiler's thread's gate: slot 0 set holds each check before it starts; slot 1 counts the checks started. */
function gate(held: boolean) {
  const slots = new Int32Array(new SharedArrayBuffer(16));
  Atomics.store(slots, 0, held ? 1 : 0);
  return {
    hold: slots.buffer as SharedArrayBuffer,
    started: () => Atomics.load(slots, 1),
    release: () => (Atomics.store(slots, 0, 0), Atomics.notify(slots, 0)),
  };
}

describe('type-checks in the background', () => {
  it(
    "answers while the compiler's thread is held in a check, says the pair is still being checked, then reads the compiler",
    { timeout: 120_000 },
    async () => {
      const repo = createRepoFixture(project);
      const thread = gate(true);
      let ended = 0;
      const core = new EngineCore({
        commonDir: join(repo.dir, '.git'),
        resident: true,
        typecheckThread: { hold: thread.hold },
        onTypecheck: () => ended++,
      });
      try {
        const frank = pair(repo);
        const first = await core.scanFor({ cwd: frank.dir });
        expect(typecheckOf(first)).toMatchObject({ risk: 0, pending: true });
        expect(first.problems.find((p) => p.code === 'TYPECHECK_PENDING')?.message).toMatch(/erin and frank is still being checked/);
        // The compiler's thread has the check, and is held in it.
        await until(() => thread.started() > 0);
        expect(thread.started()).toBe(1);
        // Meanwhile an agent's check, the editor's scan and an agent's advisories are answered; the
        // repeated question starts no second check.
        const check = await core.check({ cwd: frank.dir, target: 'src/session.ts', lines: '1-1' });
        expect(check.conflicts.find((c) => c.with === 'erin')?.level).toBe('resolution');
        const editor = await core.editorScan({ cwd: frank.dir });
        expect(typecheckOf(editor)).toMatchObject({ pending: true });
        const advisories = await core.advisories({ cwd: frank.dir });
        expect(advisories.problems.map((p) => p.code)).toContain('TYPECHECK_PENDING');
        expect(ended).toBe(0);

        thread.release();
        await until(() => ended > 0);
        expect(ended).toBe(1);
        const later = await core.scanFor({ cwd: frank.dir });
        expect(typecheckOf(later)).toMatchObject({ risk: 1 });
        expect(typecheckOf(later)!.pending).toBeUndefined();
        expect(typecheckOf(later)!.evidence[0]!.message).toMatch(/src\/login\.ts:3 TS2554 Expected 2 arguments, but got 1/);
        expect(later.problems.map((p) => p.code)).not.toContain('TYPECHECK_PENDING');
        expect(thread.started()).toBe(1);
      } finally {
        thread.release();
        await core.dispose();
        repo.dispose();
      }
    },
  );

  it('starts a check asked for while the index warms up only once the index has settled', { timeout: 120_000 }, async () => {
    const repo = createRepoFixture(project);
    const thread = gate(false);
    let ended = 0;
    // The index takes seconds to build (a test knob), and a first answer waits for none of it.
    const delay = process.env.AIRSPACE_TEST_INDEX_DELAY_MS;
    process.env.AIRSPACE_TEST_INDEX_DELAY_MS = '5000';
    const core = new EngineCore({
      commonDir: join(repo.dir, '.git'),
      resident: true,
      firstAnswerMs: 0,
      typecheckThread: { hold: thread.hold },
      onTypecheck: () => ended++,
    });
    try {
      const frank = pair(repo);
      const first = await core.check({ cwd: frank.dir, target: 'src/login.ts' });
      expect(first.problems.map((p) => p.code)).toContain(WARMING_UP);
      // The engine's refresh scans every pair with the index still warming up: the pair's
      // type-check is asked for now, and waits.
      await core.refresh();
      await until(() => thread.started() > 0);
      expect(thread.started()).toBe(1);
      // When the compiler's thread got the check, the index was ready: a check answers in full.
      const next = await core.check({ cwd: frank.dir, target: 'src/login.ts' });
      expect(next.problems.map((p) => p.code)).not.toContain(WARMING_UP);
      await until(() => ended > 0);
      const later = await core.scanFor({ cwd: frank.dir });
      expect(typecheckOf(later)).toMatchObject({ risk: 1 });
    } finally {
      if (delay === undefined) delete process.env.AIRSPACE_TEST_INDEX_DELAY_MS;
      else process.env.AIRSPACE_TEST_INDEX_DELAY_MS = delay;
      await core.dispose();
      repo.dispose();
    }
  });

  it('in-process (no engine), checks inside the scan as before', { timeout: 120_000 }, async () => {
    const repo = createRepoFixture(project);
    try {
      const frank = pair(repo);
      const result = await scanInProcess({ cwd: frank.dir });
      expect(typecheckOf(result)).toMatchObject({ risk: 1 });
      expect(result.problems.map((p) => p.code)).not.toContain('TYPECHECK_PENDING');
    } finally {
      repo.dispose();
    }
  });
});
