import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { intentMap, intentsFile, readIntents, writeIntent, type DeclaredIntent } from '../src/intents.js';

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

  it("becomes the scanner's intent: paths whole, symbols to resolve (none of a file declared whole)", () => {
    expect(intentMap([declaration('alice', ['a.ts'], 0, 1, ['src/b.ts#Parser.parse', 'a.ts#x', 'src/b.ts#total'])])).toEqual({
      alice: ['a.ts', { path: 'src/b.ts', symbol: 'Parser.parse' }, { path: 'src/b.ts', symbol: 'total' }],
    });
    expect(intentMap([])).toBeUndefined();
  });

  it('reads a damaged file as no declarations', () => {
    const dir = common();
    mkdirSync(join(dir, 'airspace'));
    writeFileSync(intentsFile(dir), '{ not json');
    expect(readIntents(dir)).toEqual([]);
  });
});
