import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS } from '@airspace/core';
import { createScanner } from '@airspace/scanner';
import { createDemoRepository, type DemoRepository } from '../src/demo/fixture.js';

let demo: DemoRepository;
beforeAll(() => {
  demo = createDemoRepository();
});
afterAll(() => demo?.fixture.dispose());

/** Level and risk of every pair, as the README's table shows them. */
async function table(offsetMs: number): Promise<string[]> {
  const scanner = createScanner({ repo: demo.root, base: 'main', now: () => Date.now() + offsetMs });
  try {
    const result = await scanner.scan();
    return result.links.map((l) => `${l.a} ${l.b} ${l.level} ${l.risk.toFixed(2)}`);
  } finally {
    await scanner.dispose();
  }
}

describe('the demo', () => {
  it('reads the same an hour later, or three, with nothing changed (levels and risks do not follow the clock)', async () => {
    const now = await table(0);
    expect(now).toContain('alice bob resolution 1.00');
    expect(now).toContain('erin frank resolution 1.00');
    // Import reach alone weighs almost nothing with the fitted defaults (docs/evaluation.md).
    expect(now.find((l) => l.startsWith('carol dave'))).toMatch(/ clear /);
    // No pair sits within 0.05 of a band, so the table does not flip on a small change.
    for (const line of now) {
      const risk = Number(line.split(' ').at(-1));
      for (const t of Object.values(DEFAULT_THRESHOLDS)) expect(Math.abs(risk - t), line).toBeGreaterThanOrEqual(0.05);
    }
    expect(await table(3_600_000)).toEqual(now);
    expect(await table(3 * 3_600_000)).toEqual(now);
  }, 60_000);

  it('has the compiler confirm erin ↔ frank, and no other pair of the 21', async () => {
    const scanner = createScanner({ repo: demo.root, base: 'main' });
    try {
      const result = await scanner.scan();
      expect(result.links).toHaveLength(21);
      const broken = result.links.filter((l) => l.channels.some((c) => c.channel === 'typecheck' && c.risk > 0));
      expect(broken.map((l) => `${l.a} ${l.b}`)).toEqual(['erin frank']);
      const part = broken[0]!.channels.find((c) => c.channel === 'typecheck')!;
      expect(part.evidence[0]!.message).toBe(
        'merging erin and frank: src/auth/login.ts:5 TS2554 Expected 2 arguments, but got 1 — erin changed createSession at src/auth/session.ts:6–8',
      );
      // carol ↔ dave interact through imports and were checked: nothing breaks.
      const carolDave = result.links.find((l) => l.a === 'carol' && l.b === 'dave')!;
      expect(carolDave.channels.find((c) => c.channel === 'typecheck')!.evidence[0]!.kind).toBe('typecheck-clean');
      expect(result.problems.filter((p) => p.channel === 'typecheck')).toEqual([]);
    } finally {
      await scanner.dispose();
    }
  }, 60_000);
});
