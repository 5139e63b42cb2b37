import { describe, expect, it } from 'vitest';
import type { Agent } from '@airspace/core';
import { agent, channelTester, edit } from '@airspace/core/testing';
import { createRepoFixture } from '@airspace/git/fixture';
import codeownersChannel, { ownerRule, parseCodeowners } from '../src/index.js';

const RULES = `
# Catch-all, too broad to matter
*                @org/everyone
/packages/api/   @org/api-team   # the API
*.md             @org/docs
/packages/api/generated/
`;

const file = (path: string, weight = 1) => edit(path, [[1, 2]], { weight });
type Channel = ReturnType<typeof codeownersChannel>;
/** The context a scan hands the channel: its own options type, from the channel itself. */
type Context = Parameters<NonNullable<Channel['prepare']>>[1];
const ctx = (root?: string): Context => ({
  options: {},
  now: 0,
  services: {},
  logger: { debug() {}, info() {}, warn() {} },
  ...(root ? { repository: { id: 'r', root } } : {}),
});

async function score(channel: Channel, a: Agent, b: Agent, root?: string) {
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

channelTester.run('codeowners', codeownersChannel({ text: RULES, ignoreOwners: ['@org/everyone'] }), {
  low: [
    { name: 'different teams', a: agent('alice', [file('packages/api/src/a.ts')]), b: agent('bob', [file('docs/guide.md')]), max: 0 },
    { name: 'only the ignored catch-all owner', a: agent('alice', [file('src/x.ts')]), b: agent('bob', [file('src/y.ts')]), max: 0 },
    {
      name: 'un-assigned paths',
      a: agent('alice', [file('packages/api/generated/a.ts')]),
      b: agent('bob', [file('packages/api/generated/b.ts')]),
      max: 0,
    },
  ],
  high: [
    {
      name: 'same team, weighted by recency',
      a: agent('alice', [file('packages/api/src/a.ts')]),
      b: agent('bob', [file('packages/api/src/b.ts', 0.5)]),
      min: 0.25,
      kind: 'shared-owner',
      check: (result) => {
        expect(result.risk).toBeCloseTo(0.25);
        expect(result.evidence[0]).toMatchObject({
          a: { agent: 'alice', path: 'packages/api/src/a.ts' },
          b: { agent: 'bob', path: 'packages/api/src/b.ts' },
        });
        expect(result.evidence[0]?.message).toContain('@org/api-team');
      },
    },
  ],
});

describe('codeowners channel in a repository', () => {
  it('reads .github/CODEOWNERS from the repository root', async () => {
    const repo = createRepoFixture({ '.github/CODEOWNERS': '/web/ @org/web\n', 'web/a.ts': 'a\n' });
    try {
      const result = await score(codeownersChannel(), agent('alice', [file('web/a.ts')]), agent('bob', [file('web/b.ts')]), repo.dir);
      expect(result.risk).toBe(0.5);
      expect(result.evidence[0]?.message).toContain('.github/CODEOWNERS');
    } finally {
      repo.dispose();
    }
  });

  it('scores nothing (and does not throw) when the repository has no CODEOWNERS', async () => {
    const result = await score(codeownersChannel(), agent('alice', [file('a.ts')]), agent('bob', [file('a.ts')]), '/nonexistent-root');
    expect(result).toEqual({ risk: 0, evidence: [] });
  });
});
