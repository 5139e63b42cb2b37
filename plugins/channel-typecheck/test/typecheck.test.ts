import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent, ChannelScore, GitChannelService } from '@airspace/core';
import { loadAgents, type LoadAgentsResult } from '@airspace/git';
import { createRepoFixture, type FileTree, type RepoFixture } from '@airspace/git/fixture';
import { messageKey } from '../src/compare.js';
import { checkInBackground, newErrors, typecheckChannel, type Diag } from '../src/index.js';

let repo: RepoFixture | undefined;
let result: LoadAgentsResult | undefined;
/**
 * Where the scenarios' checks run: in the scan's own thread (a scan without the engine), or in the
 * compiler's thread in the background (the resident engine): the same results either way.
 */
const MODES = ['in the scan', "in the compiler's thread"] as const;
let checking: (typeof MODES)[number] = MODES[0];
afterEach(() => {
  checking = MODES[0];
  result?.git.dispose();
  repo?.dispose();
  result = undefined;
  repo = undefined;
});

const lines = (...l: string[]) => l.join('\n') + '\n';
const silent = { debug() {}, info() {}, warn() {} };

const TSCONFIG = lines(
  '{',
  '  "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true },',
  '  "include": ["src"]',
  '}',
);

/** A small project: each scenario changes it on two sides. */
const BASE: FileTree = {
  'tsconfig.json': TSCONFIG,
  'package.json': lines('{ "name": "shop", "private": true, "type": "module" }'),
  'src/session.ts': lines('export function createSession(user: string): string {', '  return user;', '}'),
  'src/users.ts': lines('export interface User {', '  readonly name: string;', '}'),
  'src/math.ts': lines('export function parse(text: string): number {', '  return Number(text);', '}'),
  'src/format.ts': lines('export function format(value: number, unit: string): string {', '  return `${value} ${unit}`;', '}'),
};

interface Side {
  readonly write?: FileTree;
  readonly remove?: readonly string[];
  /** Commit the work (default: leave it uncommitted). */
  readonly commit?: boolean;
}

/** Builds the repository with agents `a` and `b`, then scores the pair with the channel (options merged over the defaults). */
async function scorePair(
  a: Side,
  b: Side,
  base: FileTree = BASE,
  options: Record<string, unknown> = {},
  git?: (g: GitChannelService) => GitChannelService,
): Promise<ChannelScore> {
  repo = createRepoFixture(base);
  for (const [id, side] of [['a', a] as const, ['b', b] as const]) {
    const wt = repo.worktree(id);
    for (const [path, text] of Object.entries(side.write ?? {})) wt.write(path, text);
    for (const path of side.remove ?? []) wt.remove(path);
    if (side.commit) wt.commit(`${id} works`);
  }
  result = await loadAgents({ repo: repo.dir });
  return scoreLoaded(options, git);
}

async function scoreLoaded(
  options: Record<string, unknown> = {},
  git?: (g: GitChannelService) => GitChannelService,
): Promise<ChannelScore> {
  const channel = typecheckChannel();
  const agentOf = (id: string): Agent => result!.agents.find((x) => x.id === id)!;
  const service = git ? git(result!.git) : result!.git;
  const ctx = {
    options: { ...channel.defaultOptions!, ...options },
    now: Date.now(),
    logger: silent,
    services: { git: service },
    repository: { id: 'test', root: repo!.dir },
  };
  const score = async (): Promise<ChannelScore> => {
    const prepared = await channel.prepare!(result!.agents, ctx);
    return channel.score(agentOf('a'), agentOf('b'), { ...ctx, prepared });
  };
  if (checking === MODES[0]) {
    stopBackground();
    return score();
  }
  // In the background (one compiler's thread for the scenarios, kept warm between them): the
  // first scan answers "still being checked"; the one after the check reads its result.
  background ??= listen();
  const ended = background.ended;
  const first = await score();
  if (!first.pending) return first;
  for (let i = 0; i < 1200 && background.ended === ended; i++) await new Promise((r) => setTimeout(r, 50));
  return score();
}

let background: { ended: number; stop: () => void } | undefined;
function listen(): { ended: number; stop: () => void } {
  const listening = { ended: 0, stop: () => {} };
  listening.stop = checkInBackground({ onChecked: () => listening.ended++ });
  return listening;
}
function stopBackground(): void {
  background?.stop();
  background = undefined;
}
afterAll(stopBackground);

const messages = (s: ChannelScore) => s.evidence.map((e) => e.message).join('\n');
const checkedClean = (s: ChannelScore) => {
  expect(s.risk).toBe(0);
  expect(s.problems ?? []).toEqual([]);
  expect(s.evidence.map((e) => e.kind)).toEqual(['typecheck-clean']);
  expect(s.overrules?.[0]).toMatchObject({ channel: 'symbols' });
};

describe.each(MODES)('typecheck channel (%s): collisions git merges cleanly', (mode) => {
  beforeEach(() => void (checking = mode));
  it('a signature change against a new call', async () => {
    const s = await scorePair(
      {
        write: {
          'src/session.ts': lines('export function createSession(user: string, ttlMs: number): string {', '  return user + ttlMs;', '}'),
        },
        commit: true,
      },
      {
        write: { 'src/login.ts': lines("import { createSession } from './session.js';", '', 'export const token = createSession("ann");') },
      },
    );
    expect(s.risk).toBe(1);
    expect(s.evidence[0]!.kind).toBe('type-error');
    expect(s.evidence[0]!.message).toBe(
      'merging a and b: src/login.ts:3 TS2554 Expected 2 arguments, but got 1 — a changed createSession at src/session.ts:1–3',
    );
    expect(s.evidence[0]!.b).toMatchObject({ agent: 'b', path: 'src/login.ts', range: [3, 3], access: 'read' });
    expect(s.evidence[0]!.a).toMatchObject({ agent: 'a', path: 'src/session.ts', range: [1, 3], symbol: 'createSession' });
  });

  it('a signature change against a new call, in a project whose shared tsconfig is not installed', async () => {
    const tsconfig = lines(
      '{',
      '  "extends": "@tsconfig/node20/tsconfig.json",',
      '  "compilerOptions": { "strict": true, "module": "nodenext", "noEmit": true },',
      '  "include": ["src"]',
      '}',
    );
    const s = await scorePair(
      {
        write: {
          'src/session.ts': lines('export function createSession(user: string, ttlMs: number): string {', '  return user + ttlMs;', '}'),
        },
      },
      {
        write: { 'src/login.ts': lines("import { createSession } from './session.js';", '', 'export const token = createSession("ann");') },
      },
      { ...BASE, 'tsconfig.json': tsconfig },
    );
    expect(s.risk).toBe(1);
    expect(messages(s)).toMatch(/^merging a and b: src\/login\.ts:3 TS2554 Expected 2 arguments, but got 1 — a changed createSession/);
  });

  it('a renamed export against a new import', async () => {
    const s = await scorePair(
      { write: { 'src/math.ts': lines('export function parseNumber(text: string): number {', '  return Number(text);', '}') } },
      { write: { 'src/calc.ts': lines("import { parse } from './math.js';", '', 'export const one = parse("1");') } },
    );
    expect(s.risk).toBe(1);
    expect(messages(s)).toMatch(
      /src\/calc\.ts:1 TS2305 Module '"\.\/math\.js"' has no exported member 'parse' — a changed src\/math\.ts:1$/,
    );
  });

  it('a removed export file against a new import of it', async () => {
    const s = await scorePair(
      { remove: ['src/format.ts'], commit: true },
      { write: { 'src/price.ts': lines("import { format } from './format.js';", '', 'export const price = format(1, "EUR");') } },
    );
    expect(s.risk).toBe(1);
    expect(messages(s)).toMatch(/src\/price\.ts:1 TS2307 Cannot find module '\.\/format\.js'.* — a changed src\/format\.ts/);
  });

  it('a changed interface against a new object literal', async () => {
    const s = await scorePair(
      { write: { 'src/users.ts': lines('export interface User {', '  readonly name: string;', '  readonly email: string;', '}') } },
      { write: { 'src/admin.ts': lines("import type { User } from './users.js';", '', 'export const admin: User = { name: "root" };') } },
    );
    expect(s.risk).toBe(1);
    expect(messages(s)).toMatch(
      /src\/admin\.ts:3 TS2741 Property 'email' is missing in type .* — a changed User\.email at src\/users\.ts:3/,
    );
  });

  it('a changed return type against a new use', async () => {
    const s = await scorePair(
      {
        write: {
          'src/math.ts': lines(
            'export function parse(text: string): number | undefined {',
            '  return text ? Number(text) : undefined;',
            '}',
          ),
        },
      },
      { write: { 'src/total.ts': lines("import { parse } from './math.js';", '', 'export const total: number = parse("2") * 2;') } },
    );
    expect(s.risk).toBe(1);
    expect(messages(s)).toMatch(/src\/total\.ts:3 TS2532 Object is possibly 'undefined' — a changed parse at src\/math\.ts:1–3$/);
  });
});

describe.each(MODES)('typecheck channel (%s): project layouts', (mode) => {
  beforeEach(() => void (checking = mode));
  it('follows project references and paths (a solution tsconfig with two packages)', async () => {
    const project = (extra: string) =>
      lines(
        '{',
        `  "compilerOptions": { "composite": true, "strict": true, "module": "nodenext", "rootDir": "src", "outDir": "dist"${extra} },`,
        '  "include": ["src"]',
        '}',
      );
    const base: FileTree = {
      'package.json': lines('{ "name": "mono", "private": true, "type": "module" }'),
      'tsconfig.json': lines('{ "files": [], "references": [{ "path": "./packages/lib" }, { "path": "./packages/app" }] }'),
      'packages/lib/tsconfig.json': project(''),
      'packages/lib/src/index.ts': lines('export function price(cents: number): string {', '  return String(cents);', '}'),
      'packages/app/tsconfig.json': project(
        ', "paths": { "@shop/lib": ["../lib/src/index.ts"] } }, "references": [{ "path": "../lib" }',
      ).replace('} },', '},'),
      'packages/app/src/main.ts': lines("import { price } from '@shop/lib';", '', 'export const shown = price(100);'),
    };
    const s = await scorePair(
      {
        write: {
          'packages/lib/src/index.ts': lines(
            'export function price(cents: number, currency: string): string {',
            '  return `${cents} ${currency}`;',
            '}',
          ),
        },
        commit: true,
      },
      { write: { 'packages/app/src/cart.ts': lines("import { price } from '@shop/lib';", '', 'export const total = price(250);') } },
      base,
    );
    expect(messages(s)).toMatch(
      /^merging a and b: packages\/app\/src\/cart\.ts:3 TS2554 Expected 2 arguments, but got 1 — a changed price at packages\/lib\/src\/index\.ts:1–3$/,
    );
  });

  it('checks JavaScript where the project says so (allowJs, checkJs)', async () => {
    const base: FileTree = {
      ...BASE,
      'tsconfig.json': lines(
        '{',
        '  "compilerOptions": { "strict": true, "module": "nodenext", "noEmit": true, "allowJs": true, "checkJs": true },',
        '  "include": ["src"]',
        '}',
      ),
    };
    const s = await scorePair(
      {
        write: {
          'src/session.ts': lines('export function createSession(user: string, ttlMs: number): string {', '  return user + ttlMs;', '}'),
        },
      },
      {
        write: { 'src/login.js': lines("import { createSession } from './session.js';", '', 'export const token = createSession("ann");') },
      },
      base,
    );
    expect(messages(s)).toMatch(/^merging a and b: src\/login\.js:3 TS2554 Expected 2 arguments, but got 1/);
  });
});

describe.each(MODES)('typecheck channel (%s): pairs that must stay clear', (mode) => {
  beforeEach(() => void (checking = mode));
  it('a parameter made optional against new one-argument calls (each caller alone does not compile)', async () => {
    const s = await scorePair(
      {
        write: {
          'src/format.ts': lines('export function format(value: number, unit = "EUR"): string {', '  return `${value} ${unit}`;', '}'),
        },
      },
      {
        write: {
          'src/cart.ts': lines(
            "import { format } from './format.js';",
            '',
            'export const shown = format(12);',
            'export const again = format(3);',
          ),
        },
      },
    );
    checkedClean(s);
  });

  it('identical edits on both sides', async () => {
    const change = {
      'src/session.ts': lines('export function createSession(user: string, ttlMs: number): string {', '  return user + ttlMs;', '}'),
      'src/login.ts': lines("import { createSession } from './session.js';", '', 'export const token = createSession("ann", 5);'),
    };
    checkedClean(await scorePair({ write: change, commit: true }, { write: change }));
  });

  it('changes in unrelated modules', async () => {
    const s = await scorePair(
      {
        write: {
          'src/math.ts': lines('export function parse(text: string, radix: number): number {', '  return parseInt(text, radix);', '}'),
        },
      },
      { write: { 'src/users.ts': lines('export interface User {', '  readonly name: string;', '  readonly age: number;', '}') } },
    );
    checkedClean(s);
  });

  it('a base that does not compile', async () => {
    const base = {
      ...BASE,
      'src/broken.ts': lines("import { parse } from './math.js';", '', 'export const n: string = parse("1");', 'export const m = 1;'),
    };
    const s = await scorePair(
      {
        write: {
          'src/broken.ts': lines(
            '// parse a number',
            "import { parse } from './math.js';",
            '',
            'export const n: string = parse("1");',
            'export const m = 1;',
          ),
        },
      },
      {
        write: {
          'src/broken.ts': lines("import { parse } from './math.js';", '', 'export const n: string = parse("1");', 'export const m = 2;'),
        },
        commit: true,
      },
      base,
    );
    checkedClean(s);
  });

  it('a repository without its dependencies installed', async () => {
    const base = { ...BASE, 'src/schema.ts': lines("import { z } from 'zod';", '', 'export const name = z.string();') };
    const s = await scorePair(
      { write: { 'src/schema.ts': lines("import { z } from 'zod';", '', 'export const name = z.string().min(1);') } },
      {
        write: {
          'src/form.ts': lines(
            "import { z } from 'zod';",
            "import { name } from './schema.js';",
            '',
            'export const form = z.object({ name });',
          ),
        },
      },
      base,
    );
    checkedClean(s);
  });

  it('an error in every tree whose union the merge prints in another order', async () => {
    // TypeScript prints a union's members in the order it met them: the merge checks side a's
    // file first (which meets "uuid"), a side checks only the erring file, so the same error in
    // src/use.ts reads '"uuid" | "increment"' in the merge and '"increment" | "uuid"' in the sides.
    const base = {
      ...BASE,
      'src/a.ts': lines('export const a = 1;'),
      'src/b.ts': lines('export const b = 1;'),
      'src/use.ts': lines(
        "import { a } from './a.js';",
        "import { b } from './b.js';",
        '',
        'declare const kind: "increment" | "uuid";',
        'export const n = a + b + kind.length + kind.should;',
      ),
    };
    const s = await scorePair(
      { write: { 'src/a.ts': lines('export const u: "uuid" = "uuid";', 'export const a = u.length;') } },
      { write: { 'src/b.ts': lines('export const b = 2;') } },
      base,
    );
    checkedClean(s);
  });

  it('a side that does not compile alone', async () => {
    const s = await scorePair(
      {
        write: {
          'src/math.ts': lines(
            'export function parse(text: string): number {',
            '  const wrong: string = 1;',
            '  return Number(text);',
            '}',
          ),
        },
      },
      { write: { 'src/calc.ts': lines("import { parse } from './math.js';", '', 'export const one = parse("1");') } },
    );
    checkedClean(s);
  });
});

describe('typecheck channel: not checked says why, never clear', () => {
  it('a repository without a tsconfig, and one whose tsconfig cannot be read', async () => {
    const { 'tsconfig.json': _omit, ...noConfig } = BASE;
    const s = await scorePair(
      { write: { 'src/math.ts': 'export const x = 1;\n' } },
      { write: { 'src/calc.ts': 'export const y = 2;\n' } },
      noConfig,
    );
    // Not a TypeScript project: nothing to check, said in evidence (no verdict, nothing overruled).
    expect(s.risk).toBe(0);
    expect(s.overrules).toBeUndefined();
    expect(s.evidence.map((e) => e.kind)).toEqual(['typecheck-skipped']);
    expect(s.evidence[0]!.message).toMatch(/not type-checked: no tsconfig\.json in the merged tree/);
    // A tsconfig the compiler cannot read is a problem.
    result?.git.dispose();
    repo?.dispose();
    const broken = await scorePair(
      { write: { 'src/math.ts': 'export const x = 1;\n' } },
      { write: { 'src/calc.ts': 'export const y = 2;\n' } },
      { ...BASE, 'tsconfig.json': 'compilerOptions: strict\n' },
    );
    expect(broken.problems?.[0]).toMatchObject({ code: 'TYPECHECK_NOT_CHECKED' });
    expect(broken.problems?.[0]!.message).toMatch(/tsconfig\.json could not be read: String literal with double quotes expected/);
  });

  it('a spent budget, and a git service that cannot read trees', async () => {
    const spent = await scorePair(
      { write: { 'src/math.ts': 'export const x = 1;\n' } },
      { write: { 'src/calc.ts': 'export const y = 2;\n' } },
      BASE,
      {
        budgetMs: 0,
      },
    );
    expect(spent.problems?.[0]!.message).toMatch(/budget \(0 ms\) is spent/);
    const blind = await scoreLoaded({}, (g) => ({ pairEdits: g.pairEdits.bind(g), merge: g.merge.bind(g) }));
    expect(blind.problems?.[0]!.message).toMatch(/cannot read trees/);
  });

  it('caches results by the pair of trees: a second scan reads no tree', async () => {
    await scorePair(
      { write: { 'src/math.ts': 'export const x = 1;\n' }, commit: true },
      { write: { 'src/calc.ts': 'export const y = 2;\n' } },
    );
    let listed = 0;
    const counting = (g: GitChannelService): GitChannelService => ({
      pairEdits: g.pairEdits.bind(g),
      merge: g.merge.bind(g),
      pairTrees: g.pairTrees!.bind(g),
      readBlob: g.readBlob!.bind(g),
      listTree: (t) => (listed++, g.listTree!(t)),
    });
    checkedClean(await scoreLoaded({}, counting));
    expect(listed).toBe(0);
  });
});

describe('newErrors', () => {
  const d = (line: number, text: string, code = 2554, message = 'Expected 2 arguments, but got 1.'): Diag => ({
    path: 'x.ts',
    line,
    code,
    message,
    text,
    start: line * 10,
  });
  it('matches by file, code, message and line text (lines may move); counts duplicates', () => {
    expect(newErrors([d(9, 'f(1);')], [[d(5, 'f(1);')], [], []])).toEqual([]);
    expect(newErrors([d(5, 'g(1);')], [[d(5, 'f(1);')], [], []])).toEqual([d(5, 'g(1);')]);
    expect(newErrors([d(5, 'f(1);'), d(7, 'f(1);')], [[], [d(5, 'f(1);')], []])).toEqual([d(7, 'f(1);')]);
    expect(newErrors([d(5, 'f(1);', 2322, 'other')], [[d(5, 'f(1);')], [], []])).toHaveLength(1);
  });
  it('matches a message whose unions are printed in another order, at any depth, by its head', () => {
    const merge = d(
      5,
      'k.should;',
      2339,
      `Property 'should' does not exist on type '"uuid" | "increment"'.\n  Property 'should' does not exist on type '"uuid"'.`,
    );
    const side = d(
      5,
      'k.should;',
      2339,
      `Property 'should' does not exist on type '"increment" | "uuid"'.\n  Property 'should' does not exist on type '"increment"'.`,
    );
    expect(newErrors([merge], [[side], [], []])).toEqual([]);
    expect(messageKey(`Type 'Promise<B | A>' is not assignable to type '{ k: (D | C)[]; j?: F | E; }'.`)).toBe(
      messageKey(`Type 'Promise<A | B>' is not assignable to type '{ k: (C | D)[]; j?: E | F; }'.`),
    );
    expect(messageKey(`Argument of type '(x: B | A) => void' is not assignable.`)).toBe(
      messageKey(`Argument of type '(x: A | B) => void' is not assignable.`),
    );
    // Other members, or other types, stay other errors.
    expect(messageKey(`Type 'A | B' is not assignable to type 'C'.`)).not.toBe(messageKey(`Type 'A | D' is not assignable to type 'C'.`));
    // A union printed truncated names the members its program met first (typeorm's ColumnType in a
    // base's program and in a merge's): one key, while the other type still tells errors apart.
    const comparison = (union: string, literal: string) =>
      `This comparison appears to be unintentional because the types '${union}' and '${literal}' have no overlap.`;
    expect(messageKey(comparison('"number" | "bigint" | StringConstructor | ... 104 more ... | "rowversion"', '"sample-array"'))).toBe(
      messageKey(comparison('"number" | "bigint" | "xml" | "float" | ... 98 more ... | StringConstructor', '"sample-array"')),
    );
    expect(messageKey(comparison('"number" | ... 98 more ... | StringConstructor', '"sample-array"'))).not.toBe(
      messageKey(comparison('"number" | ... 98 more ... | StringConstructor', '"simple-array"')),
    );
    expect(messageKey(`Type '"a | b"' is not assignable.`)).not.toBe(messageKey(`Type '"b | a"' is not assignable.`));
  });
});
