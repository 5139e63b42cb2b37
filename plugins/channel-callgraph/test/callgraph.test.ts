import { describe, expect, it } from 'vitest';
import type { Agent, CallStep, SymbolService, SymbolWrite } from '@airspace/core';
import { agent, channelTester, edit, scoreOnce } from '@airspace/core/testing';
import { callGraphChannel } from '../src/index.js';

/**
 * A call graph as edges caller → callee over `file#function` symbols; each agent writes the
 * functions listed for it. Agents see the same graph unless `extra` adds calls of their own.
 */
function service(
  edges: [string, string][],
  writes: Record<string, string[]>,
  extra: Record<string, [string, string][]> = {},
): SymbolService {
  const write = (symbol: string): SymbolWrite => ({
    symbol,
    path: symbol.split('#')[0]!,
    qualifiedName: symbol.split('#')[1]!,
    kind: 'function',
    change: 'body',
    range: [1, 3],
  });
  return {
    writes: (a: Agent) => (writes[a.id] ?? []).map(write),
    reads: () => [],
    callNeighbors(a: Agent, symbol: string): CallStep[] {
      const all = [...edges, ...(extra[a.id] ?? [])];
      return [
        ...all
          .filter(([from]) => from === symbol)
          .map(([, to]) => ({ symbol: to, direction: 'calls' as const, path: symbol.split('#')[0]!, line: 2 })),
        ...all
          .filter(([, to]) => to === symbol)
          .map(([from]) => ({ symbol: from, direction: 'called-by' as const, path: from.split('#')[0]!, line: 2 })),
      ];
    },
  };
}

const chain: [string, string][] = [
  ['main.ts#main', 'load.ts#load'],
  ['load.ts#load', 'parse.ts#parse'],
  ['parse.ts#parse', 'lex.ts#lex'],
  ['lex.ts#lex', 'char.ts#peek'],
  ['char.ts#peek', 'buf.ts#read'],
];
const alice = agent('alice', [edit('main.ts', [[1, 3]])]);
const bob = (file: string) => agent('bob', [edit(file, [[1, 3]])]);

channelTester.run('call-graph', callGraphChannel(), {
  high: [
    {
      name: 'a direct call (d = 1)',
      a: alice,
      b: bob('load.ts'),
      min: 1,
      kind: 'call-chain',
      services: { symbols: service(chain, { alice: ['main.ts#main'], bob: ['load.ts#load'] }) },
    },
    {
      name: 'the same function (d = 0)',
      a: alice,
      b: bob('main.ts'),
      min: 1,
      services: { symbols: service(chain, { alice: ['main.ts#main'], bob: ['main.ts#main'] }) },
    },
  ],
  low: [
    // Both call one helper (an error class, `isPlainObject`): not a chain of calls between them.
    {
      name: 'two functions that only call the same helper',
      a: agent('alice', [edit('a.ts', [[1, 3]])]),
      b: bob('b.ts'),
      max: 0,
      services: {
        symbols: service(
          [
            ['a.ts#f', 'errors.ts#AppError'],
            ['b.ts#g', 'errors.ts#AppError'],
          ],
          { alice: ['a.ts#f'], bob: ['b.ts#g'] },
        ),
      },
    },
    {
      name: 'two functions called by the same caller',
      a: agent('alice', [edit('a.ts', [[1, 3]])]),
      b: bob('b.ts'),
      max: 0,
      services: {
        symbols: service(
          [
            ['main.ts#main', 'a.ts#f'],
            ['main.ts#main', 'b.ts#g'],
          ],
          { alice: ['a.ts#f'], bob: ['b.ts#g'] },
        ),
      },
    },
    {
      name: "a chain that turns: f calls h, which g also calls, which calls g's callee",
      a: agent('alice', [edit('a.ts', [[1, 3]])]),
      b: bob('b.ts'),
      max: 0,
      services: {
        symbols: service(
          [
            ['a.ts#f', 'h.ts#h'],
            ['c.ts#c', 'h.ts#h'],
            ['c.ts#c', 'b.ts#g'],
          ],
          { alice: ['a.ts#f'], bob: ['b.ts#g'] },
        ),
      },
    },
    {
      name: 'beyond maxDepth',
      a: alice,
      b: bob('buf.ts'),
      max: 0,
      services: { symbols: service(chain, { alice: ['main.ts#main'], bob: ['buf.ts#read'] }) },
    },
    {
      name: 'no functions written',
      a: alice,
      b: bob('x.ts'),
      max: 0,
      services: { symbols: service(chain, { alice: ['main.ts#main'], bob: [] }) },
    },
  ],
});

describe('call-graph channel', () => {
  it('decays as γ^(d−1) and reports the chain from one edited function to the other', async () => {
    const symbols = service(chain, { alice: ['main.ts#main'], bob: ['lex.ts#lex'] });
    const result = await scoreOnce(callGraphChannel(), alice, bob('lex.ts'), { services: { symbols } });
    expect(result.risk).toBeCloseTo(0.25); // d = 3
    expect(result.evidence[0]!.chain).toEqual(['main', 'load', 'parse', 'lex']);
    expect(result.evidence[0]!.message).toContain('3 calls apart');
    const gamma = await scoreOnce(callGraphChannel(), alice, bob('lex.ts'), { services: { symbols }, options: { gamma: 0.8 } });
    expect(gamma.risk).toBeCloseTo(0.64);
  });

  it("finds the chain from either side: the other agent's function calls … calls this one's", async () => {
    // bob's parse is called by load, which main (alice's) calls: from bob's side the chain runs against calls.
    const symbols = service(chain, { alice: ['main.ts#main'], bob: ['parse.ts#parse'] });
    const result = await scoreOnce(callGraphChannel(), bob('parse.ts'), alice, { services: { symbols } });
    expect(result.risk).toBeCloseTo(0.5);
    expect(result.evidence[0]!.chain).toEqual(['main', 'load', 'parse']);
    expect(result.evidence[0]!.a).toMatchObject({ agent: 'bob', symbol: 'parse' });
  });

  it("counts a call that only one agent's version has (bob's new call into alice's function)", async () => {
    const symbols = service([], { alice: ['util.ts#helper'], bob: ['feature.ts#run'] }, { bob: [['feature.ts#run', 'util.ts#helper']] });
    const result = await scoreOnce(callGraphChannel(), agent('alice', [edit('util.ts', [[1, 3]])]), bob('feature.ts'), {
      services: { symbols },
    });
    expect(result.risk).toBe(1);
    expect(result.evidence[0]).toMatchObject({ a: { agent: 'alice', symbol: 'helper' }, b: { agent: 'bob', symbol: 'run' } });
  });
});
