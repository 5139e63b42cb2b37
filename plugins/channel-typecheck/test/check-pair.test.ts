import { describe, expect, it } from 'vitest';
import { checkPair, loadTypeScript, type Ts } from '../src/check.js';
import { BlobTexts } from '../src/tree-fs.js';

const lines = (...l: string[]) => l.join('\n') + '\n';
const ROOT = '/repo';

/** Trees given as path → text: each text is its own blob id, so equal texts are one blob, as in git. */
function listing(files: Record<string, string>, texts: BlobTexts): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, text] of Object.entries(files)) {
    texts.set(text, text);
    out.set(path, text);
  }
  return out;
}

const BASE = {
  'tsconfig.json': lines(
    '{',
    '  "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true },',
    '  "include": ["src"]',
    '}',
  ),
  'package.json': lines('{ "name": "shop", "private": true, "type": "module" }'),
  'src/math.ts': lines('export function parse(text: string): number {', '  return Number(text);', '}'),
  // Broken in the base: a string annotation on a number.
  'src/broken.ts': lines("import { parse } from './math.js';", '', 'export const n: string = parse("1");'),
};

/** checkPair with a compiler that counts the programs it creates. */
async function check(a: Record<string, string>, b: Record<string, string>) {
  const ts = (await loadTypeScript())!;
  let programs = 0;
  const counting = { ...ts, createProgram: (...args: Parameters<Ts['createProgram']>) => (programs++, ts.createProgram(...args)) } as Ts;
  const texts = new BlobTexts();
  const trees = {
    base: listing(BASE, texts),
    a: listing({ ...BASE, ...a }, texts),
    b: listing({ ...BASE, ...b }, texts),
    merge: listing({ ...BASE, ...a, ...b }, texts),
  };
  const result = checkPair({
    ts: counting,
    root: ROOT,
    trees,
    texts,
    tsconfig: 'tsconfig.json',
    importerDepth: 2,
    maxFiles: 400,
    deadline: Date.now() + 60_000,
  });
  return { result, programs };
}

describe('checkPair: the base first', () => {
  it('builds neither side when the base has every error the merge has', async () => {
    // a documents parse; b adds a line to broken.ts, which imports it: the merge's error is the base's.
    const { result, programs } = await check(
      { 'src/math.ts': lines('/** Parses a number. */', 'export function parse(text: string): number {', '  return Number(text);', '}') },
      { 'src/broken.ts': BASE['src/broken.ts'] + lines('export const m = 1;') },
    );
    expect(result).toMatchObject({ status: 'checked', errors: [] });
    // The merge's program and the base's; the sides' would have made four.
    expect(programs).toBe(2);
  });

  it('builds the sides where the base lacks an error, and reports what neither side has', async () => {
    // a adds a parameter; b adds a call with the old arity: the merge alone breaks.
    const { result, programs } = await check(
      { 'src/math.ts': lines('export function parse(text: string, radix: number): number {', '  return parseInt(text, radix);', '}') },
      { 'src/use.ts': lines("import { parse } from './math.js';", '', 'export const k = parse("2");') },
    );
    expect(result.status).toBe('checked');
    const errors = result.status === 'checked' ? result.errors.map((e) => `${e.diag.path}:${e.diag.line} TS${e.diag.code}`) : [];
    expect(errors).toEqual(['src/use.ts:3 TS2554']);
    // The merge's and b's: use.ts is neither in the base nor in a, so they have no program for it.
    expect(programs).toBe(2);
  });
});
