import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  defineChannel,
  importGraphOfEdges,
  resolveOptions,
  scanAirspace,
  validateChannel,
  type ImportGraphService,
  type OptionsSchema,
  type SymbolService,
} from '../src/index.js';
import { agent, channelTester, edit, scoreOnce } from '../src/testing.js';

interface Options {
  readonly risk: number;
  readonly mode: 'a' | 'b';
  readonly weights: Readonly<Record<string, number>>;
}
const schema: OptionsSchema<Options> = {
  risk: { type: 'number', min: 0, max: 1 },
  mode: { type: 'string', values: ['a', 'b'] },
  weights: { type: 'record', keys: ['x', 'y'], value: { type: 'number', min: 0, max: 1 } },
};
const defaults: Options = { risk: 0.5, mode: 'a', weights: { x: 1, y: 0.5 } };

/** Risk `ctx.options.risk` for any pair, with the options it saw as evidence. */
const echo = defineChannel({
  id: 'echo',
  defaultWeight: 1,
  defaultOptions: defaults,
  optionsSchema: schema,
  score: (_a, _b, ctx) => ({ risk: ctx.options.risk, evidence: [{ message: JSON.stringify(ctx.options), kind: 'echo' }] }),
});

describe('channel options: one path, checked', () => {
  it('merges given options over the defaults, records key by key', () => {
    const { options, problems } = resolveOptions('echo', defaults, schema, { risk: 0.9, weights: { y: 0 } });
    expect(options).toEqual({ risk: 0.9, mode: 'a', weights: { x: 1, y: 0 } });
    expect(problems).toEqual([]);
  });

  it('keeps the default of a bad value and drops an unknown key, each with a problem naming it', () => {
    const { options, problems } = resolveOptions('echo', defaults, schema, { risk: 2, mode: 'c', weights: { z: 1 }, typo: 1 });
    expect(options).toEqual(defaults);
    expect(problems.map((p) => [p.code, p.channel])).toEqual(Array(4).fill(['INVALID_OPTION', 'echo']));
    expect(problems.map((p) => p.message)).toEqual([
      'Option risk of the echo channel is 2, not a number in [0, 1]; its default is used.',
      'Option mode of the echo channel is "c", not "a" or "b"; its default is used.',
      'Option weights.z of the echo channel is 1, not one of x, y; its default is used.',
      'Option typo of the echo channel is not one it has (risk, mode, weights); ignored.',
    ]);
    expect(resolveOptions('echo', defaults, schema, 'fast').problems[0]!.message).toContain('not an object');
  });

  it('a scan hands the checked options to the channel and reports bad ones once', async () => {
    const agents = [agent('a', [edit('x.ts')]), agent('b', [edit('y.ts')])];
    const good = await scanAirspace(agents, { channels: [echo] }, { channelOptions: { echo: { risk: 0.2 } } });
    expect(good.links[0]!.risk).toBeCloseTo(0.2);
    expect(good.problems).toEqual([]);
    const bad = await scanAirspace(agents, { channels: [echo] }, { channelOptions: { echo: { risk: 'high' } } });
    expect(bad.links[0]!.risk).toBeCloseTo(0.5);
    expect(bad.problems.map((p) => p.code)).toEqual(['INVALID_OPTION']);
  });

  it('a channel whose defaults break its own schema is not a valid channel', () => {
    const broken = { ...echo, defaultOptions: { ...defaults, risk: 7 } };
    expect(validateChannel(broken, 'broken')[0]!.message).toContain('"defaultOptions.risk" is not a number in [0, 1]');
    expect(validateChannel({ ...echo, defaultOptions: { ...defaults, extra: 1 } }, 'x')[0]!.message).toContain('no rule');
    expect(validateChannel(echo)).toEqual([]);
  });
});

// channelTester passes a case's options through the same check (they used to be merged unchecked).
channelTester.run('echo', echo, {
  low: [{ name: 'options reach the channel', a: agent('a'), b: agent('b'), options: { risk: 0.1 }, max: 0.1 }],
  high: [{ name: 'defaults apply', a: agent('a'), b: agent('b'), min: 0.5, kind: 'echo' }],
});

describe('typed services', () => {
  it('requires gives a typed ctx.services; other services are optional', () => {
    defineChannel({
      id: 'typed',
      defaultWeight: 1,
      requires: ['importGraph'],
      score(_a, _b, ctx) {
        expectTypeOf(ctx.services.importGraph).toEqualTypeOf<ImportGraphService>();
        expectTypeOf(ctx.services.symbols).toEqualTypeOf<SymbolService | undefined>();
        return { risk: 0, evidence: [] };
      },
    });
  });

  it('scoreOnce checks required services as a scan does, and passes the repository', async () => {
    const reads = defineChannel({
      id: 'reads',
      defaultWeight: 1,
      requires: ['importGraph'],
      score: (a, _b, ctx) => {
        const imports = ctx.services.importGraph.forAgent(a.id).importsOf('x.ts');
        return { risk: imports.length ? 1 : 0, evidence: [{ message: `${ctx.repository?.root}: ${imports.join()}` }] };
      },
    });
    const missing = await scoreOnce(reads, agent('a'), agent('b'));
    expect(missing).toMatchObject({ risk: 0, problems: [{ code: 'MISSING_SERVICE', channel: 'reads' }] });
    const graph = importGraphOfEdges([['x.ts', 'y.ts']]);
    const served = await scoreOnce(reads, agent('a'), agent('b'), {
      services: { importGraph: graph },
      repository: { id: 'r', root: '/r' },
    });
    expect(served.risk).toBe(1);
    expect(served.evidence[0]!.message).toBe('/r: y.ts');
  });

  it('importGraphOfEdges: imports, importers, kinds and files only when given', () => {
    const plain = importGraphOfEdges([['a', 'b']]);
    expect(plain.forAgent('any').importersOf('b')).toEqual(['a']);
    expect(plain.base.importKinds).toBeUndefined();
    expect(plain.base.filePaths).toBeUndefined();
    const kinded = importGraphOfEdges([['a', 'b', ['type-only']]], ['a', 'b']);
    expect(kinded.base.importKinds!('a', 'b')).toEqual(['type-only']);
    expect([...kinded.base.filePaths!()]).toEqual(['a', 'b']);
  });
});
