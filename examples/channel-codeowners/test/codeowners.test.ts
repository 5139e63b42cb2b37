import { describe, expect, it } from 'vitest';
import type { Agent, ChannelContext, FileEdit } from '@airspace/core';
import { createRepoFixture } from '@airspace/git/fixture';
import codeownersChannel, { ownerRule, parseCodeowners } from '../src/index.js';

const RULES = `
# Catch-all, too broad to matter
*                @org/everyone
/packages/api/   @org/api-team   # the API
*.md             @org/docs
/packages/api/generated/
`;

const file = (path: string, weight = 1): FileEdit => ({ path, status: 'modified', weight, baseRanges: [[1, 2]], newRanges: [[1, 2]] });
const agent = (id: string, ...files: FileEdit[]): Agent => ({ id, label: id, startedAt: 0, committedWork: 0, files });
const ctx = (root?: string): ChannelContext<unknown> => ({
  options: {},
  now: 0,
  services: {},
  logger: { debug() {}, info() {}, warn() {} },
  ...(root ? { repository: { id: 'r', root } } : {}),
});

async function score(channel: ReturnType<typeof codeownersChannel>, a: Agent, b: Agent, root?: string) {
  const c = ctx(root);
  const prepared = await channel.prepare!([a, b], c);
  return channel.score(a, b, { ...c, prepared });
}

describe('parseCodeowners', () => {
  const { rules, errors } = parseCodeowners(RULES + '!negated @x\n');
  it('lets the last matching line win and un-assigns owner-less lines', () => {
    expect(ownerRule(rules, 'packages/api/src/server.ts')?.owners).toEqual(['@org/api-team']);
    expect(ownerRule(rules, 'packages/api/README.md')?.owners).toEqual(['@org/docs']);
    expect(ownerRule(rules, 'packages/api/generated/client.ts')).toBeUndefined();
    expect(ownerRule(rules, 'src/index.ts')?.owners).toEqual(['@org/everyone']);
  });
  it('reports syntax CODEOWNERS does not support', () => {
    expect(errors).toEqual(['line 7: "!negated" uses syntax CODEOWNERS does not support; ignored']);
  });
});

describe('codeowners channel', () => {
  const channel = codeownersChannel({ text: RULES, ignoreOwners: ['@org/everyone'] });

  it('raises risk for files of the same team, with evidence naming the team and both files', async () => {
    const result = await score(channel, agent('alice', file('packages/api/src/a.ts')), agent('bob', file('packages/api/src/b.ts', 0.5)));
    expect(result.risk).toBeCloseTo(0.25);
    expect(result.evidence[0]).toMatchObject({ kind: 'shared-owner', a: { agent: 'alice', path: 'packages/api/src/a.ts' }, b: { agent: 'bob', path: 'packages/api/src/b.ts' } });
    expect(result.evidence[0]?.message).toContain('@org/api-team');
  });

  it('is clear for different teams, unowned files and ignored catch-all owners', async () => {
    expect((await score(channel, agent('alice', file('packages/api/src/a.ts')), agent('bob', file('docs/guide.md')))).risk).toBe(0);
    expect((await score(channel, agent('alice', file('src/x.ts')), agent('bob', file('src/y.ts')))).risk).toBe(0);
    expect((await score(channel, agent('alice', file('packages/api/generated/a.ts')), agent('bob', file('packages/api/generated/b.ts')))).risk).toBe(0);
  });

  it('reads .github/CODEOWNERS from the repository root', async () => {
    const repo = createRepoFixture({ '.github/CODEOWNERS': '/web/ @org/web\n', 'web/a.ts': 'a\n' });
    try {
      const result = await score(codeownersChannel(), agent('alice', file('web/a.ts')), agent('bob', file('web/b.ts')), repo.dir);
      expect(result.risk).toBe(0.5);
      expect(result.evidence[0]?.message).toContain('.github/CODEOWNERS');
    } finally {
      repo.dispose();
    }
  });

  it('scores nothing (and does not throw) when the repository has no CODEOWNERS', async () => {
    const result = await score(codeownersChannel(), agent('alice', file('a.ts')), agent('bob', file('a.ts')), '/nonexistent-root');
    expect(result).toEqual({ risk: 0, evidence: [] });
  });
});
