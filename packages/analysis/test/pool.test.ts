import { describe, expect, test } from 'vitest';
import { parseAll, type ParseJob } from '../src/index.js';

const job = (text: string): ParseJob => ({ language: 'typescript', content: Buffer.from(text) });
const crashing = new URL('./workers/crashing-worker.mjs', import.meta.url);

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

  test('feeds chunks to long-lived workers and puts every answer at its job', async () => {
    const jobs = Array.from({ length: 40 }, (_, i) => job(`file ${i} ${'x'.repeat(8000)}`));
    const out = await parseAll(jobs, { workers: 2, chunkBytes: 16 * 1024, workerUrl: crashing });
    out.forEach((o, i) => expect('error' in o && o.error.startsWith(`seen file ${i} `)).toBe(true));
  });

  test('a file that kills its worker fails alone; the rest of its chunk is parsed again', async () => {
    const jobs = [...Array.from({ length: 10 }, (_, i) => job(`ok ${i} ${' '.repeat(1500)}`)), job('crash'), ...Array.from({ length: 10 }, (_, i) => job(`ok ${10 + i} ${' '.repeat(1500)}`))];
    let progress = 0;
    const out = await parseAll(jobs, { workers: 2, chunkBytes: 16 * 1024, workerUrl: crashing, onParsed: (n) => (progress = n) });
    expect(progress).toBe(21);
    expect(out[10]).toEqual({ error: 'parse worker exited with code 3' });
    out.forEach((o, i) => {
      if (i !== 10) expect('error' in o && o.error.startsWith('seen ok ')).toBe(true);
    });
  });
});
