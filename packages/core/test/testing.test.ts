import { describe, expect, it } from 'vitest';
import { defineChannel } from '../src/channel.js';
import { agent, channelTester, createChannelTester, edit, scoreOnce } from '../src/testing.js';

/** Risk 1 when both agents touch one path, else 0. */
const samePath = defineChannel({
  id: 'same-path',
  defaultWeight: 1,
  meta: { precision: 'file' },
  score(a, b) {
    const f = a.files.find((x) => b.files.some((y) => y.path === x.path));
    return f ? { risk: 1, evidence: [{ message: `both edit ${f.path}`, kind: 'same-path' }] } : { risk: 0, evidence: [] };
  },
});

channelTester.run('same-path', samePath, {
  low: [{ name: 'different files', a: agent('a', [edit('x.ts')]), b: agent('b', [edit('y.ts')]) }],
  high: [{ name: 'same file', a: agent('a', [edit('x.ts')]), b: agent('b', [edit('x.ts', [[1, 2]])]), kind: 'same-path' }],
});

/** Collects the registered tests so that failing cases can be asserted to fail. */
function collect() {
  const tests: { name: string; body: () => unknown }[] = [];
  const tester = createChannelTester({ describe: (_n, body) => body(), it: (name, body) => void tests.push({ name, body }), expect });
  return { tester, tests };
}

describe('channelTester', () => {
  it('fails a low case that scores high, a high case that scores low, and a missing evidence kind', async () => {
    const { tester, tests } = collect();
    tester.run('same-path', samePath, {
      low: [{ name: 'wrongly low', a: agent('a', [edit('x.ts')]), b: agent('b', [edit('x.ts')]) }],
      high: [
        { name: 'wrongly high', a: agent('a', [edit('x.ts')]), b: agent('b', [edit('y.ts')]) },
        { name: 'wrong kind', a: agent('a', [edit('x.ts')]), b: agent('b', [edit('x.ts')]), kind: 'overlap' },
      ],
    });
    expect(tests.map((t) => t.name)).toEqual(['is a valid channel', 'low: wrongly low', 'high: wrongly high', 'high: wrong kind']);
    await expect(Promise.resolve(tests[0]!.body())).resolves.toBeUndefined();
    await expect(tests[1]!.body()).rejects.toThrow(/expected low risk/);
    await expect(tests[2]!.body()).rejects.toThrow(/expected high risk/);
    await expect(tests[3]!.body()).rejects.toThrow(/evidence of kind "overlap"/);
  });

  it('fails a channel that gives risk without evidence, or an asymmetric risk', async () => {
    const { tester, tests } = collect();
    const silent = defineChannel({ id: 'silent', defaultWeight: 1, score: () => ({ risk: 0.9, evidence: [] }) });
    const lopsided = defineChannel({
      id: 'lopsided',
      defaultWeight: 1,
      score: (a) => ({ risk: a.id === 'a' ? 0.9 : 0.1, evidence: [{ message: 'x' }] }),
    });
    tester.run('silent', silent, { high: [{ a: agent('a'), b: agent('b') }] });
    tester.run('lopsided', lopsided, { high: [{ a: agent('a'), b: agent('b') }] });
    await expect(tests[1]!.body()).rejects.toThrow(/must carry evidence/);
    await expect(tests[3]!.body()).rejects.toThrow(/score\(b, a\)/);
  });

  it('runs prepare with the options merged over the defaults', async () => {
    const channel = defineChannel<{ k: number; j: number }, number>({
      id: 'opts',
      defaultWeight: 1,
      defaultOptions: { k: 1, j: 2 },
      prepare: (agents, ctx) => agents.length * ctx.options.k + ctx.options.j,
      score: (_a, _b, ctx) => ({ risk: ctx.prepared / 100, evidence: [{ message: 'p' }] }),
    });
    const result = await scoreOnce(channel, agent('a'), agent('b'), { options: { k: 10 }, others: [agent('c')] });
    expect(result.risk).toBeCloseTo(0.32);
  });

  it('builds agents and edits with sensible defaults', () => {
    const e = edit(
      'src/a.ts',
      [
        [3, 4],
        [10, 9],
      ],
      { contentId: 'h1' },
    );
    expect(e).toMatchObject({
      path: 'src/a.ts',
      status: 'modified',
      weight: 1,
      newRanges: [
        [3, 4],
        [10, 9],
      ],
    });
    expect(e.hunks).toEqual([
      { base: [3, 4], current: [3, 4], contentId: 'h1' },
      { base: [10, 9], current: [10, 9], contentId: 'h1' },
    ]);
    expect(edit('new.ts', 'whole', { status: 'added' })).toMatchObject({ baseRanges: 'whole', status: 'added' });
    expect(agent({ id: 'x', committedWork: 3 })).toMatchObject({ id: 'x', label: 'x', committedWork: 3, startedAt: 0, files: [] });
    expect(agent('y', [e], { startedAt: 5 }).files).toHaveLength(1);
  });
});
