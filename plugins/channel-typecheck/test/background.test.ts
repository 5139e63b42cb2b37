// The channel's checks in the background (the resident engine's mode): a scan answers at once with
// the pair still being checked, the result is read by a later scan, and a time limit met once is
// tried again once (a cold check's first try parses the project for the next). The compiler runs
// in a thread of its own: scans answer while it is held, and a thread that fails makes the pair
// "not checked" with the reason, and is started afresh for the next check.
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent, ChannelScore } from '@airspace/core';
import { loadAgents, type LoadAgentsResult } from '@airspace/git';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { checkInBackground, typecheckChannel } from '../src/index.js';

const lines = (...l: string[]) => l.join('\n') + '\n';
const silent = { debug() {}, info() {}, warn() {} };
let repo: RepoFixture | undefined;
let loaded: LoadAgentsResult | undefined;
let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  loaded?.git.dispose();
  repo?.dispose();
  stop = loaded = repo = undefined;
});

async function scoreOnce(options: Record<string, unknown>): Promise<ChannelScore> {
  const channel = typecheckChannel();
  const ctx = {
    options: { ...channel.defaultOptions!, ...options },
    now: Date.now(),
    logger: silent,
    services: { git: loaded!.git },
    repository: { id: 'test', root: repo!.dir },
  };
  const agentOf = (id: string): Agent => loaded!.agents.find((x) => x.id === id)!;
  const prepared = await channel.prepare!(loaded!.agents, ctx);
  return channel.score(agentOf('a'), agentOf('b'), { ...ctx, prepared });
}

const until = async (done: () => boolean): Promise<void> => {
  for (let i = 0; i < 600 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
};

async function project(tag: string): Promise<void> {
  repo = createRepoFixture({
    'tsconfig.json': lines('{ "compilerOptions": { "strict": true, "module": "nodenext", "noEmit": true }, "include": ["src"] }'),
    'package.json': lines('{ "name": "shop", "private": true, "type": "module" }'),
    'src/session.ts': lines(`export function createSession(user: string): string { return user + "${tag}"; }`),
  });
  repo
    .worktree('a')
    .write('src/session.ts', lines(`export function createSession(user: string, ttlMs: number): string { return user + ttlMs; }`));
  repo
    .worktree('b')
    .write('src/login.ts', lines("import { createSession } from './session.js';", 'export const token = createSession("b");'));
  loaded = await loadAgents({ repo: repo.dir });
}

describe('typecheck channel in the background', () => {
  it('answers at once with the pair still being checked; a later scan reads the compiler', async () => {
    await project('one');
    let ended = 0;
    stop = checkInBackground({ onChecked: () => ended++ });
    const first = await scoreOnce({});
    expect(first).toMatchObject({ risk: 0, pending: true });
    expect(first.problems?.map((p) => p.code)).toEqual(['TYPECHECK_PENDING']);
    expect(first.evidence.map((e) => e.kind)).toEqual(['typecheck-pending']);
    expect(first.overrules).toBeUndefined();
    expect(ended).toBe(0);
    for (let i = 0; i < 600 && ended === 0; i++) await new Promise((r) => setTimeout(r, 50));
    const later = await scoreOnce({});
    expect(later.pending).toBeUndefined();
    expect(later.risk).toBe(1);
    expect(later.evidence[0]!.message).toMatch(/TS2554 Expected 2 arguments, but got 1/);
  });

  it('tries a check that met its time limit once more, then says so', async () => {
    await project('two');
    // Slot 1 counts the checks the compiler's thread started (slot 0, the hold, stays open).
    const slots = new Int32Array(new SharedArrayBuffer(16));
    let ended = 0;
    stop = checkInBackground({ onChecked: () => ended++, thread: { hold: slots.buffer as SharedArrayBuffer } });
    const wait = async (n: number) => {
      for (let i = 0; i < 600 && ended < n; i++) await new Promise((r) => setTimeout(r, 50));
    };
    expect((await scoreOnce({ timeLimitMs: 0.001 })).pending).toBe(true);
    await wait(1);
    // The first time limit is not kept: the rescan starts the check again.
    expect((await scoreOnce({ timeLimitMs: 0.001 })).pending).toBe(true);
    await wait(2);
    const last = await scoreOnce({ timeLimitMs: 0.001 });
    expect(Atomics.load(slots, 1)).toBe(2);
    expect(last.pending).toBeUndefined();
    expect(last.problems?.[0]).toMatchObject({ code: 'TYPECHECK_NOT_CHECKED' });
    expect(last.problems?.[0]!.message).toMatch(/time limit/);
  });

  it("answers while the compiler's thread is held in a check, then reads its result", async () => {
    await project('three');
    // Slot 0 set: the thread blocks before its check (as a check of seconds would) until released.
    const slots = new Int32Array(new SharedArrayBuffer(16));
    Atomics.store(slots, 0, 1);
    let ended = 0;
    stop = checkInBackground({ onChecked: () => ended++, thread: { hold: slots.buffer as SharedArrayBuffer } });
    try {
      expect((await scoreOnce({})).pending).toBe(true);
      await until(() => Atomics.load(slots, 1) === 1);
      expect(Atomics.load(slots, 1)).toBe(1);
      // The compiler's thread is busy with this pair: this thread still answers, and says so.
      const meanwhile = await scoreOnce({});
      expect(meanwhile.pending).toBe(true);
      expect(meanwhile.problems?.map((p) => p.code)).toEqual(['TYPECHECK_PENDING']);
      expect(ended).toBe(0);
    } finally {
      Atomics.store(slots, 0, 0);
      Atomics.notify(slots, 0);
    }
    await until(() => ended > 0);
    const later = await scoreOnce({});
    expect(later.risk).toBe(1);
    expect(later.evidence[0]!.message).toMatch(/TS2554 Expected 2 arguments, but got 1/);
  });

  const failing = (threadsThatFail: number) => {
    // Slot 2 counts the threads started, slot 3 says how many of them fail (fixtures/failing-check-worker.mjs).
    const slots = new Int32Array(new SharedArrayBuffer(16));
    Atomics.store(slots, 3, threadsThatFail);
    const script = new URL('./fixtures/failing-check-worker.mjs', import.meta.url);
    return { slots, thread: { script, hold: slots.buffer as SharedArrayBuffer } };
  };

  it("a compiler's thread that fails: the pair is not checked, with the reason, never clear", async () => {
    await project('four');
    const { slots, thread } = failing(2);
    let ended = 0;
    stop = checkInBackground({ onChecked: () => ended++, thread });
    expect((await scoreOnce({})).pending).toBe(true);
    await until(() => ended === 1);
    // A failure is tried once more, in a new thread.
    expect((await scoreOnce({})).pending).toBe(true);
    await until(() => ended === 2);
    const last = await scoreOnce({});
    expect(Atomics.load(slots, 2)).toBe(2);
    expect(last.pending).toBeUndefined();
    expect(last.risk).toBe(0);
    expect(last.overrules).toBeUndefined();
    expect(last.evidence.map((e) => e.kind)).not.toContain('typecheck-clean');
    expect(last.problems?.[0]).toMatchObject({ code: 'TYPECHECK_NOT_CHECKED' });
    expect(last.problems?.[0]!.message).toMatch(/was not type-checked: the compiler's thread failed: out of memory \(a test\)/);
  });

  it("a compiler's thread that failed is started afresh: the next try answers", async () => {
    await project('five');
    const { slots, thread } = failing(1);
    let ended = 0;
    stop = checkInBackground({ onChecked: () => ended++, thread });
    expect((await scoreOnce({})).pending).toBe(true);
    await until(() => ended === 1);
    expect((await scoreOnce({})).pending).toBe(true);
    await until(() => ended === 2);
    const last = await scoreOnce({});
    expect(Atomics.load(slots, 2)).toBe(2);
    expect(last.risk).toBe(1);
    expect(last.evidence[0]!.message).toMatch(/TS2554 Expected 2 arguments, but got 1/);
  });
});
