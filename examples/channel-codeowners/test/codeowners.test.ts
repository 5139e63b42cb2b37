import { describe, expect, it } from 'vitest';
import { agent, channelTester, edit, scoreOnce } from '@airspace/core/testing';
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
const channel = codeownersChannel();

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

// Options as a config's `channels.codeowners.options` gives them: the channel reads them as ctx.options.
const options = { text: RULES, ignoreOwners: ['@org/everyone'] };

channelTester.run('codeowners', channel, {
  low: [
    {
      name: 'different teams',
      a: agent('alice', [file('packages/api/src/a.ts')]),
      b: agent('bob', [file('docs/guide.md')]),
      options,
      max: 0,
    },
    {
      name: 'only the ignored catch-all owner',
      a: agent('alice', [file('src/x.ts')]),
      b: agent('bob', [file('src/y.ts')]),
      options,
      max: 0,
    },
    {
      name: 'un-assigned paths',
      a: agent('alice', [file('packages/api/generated/a.ts')]),
      b: agent('bob', [file('packages/api/generated/b.ts')]),
      options,
      max: 0,
    },
  ],
  high: [
    {
      name: 'the catch-all owner counts unless ignored',
      a: agent('alice', [file('src/x.ts')]),
      b: agent('bob', [file('src/y.ts')]),
      options: { text: RULES },
      min: 0.5,
      kind: 'shared-owner',
    },
    {
      name: 'same team, weighted by recency',
      a: agent('alice', [file('packages/api/src/a.ts')]),
      b: agent('bob', [file('packages/api/src/b.ts', 0.5)]),
      options,
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
      const result = await scoreOnce(channel, agent('alice', [file('web/a.ts')]), agent('bob', [file('web/b.ts')]), {
        repository: { id: 'r', root: repo.dir },
      });
      expect(result.risk).toBe(0.5);
      expect(result.evidence[0]?.message).toContain('.github/CODEOWNERS');
    } finally {
      repo.dispose();
    }
  });

  it('scores nothing (and does not throw) when the repository has no CODEOWNERS', async () => {
    const result = await scoreOnce(channel, agent('alice', [file('a.ts')]), agent('bob', [file('a.ts')]), {
      repository: { id: 'r', root: '/nonexistent-root' },
    });
    expect(result).toEqual({ risk: 0, evidence: [] });
  });

  it('reports a bad option and keeps its default', async () => {
    const result = await scoreOnce(channel, agent('alice', [file('api/a.ts')]), agent('bob', [file('api/b.ts')]), {
      options: { text: '/api/ @org/api\n', sharedOwnerRisk: 'high' },
    });
    expect(result.risk).toBe(0.5);
    expect(result.problems?.map((p) => [p.code, p.channel])).toEqual([['INVALID_OPTION', 'codeowners']]);
  });
});
