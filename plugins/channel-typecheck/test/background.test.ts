// The channel's checks in the background (the resident engine's mode): a scan answers at once with
// the pair still being checked, the result is read by a later scan, and a time limit met once is
// tried again once (a cold check's first try parses the project for the next).
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
    let runs = 0;
    let ended = 0;
    stop = checkInBackground({ onChecked: () => ended++, run: async (check) => (runs++, check()) });
    const wait = async (n: number) => {
      for (let i = 0; i < 600 && ended < n; i++) await new Promise((r) => setTimeout(r, 50));
    };
    expect((await scoreOnce({ timeLimitMs: 0.001 })).pending).toBe(true);
    await wait(1);
    // The first time limit is not kept: the rescan starts the check again.
    expect((await scoreOnce({ timeLimitMs: 0.001 })).pending).toBe(true);
    await wait(2);
    const last = await scoreOnce({ timeLimitMs: 0.001 });
    expect(runs).toBe(2);
    expect(last.pending).toBeUndefined();
    expect(last.problems?.[0]).toMatchObject({ code: 'TYPECHECK_NOT_CHECKED' });
    expect(last.problems?.[0]!.message).toMatch(/time limit/);
  });
});
