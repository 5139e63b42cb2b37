import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobReader } from '../src/blob-reader.js';
import { hashBlob } from '../src/blob.js';
import { createRepoFixture, type RepoFixture } from '../src/fixture.js';

let repo: RepoFixture;
const big = 'x'.repeat(300_000) + '\n';
const huge = 'y'.repeat(2_500_000) + '\n'; // dozens of pipe chunks: joined once, whole
const files: Record<string, string> = { 'big.txt': big, 'huge.txt': huge };
for (let i = 0; i < 50; i++) files[`f${i}.txt`] = `file ${i}\n`.repeat(i + 1);
beforeAll(() => {
  repo = createRepoFixture(files);
});
afterAll(() => repo.dispose());

describe('createBlobReader: one long-lived git cat-file --batch', () => {
  it('answers many concurrent reads, each with its own content, large ones included', async () => {
    const reader = createBlobReader(repo.dir);
    try {
      const paths = Object.keys(files);
      const contents = await Promise.all(paths.map((p) => reader.read(hashBlob(files[p]!))));
      contents.forEach((c, i) => expect(c.toString('utf8')).toBe(files[paths[i]!]));
    } finally {
      reader.close();
    }
  });

  it('reads in order around a blob that comes in many chunks: small before, a missing one and small after', async () => {
    const reader = createBlobReader(repo.dir);
    try {
      const ids = [hashBlob(files['f1.txt']!), hashBlob(huge), '0'.repeat(40), hashBlob(files['f2.txt']!), hashBlob(huge)];
      const got = await Promise.allSettled(ids.map((id) => reader.read(id)));
      const text = got.map((r) => (r.status === 'fulfilled' ? r.value.toString('utf8') : 'rejected'));
      expect(text).toEqual([files['f1.txt'], huge, 'rejected', files['f2.txt'], huge]);
    } finally {
      reader.close();
    }
  });

  it('a missing object rejects that read only; reads after an idle close start git again', async () => {
    const reader = createBlobReader(repo.dir, { idleMs: 10 });
    try {
      const [missing, found] = await Promise.allSettled([reader.read('0'.repeat(40)), reader.read(hashBlob(files['f3.txt']!))]);
      expect(missing.status).toBe('rejected');
      expect(found.status === 'fulfilled' && found.value.toString()).toBe(files['f3.txt']);
      await expect(reader.read('not-an-id')).rejects.toThrow(/not an object id/);
      await new Promise((r) => setTimeout(r, 100));
      expect((await reader.read(hashBlob(big))).length).toBe(big.length);
    } finally {
      reader.close();
    }
  });
});
