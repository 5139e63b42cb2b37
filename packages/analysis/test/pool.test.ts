import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createParsePool, parseAll, prestartParseWorkers, type ParseJob } from '../src/index.js';

const job = (text: string): ParseJob => ({ language: 'typescript', content: Buffer.from(text) });
const crashing = new URL('./workers/crashing-worker.mjs', import.meta.url);
const broken = new URL('./workers/broken-worker.mjs', import.meta.url);
const oneChunk = new URL('./workers/one-chunk-worker.mjs', import.meta.url);
const threadIds = new URL('./workers/thread-id-worker.mjs', import.meta.url);

describe('parseAll', () => {
  test('parses in this thread with workers: 0, in order, chunk by chunk', async () => {
    const jobs = Array.from({ length: 30 }, (_, i) => job(`export const v${i} = ${i};\n${'// pad\n'.repeat(400)}`));
    let progress = 0;
    const out = await parseAll(jobs, { workers: 0, chunkBytes: 16 * 1024, onParsed: (n) => (progress = n) });
    expect(progress).toBe(30);
    out.forEach((o, i) => {
      expect('facts' in o && o.facts.definitions.map((d) => d.name)).toEqual([`v${i}`]);
    });
  });

  test('imports only: the import scanner answers in this thread, workers get only the files it declines', async () => {
    // Workers that answer every file with an error naming it: an answer with facts came from this thread.
    const scanned = Array.from({ length: 40 }, (_, i) => ({
      language: 'typescript' as const,
      content: Buffer.from(`import a${i} from './a${i}';\n${'// pad\n'.repeat(1200)}`),
      importsOnly: true,
    }));
    const declined = {
      language: 'typescript' as const,
      content: Buffer.from(`namespace N { export const x = require('./x'); }\n${'x'.repeat(40000)}`),
      importsOnly: true,
    };
    const out = await parseAll([...scanned, declined, declined], { workers: 2, chunkBytes: 16 * 1024, workerUrl: crashing });
    out.slice(0, 40).forEach((o, i) => expect('facts' in o && o.facts.imports.map((x) => x.specifier)).toEqual([`./a${i}`]));
    for (const o of out.slice(40)) expect('error' in o && o.error.startsWith('seen namespace N')).toBe(true);
  });

  test('feeds chunks to long-lived workers and puts every answer at its job', async () => {
    const jobs = Array.from({ length: 40 }, (_, i) => job(`file ${i} ${'x'.repeat(8000)}`));
    const out = await parseAll(jobs, { workers: 2, chunkBytes: 16 * 1024, workerUrl: crashing });
    out.forEach((o, i) => expect('error' in o && o.error.startsWith(`seen file ${i} `)).toBe(true));
  });

  test('a file that kills its worker fails alone; the rest of its chunk is parsed again', async () => {
    const jobs = [
      ...Array.from({ length: 10 }, (_, i) => job(`ok ${i} ${' '.repeat(1500)}`)),
      job('crash'),
      ...Array.from({ length: 10 }, (_, i) => job(`ok ${10 + i} ${' '.repeat(1500)}`)),
    ];
    let progress = 0;
    const out = await parseAll(jobs, { workers: 2, chunkBytes: 16 * 1024, workerUrl: crashing, onParsed: (n) => (progress = n) });
    expect(progress).toBe(21);
    expect(out[10]).toEqual({ error: 'parse worker exited with code 3' });
    out.forEach((o, i) => {
      if (i !== 10) expect('error' in o && o.error.startsWith('seen ok ')).toBe(true);
    });
  });

  test('a byte order mark is dropped the same way in this thread and in workers: columns as editors count them', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("export const msg = 'hi';\n")]);
    const pad = Array.from({ length: 8 }, (_, i) => job(`export const p${i} = 1;\n${'// pad\n'.repeat(500)}`));
    const inThread = await parseAll([{ language: 'javascript', content: bom }, ...pad], { workers: 0 });
    const pooled = await parseAll([{ language: 'javascript', content: bom }, ...pad], { workers: 2, chunkBytes: 16 * 1024 });
    for (const out of [inThread, pooled]) {
      const first = out[0]!;
      expect('facts' in first && first.facts.definitions.map((d) => `${d.name}@${d.line}:${d.column}`)).toEqual(['msg@1:13']);
    }
    expect(pooled.map((o) => ('facts' in o ? o.facts.definitions : o))).toEqual(
      inThread.map((o) => ('facts' in o ? o.facts.definitions : o)),
    );
  });

  test('a pool takes jobs as they come: threads start with the first full chunk, less than a chunk is parsed here', async () => {
    const small = createParsePool({ workers: 2, chunkBytes: 16 * 1024, workerUrl: crashing });
    const few = [small.parse(job('export const a = 1;\n')), small.parse(job('export const b = 2;\n'))];
    await small.close();
    // The stand-in worker would have answered with errors: these were parsed in this thread.
    expect((await Promise.all(few)).map((o) => ('facts' in o ? o.facts.definitions[0]!.name : o))).toEqual(['a', 'b']);

    const streaming = createParsePool({ workers: 2, chunkBytes: 16 * 1024, workerUrl: crashing });
    const outcomes = [];
    for (let i = 0; i < 40; i++) {
      outcomes.push(streaming.parse(job(`file ${i} ${'x'.repeat(4000)}`)));
      if (i % 5 === 4) await new Promise((resolve) => setImmediate(resolve));
    }
    // Answers for full chunks arrive before close.
    await Promise.race([outcomes[0], new Promise((_, reject) => setTimeout(() => reject(new Error('no answer before close')), 5000))]);
    await streaming.close();
    (await Promise.all(outcomes)).forEach((o, i) => expect('error' in o && o.error.startsWith(`seen file ${i} `)).toBe(true));
  });

  test('workers that cannot start fail the files with the reason after two tries, not one thread per file', async () => {
    const jobs = Array.from({ length: 60 }, (_, i) => job(`file ${i} ${'x'.repeat(4000)}`));
    const out = await parseAll(jobs, { workers: 2, chunkBytes: 16 * 1024, workerUrl: broken });
    for (const o of out)
      expect('error' in o && o.error).toMatch(/^parse workers cannot start: parse worker failed: cannot load the parser/);
  });

  test('a worker lost between chunks is replaced, not sent the next chunk', async () => {
    const pool = createParsePool({ workers: 1, chunkBytes: 16 * 1024, workerUrl: oneChunk });
    const outcomes = [];
    for (let i = 0; i < 12; i++) {
      outcomes.push(pool.parse(job(`file ${i} ${' '.repeat(8000)}`)));
      await new Promise((resolve) => setTimeout(resolve, 20)); // the worker exits between chunks
    }
    // A chunk sent to the dead worker would never be answered: fail instead of hanging.
    await Promise.race([
      pool.close(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('the pool hung on a lost worker')), 5000).unref()),
    ]);
    (await Promise.all(outcomes)).forEach((o, i) => expect(o).toEqual({ error: `seen file ${i}` }));
  });

  test('a job naming a file on disk is read by its parsing thread: same facts as its bytes, skips with their reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airspace-pool-'));
    try {
      const texts = Array.from(
        { length: 40 },
        (_, i) => `import { x } from './m${i}';\nexport const v${i} = x;\n${'// pad\n'.repeat(300)}`,
      );
      texts.forEach((t, i) => writeFileSync(join(dir, `f${i}.ts`), t));
      writeFileSync(join(dir, 'binary.ts'), Buffer.from([0x69, 0, 0x6d]));
      writeFileSync(join(dir, 'big.ts'), 'x'.repeat(5000));
      const onDisk = [
        ...texts.map((_, i): ParseJob => ({ language: 'typescript', diskPath: join(dir, `f${i}.ts`), maxBytes: 4096 })),
        { language: 'typescript', diskPath: join(dir, 'binary.ts'), maxBytes: 4096 },
        { language: 'typescript', diskPath: join(dir, 'big.ts'), maxBytes: 4096 },
        { language: 'typescript', diskPath: join(dir, 'gone.ts'), maxBytes: 4096 },
      ] satisfies ParseJob[];
      const expected = await parseAll(texts.map(job), { workers: 0 });
      for (const workers of [0, 2]) {
        const out = await parseAll(onDisk, { workers, chunkBytes: 16 * 1024 });
        expect(out.slice(0, 40)).toEqual(expected);
        expect(out[40]).toEqual({ skip: 'binary' });
        expect(out[41]).toEqual({ skip: 'too-large', detail: '5000 bytes > 4096' });
        expect(out[42]).toMatchObject({ skip: 'unreadable', detail: expect.stringContaining('ENOENT') });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('workers started ahead of the pool are the ones it parses in, and only once', async () => {
    const started = prestartParseWorkers({ workers: 2, workerUrl: threadIds });
    expect(started).toHaveLength(2);
    expect(prestartParseWorkers({ workers: 2, workerUrl: threadIds })).toEqual(started); // already waiting
    const jobs = Array.from({ length: 40 }, (_, i) => job(`file ${i} ${'x'.repeat(4000)}`));
    const threadsOf = (out: Awaited<ReturnType<typeof parseAll>>) =>
      new Set(out.map((o) => ('error' in o ? Number(o.error.split(' ')[1]) : -1)));
    const first = threadsOf(await parseAll(jobs, { workers: 2, chunkBytes: 16 * 1024, workerUrl: threadIds }));
    expect([...first].every((t) => started.includes(t))).toBe(true);
    // Taken: the next pool starts threads of its own.
    const second = threadsOf(await parseAll(jobs, { workers: 2, chunkBytes: 16 * 1024, workerUrl: threadIds }));
    expect([...second].some((t) => started.includes(t))).toBe(false);
  });
});
