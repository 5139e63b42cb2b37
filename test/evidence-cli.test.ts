/**
 * Evidence as `airspace scan` prints it: findings about neighbouring symbols share one line with a
 * range, and a renamed definition is named old → new (docs/channels.md, "Grouped evidence" and
 * "Renames"). The built CLI on a generated repository.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoFixture, type RepoFixture } from '@airspace/git/fixture';

import { airspace } from './run-cli.js';

const VALUES = Array.from({ length: 30 }, (_, i) => `export const v${i + 1} = ${i + 1};`).join('\n') + '\n';
const URL_TS = "export function refererStr(url: string) {\n  const parts = url.split('/');\n  return parts[0];\n}\n";
const APP =
  "import { v5, v6, v7, v8 } from './values';\nimport { refererStr } from './url';\nexport const total = 0;\nexport const from = '';\n";

let repo: RepoFixture;
beforeAll(() => {
  repo = createRepoFixture(
    { 'src/values.ts': VALUES, 'src/url.ts': URL_TS, 'src/app.ts': APP },
    { epoch: Math.floor(Date.now() / 1000) - 600 },
  );
  // alice deletes v5–v8 (four neighbouring lines) and renames refererStr; bob starts using both.
  repo
    .worktree('alice')
    .write('src/values.ts', VALUES.replace(/^export const v[5-8] = \d+;\n/gm, ''))
    .write('src/url.ts', URL_TS.replace('refererStr', 'referrerStr'))
    .commit('alice: drop v5-v8, rename refererStr');
  repo
    .worktree('bob')
    .write('src/app.ts', APP.replace('total = 0', 'total = v5 + v6 + v7 + v8').replace("from = ''", "from = refererStr('a/b')"));
});
afterAll(() => repo.dispose());

describe('airspace scan evidence', () => {
  it('prints one line for neighbouring deleted symbols and names a rename old → new', async () => {
    const human = await airspace(['scan', '--repo', repo.dir]);
    expect(human.code).toBe(0);
    const lines = human.stdout.split('\n').filter((l) => l.trimStart().startsWith('·'));
    expect(lines).toContain(
      '  · alice src/values.ts:5-8 (base) ↔ bob src/app.ts:3: alice deletes v5–v8 (4 symbols) (src/values.ts:5–8), which bob reads at src/app.ts:3 in its changed lines.',
    );
    expect(lines).toContain(
      '  · alice src/url.ts:1-4 ↔ bob src/app.ts:4: alice renames refererStr → referrerStr (src/url.ts:1–4), which bob reads at src/app.ts:4 in its changed lines.',
    );
    expect(human.stdout).not.toMatch(/deletes v6 |deletes refererStr/);

    const json = await airspace(['scan', '--repo', repo.dir, '--json']);
    const result = JSON.parse(json.stdout) as {
      links: { a: string; b: string; channels: { channel: string; evidence: { message: string; a?: { symbols?: string[] } }[] }[] }[];
    };
    const symbols = result.links.find((l) => [l.a, l.b].sort().join() === 'alice,bob')!.channels.find((c) => c.channel === 'symbols')!;
    expect(symbols.evidence).toHaveLength(2);
    const grouped = symbols.evidence.find((e) => e.message.includes('v5–v8'))!;
    expect(grouped.a?.symbols ?? (grouped as { b?: { symbols?: string[] } }).b?.symbols).toEqual(['v5', 'v6', 'v7', 'v8']);
  });
});
