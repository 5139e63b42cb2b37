import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { intentMap, intentsFile, intentsProblems, readIntents, writeIntent, type DeclaredIntent } from '../src/intents.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const common = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'airspace-intents-'));
  dirs.push(d);
  return d;
};
const declaration = (agent: string, paths: string[], at: number, ttl: number, symbols: string[] = []): DeclaredIntent => ({
  agent,
  paths,
  symbols,
  declaredAt: new Date(at).toISOString(),
  expiresAt: new Date(at + ttl).toISOString(),
});

describe('declared intent', () => {
  it("replaces an agent's declaration, keeps the others, and drops expired ones", () => {
    const dir = common();
    writeIntent(dir, declaration('alice', ['a.ts'], 1000, 60_000), 1000);
    writeIntent(dir, declaration('bob', ['b.ts'], 1000, 1_000), 1000);
    writeIntent(dir, declaration('alice', ['c.ts'], 2000, 60_000), 1500);
    expect(readIntents(dir, 1500).map((d) => [d.agent, d.paths])).toEqual([
      ['bob', ['b.ts']],
      ['alice', ['c.ts']],
    ]);
    expect(readIntents(dir, 2500).map((d) => d.agent)).toEqual(['alice']);
    // An empty declaration withdraws.
    writeIntent(dir, declaration('alice', [], 3000, 60_000), 3000);
    expect(readIntents(dir, 3000)).toEqual([]);
  });

  it('drops paths outside the work tree from a tampered file, on every read', () => {
    const dir = common();
    mkdirSync(join(dir, 'airspace'), { recursive: true });
    const tampered = { ...declaration('mallory', ['../../etc/passwd', '/etc/shadow', '.git/config', 'src/a.ts'], 0, 60_000) };
    writeFileSync(intentsFile(dir), JSON.stringify([{ ...tampered, symbols: ['../x.ts#f', 'src/b.ts#g'] }]));
    expect(readIntents(dir, 1000)).toMatchObject([{ agent: 'mallory', paths: ['src/a.ts'], symbols: ['src/b.ts#g'] }]);
  });

  it("becomes the scanner's intent: paths whole, symbols to resolve (a path with a symbol of its own: the symbol)", () => {
    expect(intentMap([declaration('alice', ['a.ts', 'c.ts'], 0, 1, ['src/b.ts#Parser.parse', 'a.ts#x', 'src/b.ts#total'])])).toEqual({
      alice: ['c.ts', { path: 'a.ts', symbol: 'x' }, { path: 'src/b.ts', symbol: 'Parser.parse' }, { path: 'src/b.ts', symbol: 'total' }],
    });
    expect(intentMap([])).toBeUndefined();
  });

  it('a damaged file: kept aside, its complete declarations recovered, a problem named; the next write keeps them', () => {
    const dir = common();
    writeIntent(dir, declaration('alice', ['a.ts'], 1000, 60_000), 1000);
    writeIntent(dir, declaration('bob', ['b.ts'], 1000, 60_000), 1000);
    const whole = readFileSync(intentsFile(dir), 'utf8');
    // Cut short at the end: both declarations are complete, the closing bracket is lost.
    const cut = whole.slice(0, whole.lastIndexOf('}') + 1);
    writeFileSync(intentsFile(dir), cut);
    expect(readIntents(dir, 1500).map((d) => d.agent)).toEqual(['alice', 'bob']);
    const aside = readdirSync(join(dir, 'airspace')).filter((n) => n.startsWith('intents.json.damaged-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dir, 'airspace', aside[0]!), 'utf8')).toBe(cut);
    const problems = intentsProblems(dir);
    expect(problems.map((p) => p.code)).toEqual(['INTENTS_DAMAGED']);
    expect(problems[0]!.message).toContain(aside[0]!);
    // The next declaration keeps everyone else's.
    writeIntent(dir, declaration('carol', ['c.ts'], 1500, 60_000), 1500);
    expect(readIntents(dir, 1600).map((d) => d.agent)).toEqual(['alice', 'bob', 'carol']);
  });

  it('a file cut inside a declaration keeps the ones before it; one that is not JSON at all keeps none but is kept aside', () => {
    const dir = common();
    writeIntent(dir, declaration('alice', ['a.ts'], 1000, 60_000), 1000);
    writeIntent(dir, declaration('bob', ['b.ts'], 1000, 60_000), 1000);
    const whole = readFileSync(intentsFile(dir), 'utf8');
    writeFileSync(intentsFile(dir), whole.slice(0, whole.indexOf('"bob"') + 3));
    writeIntent(dir, declaration('carol', ['c.ts'], 1500, 60_000), 1500);
    expect(readIntents(dir, 1600).map((d) => d.agent)).toEqual(['alice', 'carol']);

    const other = common();
    mkdirSync(join(other, 'airspace'));
    writeFileSync(intentsFile(other), '{ not json');
    expect(readIntents(other)).toEqual([]);
    expect(intentsProblems(other)).toHaveLength(1);
  });

  it('a lock left by a process that died is taken over', () => {
    const dir = common();
    mkdirSync(join(dir, 'airspace'));
    const lock = `${intentsFile(dir)}.lock`;
    writeFileSync(lock, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    writeIntent(dir, declaration('alice', ['a.ts'], 1000, 60_000), 1000);
    expect(readIntents(dir, 1500).map((d) => d.agent)).toEqual(['alice']);
    expect(existsSync(lock)).toBe(false);
  });

  it('declarations written at once by several processes are all kept', async () => {
    const dir = common();
    // The compiled module (built before the tests run): plain node cannot load the TypeScript source.
    const module = pathToFileURL(join(__dirname, '..', 'dist', 'intents.js')).href;
    const agents = Array.from({ length: 6 }, (_, i) => `agent${i}`);
    const script = (agent: string) =>
      `const { writeIntent } = await import(${JSON.stringify(module)});
       for (let k = 0; k < 5; k++) writeIntent(${JSON.stringify(dir)}, { agent: ${JSON.stringify(agent)}, paths: ['p' + k], symbols: [], declaredAt: new Date(0).toISOString(), expiresAt: new Date(Date.now() + 60000).toISOString() });`;
    await Promise.all(
      agents.map(
        (agent) =>
          new Promise<void>((done, fail) =>
            execFile(process.execPath, ['--input-type=module', '-e', script(agent)], (error) => (error ? fail(error) : done())),
          ),
      ),
    );
    expect(
      readIntents(dir)
        .map((d) => d.agent)
        .sort(),
    ).toEqual(agents);
  }, 30_000);
});
