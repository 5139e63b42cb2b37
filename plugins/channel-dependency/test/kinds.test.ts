/**
 * Import kinds and hub files: a type-only, `TYPE_CHECKING` or dynamic import couples less than a
 * value import, and a path through a hub file (a shared context or barrel file) is discounted.
 */
import { describe, expect, test } from 'vitest';
import { scanAirspace } from '@airspace/core';
import { agent, channelTester, edit, scoreOnce } from '@airspace/core/testing';
import { importGraphService, buildIndex, memorySnapshot } from '@airspace/analysis';
import { dependencyChannel, findHubs } from '../src/dependency.js';

const COMPONENTS = 24;
const names = Array.from({ length: COMPONENTS }, (_, i) => `C${i}`);

// A component library: every component imports the shared context by value; the context
// imports every component's props type-only (the shape seen in real libraries). A barrel
// re-exports every component, and pages import the barrel. Python: models import views only
// for type checking; a loader imports a plugin lazily.
const files: Record<string, string> = {
  'src/ctx.ts': `${names.map((n) => `import type { ${n}Props } from './components/${n}';`).join('\n')}\nexport const theme = { size: 1 };\n`,
  'src/index.ts': `${names.map((n) => `export { ${n} } from './components/${n}';`).join('\n')}\n`,
  'src/pages/home.ts': "import { C3 } from '../index';\nexport const home = C3;\n",
  'src/lazy.ts': "export async function open() { return import('./components/C5'); }\n",
  'src/props.ts': "import { type C6Props, type C7Props } from './components/C6';\nexport type P = C6Props | C7Props;\n",
  'src/value.ts': "import { C8 } from './components/C8';\nexport const v = C8;\n",
  'app/__init__.py': '',
  'app/models.py': 'from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.views import View\nclass Model: pass\n',
  'app/views.py': 'class View: pass\n',
};
for (const n of names)
  files[`src/components/${n}.ts`] =
    `import { theme } from '../ctx';\nexport type ${n}Props = { size: number };\nexport const ${n} = () => theme.size;\n`;
const ix = await buildIndex(memorySnapshot(files), { workers: 0 });
const services = { importGraph: importGraphService(ix) };
const one = (id: string, path: string) => agent(id, [edit(path, [[2, 2]])]);

channelTester.run('dependency (import kinds and hubs)', dependencyChannel(), {
  low: [
    // C1 → ctx (value) → C2 (type-only), through a hub: was 0.7 (γ, two imports apart).
    {
      name: 'two components linked only through the shared context file',
      a: one('a', 'src/components/C1.ts'),
      b: one('b', 'src/components/C2.ts'),
      services,
      max: 0.06,
    },
    {
      name: 'a type-only import made of type-only specifiers',
      a: one('a', 'src/props.ts'),
      b: one('b', 'src/components/C6.ts'),
      services,
      max: 0.25,
    },
    { name: 'a TYPE_CHECKING import', a: one('a', 'app/models.py'), b: one('b', 'app/views.py'), services, max: 0.25 },
    {
      name: 'a page and a component linked only through the barrel (a hub)',
      a: one('a', 'src/pages/home.ts'),
      b: one('b', 'src/components/C3.ts'),
      services,
      max: 0.21,
    },
  ],
  high: [
    {
      name: 'a value import still counts fully',
      a: one('a', 'src/value.ts'),
      b: one('b', 'src/components/C8.ts'),
      services,
      min: 1,
      kind: 'direct-import',
    },
    {
      name: 'a component importing the context it uses (a hub at the end of the path is not discounted)',
      a: one('a', 'src/components/C1.ts'),
      b: one('b', 'src/ctx.ts'),
      services,
      min: 1,
    },
    {
      name: 'a dynamic import counts less than a value import, more than a type',
      a: one('a', 'src/lazy.ts'),
      b: one('b', 'src/components/C5.ts'),
      services,
      min: 0.6,
      check: (r) => expect(r.risk).toBeLessThan(1),
    },
    {
      name: 'kind weights are options',
      a: one('a', 'src/props.ts'),
      b: one('b', 'src/components/C6.ts'),
      services,
      options: { kindWeights: { 'type-only': 1 } },
      min: 1,
    },
    {
      name: 'hubFactor 1 turns the hub discount off',
      a: one('a', 'src/pages/home.ts'),
      b: one('b', 'src/components/C3.ts'),
      services,
      options: { hubFactor: 1 },
      min: 0.7,
    },
  ],
});

describe('dependency channel: kinds and hubs', () => {
  test('evidence names the kinds along the chain and the hub it discounted', async () => {
    const r = await scoreOnce(dependencyChannel(), one('a', 'src/components/C1.ts'), one('b', 'src/components/C2.ts'), {
      services,
      options: { hubFactor: 0.5 },
    });
    expect(r.risk).toBeCloseTo(0.7 * 0.25 * 0.5);
    const ev = r.evidence[0]!;
    expect(ev.chain).toEqual(['src/components/C1.ts', 'src/ctx.ts', 'src/components/C2.ts']);
    expect(ev.message).toBe(
      "a's src/components/C1.ts reaches through 2 imports b's src/components/C2.ts (src/components/C1.ts → src/ctx.ts → src/components/C2.ts (type-only))." +
        ` src/ctx.ts is a hub (${COMPONENTS} importers, ${COMPONENTS} imports): the path through it is discounted ×0.5.`,
    );
    const direct = await scoreOnce(dependencyChannel(), one('a', 'app/models.py'), one('b', 'app/views.py'), { services });
    expect(direct.evidence[0]!.message).toBe("a's app/models.py imports b's app/views.py (guarded).");
  });

  test('hubs are the top percentile of importers or imports, above a floor', () => {
    const hubs = findHubs(services.importGraph.base, { hubPercentile: 0.99, hubMinDegree: 20, hubFactor: 0.3 });
    expect([...hubs.keys()].sort()).toEqual(['src/ctx.ts', 'src/index.ts']);
    expect(findHubs(services.importGraph.base, { hubPercentile: 0.99, hubMinDegree: 30, hubFactor: 0.3 }).size).toBe(0);
  });

  test('scanAirspace: the whole library is not "near" — components sharing the context are clear', async () => {
    const agents = names.slice(0, 6).map((n, i) => one(`agent${i}`, `src/components/${n}.ts`));
    const result = await scanAirspace(agents, { channels: [dependencyChannel()], services });
    expect(result.links.every((l) => l.level === 'clear')).toBe(true);
    expect(result.advisories).toEqual([]);
  });

  test('undirected paths weigh each import by its kind too', async () => {
    const fork = await buildIndex(
      memorySnapshot({
        'p.ts': "import type { Q } from './q';\nimport { r } from './r';\n",
        'q.ts': 'export type Q = 1;\n',
        'r.ts': 'export const r = 1;\n',
      }),
      { workers: 0 },
    );
    const r = await scoreOnce(dependencyChannel(), one('a', 'q.ts'), one('b', 'r.ts'), {
      services: { importGraph: importGraphService(fork) },
      options: { direction: 'undirected' },
    });
    expect(r.risk).toBeCloseTo(0.7 * 0.25);
    expect(r.evidence[0]!.message).toContain('(type-only)');
  });

  test('bad options are problems naming them; their defaults are used', async () => {
    const r = await scoreOnce(dependencyChannel(), one('a', 'src/props.ts'), one('b', 'src/components/C6.ts'), {
      services,
      options: { gamma: 2, kindWeights: { 'type-only': 'high', typo: 1 }, hubFactor: -1 } as never,
    });
    expect(r.risk).toBeCloseTo(0.25);
    expect(r.problems?.map((p) => p.code)).toEqual(['INVALID_OPTION', 'INVALID_OPTION', 'INVALID_OPTION', 'INVALID_OPTION']);
    expect(r.problems?.map((p) => p.message).join(' ')).toMatch(/gamma.*2.*\(0, 1\)/);
    expect(r.problems?.map((p) => p.message).join(' ')).toContain('kindWeights.typo');
  });
});
