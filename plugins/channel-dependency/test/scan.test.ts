import { expect, test } from 'vitest';
import { scanAirspace } from '@airspace/core';
import { agent, channelTester, edit } from '@airspace/core/testing';
import { importGraphService, buildIndex, memorySnapshot } from '@airspace/analysis';
import { dependencyChannel } from '../src/dependency.js';

// a → x → y → b, and a file nobody reaches.
const ix = await buildIndex(
  memorySnapshot({
    'src/a.ts': "import { x } from './x';\nexport const a = x;\n",
    'src/x.ts': "import { y } from './y';\nexport const y2 = y;\n",
    'src/y.ts': "import { b } from '../lib/b';\nexport const y = b;\n",
    'lib/b.ts': 'export const b = 1;\n',
    'lib/c.ts': "import { b } from './b';\n",
    'lib/far.ts': 'export const far = 2;\n',
  }),
  { workers: 0 },
);
const services = { importGraph: importGraphService(ix) };

// A team that weighs import coupling (weight 0.9, τ_TA 0.35; the shipped default weight is fitted
// near 0, docs/evaluation.md): the channel raises traffic, never a resolution on its own.
const teamWeights = { weights: { dependency: 0.9 }, thresholds: { traffic: 0.35, resolution: 0.797 } };

test('scanAirspace: three imports apart through untouched files is a traffic advisory, never a resolution', async () => {
  const result = await scanAirspace(
    [agent('alice', [edit('src/a.ts', [[2, 2]])]), agent('bob', [edit('lib/b.ts', [[1, 1]])])],
    { channels: [dependencyChannel()], services },
    teamWeights,
  );
  expect(result.advisories).toHaveLength(1);
  const adv = result.advisories[0]!;
  expect(adv.level).toBe('traffic');
  expect(adv.evidence[0]!.chain).toEqual(['src/a.ts', 'src/x.ts', 'src/y.ts', 'lib/b.ts']);
  // A direct import is file-level evidence too: capped at traffic.
  const direct = await scanAirspace(
    [agent('alice', [edit('lib/c.ts')]), agent('bob', [edit('lib/b.ts')])],
    { channels: [dependencyChannel()], services },
    teamWeights,
  );
  expect(direct.advisories[0]!.level).toBe('traffic');
  expect(direct.links[0]!.risk).toBeCloseTo(0.9);
});

channelTester.run('dependency', dependencyChannel(), {
  low: [
    { name: 'unreachable file', a: agent('a', [edit('src/a.ts')]), b: agent('b', [edit('lib/far.ts')]), services, max: 0 },
    {
      name: 'siblings importing one file are not coupled (directed)',
      a: agent('a', [edit('src/y.ts')]),
      b: agent('b', [edit('lib/c.ts')]),
      services,
      max: 0,
    },
    {
      name: 'four imports apart with γ = 0.5',
      a: agent('a', [edit('src/a.ts')]),
      b: agent('b', [edit('lib/b.ts')]),
      services,
      options: { gamma: 0.5 },
      max: 0.25,
    },
  ],
  high: [
    {
      name: 'direct import',
      a: agent('a', [edit('src/y.ts')]),
      b: agent('b', [edit('lib/b.ts')]),
      services,
      min: 1,
      kind: 'direct-import',
    },
    {
      name: 'two imports apart',
      a: agent('a', [edit('src/x.ts')]),
      b: agent('b', [edit('lib/b.ts')]),
      services,
      min: 0.69,
      kind: 'import-chain',
    },
    {
      name: 'undirected couples siblings',
      a: agent('a', [edit('src/y.ts')]),
      b: agent('b', [edit('lib/c.ts')]),
      services,
      options: { direction: 'undirected' },
      min: 0.69,
    },
  ],
});
