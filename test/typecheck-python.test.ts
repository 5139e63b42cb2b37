/**
 * The typecheck channel on Python in a whole scan (`airspace scan --json`): pyright's word on a
 * pair's merge decides the level over the symbols channel's guess. ann makes a parameter
 * optional, ben and cat add one-argument calls in new files: the symbols channel reads a
 * signature change against new calls (0.90), pyright finds the merge clean, and the overrule
 * rule keeps the pairs from a resolution. erin changes a signature, frank adds a call with the
 * old one: a resolution, with pyright's message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';
import { airspace } from './run-cli.js';

const lines = (...l: string[]): string => l.join('\n') + '\n';

interface Part {
  readonly channel: string;
  readonly risk: number;
  readonly evidence: readonly { readonly message: string }[];
}
interface Pair {
  readonly a: string;
  readonly b: string;
  readonly level: string;
  readonly levelReason?: string;
  readonly channels: readonly Part[];
  readonly evidence: readonly { readonly message: string }[];
}

let repo: RepoFixture;
let pairs: readonly Pair[];

beforeAll(async () => {
  repo = createRepoFixture(
    {
      'pyproject.toml': lines('[project]', 'name = "shop"'),
      'src/shop/__init__.py': '',
      'src/shop/pricing.py': lines('def price(cents: int, unit: str) -> str:', '    return f"{cents} {unit}"'),
      'src/shop/session.py': lines('def create_session(user: str) -> str:', '    return user'),
    },
    { epoch: Math.floor(Date.now() / 1000) - 600 },
  );
  repo
    .worktree('ann')
    .write('src/shop/pricing.py', lines('def price(cents: int, unit: str = "EUR") -> str:', '    return f"{cents} {unit}"'));
  repo.worktree('ben').write('src/shop/cart.py', lines('from shop.pricing import price', '', 'shown = price(12)'));
  repo.worktree('cat').write('src/shop/receipt.py', lines('from shop.pricing import price', '', 'line = price(300)'));
  repo
    .worktree('erin')
    .write('src/shop/session.py', lines('def create_session(user: str, ttl: int) -> str:', '    return user + str(ttl)'));
  repo.worktree('frank').write('src/shop/login.py', lines('from shop.session import create_session', '', 'token = create_session("ann")'));
  const run = await airspace(['scan', '--repo', repo.dir, '--json'], { timeoutMs: 90_000 });
  expect(run.stderr).toBe('');
  pairs = (JSON.parse(run.stdout) as { links: Pair[] }).links;
}, 120_000);

afterAll(() => repo?.dispose());

const pair = (a: string, b: string) => pairs.find((p) => (p.a === a && p.b === b) || (p.a === b && p.b === a))!;
const part = (p: Pair, channel: string) => p.channels.find((c) => c.channel === channel)!;

describe('typecheck on Python in a scan', () => {
  it('a parameter made optional against new one-argument calls: checked, not a collision, not a resolution', () => {
    for (const other of ['ben', 'cat']) {
      const p = pair('ann', other);
      expect(part(p, 'symbols').risk).toBeCloseTo(0.9);
      expect(part(p, 'typecheck').risk).toBe(0);
      expect(part(p, 'typecheck').evidence[0]!.message).toMatch(
        /^checked: the merge of ann and (ben|cat) type-checks with no new error .* pyright/,
      );
      expect(p.level).not.toBe('resolution');
      expect(p.levelReason).toMatch(/symbols overruled: the compiler checked the merge/);
    }
  });

  it('a signature change against a new call: a resolution, with pyright as evidence', () => {
    const p = pair('erin', 'frank');
    expect(p.level).toBe('resolution');
    expect(part(p, 'typecheck').risk).toBe(1);
    expect(part(p, 'typecheck').evidence[0]!.message).toBe(
      'merging erin and frank: src/shop/login.py:3 reportCallIssue Argument missing for parameter "ttl" — erin changed create_session at src/shop/session.py:1–2',
    );
  });
});
