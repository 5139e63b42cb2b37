import { describe, expect, it } from 'vitest';
import { createShadowTrail, summarizeShadowTrail } from '../src/index.js';
import type { ShadowTrail, TrailAdvisory } from '../src/index.js';
import { at, edgeChannel, fixedChannel, observation, samePathChannel } from './helpers.js';

const advisoryOf = (trail: ShadowTrail): TrailAdvisory => (trail.receipts[0]!.payload as { advisory: TrailAdvisory }).advisory;
const now = at(10);

describe('the advisory of a created trail', () => {
  it('is clear, and says only that none was found within the supplied scope, when footprints are apart', async () => {
    const trail = await createShadowTrail(
      observation('alice', { writePaths: ['src/a.ts'] }),
      observation('bob', { writePaths: ['lib/b.ts'] }),
      { now, channels: [samePathChannel] },
    );
    const advisory = advisoryOf(trail);
    expect(advisory.level).toBe('clear');
    expect(advisory.found).toBe(false);
    expect(advisory.graph.edgeCount).toBe(0);
    expect(advisory.statement).toMatch(/No advisory was found within the complete, comparable supplied scope/);
    expect(advisory.statement).toMatch(/supplied dependency graph \(0 edges\)/);
    expect(summarizeShadowTrail(trail).statement).toMatch(/says nothing about .* dependencies not in the supplied graph/);
  });

  it('scores write sets with the channels: a shared write path is a resolution', async () => {
    const trail = await createShadowTrail(
      observation('alice', { writePaths: ['src/a.ts'] }),
      observation('bob', { writePaths: ['src/a.ts'] }),
      { now, channels: [samePathChannel] },
    );
    const advisory = advisoryOf(trail);
    expect(advisory.level).toBe('resolution');
    expect(advisory.risk).toBe(1);
    expect(advisory.exactOverlaps.writeWrite).toEqual(['src/a.ts']);
    expect(advisory.channels).toEqual([{ channel: 'same-path', weight: 1, risk: 1 }]);
  });

  it('takes an exact write/read overlap over a low score: at least traffic', async () => {
    const trail = await createShadowTrail(
      observation('alice', { writePaths: ['src/api.ts'] }),
      observation('bob', { writePaths: ['src/ui.ts'], readPaths: ['src/api.ts'] }),
      { now, channels: [fixedChannel('low', 0.05)] },
    );
    const advisory = advisoryOf(trail);
    expect(advisory.risk).toBeLessThan(0.35);
    expect(advisory.level).toBe('traffic');
    expect(advisory.found).toBe(true);
    expect(advisory.exactOverlaps).toEqual({ writeWrite: [], aWritesBReads: ['src/api.ts'], aReadsBWrites: [] });
    expect(advisory.levelReason).toMatch(/exact path overlap takes precedence over the score 0\.05/);
    expect(advisory.evidence[0]).toEqual({ kind: 'write-read', message: 'alice writes src/api.ts, which bob reads.' });
  });

  it('takes an exact write/write overlap over a zero score', async () => {
    const trail = await createShadowTrail(observation('alice', { writePaths: ['x.ts'] }), observation('bob', { writePaths: ['x.ts'] }), {
      now,
      channels: [],
    });
    expect(advisoryOf(trail).level).toBe('traffic');
    expect(advisoryOf(trail).risk).toBe(0);
  });

  it('does not treat a read/read overlap as a hazard', async () => {
    const trail = await createShadowTrail(
      observation('alice', { readPaths: ['x.ts'], writePaths: ['a.ts'] }),
      observation('bob', { readPaths: ['x.ts'], writePaths: ['b.ts'] }),
      { now, channels: [samePathChannel] },
    );
    expect(advisoryOf(trail).level).toBe('clear');
    expect(
      advisoryOf(trail)
        .links.map((l) => l.sides)
        .sort(),
    ).toEqual(['read/write', 'write/read', 'write/write']);
  });

  it('counts read paths for dependency coupling through the supplied graph', async () => {
    const a = observation('alice', { writePaths: ['src/core.ts'] });
    const b = observation('bob', { writePaths: ['docs/x.md'], readPaths: ['src/app.ts'] });
    const quiet = await createShadowTrail(a, b, { now, channels: [edgeChannel] });
    expect(advisoryOf(quiet).level).toBe('clear');
    const coupled = await createShadowTrail(a, b, { now, channels: [edgeChannel], graph: { edges: [['src/app.ts', 'src/core.ts']] } });
    const advisory = advisoryOf(coupled);
    expect(advisory.level).toBe('traffic');
    expect(advisory.links[0]).toMatchObject({ sides: 'write/read', risk: 0.6 });
    expect(advisory.evidence.map((e) => e.message)).toContain('src/app.ts imports src/core.ts.');
    expect(advisory.graph.edgeCount).toBe(1);
  });

  it('stores the supplied graph sorted and deduplicated', async () => {
    const trail = await createShadowTrail(observation('alice'), observation('bob'), {
      now,
      graph: {
        edges: [
          ['b', 'a'],
          ['a', 'c'],
          ['b', 'a'],
          ['a', 'b'],
        ],
      },
    });
    expect((trail.receipts[0]!.payload as { graph: unknown }).graph).toEqual({
      edges: [
        ['a', 'b'],
        ['a', 'c'],
        ['b', 'a'],
      ],
    });
  });

  it.each([
    [
      'an incomplete observation',
      observation('bob', { complete: false, incompleteReason: 'untracked files not listed' }),
      /incomplete: untracked files not listed/,
    ],
    ['an expired observation', observation('bob', { observedAt: at(-60), expiresAt: at(5) }), /expired at .* not after/],
    ['an observation expiring exactly now', observation('bob', { expiresAt: now }), /expired at/],
    ['a future-dated observation', observation('bob', { observedAt: at(11), expiresAt: at(70) }), /future-dated/],
    ['incomparable bases', observation('bob', { base: 'ffffffffffffffffffffffffffffffffffffffff' }), /incomparable base/],
    ['another repository', observation('bob', { repositoryId: 'github.com/acme/other' }), /incomparable repositoryId/],
    ['another task', observation('bob', { taskId: 'task-8' }), /incomparable taskId/],
    ['another scope', observation('bob', { scopeId: 'staged-only' }), /incomparable scopeId/],
  ])('is unknown, never clear, for %s', async (_name, bob, reason) => {
    const trail = await createShadowTrail(observation('alice', { writePaths: ['x.ts'] }), bob, { now, channels: [samePathChannel] });
    const advisory = advisoryOf(trail);
    expect(advisory.level).toBe('unknown');
    expect(advisory.found).toBe(false);
    expect(advisory.risk).toBeNull();
    expect(advisory.unknownReasons.join('; ')).toMatch(reason);
    expect(advisory.statement).toMatch(/Nothing is cleared/);
  });

  it('refuses two observations of one agent', async () => {
    await expect(createShadowTrail(observation('alice'), observation('alice'), { now })).rejects.toMatchObject({ code: 'same-agent' });
  });

  it('refuses a malformed graph', async () => {
    await expect(
      createShadowTrail(observation('alice'), observation('bob'), { now, graph: { edges: [['a']] } as never }),
    ).rejects.toMatchObject({ code: 'invalid-argument' });
    await expect(createShadowTrail(observation('alice'), observation('bob'), { now, graph: { edges: [['/abs', 'a']] } })).rejects.toThrow(
      /is absolute/,
    );
  });

  describe('with the shipped channels (the default)', () => {
    it('scores a shared write path through the overlap channel as traffic: same file, no line ranges', async () => {
      const trail = await createShadowTrail(
        observation('alice', { writePaths: ['src/a.ts'] }),
        observation('bob', { writePaths: ['src/a.ts'] }),
        { now },
      );
      const advisory = advisoryOf(trail);
      // Whole-file evidence is file-level: it says "same file", not "same lines".
      expect(advisory.level).toBe('traffic');
      expect(advisory.channels.map((c) => c.channel)).toEqual(['dependency', 'overlap', 'tree']);
      expect(advisory.channels.find((c) => c.channel === 'overlap')!.risk).toBe(1);
    });

    it('gives neighbouring files a small tree prior, below traffic', async () => {
      const trail = await createShadowTrail(
        observation('alice', { writePaths: ['src/cart/a.ts'] }),
        observation('bob', { writePaths: ['src/cart/b.ts'] }),
        { now },
      );
      const advisory = advisoryOf(trail);
      expect(advisory.channels.find((c) => c.channel === 'tree')!.risk).toBeGreaterThan(0);
      expect(advisory.risk).toBeGreaterThan(0);
      expect(advisory.level).toBe('clear');
    });

    it('keeps a write/read overlap at traffic when configured weights make its score low', async () => {
      const trail = await createShadowTrail(
        observation('alice', { writePaths: ['src/api.ts'] }),
        observation('bob', { writePaths: ['lib/ui.ts'], readPaths: ['src/api.ts'] }),
        { now, weights: { overlap: 0.1, tree: 0.1 } },
      );
      const advisory = advisoryOf(trail);
      expect(advisory.risk).toBeLessThan(0.35);
      expect(advisory.level).toBe('traffic');
      expect(advisory.links[0]!.sides).toBe('write/read');
    });

    it("couples a read path to the other agent's write through the supplied graph with the dependency channel", async () => {
      const alice = observation('alice', { writePaths: ['src/core/money.ts'] });
      const bob = observation('bob', { writePaths: ['web/page.tsx'], readPaths: ['web/cart.ts'] });
      const without = advisoryOf(await createShadowTrail(alice, bob, { now }));
      expect(without.level).toBe('clear');
      expect(without.statement).toMatch(/supplied dependency graph \(0 edges\)/);
      const graph = {
        edges: [
          ['web/cart.ts', 'lib/price.ts'],
          ['lib/price.ts', 'src/core/money.ts'],
        ] as [string, string][],
      };
      const advisory = advisoryOf(await createShadowTrail(alice, bob, { now, graph }));
      expect(advisory.links[0]).toMatchObject({ sides: 'write/read' });
      expect(advisory.channels.find((c) => c.channel === 'dependency')!.risk).toBeCloseTo(0.7);
      // The shipped weight of import reach is fitted near 0 (docs/evaluation.md): the coupling is evidence, not an advisory.
      expect(advisory.level).toBe('clear');
      // Weighed by a team (0.9, τ_TA 0.35), it is traffic; a file-level channel alone raises at most
      // traffic (core's escalation discipline).
      const weighed = advisoryOf(
        await createShadowTrail(alice, bob, { now, graph, weights: { dependency: 0.9 }, thresholds: { traffic: 0.35 } }),
      );
      expect(weighed.level).toBe('traffic');
    });
  });
});
