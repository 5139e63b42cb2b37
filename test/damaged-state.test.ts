/**
 * A damaged or unusual state must never turn a collision into "clear", nor an agreement into a
 * collision: identical large untracked files, file names that are not UTF-8, a truncated intents
 * file, an unreadable teammate observation. In-process through `@airspace/scanner` and the
 * packages themselves, on repositories built here.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScanResult } from '@airspace/core';
import { checkInProcess, readIntents, scanInProcess, writeIntent } from '@airspace/engine';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { scanRepository } from '@airspace/scanner';

const now = (): number => Date.parse('2026-12-01T12:00:00Z');
let repo: RepoFixture | undefined;
afterEach(() => {
  repo?.dispose();
  repo = undefined;
});

const scan = (root: string): Promise<ScanResult> => scanRepository({ repo: root, base: 'main', now });
const pair = (r: ScanResult, a: string, b: string) => r.links.find((l) => (l.a === a && l.b === b) || (l.a === b && l.b === a));

describe('untracked files over the size limit', () => {
  // Over the default 2 MiB limit: left out of the state tree, hashed as a stream instead.
  const big = (tag: string) => Buffer.alloc(2 * 1024 * 1024 + 4096, `${tag} big content line\n`);

  it('added identically by two agents: the same change, not an add/add conflict', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n' });
    repo.worktree('erin').write('data/big.txt', big('same'));
    const frank = repo.worktree('frank').write('data/big.txt', big('same'));
    const r = await scan(repo.dir);
    const link = pair(r, 'erin', 'frank');
    expect(link?.level).toBe('clear');
    const evidence = link!.channels.flatMap((c) => c.evidence.map((e) => e.message)).join('\n');
    expect(evidence).not.toMatch(/different content/);
    expect(evidence).toMatch(/same content/);
    // Changed in place to other content of the same size: hashed again, a conflict again.
    frank.write('data/big.txt', big('SAME'));
    expect(pair(await scan(repo.dir), 'erin', 'frank')?.level).toBe('resolution');
  });

  it('added with different content by two agents: still an add/add conflict', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n' });
    repo.worktree('erin').write('data/big.txt', big('one'));
    repo.worktree('frank').write('data/big.txt', big('two'));
    const r = await scan(repo.dir);
    expect(pair(r, 'erin', 'frank')?.level).toBe('resolution');
  });
});

describe('file names that are not UTF-8', () => {
  // "café.txt" in latin1 and "cafè.txt" in latin1: two names, both U+FFFD when decoded lossily.
  const name = (last: number) => Buffer.concat([Buffer.from('caf'), Buffer.of(last), Buffer.from('.txt')]);
  const write = (dir: string, bytes: Buffer, text: string) => writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), bytes]), text);

  it('two different names added by two agents stay two files, not one added by both', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n' });
    write(repo.worktree('erin').dir, name(0xe9), 'one\n');
    write(repo.worktree('frank').dir, name(0xe8), 'two\n');
    const r = await scan(repo.dir);
    const link = pair(r, 'erin', 'frank');
    expect(link?.level).toBe('clear');
    const files = r.agents.flatMap((a) => a.files.map((f) => f.path));
    expect(new Set(files).size).toBe(2);
    expect(files.join('')).not.toContain('\ufffd');
  });

  it('check finds an existing file named by a lossily decoded argument', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n' });
    const erin = repo.worktree('erin');
    write(erin.dir, name(0xe9), 'one\n');
    // What Node makes of the argument `caf\xe9.txt`: the bad byte becomes U+FFFD.
    const target = 'caf\ufffd.txt';
    expect(existsSync(join(erin.dir, target))).toBe(false);
    const result = await checkInProcess({ cwd: erin.dir, target });
    expect(result.new).toBeUndefined();
    expect(result.path).not.toContain('\ufffd');
  });
});

describe('a truncated intents.json', () => {
  it('keeps its declarations and the damaged file, names the problem, and the next declaration keeps the others', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n' });
    repo.worktree('erin');
    repo.worktree('frank');
    const common = join(repo.dir, '.git');
    const at = Date.now();
    const declare = (agent: string, path: string) =>
      writeIntent(common, {
        agent,
        paths: [path],
        symbols: [],
        declaredAt: new Date(at).toISOString(),
        expiresAt: new Date(at + 3_600_000).toISOString(),
      });
    declare('erin', 'src/a.ts');
    declare('frank', 'src/a.ts');
    const file = join(common, 'airspace', 'intents.json');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, text.length - 3)); // cut short: the closing bracket is lost

    const r = await scanInProcess({ cwd: repo.dir });
    expect(r.problems.map((p) => p.code)).toContain('INTENTS_DAMAGED');
    // Both declarations still count: erin and frank both declared src/a.ts.
    const link = pair(r, 'erin', 'frank');
    expect(link).toBeDefined();
    expect(link!.level).not.toBe('clear');
    expect(readdirSync(join(common, 'airspace')).some((n) => n.startsWith('intents.json.damaged-'))).toBe(true);

    declare('grace', 'src/b.ts');
    expect(
      readIntents(common)
        .map((d) => d.agent)
        .sort(),
    ).toEqual(['erin', 'frank', 'grace']);
  });
});

describe('an unreadable teammate observation', () => {
  it('is an unknown agent with the true reason, not dropped as "does not name a commit"', async () => {
    repo = createRepoFixture({ 'src/a.ts': 'export const a = 1;\n' });
    // A published ref whose commit is no observation (an ordinary commit).
    repo.git('update-ref', 'refs/airspace/agents/mallory', repo.head());
    const clone = mkdtempSync(join(tmpdir(), 'airspace-team-'));
    try {
      execFileSync('git', ['clone', '-q', '--no-local', repo.dir, join(clone, 'c')], { stdio: 'ignore' });
      const dir = join(clone, 'c');
      writeFileSync(join(dir, 'src/a.ts'), 'export const a = 2;\n');
      const r = await scanRepository({ repo: dir, base: 'main', now, sources: ['worktrees', 'published:origin'] });
      const messages = r.problems.map((p) => p.message).join('\n');
      expect(messages).not.toMatch(/does not name a commit/);
      const mallory = r.agents.find((a) => a.id === 'mallory');
      expect(mallory?.incomplete?.join('\n')).toMatch(/published observation unreadable/);
      const link = r.links.find((l) => l.a === 'mallory' || l.b === 'mallory');
      expect(link?.level).toBe('unknown');
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });
});
