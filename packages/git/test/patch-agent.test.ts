import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent } from '@airspace/core';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';
import { loadAgents, type LoadAgentsResult } from '../src/load-agents.js';
import { patchAgent } from '../src/patch-agent.js';
import { runGit } from '../src/exec.js';
import { agent, numbered, replaced, text } from './helpers.js';

let repo: RepoFixture | undefined;
const results: LoadAgentsResult[] = [];
afterEach(() => {
  for (const r of results.splice(0)) r.git.dispose();
  repo?.dispose();
  repo = undefined;
});

const base = numbered(40);
const NOW = Date.UTC(2026, 0, 1);

/** What a comparison needs: everything but times (a patch dates a saved file by its mtime). */
const shape = (a: Agent) => a.files.map(({ weight: _w, lastEditedAt: _l, ...rest }) => rest);

async function load(buffers?: { dir: string; files: Record<string, string> }): Promise<LoadAgentsResult> {
  const r = await loadAgents({ repo: repo!.dir, now: NOW, ...(buffers ? { overrides: { [buffers.dir]: buffers.files } } : {}) });
  results.push(r);
  return r;
}

describe('patchAgent: a few paths read again give what a full read gives', () => {
  it('follows edits, new files, deletions and reverts, and keeps the state tree equal to a snapshot', async () => {
    repo = createRepoFixture({ 'a.ts': text(base), 'b.ts': text(base), 'keep.ts': text(base), '.gitignore': 'build/\n' });
    const bob = repo.worktree('bob');
    bob.write('a.ts', text(replaced(base, 5, 6, 'bob'))).commit('bob commits');
    bob.write('keep.ts', text(replaced(base, 30, 30, 'bob')));
    const first = await load();
    let current = agent(first.agents, 'bob');

    // An edit, a new file, a deletion, a new ignored file and a new file in a new directory.
    bob.write('a.ts', text(replaced(base, 20, 22, 'again')));
    bob.write('c.ts', 'export const c = 1;\n');
    bob.remove('b.ts');
    mkdirSync(join(bob.dir, 'build'), { recursive: true });
    bob.write('build/out.js', 'ignored\n');
    bob.write('deep/er/d.ts', 'export const d = 1;\n');
    const patched = await patchAgent({
      git: first.git,
      agent: current,
      paths: ['a.ts', 'c.ts', 'b.ts', 'build/out.js', 'deep/er/d.ts'],
      now: NOW,
    });
    if (!('agent' in patched)) throw new Error(patched.fallback);
    current = patched.agent;
    const full = agent((await load()).agents, 'bob');
    expect(shape(current)).toEqual(shape(full));
    expect(current.files.map((f) => f.path)).toEqual(['a.ts', 'b.ts', 'c.ts', 'deep/er/d.ts', 'keep.ts']);
    // The in-memory tree is the tree git itself writes for the work tree.
    expect(first.git.state('bob')!.tree).toBe(full.meta!.tree);

    // Reverting a file to the base drops it from the working set; deleting a directory's last file drops the directory.
    bob.write('keep.ts', text(base));
    bob.remove('deep/er/d.ts');
    const again = await patchAgent({ git: first.git, agent: current, paths: ['keep.ts', 'deep/er/d.ts'], now: NOW });
    if (!('agent' in again)) throw new Error(again.fallback);
    const full2 = agent((await load()).agents, 'bob');
    expect(shape(again.agent)).toEqual(shape(full2));
    expect(again.agent.files.map((f) => f.path)).toEqual(['a.ts', 'b.ts', 'c.ts']);
    expect(first.git.state('bob')!.tree).toBe(full2.meta!.tree);
    // Nothing was written to the user's index or refs.
    expect(await runGit(['status', '--porcelain'], { cwd: bob.dir })).toContain('?? c.ts');
  });

  it('takes unsaved buffers, and goes back to the disk when a buffer is closed', async () => {
    repo = createRepoFixture({ 'a.ts': text(base) });
    const bob = repo.worktree('bob');
    bob.write('a.ts', text(replaced(base, 1, 1, 'disk'))).commit('bob');
    const first = await load();
    const buffer = text(replaced(base, 35, 36, 'buffer'));
    const withBuffer = await patchAgent({
      git: first.git,
      agent: agent(first.agents, 'bob'),
      paths: [],
      overrides: { 'a.ts': buffer },
      now: NOW,
    });
    if (!('agent' in withBuffer)) throw new Error(withBuffer.fallback);
    expect(shape(withBuffer.agent)).toEqual(shape(agent((await load({ dir: bob.dir, files: { 'a.ts': buffer } })).agents, 'bob')));
    expect(withBuffer.agent.meta!.overridden).toEqual(['a.ts']);
    expect(withBuffer.agent.files[0]!.lastEditedAt).toBe(NOW);
    // The same buffer again: nothing changed, the very same agent.
    const same = await patchAgent({ git: first.git, agent: withBuffer.agent, paths: ['a.ts'], overrides: { 'a.ts': buffer }, now: NOW });
    expect('agent' in same && same.agent).toBe(withBuffer.agent);
    const closed = await patchAgent({ git: first.git, agent: withBuffer.agent, paths: [], now: NOW });
    if (!('agent' in closed)) throw new Error(closed.fallback);
    expect(shape(closed.agent)).toEqual(shape(agent((await load()).agents, 'bob')));
    expect(closed.agent.meta!.overridden).toBeUndefined();
  });

  it('finds a rename again when one side of it changes', async () => {
    repo = createRepoFixture({ 'old.ts': text(base) });
    const bob = repo.worktree('bob');
    bob.remove('old.ts').write('new.ts', text(base)).commit('rename');
    const first = await load();
    expect(agent(first.agents, 'bob').files.map((f) => [f.status, f.path, f.oldPath])).toEqual([['renamed', 'new.ts', 'old.ts']]);
    bob.write('new.ts', text(replaced(base, 10, 10, 'edited')));
    const patched = await patchAgent({ git: first.git, agent: agent(first.agents, 'bob'), paths: ['new.ts'], now: NOW });
    if (!('agent' in patched)) throw new Error(patched.fallback);
    expect(shape(patched.agent)).toEqual(shape(agent((await load()).agents, 'bob')));
    expect(patched.agent.files.map((f) => [f.status, f.path, f.oldPath])).toEqual([['renamed', 'new.ts', 'old.ts']]);
  });

  it('declines when the shortcut could be wrong: HEAD moved, a directory, a symbolic link', async () => {
    repo = createRepoFixture({ 'a.ts': text(base) });
    const bob = repo.worktree('bob');
    bob.write('a.ts', text(replaced(base, 2, 2, 'bob')));
    const first = await load();
    const bobAgent = agent(first.agents, 'bob');
    mkdirSync(join(bob.dir, 'dir'));
    bob.write('dir/x.ts', 'x\n').commit('dir');
    // HEAD moved (a commit): read in full.
    expect(await patchAgent({ git: first.git, agent: bobAgent, paths: ['a.ts'], now: NOW })).toEqual({ fallback: 'HEAD moved' });
    const second = await load();
    const again = agent(second.agents, 'bob');
    expect(await patchAgent({ git: second.git, agent: again, paths: ['dir'], now: NOW })).toEqual({ fallback: 'dir is a directory' });
    expect(await patchAgent({ git: second.git, agent: again, paths: ['../outside.ts'], now: NOW })).toEqual({
      fallback: '../outside.ts is outside the worktree',
    });
    symlinkSync('a.ts', join(bob.dir, 'link.ts'));
    expect(await patchAgent({ git: second.git, agent: again, paths: ['link.ts'], now: NOW })).toEqual({
      fallback: 'link.ts is not a regular file',
    });
    rmSync(join(bob.dir, 'link.ts'));
    chmodSync(join(bob.dir, 'a.ts'), 0o755);
    const exec = await patchAgent({ git: second.git, agent: again, paths: ['a.ts'], now: NOW });
    if (!('agent' in exec)) throw new Error(exec.fallback);
    expect(shape(exec.agent)).toEqual(shape(agent((await load()).agents, 'bob')));
  });
});
