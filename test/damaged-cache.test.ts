/**
 * A damaged facts cache must not change the answer: the demo scanned with a clean cache, then
 * with every segment body truncated (or with flipped bytes), gives the same links, plus a problem
 * naming the damaged cache. So does one bit flipped in each other cached structure that feeds an
 * answer: a segment head (an import specifier), the persisted resolutions, the
 * mined history. In-process through `@airspace/scanner`, as every front end scans.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoRepository, type DemoRepository } from '@airspace/cli';
import type { ScanResult } from '@airspace/core';
import { scanRepository } from '@airspace/scanner';

let demo: DemoRepository;
const now = (): number => Date.parse('2026-12-01T12:00:00Z');
beforeAll(() => {
  demo = createDemoRepository();
});
afterAll(() => demo.fixture.dispose());

const scan = (): Promise<ScanResult> => scanRepository({ repo: demo.root, base: 'main', now });
/** What the answer is: each pair's level and risk, and each channel's risk. */
const answer = (r: ScanResult) =>
  r.links.map((l) => ({
    pair: `${l.a}×${l.b}`,
    level: l.level,
    risk: l.risk.toFixed(6),
    channels: Object.fromEntries(l.channels.map((c) => [c.channel, c.risk.toFixed(6)])),
  }));

/** Damages every file of the cache under `prefix` (a facts or history directory) whose name `matches`; how many. */
function damageFiles(prefix: string, matches: (name: string) => boolean, damage: (bytes: Buffer) => Buffer): number {
  const cache = join(demo.root, '.git', 'airspace', 'cache');
  let n = 0;
  for (const version of readdirSync(cache).filter((d) => d.startsWith(prefix))) {
    for (const name of readdirSync(join(cache, version)).filter(matches)) {
      const file = join(cache, version, name);
      const before = readFileSync(file);
      const after = damage(before);
      if (after.equals(before)) continue;
      writeFileSync(file, after);
      n++;
    }
  }
  return n;
}
const damageBodies = (damage: (bytes: Buffer) => Buffer) => damageFiles('facts-', (f) => f.endsWith('.body'), damage);

/** One bit flipped in the first character after the first `marker` (unchanged when there is none). */
const flipAfter =
  (marker: string, bit = 0x01) =>
  (b: Buffer): Buffer => {
    const at = b.indexOf(marker);
    if (at < 0) return b;
    const out = Buffer.from(b);
    out[at + marker.length]! ^= bit;
    return out;
  };

describe('a damaged facts cache', () => {
  it.each([
    ['truncated bodies', (b: Buffer) => b.subarray(0, Math.min(10, b.length - 1))],
    ['flipped bytes', (b: Buffer) => Buffer.from(b.map((x, i) => (i % 97 === 13 ? x ^ 0x5a : x)))],
  ])('%s: same scan result as with a clean cache, plus a problem', async (_name, damage) => {
    const clean = await scan(); // fills the cache (or reads it clean)
    expect(clean.problems).toEqual([]);
    expect(clean.counts.resolution).toBeGreaterThan(0);
    expect(clean.links.some((l) => l.channels.some((c) => c.channel === 'symbols' && c.risk > 0))).toBe(true);
    expect(damageBodies(damage)).toBeGreaterThan(0);

    const damaged = await scan();
    expect(answer(damaged)).toEqual(answer(clean));
    const messages = damaged.problems.map((p) => p.message);
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages)
      expect(m).toMatch(
        /^The facts cache segment body .* was damaged \(.+\); it was removed and its \d+ files? (was|were) parsed again\.$/,
      );

    // Healed: the next scan reads a clean cache again.
    const after = await scan();
    expect(after.problems).toEqual([]);
    expect(answer(after)).toEqual(answer(clean));
  });
});

describe('one bit flipped in a cached structure', () => {
  it.each([
    // './tax.js' read as '//tax.js': the import no longer resolves, so symbols and the graph lose the edge.
    ['a segment head (an import specifier)', 'facts-', (f: string) => f.endsWith('.head.json'), flipAfter('specifier\\":\\"')],
    ['the persisted resolutions (a target)', 'facts-', (f: string) => f.startsWith('res-'), flipAfter('"targets":["', 0x02)],
    ['the mined history (a path)', 'history-', (f: string) => f.endsWith('.json'), flipAfter('"paths":["', 0x02)],
  ])('%s: same scan result as with a clean cache, plus a problem', async (_name, prefix, matches, damage) => {
    const clean = await scan();
    expect(clean.problems).toEqual([]);
    expect(clean.counts.resolution).toBeGreaterThan(0);
    expect(damageFiles(prefix, matches, damage)).toBeGreaterThan(0);

    const damaged = await scan();
    expect(answer(damaged)).toEqual(answer(clean));
    expect(damaged.problems.map((p) => p.message).join('\n')).toMatch(/damaged|did not verify/);

    const after = await scan();
    expect(after.problems).toEqual([]);
    expect(answer(after)).toEqual(answer(clean));
  });
});
