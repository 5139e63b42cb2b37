/**
 * The typecheck channel on Python (pyright). pyright's start-up is most of a small check's cost,
 * so every scenario is a pair of agents of one repository, scored together: the channel's
 * checks of the same moment share one pyright process (one for the merges, one for the sides of
 * the merges that have errors).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent, ChannelScore } from '@airspace/core';
import { loadAgents, type LoadAgentsResult } from '@airspace/git';
import { createRepoFixture, type FileTree, type RepoFixture } from '@airspace/git/fixture';
import { typecheckChannel } from '../src/index.js';
import { importedModules } from '../src/python.js';
import { blocksNamed, moduleNames } from '../src/python-site.js';

const lines = (...l: string[]) => l.join('\n') + '\n';
const silent = { debug() {}, info() {}, warn() {} };

const BASE: FileTree = {
  'pyproject.toml': lines('[project]', 'name = "shop"', '', '[tool.pyright]', 'typeCheckingMode = "standard"', 'include = ["src"]'),
  'src/app/__init__.py': '',
  'src/app/session.py': lines('def create_session(user: str) -> str:', '    return user'),
  'src/app/users.py': lines('from dataclasses import dataclass', '', '', '@dataclass', 'class User:', '    name: str'),
  'src/app/parsing.py': lines('def parse(text: str) -> int:', '    return int(text)'),
  'src/app/pricing.py': lines('def price(cents: int, unit: str) -> str:', '    return f"{cents} {unit}"'),
  'src/app/labels.py': lines('def label(text: str) -> str:', '    return text.upper()'),
  // A base that does not type-check.
  'src/app/broken.py': lines('from app.parsing import parse', '', 'count: str = parse("1")', 'other = 1'),
};

interface Side {
  readonly write?: FileTree;
  readonly remove?: readonly string[];
  readonly commit?: boolean;
}

const SIGNATURE = lines('def create_session(user: str, ttl: int) -> str:', '    return user + str(ttl)');
const NEW_LOGIN = lines('from app.session import create_session', '', 'token = create_session("ann")');

/** Each scenario: two sides of the base. */
const SCENARIOS: Record<string, readonly [Side, Side]> = {
  signature: [{ write: { 'src/app/session.py': SIGNATURE }, commit: true }, { write: { 'src/app/login.py': NEW_LOGIN } }],
  renamed: [
    { write: { 'src/app/parsing.py': lines('def parse_number(text: str) -> int:', '    return int(text)') } },
    { write: { 'src/app/calc.py': lines('from app.parsing import parse', '', 'one = parse("1")') } },
  ],
  removed: [
    { remove: ['src/app/pricing.py'], commit: true },
    { write: { 'src/app/cart.py': lines('from app.pricing import price', '', 'shown = price(1, "EUR")') } },
  ],
  dataclass: [
    {
      write: {
        'src/app/users.py': lines(
          'from dataclasses import dataclass',
          '',
          '',
          '@dataclass',
          'class User:',
          '    name: str',
          '    email: str',
        ),
      },
    },
    { write: { 'src/app/admin.py': lines('from app.users import User', '', 'admin = User(name="root")') } },
  ],
  returns: [
    { write: { 'src/app/parsing.py': lines('def parse(text: str) -> int | None:', '    return int(text) if text else None') } },
    { write: { 'src/app/total.py': lines('from app.parsing import parse', '', 'total: int = parse("2") * 2') } },
  ],
  optional: [
    { write: { 'src/app/pricing.py': lines('def price(cents: int, unit: str = "EUR") -> str:', '    return f"{cents} {unit}"') } },
    { write: { 'src/app/cart.py': lines('from app.pricing import price', '', 'shown = price(12)', 'again = price(3)') } },
  ],
  identical: [
    {
      write: {
        'src/app/session.py': SIGNATURE,
        'src/app/login.py': lines('from app.session import create_session', '', 'token = create_session("ann", 5)'),
      },
      commit: true,
    },
    {
      write: {
        'src/app/session.py': SIGNATURE,
        'src/app/login.py': lines('from app.session import create_session', '', 'token = create_session("ann", 5)'),
      },
    },
  ],
  unrelated: [
    { write: { 'src/app/parsing.py': lines('def parse(text: str, base: int) -> int:', '    return int(text, base)') } },
    { write: { 'src/app/labels.py': lines('def label(text: str, loud: bool) -> str:', '    return text.upper() if loud else text') } },
  ],
  brokenBase: [
    { write: { 'src/app/broken.py': lines('# counts', 'from app.parsing import parse', '', 'count: str = parse("1")', 'other = 1') } },
    { write: { 'src/app/broken.py': lines('from app.parsing import parse', '', 'count: str = parse("1")', 'other = 2') }, commit: true },
  ],
  notInstalled: [
    {
      write: {
        'src/app/schema.py': lines('import shopvendor_missing', '', 'def name() -> str:', '    return shopvendor_missing.field("name")'),
      },
    },
    {
      write: {
        'src/app/form.py': lines('from shopvendor_missing import forms', 'from app.schema import name', '', 'form = forms.Form(name())'),
      },
    },
  ],
  sideBroken: [
    { write: { 'src/app/parsing.py': lines('def parse(text: str) -> int:', '    wrong: str = 1', '    return int(text)') } },
    { write: { 'src/app/calc.py': lines('from app.parsing import parse', '', 'one = parse("1")') } },
  ],
};

let repo: RepoFixture;
let loaded: LoadAgentsResult;
let scores: Map<string, ChannelScore>;

async function scoreAll(names: readonly string[], options: Record<string, unknown> = {}): Promise<Map<string, ChannelScore>> {
  const channel = typecheckChannel();
  const ctx = {
    // Generous limits: the machine running the tests may be busy (one test sets its own).
    options: { ...channel.defaultOptions!, timeLimitMs: 90_000, budgetMs: 90_000, ...options },
    now: Date.now(),
    logger: silent,
    services: { git: loaded.git },
    repository: { id: 'test', root: repo.dir },
  };
  const agent = (id: string): Agent => loaded.agents.find((x) => x.id === id)!;
  // Each pair prepared alone (the repository's other agents are other scenarios), scored together.
  const out = await Promise.all(
    names.map(async (n) => {
      const [a, b] = [agent(`${n}-a`), agent(`${n}-b`)];
      const prepared = await channel.prepare!([a, b], ctx);
      return channel.score(a, b, { ...ctx, prepared });
    }),
  );
  return new Map(names.map((n, i) => [n, out[i]!]));
}

beforeAll(async () => {
  repo = createRepoFixture(BASE);
  for (const [name, sides] of Object.entries(SCENARIOS)) {
    for (const [suffix, side] of [['a', sides[0]] as const, ['b', sides[1]] as const]) {
      const wt = repo.worktree(`${name}-${suffix}`);
      for (const [path, text] of Object.entries(side.write ?? {})) wt.write(path, text);
      for (const path of side.remove ?? []) wt.remove(path);
      if (side.commit) wt.commit(`${name} ${suffix}`);
    }
  }
  loaded = await loadAgents({ repo: repo.dir });
  scores = await scoreAll(Object.keys(SCENARIOS));
}, 120_000);

afterAll(() => {
  loaded?.git.dispose();
  repo?.dispose();
});

const messages = (name: string) => scores.get(name)!.evidence.map((e) => e.message);
const checkedClean = (name: string) => {
  const s = scores.get(name)!;
  expect(s.problems ?? []).toEqual([]);
  expect(s.evidence.map((e) => e.kind)).toEqual(['typecheck-clean']);
  expect(s.evidence[0]!.message).toMatch(
    /^checked: the merge of .* type-checks with no new error \(\d+ files? checked with pyright \(pyproject\.toml\)\)/,
  );
  expect(s.risk).toBe(0);
  expect(s.overrules?.[0]).toMatchObject({ channel: 'symbols' });
};

describe('typecheck channel, Python: collisions git merges cleanly', () => {
  it('a signature change against a new call', () => {
    const s = scores.get('signature')!;
    expect(s.risk).toBe(1);
    expect(messages('signature')).toEqual([
      'merging signature-a and signature-b: src/app/login.py:3 reportCallIssue Argument missing for parameter "ttl" — signature-a changed create_session at src/app/session.py:1–2',
    ]);
    expect(s.evidence[0]!.b).toMatchObject({ agent: 'signature-b', path: 'src/app/login.py', range: [3, 3], access: 'read' });
    expect(s.evidence[0]!.a).toMatchObject({ agent: 'signature-a', path: 'src/app/session.py', range: [1, 2], symbol: 'create_session' });
  });

  it('a renamed function against a new import, and a removed module against a new import', () => {
    expect(messages('renamed')).toEqual([
      'merging renamed-a and renamed-b: src/app/calc.py:1 reportAttributeAccessIssue "parse" is unknown import symbol — renamed-a changed src/app/parsing.py:1',
    ]);
    expect(messages('removed')[0]).toMatch(
      /^merging removed-a and removed-b: src\/app\/cart\.py:1 reportMissingImports Import "app\.pricing" could not be resolved — removed-a changed src\/app\/pricing\.py$/,
    );
  });

  it('a changed dataclass against a new construction', () => {
    expect(messages('dataclass')).toEqual([
      'merging dataclass-a and dataclass-b: src/app/admin.py:3 reportCallIssue Argument missing for parameter "email" — dataclass-a changed User at src/app/users.py:4–7',
    ]);
  });

  it('a changed return type against a new use', () => {
    expect(messages('returns')).toEqual([
      'merging returns-a and returns-b: src/app/total.py:3 reportOptionalOperand Operator "*" not supported for "None" — returns-a changed parse at src/app/parsing.py:1–2',
    ]);
  });
});

describe('typecheck channel, Python: pairs that must stay clear', () => {
  it('a parameter made optional against new one-argument calls (the caller alone does not type-check)', () => checkedClean('optional'));
  it('identical edits on both sides', () => checkedClean('identical'));
  it('changes in unrelated modules', () => checkedClean('unrelated'));
  it('a base that does not type-check', () => checkedClean('brokenBase'));
  it('imports of packages that are not installed', () => checkedClean('notInstalled'));
  it('a side that does not type-check alone', () => checkedClean('sideBroken'));
});

describe('typecheck channel, Python: not checked says why, never clear', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fake-pyright-'));
    writeFileSync(join(dir, 'broken.js'), "process.stderr.write('pyright crashed: out of memory\\n'); process.exit(2);\n");
    chmodSync(join(dir, 'broken.js'), 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('pyright missing, pyright failing, a time limit', async () => {
    const missing = await scoreAll(['signature'], { pyright: join(dir, 'absent.js') });
    const failing = await scoreAll(['signature'], { pyright: join(dir, 'broken.js') });
    // Another key and another checker: neither the pair's result nor its files' errors are cached.
    const late = await scoreAll(['sideBroken'], { timeLimitMs: 1, importerDepth: 5, pyright: join(dir, 'broken.js') });
    for (const [s, why] of [
      [late.get('sideBroken')!, /time limit reached/],
      [missing.get('signature')!, /the Python type checker \(npm package pyright\) is not installed/],
      [failing.get('signature')!, /pyright failed \(exit 2\): pyright crashed: out of memory/],
    ] as const) {
      expect(s.risk).toBe(0);
      expect(s.overrules).toBeUndefined();
      expect(s.evidence).toEqual([]);
      expect(s.problems?.[0]).toMatchObject({ code: 'TYPECHECK_NOT_CHECKED' });
      expect(s.problems?.[0]!.message).toMatch(why);
    }
  });
});

describe('typecheck channel, Python: the pairs of one scan', () => {
  it('start together and share one pyright run, though scored one after another', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-pyright-'));
    writeFileSync(
      join(dir, 'quiet.cjs'),
      "require('fs').appendFileSync(__dirname + '/runs.log', process.argv.filter((a) => a.endsWith('.py')).length + '\\n');\n" +
        'process.stdout.write(JSON.stringify({ generalDiagnostics: [] }));\n',
    );
    try {
      const channel = typecheckChannel();
      const ctx = {
        options: { ...channel.defaultOptions!, timeLimitMs: 90_000, budgetMs: 90_000, pyright: join(dir, 'quiet.cjs') },
        now: Date.now(),
        logger: silent,
        services: { git: loaded.git },
        repository: { id: 'test', root: repo.dir },
      };
      const six = ['signature-a', 'signature-b', 'renamed-a', 'renamed-b', 'dataclass-a', 'dataclass-b'].map((id) =>
        loaded.agents.find((x) => x.id === id)!,
      );
      const prepared = await channel.prepare!(six, ctx);
      for (const [x, y] of [
        [0, 1],
        [2, 3],
        [5, 4], // the other order than prepared
      ] as const) {
        const s = await channel.score(six[x]!, six[y]!, { ...ctx, prepared });
        expect(s.evidence.map((e) => e.kind)).toEqual(['typecheck-clean']);
      }
      // One run for the merges of the 15 pairs: the three above each ask for the new file that
      // reads the other side's change; no file of the other pairs reads both sides' changes.
      expect(readFileSync(join(dir, 'runs.log'), 'utf8')).toBe('3\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Python imports and definitions', () => {
  it('reads absolute and relative imports, and names a file by every dotted suffix', () => {
    expect(
      importedModules(
        'src/app/views.py',
        lines('import os, app.session as s', 'from .users import User, Admin', 'from .. import pricing', 'from app.parsing import (parse,'),
      ),
    ).toEqual([
      'os',
      'app.session',
      'src.app.users',
      'src.app.users.User',
      'src.app.users.Admin',
      'src',
      'src.pricing',
      'app.parsing',
      'app.parsing.parse',
    ]);
    expect(moduleNames('src/app/__init__.py')).toEqual(['src.app', 'app']);
    expect(moduleNames('src/app/session.py')).toEqual(['src.app.session', 'app.session', 'session']);
  });

  it('finds a def or class block with its decorators, methods qualified by their class', () => {
    const text = lines(
      '@dataclass',
      'class User:',
      '    name: str',
      '',
      '    @property',
      '    def shown(self) -> str:',
      '        return self.name',
      '',
      'x = 1',
    );
    expect(blocksNamed(text, 'User').map((b) => [b.name, b.lines])).toEqual([['User', [1, 7]]]);
    expect(blocksNamed(text, 'shown').map((b) => [b.name, b.lines])).toEqual([['User.shown', [5, 7]]]);
  });
});
