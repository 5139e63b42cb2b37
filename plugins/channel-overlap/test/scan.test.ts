// The default weights and thresholds end to end: overlap (1.0, line) + tree (0.007, file) through
// core's scanAirspace, on agents built in memory.
import { describe, expect, it } from 'vitest';
import { scanAirspace } from '@airspace/core';
import { agent, edit } from '@airspace/core/testing';
import tree from '@airspace/channel-tree';
import overlap from '../src/index.js';

const scan = (...agents: ReturnType<typeof agent>[]) => scanAirspace(agents, { channels: [overlap, tree], now: 0 });

describe('overlap + tree with default weights', () => {
  it('overlapping lines → resolution; the lower-priority agent steers', async () => {
    const result = await scan(
      agent('alice', [edit('src/a.ts', [[10, 20]])], { committedWork: 5 }),
      agent('bob', [edit('src/a.ts', [[15, 18]])]),
    );
    expect(result.links[0]).toMatchObject({ level: 'resolution' });
    expect(result.advisories[0]).toMatchObject({ steer: 'bob', hold: 'alice' });
    expect(result.advisories[0]!.message).toMatch(/bob steers away, alice holds course.*lines 10–20.*lines 15–18/);
  });

  it('hunks one line apart in one file score a near miss (git merges them: below the fitted traffic band), far apart less', async () => {
    const near = await scan(agent('alice', [edit('src/a.ts', [[1, 3]])]), agent('bob', [edit('src/a.ts', [[5, 6]])]));
    expect(near.links[0]!.level).toBe('clear');
    expect(near.links[0]!.channels.find((c) => c.channel === 'overlap')!.evidence[0]!.message).toMatch(/apart|near/);
    const far = await scan(agent('alice', [edit('src/a.ts', [[1, 3]])]), agent('bob', [edit('src/a.ts', [[300, 306]])]));
    expect(far.links[0]!.level).toBe('clear');
    expect(near.links[0]!.risk).toBeGreaterThan(far.links[0]!.risk + 0.1);
    // The near miss keeps its own risk (overlap 0.3): a team that wants near misses flagged sets τ_TA below it.
    expect(near.links[0]!.risk).toBeGreaterThanOrEqual(0.3);
  });

  it('siblings in one directory, or an identical change → clear', async () => {
    const pair = [agent('alice', [edit('src/a.ts', [[1, 3]])]), agent('bob', [edit('src/b.ts', [[1, 3]])])];
    // Sharing no file, only the tree channel (0.007, below τ_TA) could score them: not scored, clear.
    const siblings = await scan(...pair);
    expect(siblings.links).toEqual([]);
    expect(siblings.counts).toMatchObject({ pairs: 1, clear: 1 });
    const every = await scanAirspace(pair, { channels: [overlap, tree], now: 0 }, { exhaustive: true });
    expect(every.links[0]!.level).toBe('clear');
    expect(every.links[0]!.risk).toBeGreaterThan(0);
    const identical = await scan(
      agent('alice', [edit('package.json', [[3, 3]], { newBlob: 'b1' })]),
      agent('bob', [edit('package.json', [[3, 3]], { newBlob: 'b1' })]),
    );
    expect(identical.links[0]!.level).toBe('clear');
    expect(identical.links[0]!.channels.find((c) => c.channel === 'overlap')!.evidence[0]!.kind).toBe('identical-change');
  });
});
