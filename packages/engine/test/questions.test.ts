/**
 * The resident `EngineCore` serving an editor and agents at once: an editor's unsaved buffers
 * count in its scans and never in an agent's check (which answers as a cold check does), and an
 * edited config file applies from the next answer.
 */
import { probabilityOf } from '@airspace/core';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRepoFixture } from '@airspace/git/fixture';
import { EngineCore, checkInProcess, scanInProcess } from '../src/questions.js';
import { buffersDelta, bufferDigests, withBuffers } from '../src/freshness.js';

const lines = Array.from({ length: 30 }, (_, i) => `export const a${i + 1} = ${i + 1};`);
const text = (edit: Record<number, string> = {}) => lines.map((l, i) => edit[i + 1] ?? l).join('\n') + '\n';

describe('what subscribers are told', () => {
  it('counts a scan that read a save, whoever asked, and not one that read nothing new', { timeout: 60_000 }, async () => {
    const repo = createRepoFixture({ 'src/a.ts': text() });
    const core = new EngineCore({ commonDir: join(repo.dir, '.git'), resident: true });
    try {
      const alice = repo.worktree('alice').write('src/a.ts', text({ 5: 'export const a5 = "alice";' }));
      const bob = repo.worktree('bob');
      await core.editorScan({ cwd: alice.dir });
      const seen = core.generation;
      // Nothing moved: a repeated question reads nothing again.
      await core.editorScan({ cwd: alice.dir });
      expect(core.generation).toBe(seen);
      // bob saves, and an agent's check reads it before the engine's own refresh: the refresh
      // that follows finds nothing new, but the count moved, so subscribers are still told.
      bob.write('src/a.ts', text({ 6: 'export const a6 = "bob";' }));
      await core.check({ cwd: bob.dir, target: 'src/a.ts' });
      expect(core.generation).toBeGreaterThan(seen);
      const afterCheck = core.generation;
      await core.refresh();
      expect(core.generation).toBe(afterCheck);
    } finally {
      await core.dispose();
      repo.dispose();
    }
  });
});

describe("an editor's question after a refresh", () => {
  it("is answered with the refresh's answer, not scanned again", { timeout: 60_000 }, async () => {
    const repo = createRepoFixture({ 'src/a.ts': text() }, { epoch: Math.floor(Date.now() / 1000) - 600 });
    const worktrees = () =>
      repo
        .git('worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree '))
        .map((l) => l.slice('worktree '.length));
    let events = 0;
    const core = new EngineCore({
      commonDir: join(repo.dir, '.git'),
      resident: true,
      changes: { events: () => events, watching: worktrees },
    });
    try {
      const alice = repo.worktree('alice').write('src/a.ts', text({ 20: 'export const a20 = "alice";' }));
      const bob = repo.worktree('bob').write('src/a.ts', text({ 5: 'export const a5 = "bob";' }));
      const pair = (result: Awaited<ReturnType<typeof scanInProcess>>) => result.links.find((l) => l.a === 'alice' && l.b === 'bob')?.level;
      expect(pair(await core.editorScan({ cwd: bob.dir, overrides: {} }))).toBe('clear');
      // alice saves onto bob's line; the file event starts the engine's refresh.
      alice.write('src/a.ts', text({ 5: 'export const a5 = "alice";' }));
      events++;
      await core.refresh();
      const refreshed = core.state().lastScan;
      // The editor, told, asks: the refresh's answer (waiting for the index is not part of the question).
      expect(pair(await core.editorScan({ cwd: bob.dir, overrides: {} }))).toBe('resolution');
      expect(core.state().lastScan).toBe(refreshed);
    } finally {
      await core.dispose();
      repo.dispose();
    }
  });
});

describe('file events vouching for a stamp', () => {
  it('are checked against the stat of every changed file: an edit no event told of still counts', { timeout: 60_000 }, async () => {
    const repo = createRepoFixture({ 'src/a.ts': text() }, { epoch: Math.floor(Date.now() / 1000) - 600 });
    // File events that never come (a watch that lost the file), over every worktree.
    const worktrees = () =>
      repo
        .git('worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree '))
        .map((l) => l.slice('worktree '.length));
    const core = new EngineCore({ commonDir: join(repo.dir, '.git'), resident: true, changes: { events: () => 0, watching: worktrees } });
    try {
      repo
        .worktree('alice')
        .write('src/a.ts', text({ 5: 'export const a5 = "alice";' }))
        .commit('alice');
      const bob = repo.worktree('bob').write('src/a.ts', text({ 20: 'export const a20 = "bob";' }));
      const pair = (result: Awaited<ReturnType<typeof scanInProcess>>) => result.links.find((l) => l.a === 'alice' && l.b === 'bob')?.level;
      const level = async () => pair(await core.scanFor({ cwd: bob.dir }));
      expect(await level()).toBe('clear');
      // bob's dirty file edited in place with no event: onto alice's line, then away again.
      bob.write('src/a.ts', text({ 5: 'export const a5 = "bob";' }));
      const cold = pair(await scanInProcess({ cwd: bob.dir }));
      expect(cold).toBe('resolution');
      expect(await level()).toBe(cold);
      expect(core.stamps.missed).toBe(1);
      bob.write('src/a.ts', text({ 20: 'export const a20 = "bob, again";' }));
      expect(await level()).toBe('clear');
      expect(core.stamps.missed).toBe(2);
    } finally {
      await core.dispose();
      repo.dispose();
    }
  });
});

describe('warm scanners', () => {
  it('keeps at most maxWarm, letting go of the least recently used; answers stay those of a cold scan', { timeout: 60_000 }, async () => {
    const repo = createRepoFixture({ 'src/a.ts': text() });
    const core = new EngineCore({ commonDir: join(repo.dir, '.git'), resident: true, maxWarm: 2 });
    try {
      const alice = repo.worktree('alice').write('src/a.ts', text({ 5: 'export const a5 = "alice";' }));
      repo.worktree('bob').write('src/a.ts', text({ 5: 'export const a5 = "bob";' }));
      const head = repo.git('rev-parse', 'HEAD').trim();
      const levels = (r: { links: readonly { level: string }[] }) => r.links.map((l) => l.level);
      const plain = await core.scanFor({ cwd: alice.dir });
      await core.scanFor({ cwd: alice.dir, base: 'main' });
      await core.scanFor({ cwd: alice.dir }); // used again: now the most recent
      await core.scanFor({ cwd: alice.dir, base: head });
      expect(core.state().scanners).toBe(2);
      // The one let go (base main) starts again when asked, with the same answer.
      const again = await core.scanFor({ cwd: alice.dir, base: 'main' });
      expect(core.state().scanners).toBe(2);
      const cold = await scanInProcess({ cwd: alice.dir, base: 'main' });
      expect({ ...again, generatedAt: '' }).toEqual({ ...cold, generatedAt: '' });
      expect(levels(plain)).toEqual(['resolution']);
    } finally {
      await core.dispose();
      repo.dispose();
    }
  });
});

describe('editor buffers in the engine', () => {
  it('matches buffers to worktrees and names the paths whose buffer came, changed or went', () => {
    const before = bufferDigests({ '/r/bob': { 'a.ts': 'x', 'b.ts': 'y' } }, ['/r/bob']);
    const after = bufferDigests({ '/r/bob': { '/r/bob/a.ts': 'x', 'c.ts': 'z' } }, ['/r/bob']);
    expect([...after.get('/r/bob')!.keys()]).toEqual(['a.ts', 'c.ts']);
    const delta = buffersDelta(before, after);
    expect(Object.fromEntries(delta)).toEqual({ '/r/bob': ['b.ts', 'c.ts'] });
    expect(withBuffers({ kind: 'same' }, delta)).toEqual({ kind: 'worktrees', changed: new Map([['/r/bob', ['b.ts', 'c.ts']]]) });
    expect(withBuffers({ kind: 'worktrees', changed: new Map([['/r/bob', 'all']]) }, delta)).toEqual({
      kind: 'worktrees',
      changed: new Map([['/r/bob', 'all']]),
    });
    expect(withBuffers({ kind: 'repository' }, delta)).toEqual({ kind: 'repository' });
  });

  it("counts an editor's buffer in its scans only; a check right after answers as a cold check", { timeout: 120_000 }, async () => {
    const repo = createRepoFixture({ 'src/a.ts': text() });
    const core = new EngineCore({ commonDir: join(repo.dir, '.git'), resident: true });
    try {
      const alice = repo
        .worktree('alice')
        .write('src/a.ts', text({ 5: 'export const a5 = "alice";' }))
        .commit('alice');
      const bob = repo.worktree('bob').write('src/a.ts', text({ 25: 'export const a25 = "bob";' }));
      const level = (result: { links: readonly { a: string; b: string; level: string }[] }) =>
        result.links.find((l) => [l.a, l.b].sort().join() === 'alice,bob')?.level ?? 'clear';
      const onDisk = await core.editorScan({ cwd: bob.dir });
      expect(level(onDisk)).not.toBe('resolution');
      // Bob types over alice's line without saving: his editor sees the conflict.
      const typed = { [bob.dir]: { 'src/a.ts': text({ 5: 'export const a5 = "bob";', 25: 'export const a25 = "bob";' }) } };
      expect(level(await core.editorScan({ cwd: bob.dir, overrides: typed }))).toBe('resolution');
      // Alice's check does not see bob's unsaved buffer: the same answer as a cold check.
      const request = { cwd: alice.dir, target: 'src/a.ts', lines: '5-5' };
      const warm = await core.check(request);
      expect(warm).toEqual(await checkInProcess(request));
      expect(warm.conflicts.find((c) => c.with === 'bob')?.level).not.toBe('resolution');
      // Bob about to edit alice's line: the conflict carries the pair's calibrated probability.
      const near = (await core.check({ cwd: bob.dir, target: 'src/a.ts', lines: '5-5' })).conflicts.find((c) => c.with === 'alice');
      expect(near?.probability).toBe(probabilityOf(near!.risk));
      // The buffer again, then closed unsaved: back to the file on disk.
      expect(level(await core.editorScan({ cwd: bob.dir, overrides: typed }))).toBe('resolution');
      expect(level(await core.editorScan({ cwd: bob.dir }))).toBe(level(onDisk));
      // The editor's scans and alice's checks kept one scanner warm (no worktree has a config).
      expect(core.state().scanners).toBe(1);
    } finally {
      await core.dispose();
      repo.dispose();
    }
  });

  it(
    'makes a worktree that declares intent before any change an agent, as itself, and drops it when it stops',
    { timeout: 120_000 },
    async () => {
      const repo = createRepoFixture({ 'src/a.ts': text() });
      const core = new EngineCore({ commonDir: join(repo.dir, '.git'), resident: true });
      try {
        repo.worktree('alice').write('src/a.ts', text({ 5: 'export const a5 = "alice";' }));
        const bob = repo.worktree('bob');
        const ids = (r: { agents: readonly { id: string; worktree?: string }[] }) => r.agents.map((a) => a.id).sort();
        expect(ids(await core.editorScan({ cwd: bob.dir }))).toEqual(['alice']);
        // The warm scanner read bob's worktree before (no changes: no agent); now bob declares.
        const declared = await core.editorScan({ cwd: bob.dir, intent: { bob: ['src/a.ts'] } });
        expect(ids(declared)).toEqual(['alice', 'bob']);
        expect(declared.agents.find((a) => a.id === 'bob')?.worktree).toBeDefined();
        expect(declared.links.find((l) => [l.a, l.b].sort().join() === 'alice,bob')?.level).toBe('traffic');
        expect(ids(await core.editorScan({ cwd: bob.dir }))).toEqual(['alice']);
      } finally {
        await core.dispose();
        repo.dispose();
      }
    },
  );

  it('applies an edited config file from the next answer', { timeout: 120_000 }, async () => {
    const repo = createRepoFixture({ 'src/a.ts': text() });
    const core = new EngineCore({ commonDir: join(repo.dir, '.git'), resident: true });
    try {
      repo.worktree('alice').write('src/a.ts', text({ 5: 'export const a5 = "alice";' }));
      const config = (traffic: number) => `export default { thresholds: { traffic: ${traffic} } };\n`;
      writeFileSync(join(repo.dir, 'airspace.config.mjs'), config(0.11));
      expect((await core.fullScan(repo.dir)).thresholds.traffic).toBe(0.11);
      // Same size, maybe the same modification time to the millisecond: the import must not be the cached module.
      writeFileSync(join(repo.dir, 'airspace.config.mjs'), config(0.12));
      const { utimesSync } = await import('node:fs');
      const later = new Date(Date.now() + 2000);
      utimesSync(join(repo.dir, 'airspace.config.mjs'), later, later);
      expect((await core.fullScan(repo.dir)).thresholds.traffic).toBe(0.12);
    } finally {
      await core.dispose();
      repo.dispose();
    }
  });
});
